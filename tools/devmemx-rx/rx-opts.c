// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx's command line: the helpers every subcommand's parser shares,
 * and recv's and send's options with their usage (ab's are in
 * rx-ab-opts.c, those of pools, queues and qstats in rx-netdev.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "pattern.h"
#include "rx-opts.h"
#include "rx.h"
#include "util.h"

#define RX_DEFAULT_TIMEOUT	30

int rx_parse_port(const char *s, const char *opt, uint16_t *port)
{
	uint64_t v;

	if (dx_parse_uint(s, opt, 0, 65535, &v))
		return -EINVAL;
	if (!v)
		return dx_bad_usage("bad port \"%s\" for %s: use 1 to 65535", s, opt);
	*port = v;
	return 0;
}

int rx_parse_seconds(const char *s, const char *opt, int *sec)
{
	uint64_t v;

	if (dx_parse_uint(s, opt, 0, 86400 * 365, &v))
		return -EINVAL;
	*sec = v;
	return 0;
}

/* --verify-every N: 1 (every fragment) to 2^32 - 1. */
int rx_parse_every(const char *s, uint32_t *every)
{
	uint64_t v;

	if (dx_parse_uint(s, "--verify-every", 1, UINT32_MAX, &v))
		return -EINVAL;
	*every = v;
	return 0;
}

int rx_unknown_option(char **argv, const char *cmd)
{
	fprintf(stderr, "devmemx-rx: unknown option \"%s\" for %s (try: devmemx-rx --help)\n",
		argv[optind - 1], cmd);
	return -EINVAL;
}

int rx_missing_arg(char **argv)
{
	fprintf(stderr, "devmemx-rx: %s needs an argument\n", argv[optind - 1]);
	return -EINVAL;
}

int rx_positional(int argc, char **argv, const char *cmd)
{
	if (optind >= argc)
		return 0;
	fprintf(stderr, "devmemx-rx: unexpected argument \"%s\" for %s\n",
		argv[optind], cmd);
	return -EINVAL;
}

/*
 * The dma-buf options recv and ab share (ab's option table has no
 * --revocable, --tail-first, --p2pdma, --vram-dev or --vfio); 1 when @c
 * is none of them.
 */
int rx_buf_opt(int c, char *arg, int argc, char **argv,
		   struct dx_dmabuf_spec *b)
{
	uint64_t v;

	switch (c) {
	case O_UDMABUF:
		b->kind = DX_UDMABUF;
		return dx_parse_size(arg, "--udmabuf", &b->size);
	case O_HUGETLB:
		b->hugetlb = true;
		return 0;
	case O_DMA_HEAP:
		if (optind >= argc)
			return dx_bad_usage("--dma-heap %s needs a SIZE after the heap name",
					    arg);
		b->kind = DX_DMA_HEAP;
		b->heap = arg;
		return dx_parse_size(argv[optind++], "--dma-heap", &b->size);
	case O_VRAM:
		b->kind = DX_VRAM;
		return dx_parse_size(arg, "--vram", &b->size);
	case O_REVOCABLE:
		b->revocable = true;
		return 0;
	case O_TAIL_FIRST:
		b->tail_first = true;
		return 0;
	case O_P2PDMA:
		b->p2pdma = true;
		return 0;
	case O_VRAM_DEV:
		b->vram_dev = arg;
		return 0;
	case O_PID:
	case O_FD:
		b->kind = DX_HELD;
		b->held_set |= c == O_PID ? 1 : 2;
		if (dx_parse_uint(arg, c == O_PID ? "--pid" : "--fd",
				  c == O_PID, INT32_MAX, &v))
			return -EINVAL;
		*(c == O_PID ? &b->pid : &b->fd) = v;
		return 0;
	case O_VFIO:
		if (optind >= argc)
			return dx_bad_usage("--vfio %s needs a SIZE after the PCI function",
					    arg);
		b->kind = DX_VFIO;
		b->vfio = arg;
		return dx_parse_size(argv[optind++], "--vfio", &b->size);
	}
	return 1;
}

const char rx_recv_synopsis[] =
	"devmemx-rx recv --dev IFNAME --queues LIST --port PORT --expect BYTES\n"
	"                       [--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE |\n"
	"                        --vram SIZE [--vram-dev PATH] [--revocable]\n"
	"                        [--tail-first] [--p2pdma] |\n"
	"                        --vfio BDF SIZE | --pid PID --fd FD [--no-verify]]\n"
	"                       [--verify-every N]\n"
	"                       [--provider netdev|devmemx] [--rx-page-size SIZE]\n"
	"                       [--autorelease 0|1]\n"
	"                       [--seed N] [--no-flow-rule] [--timeout SEC] [--listen ADDR]\n"
	"                       [--hold SEC [--probe-dontneed]]\n";

const char rx_recv_help[] =
	"recv: make a dma-buf, bind it to RX queues of IFNAME, steer TCP port PORT\n"
	"to the first of them, accept one connection and verify every byte.\n"
	"  --dev IFNAME          the network device\n"
	"  --queues LIST         RX queues to bind: 2, 2,3 or 2-5\n"
	"  --port PORT           TCP port to listen on\n"
	"  --expect BYTES        how many bytes the sender sends\n"
	"  --udmabuf SIZE        dma-buf from a memfd via /dev/udmabuf (default 64M)\n"
	"  --hugetlb             back it with 2M huge pages (SIZE a multiple of 2M)\n"
	"  --dma-heap NAME SIZE  dma-buf from /dev/dma_heap/NAME instead\n"
	"  --vram SIZE           device memory without struct pages from the test\n"
	"                        exporter devmemx_vram, read back through its device\n"
	"  --revocable           the --vram dma-buf takes only revocable importers\n"
	"                        (as vfio-pci's): in-tree devmem cannot bind it\n"
	"  --vram-dev PATH       the exporter's device (default /dev/devmemx_vram)\n"
	"  --p2pdma              map the --vram dma-buf as vfio-pci maps its own: by the\n"
	"                        kernel's p2pdma (a bus address behind a common PCIe\n"
	"                        switch, an IOVA through the host bridge); peer-to-\n"
	"                        peer importers only: in-tree devmem cannot bind it\n"
	"  --tail-first          the --vram dma-buf's last GiB lies first in device\n"
	"                        memory (whole GiBs, 2G or more): gen_pool providers\n"
	"                        receive into that GiB first\n"
	"  --pid PID --fd FD     the dma-buf process PID holds as fd FD (a GPU buffer\n"
	"                        its application exported; pidfd_getfd: as its user\n"
	"                        or with CAP_SYS_PTRACE), all of it; read back\n"
	"                        through a CPU mapping where its exporter allows one\n"
	"  --no-verify           do not read the payload back (for a dma-buf the CPU\n"
	"                        cannot map: only its owner can check it)\n"
	"  --verify-every N      read back one dma-buf fragment in N (the first, the\n"
	"                        N+1st, ...): where checking every byte is the\n"
	"                        bottleneck (JSON verified_bytes says how many were)\n"
	"  --vfio BDF SIZE       the first SIZE bytes of BAR 2 of PCI function BDF,\n"
	"                        exported by vfio-pci (bound to it), read back\n"
	"                        through the vfio device\n"
	"  --provider P          netdev: in-tree devmem (default); devmemx: the module\n"
	"  --rx-page-size SIZE   ask for RX buffers (niovs) of SIZE bytes\n"
	"  --autorelease 0|1     devmemx's autorelease: 0 the token array, 1 the\n"
	"                        socket's xarray (default: not sent, the kernel's 1)\n"
	"  --seed N              pattern seed (default 0x9e3779b97f4a7c15)\n"
	"  --no-flow-rule        install no ntuple rule (steer the flow yourself); the\n"
	"                        rule is tcp4, or tcp6 when --listen is IPv6\n"
	"  --timeout SEC         give up after SEC s without a connection or data\n"
	"                        (default 30, 0: never)\n"
	"  --listen ADDR         listen on ADDR (default: IPv6 and IPv4 any)\n"
	"  --hold SEC            keep every token for SEC s from the first byte, then\n"
	"                        return them all and go on as usual: with a dma-buf\n"
	"                        smaller than the flow, the binding runs out of\n"
	"                        buffers and the flow stalls until then\n"
	"  --probe-dontneed      (tests) with --hold, once the stream ended: ask\n"
	"                        SO_DEVMEM_DONTNEED past its limits and for tokens\n"
	"                        not held, report the answers (JSON dontneed_probe),\n"
	"                        and close holding the rest\n";

static int recv_opt(int c, char *arg, int argc, char **argv,
		    struct rx_opts *o)
{
	int ret = rx_buf_opt(c, arg, argc, argv, &o->buf);

	if (ret != 1)
		return ret;
	switch (c) {
	case O_DEV:
		o->dev = arg;
		return 0;
	case O_QUEUES:
		return dx_parse_queues(arg, "--queues", o->queues, DX_MAX_QUEUES,
				       &o->nqueues);
	case O_PORT:
		return rx_parse_port(arg, "--port", &o->port);
	case O_EXPECT:
		return dx_parse_size(arg, "--expect", &o->expect);
	case O_PROVIDER:
		o->provider = rx_provider_find(arg);
		if (!o->provider)
			return dx_bad_usage("unknown provider \"%s\" for %s: use netdev or devmemx",
					    arg, "--provider");
		return 0;
	case O_RX_PAGE_SIZE:
		return dx_parse_buf_size(arg, "--rx-page-size", &o->rx_page_size);
	case O_AUTORELEASE:
		o->has_autorelease = true;
		return dx_parse_autorelease(arg, "--autorelease", &o->autorelease);
	case O_SEED:
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_NO_FLOW_RULE:
		o->no_flow_rule = true;
		return 0;
	case O_TIMEOUT:
		return rx_parse_seconds(arg, "--timeout", &o->timeout);
	case O_LISTEN:
		o->listen = arg;
		return 0;
	case O_NO_VERIFY:
		o->no_verify = true;
		return 0;
	case O_HOLD:
		return rx_parse_seconds(arg, "--hold", &o->hold);
	case O_PROBE_DONTNEED:
		o->probe_dontneed = true;
		return 0;
	case O_VERIFY_EVERY:
		return rx_parse_every(arg, &o->verify_every);
	case ':':
		return rx_missing_arg(argv);
	default:
		return rx_unknown_option(argv, "recv");
	}
}

/* Every long option of recv, send and ab, once: each picks its own. */
static const struct option rx_options[] = {
	{ "dev", required_argument, NULL, O_DEV },
	{ "queues", required_argument, NULL, O_QUEUES },
	{ "port", required_argument, NULL, O_PORT },
	{ "expect", required_argument, NULL, O_EXPECT },
	{ "udmabuf", required_argument, NULL, O_UDMABUF },
	{ "hugetlb", no_argument, NULL, O_HUGETLB },
	{ "dma-heap", required_argument, NULL, O_DMA_HEAP },
	{ "vram", required_argument, NULL, O_VRAM },
	{ "revocable", no_argument, NULL, O_REVOCABLE },
	{ "tail-first", no_argument, NULL, O_TAIL_FIRST },
	{ "vfio", required_argument, NULL, O_VFIO },
	{ "provider", required_argument, NULL, O_PROVIDER },
	{ "rx-page-size", required_argument, NULL, O_RX_PAGE_SIZE },
	{ "autorelease", required_argument, NULL, O_AUTORELEASE },
	{ "p2pdma", no_argument, NULL, O_P2PDMA },
	{ "vram-dev", required_argument, NULL, O_VRAM_DEV },
	{ "pid", required_argument, NULL, O_PID },
	{ "fd", required_argument, NULL, O_FD },
	{ "no-verify", no_argument, NULL, O_NO_VERIFY },
	{ "seed", required_argument, NULL, O_SEED },
	{ "no-flow-rule", no_argument, NULL, O_NO_FLOW_RULE },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "addr", required_argument, NULL, O_ADDR },
	{ "bytes", required_argument, NULL, O_BYTES },
	{ "chunk", required_argument, NULL, O_CHUNK },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "providers", required_argument, NULL, O_PROVIDERS },
	{ "runs", required_argument, NULL, O_RUNS },
	{ "flows", required_argument, NULL, O_FLOWS },
	{ "verify", no_argument, NULL, O_VERIFY },
	{ "zcrx-area", required_argument, NULL, O_ZCRX_AREA },
	{ "csv", required_argument, NULL, O_CSV },
	{ "summary", required_argument, NULL, O_SUMMARY },
	{ "md", required_argument, NULL, O_MD },
	{ "tag", required_argument, NULL, O_TAG },
	{ "sender", required_argument, NULL, O_SENDER },
	{ "load-cmd", required_argument, NULL, O_LOAD_CMD },
	{ "unload-cmd", required_argument, NULL, O_UNLOAD_CMD },
	{ "profile-cmd", required_argument, NULL, O_PROFILE_CMD },
	{ "bound-cmd", required_argument, NULL, O_BOUND_CMD },
	{ "app", required_argument, NULL, O_APP },
	{ "app-verify", required_argument, NULL, O_APP_VERIFY },
	{ "app-frags", required_argument, NULL, O_APP_FRAGS },
	{ "app-bad", required_argument, NULL, O_APP_BAD },
	{ "app-bytes", required_argument, NULL, O_APP_BYTES },
	{ "configs", required_argument, NULL, O_CONFIGS },
	{ "fill", required_argument, NULL, O_FILL },
	{ "hold", required_argument, NULL, O_HOLD },
	{ "probe-dontneed", no_argument, NULL, O_PROBE_DONTNEED },
	{ "sender-tasks", required_argument, NULL, O_SENDER_TASKS },
	{ "verify-every", required_argument, NULL, O_VERIFY_EVERY },
	{ "hold-bytes", required_argument, NULL, O_HOLD_BYTES },
	{ "until-closed", no_argument, NULL, O_UNTIL_CLOSED },
	{ "seconds", required_argument, NULL, O_SECONDS },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "rx-cpus", required_argument, NULL, O_RX_CPUS },
	{ "napi-cpus", required_argument, NULL, O_NAPI_CPUS },
	{ "napi-fifo", required_argument, NULL, O_NAPI_FIFO },
	{ "help", no_argument, NULL, 'h' },
};

