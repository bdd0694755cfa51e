// SPDX-License-Identifier: GPL-2.0
/*
 * dx-failnth IFNAME QUEUE OP PROVIDER [RX-BUF-SIZE [PORT]]: fail the 1st,
 * 2nd, ... allocation OP makes (through /proc/thread-self/fail-nth, which
 * needs a kernel with fault injection, failslab and fail_page_alloc set to
 * fail sleeping allocations too), one per step, until OP completes without
 * a fault. OP is bind (BIND-RX), unbind (devmemx UNBIND), release (closing
 * the netlink socket that holds the binding), recv (a connection's first
 * recvmsg(MSG_SOCK_DEVMEM)) or dontneed (its first SO_DEVMEM_DONTNEED);
 * PROVIDER devmemx, tokens (devmemx with autorelease token-array), netdev
 * (the kernel's own bind-rx) or policy (netdev's bind-rx, which a devmemx
 * policy on IFNAME's QUEUE serves: a bind that succeeds must make a devmemx
 * binding). recv and dontneed take a flow to PORT: a
 * child in netns "tx" sends FLOW_BYTES to IFNAME's address, which the
 * caller steers to QUEUE. A failed recvmsg must leave every byte queued
 * and a failed DONTNEED every token held: the step then reads the rest and
 * gives back every token, and fails unless all FLOW_BYTES came as dma-buf
 * fragments. Each step starts on a new socket and a fresh bind where OP
 * needs one, and ends with every binding gone: the step fails unless
 * devmemx's INFO then counts no binding, niov, page pool or token-array
 * socket. Prints
 * one line per outcome (errno and extack message) with its count, and the
 * number of steps; -v prints every step. -c runs OP once with no fault
 * and prints how many allocations fail-nth counted in it (about the steps a
 * full run takes: a fault some of them absorb can add allocations).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <linux/udmabuf.h>
/* <linux/uio.h> redefines glibc's struct iovec: its devmem types only. */
#define iovec dx_linux_iovec
#include <linux/uio.h>
#undef iovec

#include "linux/devmemx.h"
#include "linux/netdev.h"
#include "dxnl.h"

#define MAX_STEPS	20000
#define MAX_OUTCOMES	64
#define COUNT_ARM	1000000000u

/* Queued whole before the step reads: well inside a default receive window. */
#define FLOW_BYTES	(64 << 10)
#define MAX_FRAGS	512	/* FLOW_BYTES in 4K fragments and more */

enum op { OP_BIND, OP_UNBIND, OP_RELEASE, OP_RECV, OP_DONTNEED };

static unsigned int ifindex, queue, bufsize;
static bool netdev, tokens, policy, verbose, count;
static int listen_fd = -1;
static struct sockaddr_in peer;
static uint16_t dx_family, nd_family;
static int dmabuf, nth_fd, info_sock;
static unsigned long counted;
static struct msg m;

static struct {
	int err;
	bool injected;
	char text[160];
	unsigned int count;
} outcomes[MAX_OUTCOMES];
static unsigned int noutcomes;

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "dx-failnth: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void arm(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	if (pwrite(nth_fd, s, len, 0) != len)
		die("cannot write /proc/thread-self/fail-nth: %s", strerror(errno));
}

/* Disarm; what was left of the count (0: the fault was injected). */
static unsigned long disarm(void)
{
	char s[16] = "";

	if (pread(nth_fd, s, sizeof(s) - 1, 0) <= 0)
		die("cannot read /proc/thread-self/fail-nth: %s", strerror(errno));
	arm(0);
	return strtoul(s, NULL, 10);
}

/*
 * The dma-buf's shape sets how many allocations a bind makes: one chunk or
 * more per DMA-contiguous run, and a plain memfd's runs depend on how
 * fragmented memory is (a 1M one had from 1 to 256 of them, so one bind took
 * 90 steps on a fresh boot and 1,600 later). For page-sized niovs: PIECES
 * pages of one huge page, a page apart, so always PIECES runs and steps that
 * fail between them; larger niovs get a whole huge page (one run).
 */
#define PIECES	4

