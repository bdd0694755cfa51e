// SPDX-License-Identifier: GPL-2.0
/*
 * dx-fuzz IFNAME SEED COUNT: send COUNT generic-netlink requests, seeded,
 * to the devmemx family (every command, and unknown ones) and to the netdev
 * family's bind-rx: well-formed ones and mutated ones (attributes dropped,
 * duplicated, of the wrong length or type, nests of garbage, queue lists of
 * thousands, ids and ifindexes at the limits, fds that are no dma-buf or
 * that another thread closes and reopens while the request runs), mixed
 * with valid binds and unbinds. Every request must get its answer (an ACK,
 * an error or a reply) on its own socket; anything else is a failure.
 * Bindings it made end with its sockets, persistent ones are left to the
 * caller (devmemx unbind all). Prints one line of counts.
 *
 * Raw netlink, no libnl: the messages must be able to be wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/udmabuf.h>

#include "linux/devmemx.h"
#include "linux/netdev.h"

#define MSG_MAX		65536
#define RACE_FD		900	/* the fd number the racer thread toggles */

static uint64_t rng;

static uint64_t next(void)	/* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? next() % n : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

/* ---- netlink ------------------------------------------------------------ */

struct msg {
	char buf[MSG_MAX] __attribute__((aligned(4)));
	size_t len;
};

static void msg_init(struct msg *m, uint16_t family, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	g->cmd = cmd;
	g->version = 1;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

/* Append an attribute; false when it does not fit. */
static bool put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (m->len + total > sizeof(m->buf) || NLA_HDRLEN + len > 0xffff)
		return false;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memset((char *)a + NLA_HDRLEN, 0, total - NLA_HDRLEN);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->len += total;
	return true;
}

static bool put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	return put(m, type, &v, sizeof(v));
}

static size_t nest_start(struct msg *m, uint16_t type)
{
	size_t at = m->len;

	if (!put(m, type | NLA_F_NESTED, NULL, 0))
		return 0;
	return at;
}

static void nest_end(struct msg *m, size_t at)
{
	if (at)
		((struct nlattr *)(m->buf + at))->nla_len = m->len - at;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 30 };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one))) {
		perror("dx-fuzz: netlink socket");
		exit(1);
	}
	return fd;
}

struct outcome {
	int err;		/* 0 or a positive errno */
	uint32_t id;		/* a binding id the reply carried */
};

/*
 * Send @m on @fd and read until its ACK or error (a dump: until DONE).
 * Returns -1 when the kernel did not answer as netlink must.
 */
static int call(int fd, struct msg *m, uint32_t seq, struct outcome *o)
{
	static char rx[1 << 17] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;

	nlh->nlmsg_len = m->len;
	nlh->nlmsg_seq = seq;
	memset(o, 0, sizeof(*o));
	if (send(fd, m->buf, m->len, 0) != (ssize_t)m->len) {
		perror("dx-fuzz: send");
		return -1;
	}
	for (;;) {
		ssize_t n = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			fprintf(stderr, "dx-fuzz: request %u: no answer: %s\n", seq,
				strerror(errno));
			return -1;
		}
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq) {
				fprintf(stderr, "dx-fuzz: request %u: answer for %u\n",
					seq, h->nlmsg_seq);
				return -1;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				o->err = -e->error;
				return 0;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			/* A reply: remember a binding id in it (first attribute). */
			if (h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + 4) {
				struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) +
								     GENL_HDRLEN);

				if ((a->nla_type & NLA_TYPE_MASK) == 1 && a->nla_len == 8)
					memcpy(&o->id, (char *)a + NLA_HDRLEN, 4);
			}
		}
	}
}

static uint16_t family_id(int fd, const char *name)
{
	static char rx[8192] __attribute__((aligned(4)));
	struct msg *m = calloc(1, sizeof(*m));
	struct nlmsghdr *h;
	ssize_t n;

	msg_init(m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, false);
	((struct nlmsghdr *)m->buf)->nlmsg_flags = NLM_F_REQUEST;
	put(m, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	((struct nlmsghdr *)m->buf)->nlmsg_len = m->len;
	if (send(fd, m->buf, m->len, 0) < 0 || (n = recv(fd, rx, sizeof(rx), 0)) < 0)
		goto fail;
	free(m);
	h = (struct nlmsghdr *)rx;
	if (NLMSG_OK(h, n) && h->nlmsg_type != NLMSG_ERROR) {
		int len = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);

		for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
		     len -= NLA_ALIGN(a->nla_len),
		     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
			if (a->nla_type == CTRL_ATTR_FAMILY_ID)
				return *(uint16_t *)((char *)a + NLA_HDRLEN);
	}
fail:
	fprintf(stderr, "dx-fuzz: no generic netlink family %s\n", name);
	exit(1);
}

