// SPDX-License-Identifier: GPL-2.0
/* devmemx-rx ab's command line: its options and their checks. */
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

const char *ab_prov_name(enum ab_prov p)
{
	static const char * const names[AB_NPROV] = {
		[AB_NETDEV] = "netdev", [AB_DEVMEMX] = "devmemx",
		[AB_NETDEV_NODX] = "netdev-nodx", [AB_ZCRX] = "zcrx",
		[AB_DEVMEMX_TOK] = "devmemx-tok", [AB_POLICY] = "policy",
	};

	return names[p];
}

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
			return dx_bad_usage("unknown provider \"%s\" in --providers: use netdev, devmemx, devmemx-tok, netdev-nodx, zcrx or policy",
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
			return dx_bad_usage("unknown provider \"%s\" in --configs: use netdev, devmemx, devmemx-tok, netdev-nodx, zcrx or policy",
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

const char rx_ab_synopsis[] =
	"devmemx-rx ab --dev IFNAME --queues LIST [--sizes LIST]\n"
	"                     [--providers netdev,devmemx,netdev-nodx,zcrx | --configs LIST]\n"
	"                     [--zcrx-area dmabuf|host]\n"
	"                     [--bytes N | --seconds S] [--cpus LIST] [--rx-cpus LIST]\n"
	"                     [--napi-cpus LIST] [--napi-fifo PRIO] [--bound-cmd CMD]\n"
	"                     [--runs N] [--flows N [--hold-bytes SIZE]] [--seed N] [--verify]\n"
	"                     [--verify-every N]\n"
	"                     [--csv FILE] [--summary FILE] [--md FILE] [--tag TEXT]\n"
	"                     [--port PORT] [--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE |\n"
	"                      --vram SIZE | --pid PID --fd FD]\n"
	"                     [--listen ADDR] [--no-flow-rule] [--sender CMD]\n"
	"                     [--sender-tasks LIST]\n"
	"                     [--load-cmd CMD] [--unload-cmd CMD] [--profile-cmd CMD]\n"
	"                     [--app CMD --app-frags PREFIX [--app-bytes PREFIX]\n"
	"                      [--app-verify ARGS] [--app-bad PREFIX]] [--timeout SEC]\n";

const char rx_ab_help[] =
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
	"                        queue), policy (netdev's bind-rx, which devmemx\n"
	"                        serves under a policy at the size on --queues, set\n"
	"                        before the bind and off after it) (default\n"
	"                        netdev,devmemx)\n"
	"  --configs LIST        exactly these, e.g. netdev-4K,devmemx-64K,zcrx-64K\n"
	"                        (instead of every provider at every size)\n"
	"  --zcrx-area dmabuf|host  zcrx's memory: the dma-buf (default; on more\n"
	"                        than one queue, one of its kind per queue, its size\n"
	"                        split) or as much anonymous memory (huge pages\n"
	"                        with --hugetlb)\n"
	"  --bytes N             per run, over all flows (default 64M)\n"
	"  --seconds S           per run instead: each flow stops reading S s after\n"
	"                        the run's connections are accepted (senders:\n"
	"                        --until-closed);\n"
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
	"  --napi-fifo PRIO      after each bind, run the NAPI thread of each bound\n"
	"                        queue at SCHED_FIFO PRIO (1-99; threaded NAPI only)\n"
	"  --bound-cmd CMD       shell command run after each bind (and after\n"
	"                        --napi-cpus and --napi-fifo), before the run's\n"
	"                        flows: e.g. to place the NAPI threads of the\n"
	"                        physical device a leased queue is on, which the\n"
	"                        pod's --dev does not have\n"
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
	"  --no-flow-rule        install no ntuple rules: the flows are steered to\n"
	"                        --queues already (a leased queue's host steers its\n"
	"                        physical device, which the pod cannot)\n"
	"  --profile-cmd CMD     shell command run during each timed run's measured\n"
	"                        window, %c in it replaced by the configuration's\n"
	"                        name; the run starts once it prints a line (at\n"
	"                        most 120 s), SIGINT to its group ends it, and ab\n"
	"                        waits for the shell to exit\n"
	"  --load-cmd CMD        shell command that loads devmemx again after a\n"
	"                        netdev-nodx run (default: modprobe devmemx)\n"
	"  --unload-cmd CMD      shell command that unloads devmemx before a\n"
	"                        netdev-nodx run (default: modprobe -r devmemx)\n"
	"  --app CMD             an application receives each run instead of ab:\n"
	"                        one that binds through netdev's bind-rx itself\n"
	"                        (e.g. the kernel's ncdevmem), started by /bin/sh\n"
	"                        with %p in CMD replaced by --port; ab waits until\n"
	"                        it listens, starts the --sender (needed) and\n"
	"                        measures until the application exits. netdev and\n"
	"                        policy configurations only; one flow\n"
	"  --app-frags PREFIX    the lines of the application's standard error that\n"
	"                        start with PREFIX are its dma-buf cmsgs (ncdevmem:\n"
	"                        received); its standard output is discarded\n"
	"  --app-bytes PREFIX    the number after PREFIX on the last such line is\n"
	"                        the bytes it received, which must be all the sender\n"
	"                        sent (ncdevmem: total_received=)\n"
	"  --app-verify ARGS     added to CMD in the verified pass (ncdevmem: -v 7;\n"
	"                        with the sender's --fill ncdevmem); without it no\n"
	"                        run counts as verified\n"
	"  --app-bad PREFIX      a run fails if a line of the application's error\n"
	"                        starts with PREFIX (ncdevmem: Failed validation),\n"
	"                        or if it exits other than 0\n"
	"  --timeout SEC         per connection and without data (default 120,\n"
	"                        0: never)\n";

static int ab_opt(int c, char *arg, int argc, char **argv, struct ab_opts *o)
{
	int ret = rx_buf_opt(c, arg, argc, argv, &o->buf);

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
	case O_NAPI_FIFO:
		return ab_count(arg, "--napi-fifo", 99, &o->napi_fifo);
	case O_RUNS: return ab_count(arg, "--runs", AB_MAX_RUNS, &o->runs);
	case O_FLOWS: return ab_count(arg, "--flows", AB_MAX_FLOWS, &o->flows);
	case O_SEED:
		o->seed_set = true;
		return dx_parse_uint(arg, "--seed", 0, UINT64_MAX, &o->seed);
	case O_VERIFY: o->verify = true; return 0;
	case O_VERIFY_EVERY: return rx_parse_every(arg, &o->verify_every);
	case O_HOLD_BYTES:
		if (dx_parse_size(arg, "--hold-bytes", &o->hold_bytes))
			return -EINVAL;
		return o->hold_bytes ? 0 :
		       dx_bad_usage("--hold-bytes needs a size above 0 (e.g. 1M)");
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
	case O_PORT: return rx_parse_port(arg, "--port", &o->port);
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
	case O_PROFILE_CMD: o->profile_cmd = arg; return 0;
	case O_BOUND_CMD: o->bound_cmd = arg; return 0;
	case O_NO_FLOW_RULE: o->no_flow_rule = true; return 0;
	case O_APP: o->app = arg; return 0;
	case O_APP_VERIFY: o->app_verify = arg; return 0;
	case O_APP_FRAGS: o->app_frags = arg; return 0;
	case O_APP_BAD: o->app_bad = arg; return 0;
	case O_APP_BYTES: o->app_bytes = arg; return 0;
	case O_TIMEOUT: return rx_parse_seconds(arg, "--timeout", &o->timeout);
	case ':': return rx_missing_arg(argv);
	default: return rx_unknown_option(argv, "ab");
	}
}

static bool ab_has_zcrx(const struct ab_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nconfigs; i++)
		if (o->configs[i].prov == AB_ZCRX)
			return true;
	for (i = 0; !o->nconfigs && i < o->nprovs; i++)
		if (o->provs[i] == AB_ZCRX)
			return true;
	return false;
}

