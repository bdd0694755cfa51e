// SPDX-License-Identifier: GPL-2.0
/*
 * The host's half of a pod's leased queue, where no CNI does it.
 *
 * devmemx-rx lease --netkit NETKIT --dev IFNAME --queue Q: netdev's
 * queue-create, a new RX queue of NETKIT (the pod's end of a netkit pair,
 * before it moves into the pod) leasing queue Q of IFNAME; prints the new
 * queue's index, which the pod binds.
 *
 * devmemx-rx redirect --dev IFNAME --netkit NETKIT --addr ADDR: a tcx
 * program on IFNAME's ingress hands every IPv4 packet for ADDR to NETKIT's
 * peer (NETKIT is the host's end of the pair, its peer the pod's) with
 * bpf_redirect_peer(), as the kernel's selftest nk_forward.bpf.c does for
 * an IPv6 prefix; other packets go on to the next tcx program and tc (one
 * such program per pod on a NIC). The program is written out as
 * instructions (no compiler or object file needed) and lives as long as
 * the command: it prints one line once attached and detaches at SIGINT or
 * SIGTERM.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/netdev.h>

#include "rx-opts.h"
#include "rx.h"

/* ---- lease ---------------------------------------------------------------- */

const char rx_lease_synopsis[] =
	"devmemx-rx lease --netkit NETKIT --dev IFNAME --queue Q [-j|--json]\n";

const char rx_lease_help[] =
	"lease: netdev queue-create (Linux 7.2): a new RX queue of NETKIT that\n"
	"leases RX queue Q of IFNAME; prints its index (the pod binds it). NETKIT\n"
	"is the pod's end of a netkit pair (netkit leases to its peer only), made\n"
	"with numrxqueues above 1 and still in this namespace; move it into the\n"
	"pod after. The lease ends with the pair. Needs CAP_NET_ADMIN.\n"
	"  --netkit NETKIT       the pod's end of the pair\n"
	"  --dev IFNAME          the NIC whose queue it leases\n"
	"  --queue Q             that queue (steer the pod's flows to it)\n"
	"  -j, --json            {\"ifindex\": NETKIT's, \"id\": the new queue}\n";

/*
 * The options of @cmd (@opts, short ones @shorts) in @argv, each given to
 * @take(@o, its code, its value): 0, 1 for --help, or < 0 after a message.
 */
static int rx_pod_opts(int argc, char **argv, const char *cmd,
		       const char *shorts, const struct option *opts,
		       int (*take)(void *o, int c, char *arg), void *o)
{
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		if (c == 'h')
			return 1;	/* --help: main prints the usage */
		if (c == ':')
			return rx_missing_arg(argv);
		if (c == '?')
			return rx_unknown_option(argv, cmd);
		ret = take(o, c, optarg);
		if (ret)
			return ret;
	}
	return rx_positional(argc, argv, cmd);
}

static int rx_lease_opt(void *arg, int c, char *val)
{
	struct rx_lease_opts *o = arg;
	unsigned long q;
	char *end;

	switch (c) {
	case 'n':
		o->netkit = val;
		return 0;
	case 'd':
		o->dev = val;
		return 0;
	case 'q':
		errno = 0;
		q = strtoul(val, &end, 10);
		if (!isdigit((unsigned char)*val) || *end || errno || q > UINT32_MAX)
			return dx_bad_usage("bad --queue \"%s\": use a queue number, e.g. 2",
					    val);
		o->queue = q;
		o->has_queue = true;
		return 0;
	default:	/* 'j' */
		o->json = true;
		return 0;
	}
}

