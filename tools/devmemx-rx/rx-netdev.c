// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx pools | queues | qstats [--dev IFNAME] [-j]: what the netdev
 * family lists in this network namespace (page-pool-get, queue-get,
 * per-device and per-queue qstats-get dumps), one line per object: "name
 * value" pairs with devices by name, queue types by name and byte counts
 * as sizes, or with -j one JSON object of the kernel's numbers, keyed
 * (text and JSON alike) by the attribute names of netdev.yaml. Tests use
 * them to see which binding a page pool or queue has, and what each RX
 * queue received (HW-GRO included).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/netdev.h>

#include "json.h"
#include "rx.h"

/* How text shows a field (JSON always has the number). */
enum rx_fmt { RX_NUM, RX_DEV, RX_BYTES, RX_QTYPE, RX_BINDING, RX_IOURING };

struct rx_field {
	int attr;
	const char *name;
	enum rx_fmt fmt;
};

struct rx_listing {
	int cmd;
	int maxattr;
	const char *what;
	const struct rx_field *fields;
	int scope;		/* qstats-get scope, or 0 */
};

static const struct rx_field rx_pool_fields[] = {
	{ NETDEV_A_PAGE_POOL_ID, "id", RX_NUM },
	{ NETDEV_A_PAGE_POOL_IFINDEX, "ifindex", RX_DEV },
	{ NETDEV_A_PAGE_POOL_NAPI_ID, "napi-id", RX_NUM },
	{ NETDEV_A_PAGE_POOL_INFLIGHT, "inflight", RX_NUM },
	{ NETDEV_A_PAGE_POOL_INFLIGHT_MEM, "inflight-mem", RX_BYTES },
	{ NETDEV_A_PAGE_POOL_DETACH_TIME, "detach-time", RX_NUM },
	{ NETDEV_A_PAGE_POOL_DMABUF, "dmabuf", RX_BINDING },
	{ NETDEV_A_PAGE_POOL_IO_URING, "io-uring", RX_IOURING },
	{ 0, NULL, RX_NUM }
};

/* RX queues only: type is what the dump reports for each. */
static const struct rx_field rx_queue_fields[] = {
	{ NETDEV_A_QUEUE_ID, "id", RX_NUM },
	{ NETDEV_A_QUEUE_IFINDEX, "ifindex", RX_DEV },
	{ NETDEV_A_QUEUE_TYPE, "type", RX_QTYPE },
	{ NETDEV_A_QUEUE_DMABUF, "dmabuf", RX_BINDING },
	{ NETDEV_A_QUEUE_IO_URING, "io-uring", RX_IOURING },
	{ 0, NULL, RX_NUM }
};

