// SPDX-License-Identifier: GPL-2.0
/* devmemx-rx's command line: usage, option parsing, checks. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "rx-ab.h"
#include "util.h"

#define RX_DEFAULT_TIMEOUT	30

void rx_usage(FILE *f)
{
	fputs("usage: devmemx-rx recv --dev IFNAME --queues LIST --port PORT --expect BYTES\n"
	      "                       [--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE |\n"
	      "                        --vram SIZE [--vram-dev PATH] [--revocable]\n"
	      "                        [--tail-first] [--p2pdma] |\n"
	      "                        --vfio BDF SIZE | --pid PID --fd FD [--no-verify]]\n"
	      "                       [--verify-every N]\n"
	      "                       [--provider netdev|devmemx] [--rx-page-size SIZE]\n"
	      "                       [--seed N] [--no-flow-rule] [--timeout SEC] [--listen ADDR]\n"
	      "                       [--hold SEC]\n"
	      "       devmemx-rx send --addr IP --port PORT --bytes N | --until-closed\n"
	      "                       [--seed N] [--chunk SIZE] [--timeout SEC] [--fill pattern|zero]\n"
	      "       devmemx-rx ab --dev IFNAME --queues LIST [--sizes LIST]\n"
	      "                     [--providers netdev,devmemx,netdev-nodx,zcrx | --configs LIST]\n"
	      "                     [--zcrx-area dmabuf|host]\n"
	      "                     [--bytes N | --seconds S] [--cpus LIST] [--rx-cpus LIST]\n"
	      "                     [--napi-cpus LIST]\n"
	      "                     [--runs N] [--flows N] [--seed N] [--verify]\n"
	      "                     [--verify-every N]\n"
	      "                     [--csv FILE] [--summary FILE] [--md FILE] [--tag TEXT]\n"
	      "                     [--port PORT] [--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE |\n"
	      "                      --vram SIZE | --pid PID --fd FD]\n"
	      "                     [--listen ADDR] [--sender CMD] [--sender-tasks LIST]\n"
	      "                     [--load-cmd CMD] [--unload-cmd CMD] [--timeout SEC]\n"
	      "       devmemx-rx pools [--dev IFNAME] [-j|--json]\n"
	      "       devmemx-rx queues [--dev IFNAME] [-j|--json]\n"
	      "       devmemx-rx qstats [--dev IFNAME] [-j|--json]\n"
	      "       devmemx-rx -h | --help\n"
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
	      "\n"
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
	      "  --fill pattern|zero   what to send (default pattern); zero sends zeros,\n"
	      "                        for runs nobody verifies: no CPU spent making the\n"
	      "                        pattern\n"
	      "\n"
	      "SIZE, BYTES and N take a K, M or G suffix (powers of 1024). recv prints one\n"
	      "JSON line of counters, send one with bytes_sent and what TCP_INFO says\n"
	      "held it back (cwnd, retrans, busy/rwnd/sndbuf-limited microseconds).\n"
	      "\n"
	      "ab: A/B benchmark of in-tree devmem, devmemx and io_uring zcrx. Each\n"
	      "configuration (provider x niov size) binds the dma-buf (zcrx: registers an\n"
	      "interface queue on each queue), receives --bytes over --flows connections\n"
	      "and unbinds, per run; one verified pass of every configuration\n"
	      "first, then --runs rounds of timed runs, each round in an order shuffled\n"
	      "from the printed seed. Per run: the CPUs' busy time (/proc/schedstat, in\n"
	      "ns, each CPU's running task switched out before reading: needs root) and\n"
	      "the receiving host's (less device and sender time), the receiver's own CPU,\n"
	      "recvmsg calls, cmsgs, tokens, SO_DEVMEM_DONTNEED calls, page-pool\n"
	      "allocations, HW-GRO qstats, device time (rx<N>_device_ns in ethtool -S,\n"
	      "where the driver has it), bind time and metadata; then medians per GiB\n"
	      "and the ratios devmemx is judged by.\n"
	      "  --sizes LIST          niov sizes, e.g. 4K,16K,64K (default 4K); in-tree\n"
	      "                        sizes above 4K need Linux 7.3\n"
	      "  --providers LIST      netdev, devmemx, netdev-nodx (in-tree with devmemx\n"
	      "                        unloaded: --unload-cmd before, --load-cmd after),\n"
	      "                        zcrx (io_uring zero-copy receive, a thread per\n"
	      "                        queue) (default netdev,devmemx)\n"
	      "  --configs LIST        exactly these, e.g. netdev-4K,devmemx-64K,zcrx-64K\n"
	      "                        (instead of every provider at every size)\n"
	      "  --zcrx-area dmabuf|host  zcrx's memory: the dma-buf (default; on more\n"
	      "                        than one queue, one of its kind per queue, its size\n"
	      "                        split) or as much anonymous memory (huge pages\n"
	      "                        with --hugetlb)\n"
	      "  --bytes N             per run, over all flows (default 64M)\n"
	      "  --seconds S           per run instead: each flow stops reading S s after\n"
	      "                        the run's first reading (senders: --until-closed);\n"
	      "                        on hardware, runs of 10 s or more (README: A/B)\n"
	      "  --cpus LIST           measure only these CPUs (e.g. 2-3, where the queue's\n"
	      "                        NAPI and the receiver run); the sender must run\n"
	      "                        elsewhere (no --sender, --sender-tasks)\n"
	      "  --rx-cpus LIST        run flow i's receiving thread on CPU i of LIST\n"
	      "                        (counting round it again)\n"
	      "  --napi-cpus LIST      after each bind, run the NAPI thread of queue i of\n"
	      "                        --queues on CPU i of LIST, and its IRQ where the\n"
	      "                        kernel lets it move (threaded NAPI only; a driver\n"
	      "                        may make new NAPI threads when a queue is bound)\n"
	      "  --runs N              timed runs per configuration (default 5)\n"
	      "  --flows N             connections per run, on ports PORT..PORT+N-1, flow i\n"
	      "                        steered to queue i of LIST, counting round it\n"
	      "                        again when N is larger (default 1, at most 16)\n"
	      "  --seed N              the order's seed (default: from the clock, printed)\n"
	      "  --verify-every N      in verified runs, read back one dma-buf fragment (zcrx:\n"
	      "                        completion) in N, as recv does (CSV verified_bytes)\n"
	      "  --verify              verify the timed runs too (slower); without it the\n"
	      "                        verified pass moves at most 64M per run when ab\n"
	      "                        starts the sender\n"
	      "  --csv FILE            one row per run, raw counters\n"
	      "  --summary FILE        one row per configuration: median, min, max per GiB\n"
	      "  --md FILE             the table printed at the end, as markdown\n"
	      "  --tag TEXT            a label for the table and the CSV rows (no commas)\n"
	      "  --port PORT           first port (default 7400)\n"
	      "  --udmabuf, --hugetlb, --dma-heap, --vram, --pid, --fd  the dma-buf, as\n"
	      "                        for recv (default --udmabuf 64M --hugetlb: large\n"
	      "                        niovs need it); one the CPU cannot map (a GPU's)\n"
	      "                        is not verified, and --verify is refused\n"
	      "  --sender CMD          start each flow's sender as: CMD --port P --bytes N\n"
	      "                        (e.g. 'ip netns exec tx devmemx-rx send --addr IP'),\n"
	      "                        with --fill zero added for runs not verified (the\n"
	      "                        sender shares the machine being measured); without\n"
	      "                        it ab prints what to run on the sender\n"
	      "  --sender-tasks LIST   tasks (name prefixes, e.g. napi/dxsim0-) that\n"
	      "                        work for a sender on this machine: their run\n"
	      "                        time, like the --sender's, is not the receiving\n"
	      "                        host's\n"
	      "  --listen ADDR         listen on ADDR, as for recv; also the address the\n"
	      "                        printed sender loop sends to\n"
	      "  --load-cmd CMD        shell command that loads devmemx again after a\n"
	      "                        netdev-nodx run (default: modprobe devmemx)\n"
	      "  --unload-cmd CMD      shell command that unloads devmemx before a\n"
	      "                        netdev-nodx run (default: modprobe -r devmemx)\n"
	      "  --timeout SEC         per connection and without data (default 120,\n"
	      "                        0: never)\n"
	      "\n"
	      "pools, queues: the page pools and queues the netdev family lists in this\n"
	      "network namespace, a line each (with the dma-buf binding id)\n"
	      "qstats: each device's counters, then each RX and TX queue's (packets,\n"
	      "bytes, HW-GRO), a line each (device lines have no queue-id)\n"
	      "  --dev IFNAME          only IFNAME's\n"
	      "  -j, --json            one JSON object per line, the kernel's numbers\n"
	      "                        (ifindex, queue type 0 rx 1 tx, bytes; dmabuf: the\n"
	      "                        binding id)\n"
	      "\n"
	      "recv, send and ab also take --help. Exit status: 0 on success (recv: every\n"
	      "byte arrived and verified), 1 on failure, 2 on bad usage.\n", f);
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

static int parse_seconds(const char *s, const char *opt, int *sec)
{
	uint64_t v;

	if (dx_parse_uint(s, opt, 0, 86400 * 365, &v))
		return -EINVAL;
	*sec = v;
	return 0;
}

/* --verify-every N: 1 (every fragment) to 2^32 - 1. */
static int parse_every(const char *s, uint32_t *every)
{
	uint64_t v;

	if (dx_parse_uint(s, "--verify-every", 1, UINT32_MAX, &v))
		return -EINVAL;
	*every = v;
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
	O_DMA_HEAP, O_VRAM, O_REVOCABLE, O_TAIL_FIRST, O_VFIO, O_PROVIDER,
	O_RX_PAGE_SIZE, O_P2PDMA, O_VRAM_DEV, O_PID, O_FD, O_NO_VERIFY,
	O_SEED, O_NO_FLOW_RULE,
	O_TIMEOUT, O_LISTEN, O_ADDR, O_BYTES, O_CHUNK, O_SIZES, O_PROVIDERS,
	O_RUNS, O_FLOWS, O_VERIFY, O_ZCRX_AREA, O_CSV, O_SUMMARY, O_MD, O_TAG, O_SENDER,
	O_LOAD_CMD, O_UNLOAD_CMD, O_CONFIGS, O_FILL, O_HOLD, O_SENDER_TASKS,
	O_VERIFY_EVERY,
	O_UNTIL_CLOSED, O_SECONDS, O_CPUS, O_RX_CPUS, O_NAPI_CPUS,
};

