/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/devmemx.yaml */
/* YNL-GEN kernel header */
/* To regenerate run: tools/net/ynl/ynl-regen.sh */

#ifndef _LINUX_DEVMEMX_GEN_H
#define _LINUX_DEVMEMX_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/devmemx.h>

/* Common nested types */
extern const struct nla_policy devmemx_queue_nl_policy[DEVMEMX_A_QUEUE_LEASE_QUEUE + 1];

int devmemx_nl_binding_get_dump_start(struct netlink_callback *cb);

int devmemx_nl_info_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_bind_rx_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_unbind_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_binding_get_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_binding_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int devmemx_nl_caps_get_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_bind_check_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_policy_del_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info);
int devmemx_nl_policy_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);

extern struct genl_family devmemx_nl_family;

#endif /* _LINUX_DEVMEMX_GEN_H */
