// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx pools | queues: what the netdev family lists in this network
 * namespace (page-pool-get, queue-get dumps), one JSON line per object.
 * Tests use them to see which binding a page pool or queue has.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <linux/netdev.h>

#include "rx.h"

struct rx_field {
	int attr;
	const char *name;
};

struct rx_listing {
	int cmd;
	int maxattr;
	const char *what;
	const struct rx_field *fields;
};

static const struct rx_field rx_pool_fields[] = {
	{ NETDEV_A_PAGE_POOL_ID, "id" },
	{ NETDEV_A_PAGE_POOL_IFINDEX, "ifindex" },
	{ NETDEV_A_PAGE_POOL_NAPI_ID, "napi_id" },
	{ NETDEV_A_PAGE_POOL_INFLIGHT, "inflight" },
	{ NETDEV_A_PAGE_POOL_INFLIGHT_MEM, "inflight_mem" },
	{ NETDEV_A_PAGE_POOL_DETACH_TIME, "detach_time" },
	{ NETDEV_A_PAGE_POOL_DMABUF, "dmabuf" },
	{ 0, NULL }
};

/* RX queues only: type is what the dump reports for each. */
static const struct rx_field rx_queue_fields[] = {
	{ NETDEV_A_QUEUE_ID, "id" },
	{ NETDEV_A_QUEUE_IFINDEX, "ifindex" },
	{ NETDEV_A_QUEUE_TYPE, "type" },
	{ NETDEV_A_QUEUE_DMABUF, "dmabuf" },
	{ 0, NULL }
};

static const struct rx_listing rx_listings[] = {
	{ NETDEV_CMD_PAGE_POOL_GET, NETDEV_A_PAGE_POOL_MAX, "page-pool-get",
	  rx_pool_fields },
	{ NETDEV_CMD_QUEUE_GET, NETDEV_A_QUEUE_MAX, "queue-get", rx_queue_fields },
};

static int rx_print(const struct dx_reply *r, void *arg)
{
	const struct rx_field *f = arg;
	const char *sep = "{";

	for (; f->name; f++) {
		if (!r->tb[f->attr])
			continue;
		printf("%s\"%s\":%" PRIu64, sep, f->name, dx_nla_uint(r->tb[f->attr]));
		sep = ",";
	}
	printf("%s\n", *sep == '{' ? "{}" : "}");
	return 0;
}

int rx_netdev_list(enum rx_list which)
{
	const struct rx_listing *l = &rx_listings[which];
	struct dx_nl nl = { 0 };
	struct nl_msg *msg;
	int ret;

	ret = dx_nl_open(&nl, "netdev");
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, l->cmd, true);
	if (!msg) {
		dx_nl_close(&nl);
		return -ENOMEM;
	}
	ret = dx_nl_call(&nl, msg, l->maxattr, rx_print, (void *)l->fields,
			 l->what);
	dx_nl_close(&nl);
	return ret;
}