/*
 * The dma-buf options recv and ab share (ab's option table has no
 * --revocable, --tail-first, --p2pdma, --vram-dev or --vfio); 1 when @c
 * is none of them.
 */
static int buf_opt(int c, char *arg, int argc, char **argv,
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

static int recv_opt(int c, char *arg, int argc, char **argv,
		    struct rx_opts *o)
{
	int ret = buf_opt(c, arg, argc, argv, &o->buf);

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
		return parse_port(arg, "--port", &o->port);
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
	case O_SEED:
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_NO_FLOW_RULE:
		o->no_flow_rule = true;
		return 0;
	case O_TIMEOUT:
		return parse_seconds(arg, "--timeout", &o->timeout);
	case O_LISTEN:
		o->listen = arg;
		return 0;
	case O_NO_VERIFY:
		o->no_verify = true;
		return 0;
	case O_HOLD:
		return parse_seconds(arg, "--hold", &o->hold);
	case O_VERIFY_EVERY:
		return parse_every(arg, &o->verify_every);
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
	if (o->no_verify && o->verify_every)
		return dx_bad_usage("--verify-every N checks some of the payload and --no-verify none: give one");
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
		{ "vram", required_argument, NULL, O_VRAM },
		{ "revocable", no_argument, NULL, O_REVOCABLE },
		{ "tail-first", no_argument, NULL, O_TAIL_FIRST },
		{ "p2pdma", no_argument, NULL, O_P2PDMA },
		{ "vram-dev", required_argument, NULL, O_VRAM_DEV },
		{ "vfio", required_argument, NULL, O_VFIO },
		{ "provider", required_argument, NULL, O_PROVIDER },
		{ "rx-page-size", required_argument, NULL, O_RX_PAGE_SIZE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "no-flow-rule", no_argument, NULL, O_NO_FLOW_RULE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "hold", required_argument, NULL, O_HOLD },
		{ "pid", required_argument, NULL, O_PID },
		{ "fd", required_argument, NULL, O_FD },
		{ "no-verify", no_argument, NULL, O_NO_VERIFY },
		{ "verify-every", required_argument, NULL, O_VERIFY_EVERY },
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
		return parse_seconds(arg, "--timeout", &o->timeout);
	case O_UNTIL_CLOSED:
		o->until_closed = true;
		return 0;
	case O_FILL:
		if (strcmp(arg, "zero") && strcmp(arg, "pattern"))
			return dx_bad_usage("bad --fill \"%s\": use pattern or zero", arg);
		o->zero = !strcmp(arg, "zero");
		return 0;
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
		{ "fill", required_argument, NULL, O_FILL },
		{ "until-closed", no_argument, NULL, O_UNTIL_CLOSED },
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
	if (got_bytes && o->until_closed)
		return dx_bad_usage("send takes --bytes N or --until-closed, not both");
	if (!got_bytes && !o->until_closed)
		return dx_bad_usage("send needs --bytes N (or --until-closed)");
	return 0;
}

/* ---- ab ----------------------------------------------------------------- */

static int ab_sizes(char *arg, struct ab_opts *o)
{
	char *save = NULL, *t;

	o->nsizes = 0;
	for (t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == AB_MAX_SIZES)
			return dx_bad_usage("more than %d sizes in --sizes",
					    AB_MAX_SIZES);
		if (dx_parse_buf_size(t, "--sizes", &o->sizes[o->nsizes]))
			return -EINVAL;
		o->nsizes++;
	}
	return o->nsizes ? 0 : dx_bad_usage("--sizes needs at least one size");
}