static int udmabuf_pieces(void)
{
	struct {
		struct udmabuf_create_list head;
		struct udmabuf_create_item item[PIECES];
	} req = { .head = { .flags = UDMABUF_FLAGS_CLOEXEC, .count = PIECES } };
	int memfd, fd, i;

	memfd = memfd_sealed(2 << 20, true);
	if (memfd < 0)
		return -1;
	for (i = 0; i < PIECES; i++)
		req.item[i] = (struct udmabuf_create_item){
			.memfd = memfd, .offset = 2 * i * 4096, .size = 4096,
		};
	fd = udmabuf_ioctl(UDMABUF_CREATE_LIST, &req);
	close(memfd);
	return fd;
}

static int bind_rx(int sock, struct outcome *o)
{
	size_t nest;

	if (netdev) {
		msg_init(&m, nd_family, NETDEV_CMD_BIND_RX, false);
		put_u32(&m, NETDEV_A_DMABUF_IFINDEX, ifindex);
		put_u32(&m, NETDEV_A_DMABUF_FD, dmabuf);
		nest = nest_start(&m, NETDEV_A_DMABUF_QUEUES);
		put_u32(&m, NETDEV_A_QUEUE_ID, queue);
		put_u32(&m, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
		nest_end(&m, nest);
	} else {
		msg_init(&m, dx_family, DEVMEMX_CMD_BIND_RX, false);
		put_u32(&m, DEVMEMX_A_BINDING_IFINDEX, ifindex);
		put_u32(&m, DEVMEMX_A_BINDING_FD, dmabuf);
		nest = nest_start(&m, DEVMEMX_A_BINDING_QUEUES);
		put_u32(&m, DEVMEMX_A_QUEUE_ID, queue);
		nest_end(&m, nest);
		put_u32(&m, DEVMEMX_A_BINDING_RX_BUF_SIZE, bufsize);
		if (tokens) {
			uint8_t v = DEVMEMX_AUTORELEASE_TOKEN_ARRAY;

			put(&m, DEVMEMX_A_BINDING_AUTORELEASE, &v, sizeof(v));
		}
	}
	return call(sock, &m, 1, o);
}

static int unbind(int sock, uint32_t id, struct outcome *o)
{
	msg_init(&m, dx_family, DEVMEMX_CMD_UNBIND, false);
	put_u32(&m, DEVMEMX_A_BINDING_ID, id);
	return call(sock, &m, 2, o);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the flow of recv and dontneed ---- */

/* The listener on PORT at IFNAME's IPv4 address, which the sender gets. */
static void flow_listen(const char *ifname, unsigned int port)
{
	struct ifaddrs *ifa, *i;
	int one = 1;

	if (getifaddrs(&ifa))
		die("getifaddrs: %s", strerror(errno));
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    !strcmp(i->ifa_name, ifname))
			break;
	if (!i)
		die("%s has no IPv4 address", ifname);
	memcpy(&peer, i->ifa_addr, sizeof(peer));
	freeifaddrs(ifa);
	peer.sin_port = htons(port);
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 ||
	    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(listen_fd, (struct sockaddr *)&peer, sizeof(peer)) ||
	    listen(listen_fd, 1))
		die("cannot listen on the flow's port: %s", strerror(errno));
}

/* A child in netns tx sends FLOW_BYTES to the listener and closes. */
static pid_t flow_send(void)
{
	static char buf[FLOW_BYTES];
	pid_t pid = fork();
	int ns, fd;

	if (pid)
		return pid;
	ns = open("/run/netns/tx", O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET))
		die("cannot enter netns tx: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7 + 3;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&peer, sizeof(peer)) ||
	    write(fd, buf, sizeof(buf)) != sizeof(buf))
		die("the sender: %s", strerror(errno));
	_exit(0);
}

/*
 * Freed skbs wait on the defer list of the CPU that received them until it
 * next runs NET_RX, and their niovs keep the binding alive meanwhile: a
 * datagram to 127.0.0.1 from each CPU runs it there (as guestlib.sh's
 * flush_deferred_skbs does).
 */