/* --app: only configurations whose bind the application makes. */
static int ab_check_app(const struct ab_opts *o)
{
	unsigned int i;

	if (!o->app)
		return o->app_frags || o->app_verify || o->app_bad || o->app_bytes ?
		       dx_bad_usage("--app-frags, --app-bytes, --app-verify and --app-bad go with --app") : 0;
	if (!o->app_frags || !*o->app_frags)
		return dx_bad_usage("--app needs --app-frags PREFIX: the lines of its output that are cmsgs");
	if (!o->sender)
		return dx_bad_usage("--app needs --sender: ab starts the sender once the application listens");
	if (o->flows > 1 || o->seconds || o->hold_bytes || o->profile_cmd || o->verify)
		return dx_bad_usage("--app runs one flow of --bytes: no --flows, --seconds, --hold-bytes, --profile-cmd or --verify");
	for (i = 0; i < o->nconfigs; i++)
		if (o->configs[i].prov != AB_NETDEV && o->configs[i].prov != AB_POLICY)
			return dx_bad_usage("--app binds through netdev's bind-rx itself: use netdev and policy configurations, not %s",
					    ab_prov_name(o->configs[i].prov));
	for (i = 0; !o->nconfigs && i < o->nprovs; i++)
		if (o->provs[i] != AB_NETDEV && o->provs[i] != AB_POLICY)
			return dx_bad_usage("--app binds through netdev's bind-rx itself: use --providers netdev,policy, not %s",
					    ab_prov_name(o->provs[i]));
	return 0;
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
	if (o->hold_bytes && ab_has_zcrx(o))
		return dx_bad_usage("--hold-bytes batches devmem's tokens; zcrx hands buffers back through its refill ring: leave zcrx out of --providers and --configs");
	if (ab_check_app(o))
		return -EINVAL;
	if (o->listen && !rx_is_addr(o->listen))
		return dx_bad_usage("bad --listen address \"%s\": use an IPv4 or IPv6 address",
				    o->listen);
	return dx_dmabuf_check(&o->buf) ? -EINVAL : 0;
}