static int ab_providers(char *arg, struct ab_opts *o)
{
	char *save = NULL, *t;
	unsigned int p, i;

	o->nprovs = 0;
	for (t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (p = 0; p < AB_NPROV && strcmp(t, ab_prov_name(p)); p++)
			;
		if (p == AB_NPROV)
			return dx_bad_usage("unknown provider \"%s\" in --providers: use netdev, devmemx, netdev-nodx or zcrx",
					    t);
		for (i = 0; i < o->nprovs; i++)
			if (o->provs[i] == p)
				return dx_bad_usage("provider \"%s\" twice in --providers",
						    t);
		o->provs[o->nprovs++] = p;
	}
	return o->nprovs ? 0 : dx_bad_usage("--providers needs at least one provider");
}

/* "netdev-4K,devmemx-64K,netdev-nodx-4K": provider, dash, niov size. */
static int ab_configs(char *arg, struct ab_opts *o)
{
	char *save = NULL, *t, *dash;
	unsigned int p;

	o->nconfigs = 0;
	for (t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		dash = strrchr(t, '-');
		if (!dash)
			return dx_bad_usage("bad configuration \"%s\" in --configs: use PROVIDER-SIZE, e.g. devmemx-64K",
					    t);
		*dash = '\0';
		for (p = 0; p < AB_NPROV && strcmp(t, ab_prov_name(p)); p++)
			;
		if (p == AB_NPROV)
			return dx_bad_usage("unknown provider \"%s\" in --configs: use netdev, devmemx, netdev-nodx or zcrx",
					    t);
		if (o->nconfigs == AB_MAX_CFGS)
			return dx_bad_usage("more than %d configurations in --configs",
					    AB_MAX_CFGS);
		o->configs[o->nconfigs].prov = p;
		if (dx_parse_buf_size(dash + 1, "--configs",
				      &o->configs[o->nconfigs].size))
			return -EINVAL;
		o->nconfigs++;
	}
	return o->nconfigs ? 0 : dx_bad_usage("--configs needs at least one configuration");
}