static void flush_deferred(void)
{
	struct sockaddr_in lo = {
		.sin_family = AF_INET, .sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t all, one;
	int fd, cpu;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sched_getaffinity(0, sizeof(all), &all))
		die("flushing deferred skbs: %s", strerror(errno));
	for (cpu = 0; cpu < n; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			sendto(fd, "", 1, 0, (struct sockaddr *)&lo, sizeof(lo));
	}
	sched_setaffinity(0, sizeof(all), &all);
	close(fd);
}

/* The bytes queued on @fd (SIOCINQ). */
static int queued(int fd)
{
	int n = -1;

	if (ioctl(fd, SIOCINQ, &n))
		die("SIOCINQ: %s", strerror(errno));
	return n;
}

struct frags {
	struct dmabuf_token tok[MAX_FRAGS];
	unsigned int n;
	size_t bytes;
};

/*
 * One recvmsg(MSG_SOCK_DEVMEM) on @fd: its fragments' tokens added to @f.
 * Its return, or -errno. Only dma-buf fragments may come.
 */
static ssize_t flow_recv(int fd, struct frags *f)
{
	static char ctrl[CMSG_SPACE(sizeof(struct dmabuf_cmsg)) * MAX_FRAGS];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *c;
	ssize_t r;

	r = recvmsg(fd, &msg, MSG_SOCK_DEVMEM | MSG_DONTWAIT);
	if (r < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		struct dmabuf_cmsg d;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_DEVMEM_DMABUF)
			die("the flow got a fragment that was not the dma-buf's");
		memcpy(&d, CMSG_DATA(c), sizeof(d));
		if (f->n == MAX_FRAGS)
			die("the flow took more than %d fragments", MAX_FRAGS);
		f->tok[f->n++] = (struct dmabuf_token){ d.frag_token, 1 };
		f->bytes += d.frag_size;
	}
	return r;
}

/* Every token of @f back; how many the kernel counted, or -errno. */
static int flow_dontneed(int fd, struct frags *f)
{
	int freed = 0, r;

	for (unsigned int i = 0; i < f->n; i += 128) {
		unsigned int k = f->n - i < 128 ? f->n - i : 128;

		r = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, f->tok + i,
			       k * sizeof(f->tok[0]));
		if (r < 0)
			return -errno;
		freed += r;
	}
	f->n = 0;
	return freed;
}

/*
 * OP recv or dontneed on a connection of the binding just made, with the
 * fault armed for that call alone; then the rest read and every token
 * given back with none armed. Its outcome in @o; the armed call's return.
 */
static unsigned long flow_step(enum op op, unsigned int n, struct outcome *o)
{
	static struct frags f;
	pid_t pid;
	double end = now() + 30;
	unsigned long left;
	int fd, st, r, q, held = 0;
	ssize_t got;

	fflush(stdout);
	pid = flow_send();
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	while ((q = queued(fd)) < FLOW_BYTES) {
		if (now() > end)
			die("the flow's bytes did not all arrive in 30 s (%d queued)", q);
		usleep(1000);
	}
	memset(&f, 0, sizeof(f));
	memset(o, 0, sizeof(*o));
	if (op == OP_DONTNEED) {
		if (flow_recv(fd, &f) <= 0)
			die("the flow's first recvmsg got nothing");
		held = f.n;
	}
	arm(count ? COUNT_ARM : n);
	r = op == OP_RECV ? flow_recv(fd, &f) : flow_dontneed(fd, &f);
	left = disarm();
	if (r < 0) {
		o->err = -r;
		if (op == OP_RECV && queued(fd) != FLOW_BYTES)
			die("step %u: a recvmsg that failed (%s) left %d of %d bytes queued",
			    n, strerror(-r), queued(fd), FLOW_BYTES);
		f.n = held;
	} else if (op == OP_DONTNEED && r != held) {
		die("step %u: a DONTNEED with a fault armed gave back %d of %d tokens", n, r, held);
	}
	/* The rest, with nothing armed: every byte read, every token back. */
	do {
		if (f.n >= MAX_FRAGS - 64 || (op == OP_DONTNEED && f.n)) {
			held = f.n;
			r = flow_dontneed(fd, &f);
			if (r != held)
				die("step %u: DONTNEED gave back %d of %d tokens", n, r, held);
		}
		got = flow_recv(fd, &f);
	} while (got > 0 || got == -EAGAIN);
	if (got < 0)
		die("step %u: the flow's recvmsg after the step: %s", n, strerror(-got));
	held = f.n;
	r = flow_dontneed(fd, &f);
	if (r != held)
		die("step %u: DONTNEED gave back %d of %d tokens", n, r, held);
	if (f.bytes != FLOW_BYTES)
		die("step %u: %zu of the flow's %d bytes came as dma-buf fragments",
		    n, f.bytes, FLOW_BYTES);
	close(fd);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("step %u: the sender failed", n);
	flush_deferred();
	return left;
}