void rx_opts_pick(const int *codes, struct option *out)
{
	unsigned int i;

	for (; *codes; codes++)
		for (i = 0; i < ARRAY_SIZE(rx_options); i++)
			if (rx_options[i].val == *codes)
				*out++ = rx_options[i];
	*out = (struct option){ 0 };
}

bool rx_is_addr(const char *s)
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
	if (o->no_verify && o->verify_every)
		return dx_bad_usage("--verify-every N checks some of the payload and --no-verify none: give one");
	if (o->has_autorelease && strcmp(o->provider->name, "devmemx"))
		return dx_bad_usage("--autorelease is devmemx's: add --provider devmemx (in-tree devmem of this kernel has no autorelease)");
	if (dx_dmabuf_check(&o->buf))
		return -EINVAL;
	if (o->probe_dontneed && !o->hold)
		return dx_bad_usage("--probe-dontneed probes with every token held: add --hold SEC");
	if (o->listen && !rx_is_addr(o->listen))
		return dx_bad_usage("bad --listen address \"%s\": use an IPv4 or IPv6 address",
				    o->listen);
	return 0;
}

int rx_parse_recv(int argc, char **argv, struct rx_opts *o)
{
	static const int codes[] = {
		O_DEV, O_QUEUES, O_PORT, O_EXPECT, RX_BUF, RX_BUF_RECV,
		O_PROVIDER, O_RX_PAGE_SIZE, O_AUTORELEASE, O_SEED,
		O_NO_FLOW_RULE, O_TIMEOUT, O_LISTEN, O_HOLD, O_NO_VERIFY,
		O_VERIFY_EVERY, O_PROBE_DONTNEED, 'h', 0
	};
	struct option opts[ARRAY_SIZE(codes)];
	bool got_expect = false;
	int c;

	rx_opts_pick(codes, opts);
	o->buf.kind = DX_UDMABUF;
	o->buf.size = 64 << 20;
	o->provider = rx_provider_find("netdev");
	o->seed = DX_PAT_SEED;
	o->timeout = RX_DEFAULT_TIMEOUT;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'h')
			return 1;	/* --help: main prints the usage */
		if (recv_opt(c, optarg, argc, argv, o))
			return -EINVAL;
		got_expect |= c == O_EXPECT;
	}
	if (rx_positional(argc, argv, "recv"))
		return -EINVAL;
	return recv_check(o, got_expect);
}

