// SPDX-License-Identifier: GPL-2.0
/* devmemx-rx's command line: usage, option parsing, checks. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "pattern.h"
#include "rx.h"
#include "util.h"

#define RX_DEFAULT_TIMEOUT	30

void rx_usage(FILE *f)
{
	fputs("usage: devmemx-rx recv --dev IFNAME --queues LIST --port PORT --expect BYTES\n"
	      "                       [--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE]\n"
	      "                       [--provider netdev|devmemx] [--rx-page-size SIZE]\n"
	      "                       [--seed N] [--no-flow-rule] [--timeout SEC] [--listen ADDR]\n"
	      "       devmemx-rx send --addr IP --port PORT --bytes N\n"
	      "                       [--seed N] [--chunk SIZE] [--timeout SEC]\n"
	      "       devmemx-rx pools | queues | qstats\n"
	      "       devmemx-rx --help\n"
	      "\n"
	      "recv: make a dma-buf, bind it to RX queues of IFNAME, steer TCP port PORT\n"
	      "to the first of them, accept one connection and verify every byte.\n"
	      "  --dev IFNAME          the network device\n"
	      "  --queues LIST         RX queues to bind: 2, 2,3 or 2-5\n"
	      "  --port PORT           TCP port to listen on\n"
	      "  --expect BYTES        how many bytes the sender sends\n"
	      "  --udmabuf SIZE        dma-buf from a memfd via /dev/udmabuf (default 64M)\n"
	      "  --hugetlb             back it with 2M huge pages (SIZE a multiple of 2M)\n"
	      "  --dma-heap NAME SIZE  dma-buf from /dev/dma_heap/NAME instead\n"
	      "  --provider P          netdev: in-tree devmem (default); devmemx: the module\n"
	      "  --rx-page-size SIZE   ask for RX buffers (niovs) of SIZE bytes\n"
	      "  --seed N              pattern seed (default 0x9e3779b97f4a7c15)\n"
	      "  --no-flow-rule        install no ntuple rule (steer the flow yourself); the\n"
	      "                        rule is tcp4, or tcp6 when --listen is IPv6\n"
	      "  --timeout SEC         give up after SEC s without a connection or data\n"
	      "                        (default 30, 0: never)\n"
	      "  --listen ADDR         listen on ADDR (default: IPv6 and IPv4 any)\n"
	      "\n"
	      "send: connect (retrying until --timeout) and send N bytes of the pattern.\n"
	      "  --addr IP             the receiver's address\n"
	      "  --port PORT           its port\n"
	      "  --bytes N             how many bytes to send\n"
	      "  --seed N              pattern seed (default 0x9e3779b97f4a7c15)\n"
	      "  --chunk SIZE          bytes per write (default 1M)\n"
	      "  --timeout SEC         give up connecting or sending after SEC s (default 30)\n"
	      "\n"
	      "SIZE, BYTES and N take a K, M or G suffix (powers of 1024). recv prints one\n"
	      "JSON line of counters, send prints {\"bytes_sent\":N}. Exit status: 0 when\n"
	      "every byte arrived and verified, 1 on failure, 2 on bad usage.\n"
	      "\n"
	      "pools, queues: the page pools and queues the netdev family lists in this\n"
	      "network namespace, one JSON line each (with the binding id as dmabuf)\n"
	      "qstats: each device's counters, then each RX and TX queue's (packets,\n"
	      "bytes, HW-GRO), one JSON line each (device lines have no queue_id)\n", f);
}

/* --help: usage on stdout; > 0 tells main to exit 0. */
static int help(void)
{
	rx_usage(stdout);
	return 1;
}

static int parse_port(const char *s, const char *opt, uint16_t *port)
{
	uint64_t v;

	if (dx_parse_uint(s, opt, 0, 65535, &v))
		return -EINVAL;
	if (!v)
		return dx_bad_usage("bad port \"%s\" for %s: use 1 to 65535", s, opt);
	*port = v;
	return 0;
}

static int parse_timeout(const char *s, int *timeout)
{
	uint64_t v;

	if (dx_parse_uint(s, "--timeout", 0, 86400 * 365, &v))
		return -EINVAL;
	*timeout = v;
	return 0;
}

static int unknown_option(char **argv, const char *cmd)
{
	fprintf(stderr, "devmemx-rx: unknown option \"%s\" for %s (try: devmemx-rx --help)\n",
		argv[optind - 1], cmd);
	return -EINVAL;
}

static int missing_arg(char **argv)
{
	fprintf(stderr, "devmemx-rx: %s needs an argument\n", argv[optind - 1]);
	return -EINVAL;
}

static int positional(int argc, char **argv, const char *cmd)
{
	if (optind >= argc)
		return 0;
	fprintf(stderr, "devmemx-rx: unexpected argument \"%s\" for %s\n",
		argv[optind], cmd);
	return -EINVAL;
}

enum {
	O_DEV = 256, O_QUEUES, O_PORT, O_EXPECT, O_UDMABUF, O_HUGETLB,
	O_DMA_HEAP, O_PROVIDER, O_RX_PAGE_SIZE, O_SEED, O_NO_FLOW_RULE,
	O_TIMEOUT, O_LISTEN, O_ADDR, O_BYTES, O_CHUNK,
};