static int ab_count(const char *s, const char *opt, uint64_t max,
		    unsigned int *out)
{
	uint64_t v;

	if (dx_parse_uint(s, opt, 1, max, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Is CPU @cpu there and online? */
static bool ab_cpu_online(uint32_t cpu)
{
	char path[64], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
	if (cpu >= CPU_SETSIZE || access(path, F_OK))
		return false;
	/* No "online" file: a CPU that cannot go offline (often CPU 0). */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	f = fopen(path, "r");
	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '0';
		fclose(f);
	}
	return c == '1';
}

/* A CPU list as taskset -c takes it (0-3,8), of online CPUs. */
static int ab_cpus(const char *arg, const char *opt, struct ab_cpus *c)
{
	uint32_t cpus[DX_MAX_QUEUES];
	unsigned int i, n = 0;

	if (dx_parse_list(arg, opt, "CPU", cpus, DX_MAX_QUEUES, &n))
		return -EINVAL;
	CPU_ZERO(&c->set);
	for (i = 0; i < n; i++) {
		if (!ab_cpu_online(cpus[i]))
			return dx_bad_usage("%s %s: CPU %u is not online here (see lscpu)",
					    opt, arg, cpus[i]);
		CPU_SET(cpus[i], &c->set);
	}
	c->list = arg;
	c->n = n;
	for (i = 0; i < n; i++)
		c->cpu[i] = cpus[i];
	return 0;
}

static int ab_opt(int c, char *arg, int argc, char **argv, struct ab_opts *o)
{
	int ret = buf_opt(c, arg, argc, argv, &o->buf);

	if (ret != 1)
		return ret;
	switch (c) {
	case O_DEV: o->dev = arg; return 0;
	case O_QUEUES:
		return dx_parse_queues(arg, "--queues", o->queues, DX_MAX_QUEUES,
				       &o->nqueues);
	case O_SIZES: return ab_sizes(arg, o);
	case O_PROVIDERS: return ab_providers(arg, o);
	case O_CONFIGS: return ab_configs(arg, o);
	case O_BYTES:
		o->bytes_set = true;
		return dx_parse_size(arg, "--bytes", &o->bytes);
	case O_SECONDS:
		return ab_count(arg, "--seconds", AB_MAX_SECONDS, &o->seconds);
	case O_CPUS:
		return ab_cpus(arg, "--cpus", &o->cpus);
	case O_RX_CPUS:
		return ab_cpus(arg, "--rx-cpus", &o->rx_cpus);
	case O_NAPI_CPUS:
		return ab_cpus(arg, "--napi-cpus", &o->napi_cpus);
	case O_RUNS: return ab_count(arg, "--runs", AB_MAX_RUNS, &o->runs);
	case O_FLOWS: return ab_count(arg, "--flows", AB_MAX_FLOWS, &o->flows);
	case O_SEED:
		o->seed_set = true;
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_VERIFY: o->verify = true; return 0;
	case O_VERIFY_EVERY: return parse_every(arg, &o->verify_every);
	case O_ZCRX_AREA:
		if (strcmp(arg, "dmabuf") && strcmp(arg, "host"))
			return dx_bad_usage("--zcrx-area takes dmabuf or host, not \"%s\"",
					    arg);
		o->zcrx_host = !strcmp(arg, "host");
		return 0;
	case O_CSV: o->csv = arg; return 0;
	case O_SUMMARY: o->summary = arg; return 0;
	case O_MD: o->md = arg; return 0;
	case O_TAG:
		if (strpbrk(arg, ",\n\""))
			return dx_bad_usage("bad --tag \"%s\": no commas, quotes or newlines",
					    arg);
		o->tag = arg;
		return 0;
	case O_PORT: return parse_port(arg, "--port", &o->port);
	case O_LISTEN: o->listen = arg; return 0;
	case O_SENDER: o->sender = arg; return 0;
	case O_SENDER_TASKS:
		if (!*arg || strstr(arg, ",,") || *arg == ',' ||
		    arg[strlen(arg) - 1] == ',')
			return dx_bad_usage("bad --sender-tasks \"%s\": use task name prefixes, e.g. napi/eth1-,ksoftirqd/0",
					    arg);
		o->sender_tasks = arg;
		return 0;
	case O_LOAD_CMD: o->load_cmd = arg; return 0;
	case O_UNLOAD_CMD: o->unload_cmd = arg; return 0;
	case O_TIMEOUT: return parse_seconds(arg, "--timeout", &o->timeout);
	case ':': return missing_arg(argv);
	default: return unknown_option(argv, "ab");
	}
}

static int ab_check(struct ab_opts *o)
{
	if (!o->dev)
		return dx_bad_usage("ab needs --dev IFNAME");
	if (!o->nqueues)
		return dx_bad_usage("ab needs --queues LIST (e.g. --queues 2)");
	if (o->seconds && o->bytes_set)
		return dx_bad_usage("ab takes --bytes N or --seconds S per run, not both");
	if (o->cpus.n && (o->sender || o->sender_tasks))
		return dx_bad_usage("--cpus measures only some CPUs: the sender's time (--sender, --sender-tasks) cannot be told apart there; run the sender elsewhere, or measure every CPU");
	if (o->bytes < o->flows)
		return dx_bad_usage("--bytes must be at least one byte per flow");
	if (o->bytes % o->flows)
		return dx_bad_usage("--bytes %" PRIu64 " does not split evenly over %u flows",
				    o->bytes, o->flows);
	if ((uint32_t)o->port + o->flows - 1 > 65535)
		return dx_bad_usage("--port %u with %u flows runs past port 65535",
				    o->port, o->flows);
	if (o->listen && !is_addr(o->listen))
		return dx_bad_usage("bad --listen address \"%s\": use an IPv4 or IPv6 address",
				    o->listen);
	return dx_dmabuf_check(&o->buf) ? -EINVAL : 0;
}

int rx_parse_ab(int argc, char **argv, struct ab_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "providers", required_argument, NULL, O_PROVIDERS },
		{ "configs", required_argument, NULL, O_CONFIGS },
		{ "bytes", required_argument, NULL, O_BYTES },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "verify-every", required_argument, NULL, O_VERIFY_EVERY },
		{ "zcrx-area", required_argument, NULL, O_ZCRX_AREA },
		{ "csv", required_argument, NULL, O_CSV },
		{ "summary", required_argument, NULL, O_SUMMARY },
		{ "md", required_argument, NULL, O_MD },
		{ "tag", required_argument, NULL, O_TAG },
		{ "port", required_argument, NULL, O_PORT },
		{ "udmabuf", required_argument, NULL, O_UDMABUF },
		{ "hugetlb", no_argument, NULL, O_HUGETLB },
		{ "dma-heap", required_argument, NULL, O_DMA_HEAP },
		{ "vram", required_argument, NULL, O_VRAM },
		{ "pid", required_argument, NULL, O_PID },
		{ "fd", required_argument, NULL, O_FD },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "sender", required_argument, NULL, O_SENDER },
		{ "sender-tasks", required_argument, NULL, O_SENDER_TASKS },
		{ "load-cmd", required_argument, NULL, O_LOAD_CMD },
		{ "unload-cmd", required_argument, NULL, O_UNLOAD_CMD },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "rx-cpus", required_argument, NULL, O_RX_CPUS },
		{ "napi-cpus", required_argument, NULL, O_NAPI_CPUS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->sizes[0] = 4096;
	o->nsizes = 1;
	o->provs[0] = AB_NETDEV;
	o->provs[1] = AB_DEVMEMX;
	o->nprovs = 2;
	o->bytes = 64 << 20;
	o->runs = 5;
	o->flows = 1;
	o->port = 7400;
	o->timeout = 120;
	o->load_cmd = "modprobe devmemx";
	o->unload_cmd = "modprobe -r devmemx";
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'h')
			return help();
		if (ab_opt(c, optarg, argc, argv, o))
			return -EINVAL;
	}
	if (positional(argc, argv, "ab"))
		return -EINVAL;
	/* No dma-buf given (--hugetlb alone is none). */
	if (o->buf.kind == DX_DMABUF_NONE) {
		o->buf.kind = DX_UDMABUF;
		o->buf.size = 64 << 20;
		o->buf.hugetlb = true;
	}
	return ab_check(o);
}