const char rx_send_synopsis[] =
	"devmemx-rx send --addr IP --port PORT --bytes N | --until-closed\n"
	"                       [--seed N] [--chunk SIZE] [--timeout SEC]\n"
	"                       [--fill pattern|zero|ncdevmem]\n";

const char rx_send_help[] =
	"send: connect (retrying until --timeout) and send N bytes of the pattern.\n"
	"  --addr IP             the receiver's address\n"
	"  --port PORT           its port\n"
	"  --bytes N             how many bytes to send\n"
	"  --until-closed        send until the receiver closes the connection (ab\n"
	"                        --seconds), then exit 0\n"
	"  --seed N              pattern seed (default 0x9e3779b97f4a7c15)\n"
	"  --chunk SIZE          bytes per write (default 1M)\n"
	"  --timeout SEC         give up connecting or sending after SEC s\n"
	"                        (default 30, 0: never)\n"
	"  --fill pattern|zero|ncdevmem  what to send (default pattern); zero\n"
	"                        sends zeros, for runs nobody verifies: no CPU spent\n"
	"                        making the pattern; ncdevmem sends bytes 1 to 6\n"
	"                        and a newline, over and over: what the kernel's\n"
	"                        ncdevmem -v 7 checks\n"
	"\n"
	"SIZE, BYTES and N take a K, M or G suffix (powers of 1024). recv prints one\n"
	"JSON line of counters, send one with bytes_sent and what TCP_INFO says\n"
	"held it back (cwnd, retrans, busy/rwnd/sndbuf-limited microseconds).\n";

