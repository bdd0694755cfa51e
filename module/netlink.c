// SPDX-License-Identifier: GPL-2.0
/* The devmemx generic netlink family: request handlers. */
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "devmemx.h"
#include "generated/netlink.h"

int devmemx_nl_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *rsp;
	void *hdr;

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

	hdr = genlmsg_iput(rsp, info);
	if (!hdr)
		goto err_free;
	if (nla_put_string(rsp, DEVMEMX_A_INFO_VERSION, DEVMEMX_VERSION) ||
	    nla_put_string(rsp, DEVMEMX_A_INFO_KERNEL, init_utsname()->release) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_FEATURES, devmemx_features()))
		goto err_free;

	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);

err_free:
	nlmsg_free(rsp);
	return -EMSGSIZE;
}

int devmemx_nl_init(void)
{
	return genl_register_family(&devmemx_nl_family);
}

void devmemx_nl_exit(void)
{
	genl_unregister_family(&devmemx_nl_family);
}