/*
 * Wait (up to 60 s) until devmemx counts no binding, niov, page pool or
 * token-array socket; polls from every 1 ms to every 64 ms. False if the
 * time ran out or INFO failed (a count of -1).
 */
#define IDLE_COUNTS	4
static bool idle(long long v[IDLE_COUNTS])
{
	static const uint16_t attr[IDLE_COUNTS] = {
		DEVMEMX_A_INFO_BINDINGS, DEVMEMX_A_INFO_NIOVS, DEVMEMX_A_INFO_PAGE_POOLS,
		DEVMEMX_A_INFO_TOKEN_SOCKETS,
	};
	struct timespec pause = { .tv_nsec = 1000000 };
	double end = now() + 60;
	bool zero, failed;
	int i;

	for (;;) {
		zero = true;
		failed = false;
		for (i = 0; i < IDLE_COUNTS; i++) {
			v[i] = devmemx_info(info_sock, dx_family, attr[i]);
			zero &= !v[i];
			failed |= v[i] < 0;
		}
		if (zero)
			return true;
		if (failed || now() > end)
			return false;
		if (listen_fd >= 0)	/* a flow's skbs, freed since */
			flush_deferred();
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 64000000)
			pause.tv_nsec *= 2;
	}
}

static void record(unsigned int step, bool injected, const struct outcome *o)
{
	unsigned int i;

	if (verbose)
		printf("step %u: fault %s; %s%s%s\n", step, injected ? "injected" : "not reached",
		       o->err ? strerrorname_np(o->err) ?: "?" : "ok", o->text[0] ? ": " : "",
		       o->text);
	for (i = 0; i < noutcomes; i++)
		if (outcomes[i].err == o->err && outcomes[i].injected == injected &&
		    !strcmp(outcomes[i].text, o->text))
			break;
	if (i == MAX_OUTCOMES)
		return;
	if (i == noutcomes) {
		noutcomes++;
		outcomes[i].err = o->err;
		outcomes[i].injected = injected;
		strcpy(outcomes[i].text, o->text);
	}
	outcomes[i].count++;
}

/* One step: OP with its @n-th allocation failed. True once OP met no fault. */
static bool step(enum op op, unsigned int n)
{
	struct outcome o, pre = { 0 };
	int sock = nl_open();
	unsigned long left;
	bool injected;
	long long v[IDLE_COUNTS];
	int rc;

	if (op != OP_BIND && (bind_rx(sock, &pre) || pre.err))
		die("the bind before the step failed: %s", pre.text[0] ? pre.text :
		    strerror(pre.err ?: EIO));
	if (op == OP_RECV || op == OP_DONTNEED) {
		rc = 0;
		left = flow_step(op, n, &o);
	} else {
		arm(count ? COUNT_ARM : n);
		if (op == OP_BIND) {
			rc = bind_rx(sock, &o);
		} else if (op == OP_UNBIND) {
			rc = unbind(sock, pre.id, &o);
		} else {
			rc = close(sock);
			sock = -1;
			memset(&o, 0, sizeof(o));
		}
		left = disarm();
	}
	injected = !left;
	counted = COUNT_ARM - left;
	/* An allocation of the request's own skb or of its answer failed. */
	if (rc && !o.err)
		o.err = ENOBUFS, strcpy(o.text, "(no answer: netlink lost the request or its reply)");
	record(n, injected, &o);
	/* The bind the policy served is devmemx's, until its socket closes. */
	if (policy && op == OP_BIND && !rc && !o.err &&
	    devmemx_info(info_sock, dx_family, DEVMEMX_A_INFO_BINDINGS) != 1)
		die("step %u: netdev's bind-rx under a policy made no devmemx binding", n);
	if (sock >= 0)
		close(sock);
	if (!idle(v)) {
		if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0)
			die("step %u: devmemx INFO failed after teardown", n);
		die("step %u: 60 s after teardown devmemx still counts %lld bindings, %lld niovs, %lld page pools, %lld token-array sockets",
		    n, v[0], v[1], v[2], v[3]);
	}
	return !injected && !o.err;
}