/* Per device, then per queue; the driver reports only what it counts. */
static const struct rx_field rx_qstats_fields[] = {
	{ NETDEV_A_QSTATS_IFINDEX, "ifindex", RX_DEV },
	{ NETDEV_A_QSTATS_QUEUE_TYPE, "queue-type", RX_QTYPE },
	{ NETDEV_A_QSTATS_QUEUE_ID, "queue-id", RX_NUM },
	{ NETDEV_A_QSTATS_RX_PACKETS, "rx-packets", RX_NUM },
	{ NETDEV_A_QSTATS_RX_BYTES, "rx-bytes", RX_BYTES },
	{ NETDEV_A_QSTATS_RX_ALLOC_FAIL, "rx-alloc-fail", RX_NUM },
	{ NETDEV_A_QSTATS_RX_HW_DROPS, "rx-hw-drops", RX_NUM },
	{ NETDEV_A_QSTATS_RX_HW_GRO_PACKETS, "rx-hw-gro-packets", RX_NUM },
	{ NETDEV_A_QSTATS_RX_HW_GRO_BYTES, "rx-hw-gro-bytes", RX_BYTES },
	{ NETDEV_A_QSTATS_RX_HW_GRO_WIRE_PACKETS, "rx-hw-gro-wire-packets", RX_NUM },
	{ NETDEV_A_QSTATS_RX_HW_GRO_WIRE_BYTES, "rx-hw-gro-wire-bytes", RX_BYTES },
	{ NETDEV_A_QSTATS_TX_PACKETS, "tx-packets", RX_NUM },
	{ NETDEV_A_QSTATS_TX_BYTES, "tx-bytes", RX_BYTES },
	{ 0, NULL, RX_NUM }
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

/* What a listing prints: its fields, only @ifindex's objects (0: all). */
struct rx_print_ctx {
	const struct rx_field *fields;
	unsigned int ifindex;
	bool json;
};

/* One field's value as text, "-" where the field has none to name. */
static void rx_print_text(const struct rx_field *f, uint64_t v)
{
	char buf[IF_NAMESIZE + 24];

	switch (f->fmt) {
	case RX_DEV:
		if (v > UINT32_MAX || !if_indextoname(v, buf))
			snprintf(buf, sizeof(buf), "ifindex-%" PRIu64, v);
		fputs(buf, stdout);
		return;
	case RX_QTYPE:
		fputs(v == NETDEV_QUEUE_TYPE_RX ? "rx" :
		      v == NETDEV_QUEUE_TYPE_TX ? "tx" : "other", stdout);
		return;
	case RX_BYTES:
		dx_fmt_size(v, buf, sizeof(buf));
		fputs(buf, stdout);
		return;
	default:
		printf("%" PRIu64, v);
	}
}

/*
 * io_uring zcrx's nest: "io-uring rx-buf-len 64K" (the kernel says the size
 * from 6.19 on), -j "io-uring":{"rx-buf-len":65536}; NULL when it has none.
 */
static const struct nlattr *rx_iouring_len(const struct nlattr *a)
{
	struct nlattr *tb[NETDEV_A_IO_URING_PROVIDER_INFO_MAX + 1];

	if (nla_parse_nested(tb, NETDEV_A_IO_URING_PROVIDER_INFO_MAX,
			     (struct nlattr *)a, NULL))
		return NULL;
	return tb[NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN];
}

/* -j: one JSON object of the kernel's numbers. */
static void rx_print_json(const struct rx_field *f, const struct dx_reply *r)
{
	const struct nlattr *len;
	struct dx_json j;

	dx_json_init(&j, stdout, false);
	dx_json_open_object(&j);
	for (; f->name; f++) {
		if (!r->tb[f->attr])
			continue;
		if (f->fmt != RX_IOURING) {
			dx_json_u64_field(&j, f->name,
					  dx_nla_uint(r->tb[f->attr]));
			continue;
		}
		len = rx_iouring_len(r->tb[f->attr]);
		dx_json_key(&j, f->name);
		dx_json_open_object(&j);
		if (len)
			dx_json_u64_field(&j, "rx-buf-len", dx_nla_uint(len));
		dx_json_close_object(&j);
	}
	dx_json_close_object(&j);
}

/* Text: "name value" pairs on a line. */
static void rx_print_line(const struct rx_field *f, const struct dx_reply *r)
{
	const struct nlattr *len;
	const char *sep = "";
	char buf[24];

	for (; f->name; f++) {
		if (!r->tb[f->attr])
			continue;
		fputs(sep, stdout);
		sep = " ";
		if (f->fmt == RX_IOURING) {
			fputs("io-uring", stdout);
			len = rx_iouring_len(r->tb[f->attr]);
			if (len) {
				dx_fmt_size(dx_nla_uint(len), buf, sizeof(buf));
				printf(" rx-buf-len %s", buf);
			}
			continue;
		}
		/* Text names the device and the binding as the CLI does. */
		if (f->fmt == RX_DEV)
			fputs("dev ", stdout);
		else if (f->fmt == RX_BINDING)
			fputs("binding ", stdout);
		else
			printf("%s ", f->name);
		rx_print_text(f, dx_nla_uint(r->tb[f->attr]));
	}
	putchar('\n');
}

static int rx_print(const struct dx_reply *r, void *arg)
{
	const struct rx_print_ctx *c = arg;
	const struct rx_field *f;

	/* --dev: objects of that device only (not those whose device went). */
	for (f = c->fields; c->ifindex && f->name; f++)
		if (f->fmt == RX_DEV && (!r->tb[f->attr] ||
					 dx_nla_uint(r->tb[f->attr]) != c->ifindex))
			return 0;
	if (c->json)
		rx_print_json(c->fields, r);
	else
		rx_print_line(c->fields, r);
	return 0;
}

static int rx_netdev_list(enum rx_list which, struct rx_print_ctx *c)
{
	const struct rx_listing *l = &rx_listings[which];

	c->fields = l->fields;
	return dx_nl_dump("netdev", l->cmd, l->maxattr,
			  l->scope ? NETDEV_A_QSTATS_SCOPE : 0, l->scope,
			  rx_print, c, l->what, 0);
}

const char rx_pools_synopsis[] =
	"devmemx-rx pools [--dev IFNAME] [-j|--json]\n";
const char rx_queues_synopsis[] =
	"devmemx-rx queues [--dev IFNAME] [-j|--json]\n";
const char rx_qstats_synopsis[] =
	"devmemx-rx qstats [--dev IFNAME] [-j|--json]\n";

const char rx_netdev_help[] =
	"pools, queues: the page pools and queues the netdev family lists in this\n"
	"network namespace, a line each (with the dma-buf binding id)\n"
	"qstats: each device's counters, then each RX and TX queue's (packets,\n"
	"bytes, HW-GRO), a line each (device lines have no queue-id)\n"
	"  --dev IFNAME          only IFNAME's\n"
	"  -j, --json            one JSON object per line, the kernel's numbers\n"
	"                        (ifindex, queue type 0 rx 1 tx, bytes; dmabuf: the\n"
	"                        binding id)\n";

int rx_parse_netdev(int argc, char **argv, struct rx_netdev_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = argv[0];
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o->ifindex = if_nametoindex(optarg);
			if (!o->ifindex) {
				fprintf(stderr, "devmemx-rx: no network device \"%s\" (see: ip link)\n",
					optarg);
				return -ENODEV;
			}
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			return 1;	/* --help: main prints the usage */
		case ':':
			return dx_bad_usage("%s needs IFNAME", argv[optind - 1]);
		default:
			return dx_bad_usage("unknown option \"%s\" for %s (try: devmemx-rx --help)",
					    argv[optind - 1], cmd);
		}
	}
	if (optind < argc)
		return dx_bad_usage("%s takes no argument \"%s\" (try: devmemx-rx --help)",
				    cmd, argv[optind]);
	o->list = !strcmp(cmd, "pools") ? RX_LIST_POOLS :
		  !strcmp(cmd, "queues") ? RX_LIST_QUEUES : RX_LIST_QSTATS;
	return 0;
}

int rx_netdev_run(const struct rx_netdev_opts *o)
{
	struct rx_print_ctx c = { .ifindex = o->ifindex, .json = o->json };

	if (o->list != RX_LIST_QSTATS)
		return rx_netdev_list(o->list, &c);
	return rx_netdev_list(RX_LIST_QSTATS_DEV, &c) ?:
	       rx_netdev_list(RX_LIST_QSTATS, &c);
}
