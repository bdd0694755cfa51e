// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx's command line: usage, the options recv and send take, and the
 * helpers ab's (rx-ab-opts.c) share.
 */
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
#include "rx-opts.h"
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
	      "                     [--runs N] [--flows N [--hold-bytes SIZE]] [--seed N] [--verify]\n"
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
	      "                        again when N is larger (default 1, at most 64)\n"
	      "  --hold-bytes SIZE     each flow keeps its tokens until they cover SIZE of\n"
	      "                        payload, then returns them at once; in each\n"
	      "                        configuration's first run every flow holds its last\n"
	      "                        SIZE until all do, and the table says what the\n"
	      "                        kernel kept for those tokens (sk_user_frags xarray\n"
	      "                        nodes, slab growth). Not with zcrx; flows x SIZE at\n"
	      "                        most a quarter of the dma-buf\n"
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
int rx_help(void)
{
	rx_usage(stdout);
	return 1;
}

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
	case O_VERIFY_EVERY:
		return rx_parse_every(arg, &o->verify_every);
	case ':':
		return rx_missing_arg(argv);
	default:
		return rx_unknown_option(argv, "recv");
	}
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
	if (dx_dmabuf_check(&o->buf))
		return -EINVAL;
	if (o->listen && !rx_is_addr(o->listen))
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
			return rx_help();
		if (recv_opt(c, optarg, argc, argv, o))
			return -EINVAL;
		got_expect |= c == O_EXPECT;
	}
	if (rx_positional(argc, argv, "recv"))
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
		if (strcmp(arg, "zero") && strcmp(arg, "pattern"))
			return dx_bad_usage("bad --fill \"%s\": use pattern or zero", arg);
		o->zero = !strcmp(arg, "zero");
		return 0;
	case ':':
		return rx_missing_arg(argv);
	default:
		return rx_unknown_option(argv, "send");
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
			return rx_help();
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
