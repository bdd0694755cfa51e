// SPDX-License-Identifier: GPL-2.0
/*
 * dx-failnth IFNAME QUEUE OP PROVIDER [RX-BUF-SIZE]: fail the 1st, 2nd, ...
 * allocation OP makes (through /proc/thread-self/fail-nth, which needs a
 * kernel with fault injection, failslab and fail_page_alloc set to fail
 * sleeping allocations too), one per step, until OP completes without a
 * fault. OP is bind (BIND-RX), unbind (devmemx UNBIND) or release (closing
 * the netlink socket that holds the binding); PROVIDER devmemx or netdev
 * (the kernel's own bind-rx). Each step starts on a new socket and a fresh
 * bind where OP needs one, and ends with every binding gone: the step fails
 * unless devmemx's INFO then counts no binding, niov or page pool. Prints
 * one line per outcome (errno and extack message) with its count, and the
 * number of steps; -v prints every step. -c runs OP once with no fault
 * and prints how many allocations fail-nth counted in it (about the steps a
 * full run takes: a fault some of them absorb can add allocations).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/udmabuf.h>

#include "linux/devmemx.h"
#include "linux/netdev.h"
#include "dxnl.h"

#define MAX_STEPS	20000
#define MAX_OUTCOMES	64
#define COUNT_ARM	1000000000u

enum op { OP_BIND, OP_UNBIND, OP_RELEASE };

static unsigned int ifindex, queue, bufsize;
static bool netdev, verbose, count;
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

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "dx-failnth: ");
	fprintf(stderr, fmt, arg);
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

/*
 * Wait (up to 60 s) until devmemx counts no binding, niov or page pool;
 * polls from every 1 ms to every 64 ms. False if the time ran out or INFO
 * failed (a count of -1).
 */
static bool idle(long long v[3])
{
	static const uint16_t attr[3] = {
		DEVMEMX_A_INFO_BINDINGS, DEVMEMX_A_INFO_NIOVS, DEVMEMX_A_INFO_PAGE_POOLS,
	};
	struct timespec pause = { .tv_nsec = 1000000 };
	double end = now() + 60;
	int i;

	for (;;) {
		for (i = 0; i < 3; i++)
			v[i] = devmemx_info(info_sock, dx_family, attr[i]);
		if (!v[0] && !v[1] && !v[2])
			return true;
		if (v[0] < 0 || v[1] < 0 || v[2] < 0 || now() > end)
			return false;
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
	long long v[3];
	int rc;

	if (op != OP_BIND && (bind_rx(sock, &pre) || pre.err))
		die("the bind before the step failed: %s", pre.text[0] ? pre.text :
		    strerror(pre.err ?: EIO));
	arm(count ? COUNT_ARM : n);
	switch (op) {
	case OP_BIND:
		rc = bind_rx(sock, &o);
		break;
	case OP_UNBIND:
		rc = unbind(sock, pre.id, &o);
		break;
	default:
		rc = close(sock);
		sock = -1;
		memset(&o, 0, sizeof(o));
	}
	left = disarm();
	injected = !left;
	counted = COUNT_ARM - left;
	/* An allocation of the request's own skb or of its answer failed. */
	if (rc && !o.err)
		o.err = ENOBUFS, strcpy(o.text, "(no answer: netlink lost the request or its reply)");
	record(n, injected, &o);
	if (sock >= 0)
		close(sock);
	if (!idle(v)) {
		if (v[0] < 0 || v[1] < 0 || v[2] < 0)
			fprintf(stderr, "dx-failnth: step %u: devmemx INFO failed after teardown\n", n);
		else
			fprintf(stderr, "dx-failnth: step %u: 60 s after teardown devmemx still counts %lld bindings, %lld niovs, %lld page pools\n",
				n, v[0], v[1], v[2]);
		exit(1);
	}
	return !injected && !o.err;
}

int main(int argc, char **argv)
{
	static const char * const names[] = { "bind", "unbind", "release" };
	enum op op = OP_BIND;
	unsigned int n, i;
	double t0;

	for (; argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-c")); argc--, argv++)
		*(argv[1][1] == 'v' ? &verbose : &count) = true;
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: dx-failnth [-v] [-c] IFNAME QUEUE bind|unbind|release devmemx|netdev [RX-BUF-SIZE]\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	queue = atoi(argv[2]);
	while (op < 3 && strcmp(argv[3], names[op]))
		op++;
	netdev = !strcmp(argv[4], "netdev");
	bufsize = argc > 5 ? strtoul(argv[5], NULL, 0) : 4096;
	if (!ifindex)
		die("no device %s", argv[1]);
	if (op == 3 || (!netdev && strcmp(argv[4], "devmemx")) || (netdev && op == OP_UNBIND))
		die("no such operation: %s", argv[3]);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die("/proc/thread-self/fail-nth: %s (a kernel with CONFIG_FAULT_INJECTION)",
		    strerror(errno));
	dmabuf = bufsize > 4096 ? udmabuf(2 << 20, true) : udmabuf_pieces();
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
	if (n > MAX_STEPS) {
		fprintf(stderr, "dx-failnth: %s %s did not complete in %u steps\n",
			names[op], argv[4], MAX_STEPS);
		return 1;
	}
	printf("dx-failnth: %s %s: %u steps, %u faults injected\n", names[op], argv[4], n, n - 1);
	printf("dx-failnth:   in %.0f s\n", now() - t0);
	for (i = 0; i < noutcomes; i++)
		printf("dx-failnth:   %5u  %s, %s%s%s\n", outcomes[i].count,
		       outcomes[i].injected ? "fault" : "no fault",
		       outcomes[i].err ? strerrorname_np(outcomes[i].err) ?: "?" : "ok",
		       outcomes[i].text[0] ? ": " : "", outcomes[i].text);
	return 0;
}
