// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	uapi/devmemx.yaml */
/* YNL-GEN kernel source */
/* To regenerate run: tools/net/ynl/ynl-regen.sh */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink.h"

#include <uapi/linux/devmemx.h>

/* Common nested types */
const struct nla_policy devmemx_queue_nl_policy[DEVMEMX_A_QUEUE_LEASE_QUEUE + 1] = {
	[DEVMEMX_A_QUEUE_ID] = { .type = NLA_U32, },
	[DEVMEMX_A_QUEUE_BUF_SIZE] = { .type = NLA_U32, },
	[DEVMEMX_A_QUEUE_LEASE_QUEUE] = { .type = NLA_U32, },
};

/* DEVMEMX_CMD_BIND_RX - do */
static const struct nla_policy devmemx_bind_rx_nl_policy[DEVMEMX_A_BINDING_AUTORELEASE + 1] = {
	[DEVMEMX_A_BINDING_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[DEVMEMX_A_BINDING_FD] = { .type = NLA_U32, },
	[DEVMEMX_A_BINDING_QUEUES] = NLA_POLICY_NESTED(devmemx_queue_nl_policy),
	[DEVMEMX_A_BINDING_RX_BUF_SIZE] = { .type = NLA_U32, },
	[DEVMEMX_A_BINDING_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x1),
	[DEVMEMX_A_BINDING_AUTORELEASE] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* DEVMEMX_CMD_UNBIND - do */
static const struct nla_policy devmemx_unbind_nl_policy[DEVMEMX_A_BINDING_ID + 1] = {
	[DEVMEMX_A_BINDING_ID] = { .type = NLA_U32, },
};

/* DEVMEMX_CMD_BINDING_GET - do */
static const struct nla_policy devmemx_binding_get_nl_policy[DEVMEMX_A_BINDING_ID + 1] = {
	[DEVMEMX_A_BINDING_ID] = { .type = NLA_U32, },
};

/* DEVMEMX_CMD_CAPS_GET - do */
static const struct nla_policy devmemx_caps_get_nl_policy[DEVMEMX_A_CAPS_QUEUE_ID + 1] = {
	[DEVMEMX_A_CAPS_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[DEVMEMX_A_CAPS_QUEUE_ID] = { .type = NLA_U32, },
};

/* DEVMEMX_CMD_BIND_CHECK - do */
static const struct nla_policy devmemx_bind_check_nl_policy[DEVMEMX_A_BINDING_AUTORELEASE + 1] = {
	[DEVMEMX_A_BINDING_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[DEVMEMX_A_BINDING_FD] = { .type = NLA_U32, },
	[DEVMEMX_A_BINDING_QUEUES] = NLA_POLICY_NESTED(devmemx_queue_nl_policy),
	[DEVMEMX_A_BINDING_AUTORELEASE] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* DEVMEMX_CMD_POLICY_SET - do */
static const struct nla_policy devmemx_policy_set_nl_policy[DEVMEMX_A_POLICY_QUEUES + 1] = {
	[DEVMEMX_A_POLICY_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[DEVMEMX_A_POLICY_RX_BUF_SIZE] = { .type = NLA_U32, },
	[DEVMEMX_A_POLICY_QUEUES] = NLA_POLICY_NESTED(devmemx_queue_nl_policy),
};

/* DEVMEMX_CMD_POLICY_DEL - do */
static const struct nla_policy devmemx_policy_del_nl_policy[DEVMEMX_A_POLICY_IFINDEX + 1] = {
	[DEVMEMX_A_POLICY_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* DEVMEMX_CMD_POLICY_GET - do */
static const struct nla_policy devmemx_policy_get_nl_policy[DEVMEMX_A_POLICY_IFINDEX + 1] = {
	[DEVMEMX_A_POLICY_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Ops table for devmemx */
static const struct genl_split_ops devmemx_nl_ops[] = {
	{
		.cmd	= DEVMEMX_CMD_INFO,
		.doit	= devmemx_nl_info_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_BIND_RX,
		.doit		= devmemx_nl_bind_rx_doit,
		.policy		= devmemx_bind_rx_nl_policy,
		.maxattr	= DEVMEMX_A_BINDING_AUTORELEASE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_UNBIND,
		.doit		= devmemx_nl_unbind_doit,
		.policy		= devmemx_unbind_nl_policy,
		.maxattr	= DEVMEMX_A_BINDING_ID,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_BINDING_GET,
		.doit		= devmemx_nl_binding_get_doit,
		.policy		= devmemx_binding_get_nl_policy,
		.maxattr	= DEVMEMX_A_BINDING_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= DEVMEMX_CMD_BINDING_GET,
		.start	= devmemx_nl_binding_get_dump_start,
		.dumpit	= devmemx_nl_binding_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= DEVMEMX_CMD_CAPS_GET,
		.doit		= devmemx_nl_caps_get_doit,
		.policy		= devmemx_caps_get_nl_policy,
		.maxattr	= DEVMEMX_A_CAPS_QUEUE_ID,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_BIND_CHECK,
		.doit		= devmemx_nl_bind_check_doit,
		.policy		= devmemx_bind_check_nl_policy,
		.maxattr	= DEVMEMX_A_BINDING_AUTORELEASE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_POLICY_SET,
		.doit		= devmemx_nl_policy_set_doit,
		.policy		= devmemx_policy_set_nl_policy,
		.maxattr	= DEVMEMX_A_POLICY_QUEUES,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_POLICY_DEL,
		.doit		= devmemx_nl_policy_del_doit,
		.policy		= devmemx_policy_del_nl_policy,
		.maxattr	= DEVMEMX_A_POLICY_IFINDEX,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DEVMEMX_CMD_POLICY_GET,
		.doit		= devmemx_nl_policy_get_doit,
		.policy		= devmemx_policy_get_nl_policy,
		.maxattr	= DEVMEMX_A_POLICY_IFINDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= DEVMEMX_CMD_POLICY_GET,
		.dumpit	= devmemx_nl_policy_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
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