static int send_opt(int c, char *arg, char **argv, struct tx_opts *o)
{
	switch (c) {
	case O_ADDR:
		o->addr = arg;
		return 0;
	case O_PORT:
		return rx_parse_port(arg, "--port", &o->port);
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
		return rx_parse_seconds(arg, "--timeout", &o->timeout);
	case O_UNTIL_CLOSED:
		o->until_closed = true;
		return 0;
	case O_FILL:
		if (!strcmp(arg, "pattern"))
			o->fill = TX_FILL_PATTERN;
		else if (!strcmp(arg, "zero"))
			o->fill = TX_FILL_ZERO;
		else if (!strcmp(arg, "ncdevmem"))
			o->fill = TX_FILL_NCDEVMEM;
		else
			return dx_bad_usage("bad --fill \"%s\": use pattern, zero or ncdevmem", arg);
		return 0;
	case ':':
		return rx_missing_arg(argv);
	default:
		return rx_unknown_option(argv, "send");
	}
}

int rx_parse_send(int argc, char **argv, struct tx_opts *o)
{
	static const int codes[] = {
		O_ADDR, O_PORT, O_BYTES, O_SEED, O_CHUNK, O_TIMEOUT, O_FILL,
		O_UNTIL_CLOSED, 'h', 0
	};
	struct option opts[ARRAY_SIZE(codes)];
	bool got_bytes = false;
	int c;

	rx_opts_pick(codes, opts);
	o->seed = DX_PAT_SEED;
	o->chunk = 1 << 20;
	o->timeout = RX_DEFAULT_TIMEOUT;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'h')
			return 1;	/* --help: main prints the usage */
		if (send_opt(c, optarg, argv, o))
			return -EINVAL;
		got_bytes |= c == O_BYTES;
	}
	if (rx_positional(argc, argv, "send"))
		return -EINVAL;
	if (!o->addr)
		return dx_bad_usage("send needs --addr IP");
	if (!rx_is_addr(o->addr))
		return dx_bad_usage("bad --addr \"%s\": use an IPv4 or IPv6 address",
				    o->addr);
	if (!o->port)
		return dx_bad_usage("send needs --port PORT");
	if (got_bytes && o->until_closed)
		return dx_bad_usage("send takes --bytes N or --until-closed, not both");
	if (!got_bytes && !o->until_closed)
		return dx_bad_usage("send needs --bytes N (or --until-closed)");
	return 0;
}
