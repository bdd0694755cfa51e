// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	uapi/devmemx.yaml */
/* YNL-GEN kernel source */
/* To regenerate run: tools/net/ynl/ynl-regen.sh */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink.h"

#include <uapi/linux/devmemx.h>

/* Ops table for devmemx */
static const struct genl_split_ops devmemx_nl_ops[] = {
	{
		.cmd	= DEVMEMX_CMD_INFO,
		.doit	= devmemx_nl_info_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
};

struct genl_family devmemx_nl_family __ro_after_init = {
	.name		= DEVMEMX_FAMILY_NAME,
	.version	= DEVMEMX_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= devmemx_nl_ops,
	.n_split_ops	= ARRAY_SIZE(devmemx_nl_ops),
};
