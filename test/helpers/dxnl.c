// SPDX-License-Identifier: GPL-2.0
/* Raw generic netlink for the test helpers: see dxnl.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include "dxnl.h"

#define ME program_invocation_short_name

bool dxnl_quiet;

void msg_init(struct msg *m, uint16_t family, uint8_t cmd, bool dump)
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
bool put(struct msg *m, uint16_t type, const void *data, size_t len)
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

bool put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	return put(m, type, &v, sizeof(v));
}

size_t nest_start(struct msg *m, uint16_t type)
{
	size_t at = m->len;

	if (!put(m, type | NLA_F_NESTED, NULL, 0))
		return 0;
	return at;
}

void nest_end(struct msg *m, size_t at)
{
	if (at)
		((struct nlattr *)(m->buf + at))->nla_len = m->len - at;
}

int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 30 };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one))) {
		fprintf(stderr, "%s: netlink socket: %s\n", ME, strerror(errno));
		exit(1);
	}
	return fd;
}

/* The extack message of an error (NETLINK_CAP_ACK: TLVs follow the header). */
static void extack_text(struct nlmsghdr *h, struct outcome *o)
{
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) + sizeof(struct nlmsgerr));
	int len = h->nlmsg_len - NLMSG_HDRLEN - sizeof(struct nlmsgerr);

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			snprintf(o->text, sizeof(o->text), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN), (char *)a + NLA_HDRLEN);
}

/*
 * Send @m on @fd and read until its ACK or error (a dump: until DONE).
 * Returns -1 when the kernel did not answer as netlink must.
 */
int call(int fd, struct msg *m, uint32_t seq, struct outcome *o)
{
	static char rx[1 << 17] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;

	nlh->nlmsg_len = m->len;
	nlh->nlmsg_seq = seq;
	memset(o, 0, sizeof(*o));
	if (send(fd, m->buf, m->len, 0) != (ssize_t)m->len) {
		if (!dxnl_quiet)
			fprintf(stderr, "%s: send: %s\n", ME, strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (!dxnl_quiet)
				fprintf(stderr, "%s: request %u: no answer: %s\n", ME, seq,
					strerror(errno));
			return -1;
		}
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq) {
				fprintf(stderr, "%s: request %u: answer for %u\n", ME,
					seq, h->nlmsg_seq);
				return -1;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				o->err = -e->error;
				extack_text(h, o);
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

/* Attribute @type of the reply to @m (an integer; @m asks no ACK), or -1. */
static long long reply_attr(int fd, struct msg *m, uint16_t type)
{
	static char rx[8192] __attribute__((aligned(4)));
	struct nlmsghdr *h = (struct nlmsghdr *)rx;
	struct nlattr *a;
	long long v = -1;
	ssize_t n;
	int len;

	((struct nlmsghdr *)m->buf)->nlmsg_len = m->len;
	if (send(fd, m->buf, m->len, 0) < 0 || (n = recv(fd, rx, sizeof(rx), 0)) < 0 ||
	    !NLMSG_OK(h, n) || h->nlmsg_type == NLMSG_ERROR)
		return -1;
	len = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if (a->nla_type != type)
			continue;
		if (a->nla_len == NLA_HDRLEN + 2)
			v = *(uint16_t *)((char *)a + NLA_HDRLEN);
		else if (a->nla_len == NLA_HDRLEN + 4)
			v = *(uint32_t *)((char *)a + NLA_HDRLEN);
		else if (a->nla_len == NLA_HDRLEN + 8)
			memcpy(&v, (char *)a + NLA_HDRLEN, 8);
		break;
	}
	return v;
}

uint16_t family_id(int fd, const char *name)
{
	struct msg *m = calloc(1, sizeof(*m));
	long long id = -1;

	if (m) {
		msg_init(m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, false);
		((struct nlmsghdr *)m->buf)->nlmsg_flags = NLM_F_REQUEST;
		put(m, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
		id = reply_attr(fd, m, CTRL_ATTR_FAMILY_ID);
		free(m);
	}
	if (id < 0) {
		fprintf(stderr, "%s: no generic netlink family %s\n", ME, name);
		exit(1);
	}
	return id;
}

long long devmemx_info(int fd, uint16_t family, uint16_t attr)
{
	struct msg *m = calloc(1, sizeof(*m));
	long long v = -1;

	if (m) {
		msg_init(m, family, DEVMEMX_CMD_INFO, false);
		((struct nlmsghdr *)m->buf)->nlmsg_flags = NLM_F_REQUEST;
		v = reply_attr(fd, m, attr);
		free(m);
	}
	return v;
}

/* A memfd of @size bytes (hugetlb pages if @huge), sealed against shrinking. */
int memfd_sealed(size_t size, bool huge)
{
	int memfd = memfd_create(ME, MFD_ALLOW_SEALING | (huge ? MFD_HUGETLB : 0));

	if (memfd >= 0 && (ftruncate(memfd, size) ||
			   fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK))) {
		close(memfd);
		return -1;
	}
	return memfd;
}

/* UDMABUF_CREATE or UDMABUF_CREATE_LIST: the dma-buf's fd, or -1. */
int udmabuf_ioctl(unsigned long cmd, void *req)
{
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	int fd = dev < 0 ? -1 : ioctl(dev, cmd, req);

	if (dev >= 0)
		close(dev);
	return fd;
}

/* A udmabuf of @size bytes over a sealed memfd (hugetlb pages if @huge). */
int udmabuf(size_t size, bool huge)
{
	int memfd = memfd_sealed(size, huge), fd;
	struct udmabuf_create req = {
		.memfd = memfd, .flags = UDMABUF_FLAGS_CLOEXEC, .size = size,
	};

	if (memfd < 0)
		return -1;
	fd = udmabuf_ioctl(UDMABUF_CREATE, &req);
	close(memfd);
	return fd;
}
