// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx pools: the page pools of this network namespace, as the
 * netdev family lists them (page-pool-get dump), one JSON line each.
 * Tests use it to see pools appear with a binding and go away after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <linux/netdev.h>

#include "rx.h"

static int pool_print(const struct dx_reply *r, void *arg)
{
	static const struct { int attr; const char *name; } f[] = {
		{ NETDEV_A_PAGE_POOL_ID, "id" },
		{ NETDEV_A_PAGE_POOL_IFINDEX, "ifindex" },
		{ NETDEV_A_PAGE_POOL_NAPI_ID, "napi_id" },
		{ NETDEV_A_PAGE_POOL_INFLIGHT, "inflight" },
		{ NETDEV_A_PAGE_POOL_INFLIGHT_MEM, "inflight_mem" },
		{ NETDEV_A_PAGE_POOL_DETACH_TIME, "detach_time" },
		{ NETDEV_A_PAGE_POOL_DMABUF, "dmabuf" },
	};
	struct nlattr **tb = r->tb;
	const char *sep = "{";
	unsigned int i;

	(void)arg;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (!tb[f[i].attr])
			continue;
		printf("%s\"%s\":%" PRIu64, sep, f[i].name, dx_nla_uint(tb[f[i].attr]));
		sep = ",";
	}
	printf("%s\n", *sep == '{' ? "{}" : "}");
	return 0;
}

int rx_pools(void)
{
	struct nl_msg *msg;
	struct dx_nl nl = { 0 };
	int ret;

	ret = dx_nl_open(&nl, "netdev");
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, NETDEV_CMD_PAGE_POOL_GET, true);
	if (!msg) {
		dx_nl_close(&nl);
		return -ENOMEM;
	}
	ret = dx_nl_call(&nl, msg, NETDEV_A_PAGE_POOL_MAX, pool_print, NULL,
			 "page-pool-get");
	dx_nl_close(&nl);
	return ret;
}