int rx_parse_lease(int argc, char **argv, struct rx_lease_opts *o)
{
	static const struct option opts[] = {
		{ "netkit", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "queue", required_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ret = rx_pod_opts(argc, argv, "lease", ":jh", opts, rx_lease_opt, o);

	if (ret)
		return ret;
	if (!o->netkit || !o->dev || !o->has_queue)
		return dx_bad_usage("lease needs --netkit NETKIT, --dev IFNAME and --queue Q");
	return 0;
}

/* @name's ifindex for @opt, or 0 after a message. */
static unsigned int rx_pod_dev(const char *name, const char *opt)
{
	unsigned int i = if_nametoindex(name);

	if (!i)
		fprintf(stderr, "devmemx-rx: %s: no network device \"%s\" in this namespace (see: ip link)\n",
			opt, name);
	return i;
}

/* What to change when the kernel refused without saying why. */
static const char *rx_lease_hint(int err, const char *extack, void *arg)
{
	const struct rx_lease_opts *o = arg;
	static char hint[64 + 2 * IF_NAMESIZE];

	if (extack)
		return NULL;
	if (err == EOPNOTSUPP)
		return "this kernel leases no queues (netdev queue-create came in Linux 7.2)";
	if (err == EPERM)
		return "leasing a queue needs CAP_NET_ADMIN";
	if (err == ERANGE) {
		snprintf(hint, sizeof(hint), "%s has no RX queue %u (see: ethtool -l %s)",
			 o->dev, o->queue, o->dev);
		return hint;
	}
	return NULL;
}

static int rx_lease_reply(const struct dx_reply *r, void *arg)
{
	int64_t *id = arg;

	if (!r->tb[NETDEV_A_QUEUE_ID])
		return -EPROTO;
	*id = nla_get_u32(r->tb[NETDEV_A_QUEUE_ID]);
	return 0;
}

int rx_lease_run(const struct rx_lease_opts *o)
{
	unsigned int nk = rx_pod_dev(o->netkit, "--netkit");
	unsigned int dev = nk ? rx_pod_dev(o->dev, "--dev") : 0;
	struct nlattr *lease, *queue;
	struct nl_msg *msg;
	struct dx_nl nl;
	int64_t id = -1;
	char what[96];
	int ret;

	if (!dev)
		return -ENODEV;
	ret = dx_nl_open(&nl, NETDEV_FAMILY_NAME);
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, NETDEV_CMD_QUEUE_CREATE, false);
	if (!msg ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_IFINDEX, nk) ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX) ||
	    !(lease = nla_nest_start(msg, NETDEV_A_QUEUE_LEASE)) ||
	    nla_put_u32(msg, NETDEV_A_LEASE_IFINDEX, dev) ||
	    !(queue = nla_nest_start(msg, NETDEV_A_LEASE_QUEUE)) ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_ID, o->queue) ||
	    nla_put_u32(msg, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX)) {
		nlmsg_free(msg);
		dx_nl_close(&nl);
		return dx_nomem();
	}
	nla_nest_end(msg, queue);
	nla_nest_end(msg, lease);
	snprintf(what, sizeof(what), "lease of queue %u of %s to %s", o->queue,
		 o->dev, o->netkit);
	nl.hint = rx_lease_hint;
	nl.hint_arg = (void *)o;
	ret = dx_nl_call(&nl, msg, NETDEV_A_QUEUE_MAX, rx_lease_reply, &id, what);
	dx_nl_close(&nl);
	if (ret)
		return ret;
	if (o->json)
		printf("{\"ifindex\":%u,\"id\":%" PRId64 "}\n", nk, id);
	else
		printf("queue %" PRId64 " of %s leases queue %u of %s\n", id,
		       o->netkit, o->queue, o->dev);
	return 0;
}

/* ---- redirect ------------------------------------------------------------- */

#define RX_INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

/* Ethernet (14) and IPv4 header up to daddr's end (20): 34 bytes. */
#define RX_ETH_PROTO	12
#define RX_IP4_DADDR	(14 + 16)
#define RX_HDRS		34

