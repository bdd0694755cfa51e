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
#include <unistd.h>
#include <linux/netlink.h>

#include "linux/devmemx.h"
#include "linux/netdev.h"
#include "dxnl.h"

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

/* ---- what goes into the requests ----------------------------------------- */

static unsigned int ifindex;
static int dmabufs[2];		/* plain memfd, hugetlb memfd (or -1) */
static int devnull;
static uint32_t ids[64];	/* binding ids seen in replies */
static unsigned int nids;

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

	switch (below(22)) {
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
	case 18:
		cmd = DEVMEMX_CMD_BIND_CHECK;
		break;
	case 19:
		cmd = DEVMEMX_CMD_POLICY_SET;
		break;
	case 20:
		cmd = chance(50) ? DEVMEMX_CMD_POLICY_DEL : DEVMEMX_CMD_POLICY_GET;
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
	case DEVMEMX_CMD_BIND_CHECK:
		put_field(m, DEVMEMX_A_BINDING_IFINDEX, chance(85) ? ifindex : any_u32());
		put_field(m, DEVMEMX_A_BINDING_FD, any_fd());
		if (!chance(5))
			put_queues(m, DEVMEMX_A_BINDING_QUEUES, false);
		break;
	case DEVMEMX_CMD_UNBIND:
	case DEVMEMX_CMD_BINDING_GET:
		put_field(m, DEVMEMX_A_BINDING_ID, any_u32());
		break;
	case DEVMEMX_CMD_POLICY_SET:
		put_field(m, DEVMEMX_A_POLICY_IFINDEX, chance(85) ? ifindex : any_u32());
		put_field(m, DEVMEMX_A_POLICY_RX_BUF_SIZE, any_size());
		if (chance(50))
			put_queues(m, DEVMEMX_A_POLICY_QUEUES, false);
		break;
	case DEVMEMX_CMD_POLICY_DEL:
	case DEVMEMX_CMD_POLICY_GET:
		put_field(m, DEVMEMX_A_POLICY_IFINDEX, chance(85) ? ifindex : any_u32());
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