/* ---- what goes into the requests ----------------------------------------- */

static unsigned int ifindex;
static int dmabufs[2];		/* plain memfd, hugetlb memfd (or -1) */
static int devnull;
static uint32_t ids[64];	/* binding ids seen in replies */
static unsigned int nids;

static int udmabuf(size_t size, bool huge)
{
	struct udmabuf_create req = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = size };
	int memfd, dev, fd;

	memfd = memfd_create("dx-fuzz", MFD_ALLOW_SEALING | (huge ? MFD_HUGETLB : 0));
	if (memfd < 0 || ftruncate(memfd, size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return -1;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	req.memfd = memfd;
	fd = dev < 0 ? -1 : ioctl(dev, UDMABUF_CREATE, &req);
	if (dev >= 0)
		close(dev);
	close(memfd);
	return fd;
}

static uint32_t any_u32(void)
{
	static const uint32_t edge[] = {
		0, 1, 2, 3, 4, 7, 8, 64, 4095, 4096, 65536, 131072, 1U << 20,
		0x7fffffff, 0x80000000, 0xefffffff, 0xf0000000, 0xfffffffe,
		0xffffffff,
	};

	switch (below(5)) {
	case 0:
		return edge[below(sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return ifindex;
	case 2:
		return nids ? ids[below(nids)] : 0xf0000000 + below(4);
	case 3:
		return below(8);
	default:
		return (uint32_t)next();
	}
}

static uint32_t any_fd(void)
{
	switch (below(8)) {
	case 0:
		return devnull;
	case 1:
		return RACE_FD;
	case 2:
		return 999;		/* never open */
	case 3:
		return any_u32();
	case 4:
		return dmabufs[1] >= 0 ? dmabufs[1] : dmabufs[0];
	default:
		return dmabufs[0];
	}
}

static uint32_t any_size(void)
{
	return chance(80) ? 4096U << below(7) : any_u32();
}

/* A queue list: valid ids mostly; sometimes thousands, or garbage. */
static void put_queues(struct msg *m, uint16_t type, bool netdev)
{
	unsigned int i, n = chance(5) ? 1 + below(3000) : 1 + below(3);
	size_t nest;

	if (chance(5)) {			/* garbage where a nest belongs */
		char junk[64];

		for (i = 0; i < sizeof(junk); i++)
			junk[i] = next();
		put(m, type | (chance(50) ? NLA_F_NESTED : 0), junk, below(sizeof(junk)));
		return;
	}
	if (netdev) {
		for (i = 0; i < n; i++) {	/* one nest per queue */
			nest = nest_start(m, type);
			if (!chance(3))
				put_u32(m, NETDEV_A_QUEUE_ID, chance(85) ? 2 + below(2) : any_u32());
			if (!chance(3))
				put_u32(m, NETDEV_A_QUEUE_TYPE, chance(90) ? NETDEV_QUEUE_TYPE_RX : any_u32());
			nest_end(m, nest);
		}
		return;
	}
	nest = nest_start(m, type);
	for (i = 0; i < n; i++) {
		uint16_t t = chance(95) ? DEVMEMX_A_QUEUE_ID : below(4);

		if (!put_u32(m, t, chance(85) ? 2 + below(2) : any_u32()))
			break;
	}
	nest_end(m, nest);
}

/* Mutations of one attribute. */
static void put_field(struct msg *m, uint16_t type, uint32_t v)
{
	char junk[16];
	unsigned int i;

	if (chance(4))
		return;				/* missing */
	if (chance(4)) {			/* wrong length */
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = next();
		memcpy(junk, &v, 4);
		put(m, type, junk, below(sizeof(junk)));
		return;
	}
	if (chance(2))
		type = below(24);		/* wrong type */
	put_u32(m, type, v);
	if (chance(3))
		put_u32(m, type, any_u32());	/* duplicate */
}

static uint8_t devmemx_request(struct msg *m, uint16_t family)
{
	uint8_t cmd;

	switch (below(20)) {
	case 0 ... 7:
		cmd = DEVMEMX_CMD_BIND_RX;
		break;
	case 8 ... 10:
		cmd = DEVMEMX_CMD_UNBIND;
		break;
	case 11 ... 13:
		cmd = DEVMEMX_CMD_BINDING_GET;
		break;
	case 14 ... 16:
		cmd = DEVMEMX_CMD_CAPS_GET;
		break;
	case 17:
		cmd = DEVMEMX_CMD_INFO;
		break;
	default:
		cmd = below(256);
	}
	msg_init(m, family, cmd, cmd == DEVMEMX_CMD_BINDING_GET && chance(40));
	switch (cmd) {
	case DEVMEMX_CMD_BIND_RX:
		put_field(m, DEVMEMX_A_BINDING_IFINDEX, chance(85) ? ifindex : any_u32());
		put_field(m, DEVMEMX_A_BINDING_FD, any_fd());
		if (!chance(5))
			put_queues(m, DEVMEMX_A_BINDING_QUEUES, false);
		if (chance(70))
			put_field(m, DEVMEMX_A_BINDING_RX_BUF_SIZE, any_size());
		if (chance(10))
			put_field(m, DEVMEMX_A_BINDING_FLAGS, chance(80) ? 1 : any_u32());
		break;
	case DEVMEMX_CMD_UNBIND:
	case DEVMEMX_CMD_BINDING_GET:
		put_field(m, DEVMEMX_A_BINDING_ID, any_u32());
		break;
	case DEVMEMX_CMD_CAPS_GET:
		put_field(m, DEVMEMX_A_CAPS_IFINDEX, chance(70) ? ifindex : any_u32());
		if (chance(50))
			put_field(m, DEVMEMX_A_CAPS_QUEUE_ID, chance(70) ? below(5) : any_u32());
		break;
	default:
		while (chance(30))
			put_field(m, below(24), any_u32());
	}
	return cmd;
}

static void netdev_request(struct msg *m, uint16_t family)
{
	msg_init(m, family, NETDEV_CMD_BIND_RX, false);
	put_field(m, NETDEV_A_DMABUF_IFINDEX, chance(85) ? ifindex : any_u32());
	put_field(m, NETDEV_A_DMABUF_FD, any_fd());
	if (!chance(5))
		put_queues(m, NETDEV_A_DMABUF_QUEUES, true);
}

/* The racer: RACE_FD is a dma-buf, then closed, then /dev/null, again. */
static volatile bool racing = true;

static void *racer(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (racing) {
		switch (i++ % 3) {
		case 0:
			dup2(dmabufs[0], RACE_FD);
			break;
		case 1:
			close(RACE_FD);
			break;
		default:
			dup2(devnull, RACE_FD);
		}
		usleep(50);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long seed, count, i, acked = 0, replies = 0, bound = 0;
	unsigned int errs[256] = { 0 }, e;
	uint16_t dx_family, nd_family;
	int dx_sock, nd_sock;
	struct outcome o;
	pthread_t thread;
	struct msg *m;

	if (argc != 4) {
		fprintf(stderr, "usage: dx-fuzz IFNAME SEED COUNT\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	seed = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	if (!ifindex) {
		fprintf(stderr, "dx-fuzz: no device %s\n", argv[1]);
		return 1;
	}
	rng = seed;
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dmabufs[0] = udmabuf(4 << 20, false);
	dmabufs[1] = udmabuf(4 << 20, true);
	if (devnull < 0 || dmabufs[0] < 0) {
		perror("dx-fuzz: dma-buf");
		return 1;
	}
	m = calloc(1, sizeof(*m));
	dx_sock = nl_open();
	nd_sock = nl_open();
	dx_family = family_id(dx_sock, DEVMEMX_FAMILY_NAME);
	nd_family = family_id(nd_sock, NETDEV_FAMILY_NAME);
	if (!m || pthread_create(&thread, NULL, racer, NULL)) {
		fprintf(stderr, "dx-fuzz: out of memory\n");
		return 1;
	}

	for (i = 0; i < count; i++) {
		bool netdev = chance(12), bind = netdev;
		int fd = netdev ? nd_sock : dx_sock;

		if (netdev)
			netdev_request(m, nd_family);
		else
			bind = devmemx_request(m, dx_family) == DEVMEMX_CMD_BIND_RX;
		if (call(fd, m, i + 1, &o)) {
			fprintf(stderr, "dx-fuzz: seed %llu: request %llu went unanswered\n",
				seed, i + 1);
			return 1;
		}
		if (o.id && nids < sizeof(ids) / sizeof(ids[0]))
			ids[nids++] = o.id;
		if (o.id)
			replies++;
		if (!o.err)
			acked++;
		errs[o.err & 0xff]++;
		/* A socket's bindings end with it: start over now and then. */
		if (chance(2)) {
			close(fd);
			if (netdev)
				nd_sock = nl_open();
			else
				dx_sock = nl_open();
		}
		bound += bind && !o.err;
	}
	racing = false;
	pthread_join(thread, NULL);
	printf("dx-fuzz: seed %llu: %llu requests, %llu succeeded (%llu binds), %llu replies with an id; errors:",
	       seed, count, acked, bound, replies);
	for (e = 1; e < 256; e++)
		if (errs[e])
			printf(" %s %u", strerrorname_np(e) ?: "?", errs[e]);
	putchar('\n');
	return 0;
}
