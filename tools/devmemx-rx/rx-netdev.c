// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx pools | queues | qstats: what the netdev family lists in this
 * network namespace (page-pool-get, queue-get, per-queue qstats-get dumps),
 * one JSON line per object. Tests use them to see which binding a page pool
 * or queue has, and what each RX queue received (HW-GRO included).
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
	int scope;		/* qstats-get scope, or 0 */
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

/* Per device, then per queue; the driver reports only what it counts. */
static const struct rx_field rx_qstats_fields[] = {
	{ NETDEV_A_QSTATS_IFINDEX, "ifindex" },
	{ NETDEV_A_QSTATS_QUEUE_TYPE, "queue_type" },
	{ NETDEV_A_QSTATS_QUEUE_ID, "queue_id" },
	{ NETDEV_A_QSTATS_RX_PACKETS, "rx_packets" },
	{ NETDEV_A_QSTATS_RX_BYTES, "rx_bytes" },
	{ NETDEV_A_QSTATS_RX_ALLOC_FAIL, "rx_alloc_fail" },
	{ NETDEV_A_QSTATS_RX_HW_DROPS, "rx_hw_drops" },
	{ NETDEV_A_QSTATS_RX_HW_GRO_PACKETS, "rx_hw_gro_packets" },
	{ NETDEV_A_QSTATS_RX_HW_GRO_BYTES, "rx_hw_gro_bytes" },
	{ NETDEV_A_QSTATS_RX_HW_GRO_WIRE_PACKETS, "rx_hw_gro_wire_packets" },
	{ NETDEV_A_QSTATS_RX_HW_GRO_WIRE_BYTES, "rx_hw_gro_wire_bytes" },
	{ NETDEV_A_QSTATS_TX_PACKETS, "tx_packets" },
	{ NETDEV_A_QSTATS_TX_BYTES, "tx_bytes" },
	{ 0, NULL }
};

static const struct rx_listing rx_listings[] = {
	[RX_LIST_POOLS] = { .cmd = NETDEV_CMD_PAGE_POOL_GET,
			    .maxattr = NETDEV_A_PAGE_POOL_MAX,
			    .what = "page-pool-get", .fields = rx_pool_fields },
	[RX_LIST_QUEUES] = { .cmd = NETDEV_CMD_QUEUE_GET,
			     .maxattr = NETDEV_A_QUEUE_MAX,
			     .what = "queue-get", .fields = rx_queue_fields },
	[RX_LIST_QSTATS_DEV] = { .cmd = NETDEV_CMD_QSTATS_GET,
				 .maxattr = NETDEV_A_QSTATS_MAX,
				 .what = "qstats-get", .fields = rx_qstats_fields },
	[RX_LIST_QSTATS] = { .cmd = NETDEV_CMD_QSTATS_GET,
			     .maxattr = NETDEV_A_QSTATS_MAX,
			     .what = "qstats-get", .fields = rx_qstats_fields,
			     .scope = NETDEV_QSTATS_SCOPE_QUEUE },
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

/*
 * One netdev family dump: @cmd, with @fn per reply; @scope for qstats-get
 * (0: per device); @quiet_err an errno to return without a message, or 0.
 */
int rx_netdev_dump(int cmd, int maxattr, int scope, dx_reply_fn fn,
		   void *arg, const char *what, int quiet_err)
{
	struct dx_nl nl = { 0 };
	struct nl_msg *msg;
	int ret;

	ret = dx_nl_open(&nl, "netdev");
	if (ret)
		return ret;
	nl.quiet_err = quiet_err;
	msg = dx_nl_msg(&nl, cmd, true);
	if (msg && scope && nla_put_u32(msg, NETDEV_A_QSTATS_SCOPE, scope) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		dx_nl_close(&nl);
		return dx_nomem();
	}
	ret = dx_nl_call(&nl, msg, maxattr, fn, arg, what);
	dx_nl_close(&nl);
	return ret;
}

int rx_netdev_list(enum rx_list which)
{
	const struct rx_listing *l = &rx_listings[which];

	return rx_netdev_dump(l->cmd, l->maxattr, l->scope, rx_print,
			      (void *)l->fields, l->what, 0);
}