int main(int argc, char **argv)
{
	static const char * const names[] = { "bind", "unbind", "release", "recv", "dontneed" };
	enum op op = OP_BIND;
	unsigned int n, i;
	bool flow;
	double t0;

	for (; argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-c")); argc--, argv++)
		*(argv[1][1] == 'v' ? &verbose : &count) = true;
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: dx-failnth [-v] [-c] IFNAME QUEUE bind|unbind|release|recv|dontneed devmemx|tokens|netdev|policy [RX-BUF-SIZE [PORT]]\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	queue = atoi(argv[2]);
	while (op <= OP_DONTNEED && strcmp(argv[3], names[op]))
		op++;
	policy = !strcmp(argv[4], "policy");
	netdev = policy || !strcmp(argv[4], "netdev");
	tokens = !strcmp(argv[4], "tokens");
	bufsize = argc > 5 ? strtoul(argv[5], NULL, 0) : 4096;
	flow = op == OP_RECV || op == OP_DONTNEED;
	if (!ifindex)
		die("no device %s", argv[1]);
	if (op > OP_DONTNEED || (!netdev && !tokens && strcmp(argv[4], "devmemx")) ||
	    (netdev && op == OP_UNBIND))
		die("no such operation: %s %s", argv[3], argv[4]);
	if (flow != (argc == 7))
		die("%s", flow ? "recv and dontneed take a PORT" : "only recv and dontneed take a PORT");
	if (flow)
		flow_listen(argv[1], atoi(argv[6]));
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die("/proc/thread-self/fail-nth: %s (a kernel with CONFIG_FAULT_INJECTION)",
		    strerror(errno));
	/* A flow needs room: a whole huge page at every size. */
	dmabuf = bufsize > 4096 || flow ? udmabuf(2 << 20, true) : udmabuf_pieces();
	if (dmabuf < 0)
		die("cannot make a udmabuf: %s", strerror(errno));
	info_sock = nl_open();
	dxnl_quiet = true;	/* counted as ENOBUFS outcomes instead */
	dx_family = family_id(info_sock, DEVMEMX_FAMILY_NAME);
	if (netdev)
		nd_family = family_id(info_sock, NETDEV_FAMILY_NAME);

	t0 = now();
	if (count) {
		if (!step(op, 0))
			die("%s failed with no fault injected", names[op]);
		printf("dx-failnth: %s %s: %lu allocations counted\n", names[op], argv[4], counted);
		return 0;
	}
	for (n = 1; n <= MAX_STEPS && !step(op, n); n++)
		;
	if (n > MAX_STEPS)
		printf("dx-failnth: %s %s did not complete in %u steps:\n",
		       names[op], argv[4], MAX_STEPS);
	else
		printf("dx-failnth: %s %s: %u steps, %u faults injected\n",
		       names[op], argv[4], n, n - 1);
	printf("dx-failnth:   in %.0f s\n", now() - t0);
	for (i = 0; i < noutcomes; i++)
		printf("dx-failnth:   %5u  %s, %s%s%s\n", outcomes[i].count,
		       outcomes[i].injected ? "fault" : "no fault",
		       outcomes[i].err ? strerrorname_np(outcomes[i].err) ?: "?" : "ok",
		       outcomes[i].text[0] ? ": " : "", outcomes[i].text);
	return n > MAX_STEPS;
}