static int rx_redirect_load(unsigned int peer, struct in_addr addr)
{
	const struct bpf_insn insns[] = {
		/* r2 = skb->data, r3 = skb->data_end */
		RX_INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1,
			offsetof(struct __sk_buff, data), 0),
		RX_INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1,
			offsetof(struct __sk_buff, data_end), 0),
		/* the headers in the linear part, or next (the last two) */
		RX_INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0),
		RX_INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, RX_HDRS),
		RX_INSN(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 8, 0),
		/* IPv4, for @addr, or next */
		RX_INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_5, BPF_REG_2,
			RX_ETH_PROTO, 0),
		RX_INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, 6,
			htons(0x0800)),
		RX_INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_2,
			RX_IP4_DADDR, 0),
		RX_INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, 4,
			(__s32)addr.s_addr),
		/* return bpf_redirect_peer(@peer, 0) */
		RX_INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, peer),
		RX_INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
		RX_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_peer),
		RX_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* next: the next program's, or tc's, or the stack's */
		RX_INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TCX_NEXT),
		RX_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.expected_attach_type = BPF_TCX_INGRESS;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		fprintf(stderr, "devmemx-rx: cannot load the redirect program: %s%s%s\n",
			strerror(errno), *log ? "; the verifier says:\n" : "", log);
	return fd;
}

const char rx_redirect_synopsis[] =
	"devmemx-rx redirect --dev IFNAME --netkit NETKIT --addr ADDR\n";

const char rx_redirect_help[] =
	"redirect: a pod's flows from the NIC into its netkit, where no CNI does\n"
	"it (the host's half of a leased queue: README, In a Kubernetes pod). On\n"
	"IFNAME's ingress (tcx), every IPv4 packet for ADDR goes to the peer of\n"
	"NETKIT (bpf_redirect_peer), the pod's end of the pair; others go on to\n"
	"the next tcx program (another pod's) and tc. Runs until SIGINT or\n"
	"SIGTERM, which detach it (exit 0); needs CAP_NET_ADMIN and CAP_BPF\n"
	"(root).\n"
	"  --dev IFNAME          the NIC the pod's queue is leased from\n"
	"  --netkit NETKIT       the host's end of the pod's netkit pair (the peer\n"
	"                        of lease's)\n"
	"  --addr ADDR           the pod's IPv4 address\n";

static int rx_redirect_opt(void *arg, int c, char *val)
{
	struct rx_redirect_opts *o = arg;

	if (c == 'd')
		o->dev = val;
	else if (c == 'n')
		o->netkit = val;
	else	/* 'a' */
		o->addr = val;
	return 0;
}

int rx_parse_redirect(int argc, char **argv, struct rx_redirect_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "netkit", required_argument, NULL, 'n' },
		{ "addr", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ret = rx_pod_opts(argc, argv, "redirect", ":h", opts,
			      rx_redirect_opt, o);

	if (ret)
		return ret;
	if (!o->dev || !o->netkit || !o->addr)
		return dx_bad_usage("redirect needs --dev IFNAME, --netkit NETKIT and --addr ADDR");
	if (inet_pton(AF_INET, o->addr, &o->in) != 1)
		return dx_bad_usage("bad --addr \"%s\": use the pod's IPv4 address",
				    o->addr);
	return 0;
}

int rx_redirect_run(const struct rx_redirect_opts *o)
{
	unsigned int ifindex = rx_pod_dev(o->dev, "--dev");
	unsigned int peer = ifindex ? rx_pod_dev(o->netkit, "--netkit") : 0;
	union bpf_attr attr;
	int prog, link, sig;
	sigset_t set;

	if (!peer)
		return -ENODEV;
	if (peer == ifindex) {
		fprintf(stderr, "devmemx-rx: --netkit %s is --dev: name the host's end of the pod's pair\n",
			o->netkit);
		return -EINVAL;
	}
	/* Blocked first: a signal from here on ends the wait below. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	prog = rx_redirect_load(peer, o->in);
	if (prog < 0)
		return -EIO;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog;
	attr.link_create.target_ifindex = ifindex;
	attr.link_create.attach_type = BPF_TCX_INGRESS;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (link < 0) {
		fprintf(stderr, "devmemx-rx: cannot attach to %s's tcx ingress: %s\n",
			o->dev, strerror(errno));
		close(prog);
		return -EIO;
	}
	printf("redirecting IPv4 for %s from %s to %s's peer (until SIGINT or SIGTERM)\n",
	       o->addr, o->dev, o->netkit);
	fflush(stdout);
	sigwait(&set, &sig);
	/* The link holds the program: closing both detaches it. */
	close(link);
	close(prog);
	return 0;
}