int rx_parse_ab(int argc, char **argv, struct ab_opts *o)
{
	static const int codes[] = {
		O_DEV, O_QUEUES, O_SIZES, O_PROVIDERS, O_CONFIGS, O_BYTES,
		O_RUNS, O_FLOWS, O_SEED, O_VERIFY, O_VERIFY_EVERY, O_ZCRX_AREA,
		O_HOLD_BYTES, O_CSV, O_SUMMARY, O_MD, O_TAG, O_PORT, RX_BUF,
		O_LISTEN, O_SENDER, O_SENDER_TASKS, O_LOAD_CMD, O_UNLOAD_CMD,
		O_TIMEOUT, O_SECONDS, O_CPUS, O_RX_CPUS, O_NAPI_CPUS,
		O_NAPI_FIFO, O_PROFILE_CMD, O_APP, O_APP_VERIFY, O_APP_FRAGS,
		O_APP_BAD, O_APP_BYTES, O_NO_FLOW_RULE, O_BOUND_CMD, 'h', 0
	};
	struct option opts[ARRAY_SIZE(codes)];
	int c;

	rx_opts_pick(codes, opts);
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
			return 1;	/* --help: main prints the usage */
		if (ab_opt(c, optarg, argc, argv, o))
			return -EINVAL;
	}
	if (rx_positional(argc, argv, "ab"))
		return -EINVAL;
	/* No dma-buf given (--hugetlb alone is none). */
	if (o->buf.kind == DX_DMABUF_NONE) {
		o->buf.kind = DX_UDMABUF;
		o->buf.size = 64 << 20;
		o->buf.hugetlb = true;
	}
	return ab_check(o);
}