static int recv_opt(int c, char *arg, int argc, char **argv,
		    struct rx_opts *o)
{
	switch (c) {
	case O_DEV:
		o->dev = arg;
		return 0;
	case O_QUEUES:
		return dx_parse_queues(arg, "--queues", o->queues, DX_MAX_QUEUES,
				       &o->nqueues);
	case O_PORT:
		return parse_port(arg, "--port", &o->port);
	case O_EXPECT:
		return dx_parse_size(arg, "--expect", &o->expect);
	case O_UDMABUF:
		o->buf.kind = DX_UDMABUF;
		return dx_parse_size(arg, "--udmabuf", &o->buf.size);
	case O_HUGETLB:
		o->buf.hugetlb = true;
		return 0;
	case O_DMA_HEAP:
		if (optind >= argc)
			return dx_bad_usage("--dma-heap %s needs a SIZE after the heap name",
					    arg);
		o->buf.kind = DX_DMA_HEAP;
		o->buf.heap = arg;
		return dx_parse_size(argv[optind++], "--dma-heap", &o->buf.size);
	case O_PROVIDER:
		o->provider = rx_provider_find(arg);
		if (!o->provider)
			return dx_bad_usage("unknown provider \"%s\" for %s: use netdev or devmemx",
					    arg, "--provider");
		return 0;
	case O_RX_PAGE_SIZE:
		return dx_parse_buf_size(arg, "--rx-page-size", &o->rx_page_size);
	case O_SEED:
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_NO_FLOW_RULE:
		o->no_flow_rule = true;
		return 0;
	case O_TIMEOUT:
		return parse_timeout(arg, &o->timeout);
	case O_LISTEN:
		o->listen = arg;
		return 0;
	case ':':
		return missing_arg(argv);
	default:
		return unknown_option(argv, "recv");
	}
}

static bool is_addr(const char *s)
{
	struct in6_addr a;

	return inet_pton(AF_INET, s, &a) == 1 || inet_pton(AF_INET6, s, &a) == 1;
}

static int recv_check(const struct rx_opts *o, bool got_expect)
{
	if (!o->dev)
		return dx_bad_usage("recv needs --dev IFNAME");
	if (!o->nqueues)
		return dx_bad_usage("recv needs --queues LIST (e.g. --queues 2)");
	if (!o->port)
		return dx_bad_usage("recv needs --port PORT");
	if (!got_expect)
		return dx_bad_usage("recv needs --expect BYTES");
	if (dx_dmabuf_check(&o->buf))
		return -EINVAL;
	if (o->listen && !is_addr(o->listen))
		return dx_bad_usage("bad --listen address \"%s\": use an IPv4 or IPv6 address",
				    o->listen);
	return 0;
}

int rx_parse_recv(int argc, char **argv, struct rx_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "port", required_argument, NULL, O_PORT },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "udmabuf", required_argument, NULL, O_UDMABUF },
		{ "hugetlb", no_argument, NULL, O_HUGETLB },
		{ "dma-heap", required_argument, NULL, O_DMA_HEAP },
		{ "provider", required_argument, NULL, O_PROVIDER },
		{ "rx-page-size", required_argument, NULL, O_RX_PAGE_SIZE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "no-flow-rule", no_argument, NULL, O_NO_FLOW_RULE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool got_expect = false;
	int c;

	o->buf.kind = DX_UDMABUF;
	o->buf.size = 64 << 20;
	o->provider = rx_provider_find("netdev");
	o->seed = DX_PAT_SEED;
	o->timeout = RX_DEFAULT_TIMEOUT;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'h')
			return help();
		if (recv_opt(c, optarg, argc, argv, o))
			return -EINVAL;
		got_expect |= c == O_EXPECT;
	}
	if (positional(argc, argv, "recv"))
		return -EINVAL;
	return recv_check(o, got_expect);
}

static int send_opt(int c, char *arg, char **argv, struct tx_opts *o)
{
	switch (c) {
	case O_ADDR:
		o->addr = arg;
		return 0;
	case O_PORT:
		return parse_port(arg, "--port", &o->port);
	case O_BYTES:
		return dx_parse_size(arg, "--bytes", &o->bytes);
	case O_SEED:
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_CHUNK:
		if (dx_parse_size(arg, "--chunk", &o->chunk))
			return -EINVAL;
		if (!o->chunk || o->chunk > 64 << 20)
			return dx_bad_usage("bad --chunk \"%s\": use 1 to 64M", arg);
		return 0;
	case O_TIMEOUT:
		return parse_timeout(arg, &o->timeout);
	case ':':
		return missing_arg(argv);
	default:
		return unknown_option(argv, "send");
	}
}

int rx_parse_send(int argc, char **argv, struct tx_opts *o)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, O_ADDR },
		{ "port", required_argument, NULL, O_PORT },
		{ "bytes", required_argument, NULL, O_BYTES },
		{ "seed", required_argument, NULL, O_SEED },
		{ "chunk", required_argument, NULL, O_CHUNK },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool got_bytes = false;
	int c;

	o->seed = DX_PAT_SEED;
	o->chunk = 1 << 20;
	o->timeout = RX_DEFAULT_TIMEOUT;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'h')
			return help();
		if (send_opt(c, optarg, argv, o))
			return -EINVAL;
		got_bytes |= c == O_BYTES;
	}
	if (positional(argc, argv, "send"))
		return -EINVAL;
	if (!o->addr)
		return dx_bad_usage("send needs --addr IP");
	if (!is_addr(o->addr))
		return dx_bad_usage("bad --addr \"%s\": use an IPv4 or IPv6 address",
				    o->addr);
	if (!o->port)
		return dx_bad_usage("send needs --port PORT");
	if (!got_bytes)
		return dx_bad_usage("send needs --bytes N");
	return 0;
}
