// SPDX-License-Identifier: GPL-2.0
/*
 * dx-req REQUEST IFINDEX [QUEUE [PHYS-IFINDEX]]: one request with a raw
 * ifindex, as no CLI sends it (the CLI resolves names in its own network
 * namespace), and its outcome on one line: "ok" (and the id of a devmemx
 * binding, or the queue a lease made) or "errno N: extack message".
 * REQUEST is bind (devmemx BIND-RX of a 4M udmabuf, on QUEUE), netdev-bind
 * (the kernel's bind-rx, the same), caps (devmemx CAPS-GET), policy
 * (devmemx POLICY-SET at 64K, all queues; it outlives the request) or lease
 * (netdev queue-create: a new RX queue of virtual device IFINDEX leasing
 * queue QUEUE of PHYS-IFINDEX). A binding it made ends with its socket, at
 * exit.
 *
 * dx-req dump [BUFSIZE]: devmemx's BINDING-GET dump on a socket that has
 * read nothing yet (the family resolved on another), as YNL's Python
 * client asks it: the kernel fills the dump's first skb before any read
 * could size it. Each read takes BUFSIZE bytes (128K; 4096 is libmnl's
 * MNL_SOCKET_BUFFER_SIZE on 4K pages). Prints "ok BINDINGS QUEUES" (how
 * many of each the dump listed), "errno N", or "truncated: a message of N
 * bytes into BUFSIZE" when a read was too small for what the kernel
 * sent (N is the first message's length: the datagram may carry DONE
 * behind it, as the skb's slack allows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "linux/devmemx.h"
#include "linux/netdev.h"
#include "dxnl.h"

static struct msg m;

/* The queue nests of a BINDING-GET reply @h. */
static unsigned int queues(struct nlmsghdr *h)
{
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	int len = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	unsigned int n = 0;

	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		n += (a->nla_type & NLA_TYPE_MASK) == DEVMEMX_A_BINDING_QUEUES;
	return n;
}

static int dump(size_t bufsize)
{
	static char rx[1 << 17] __attribute__((aligned(4)));
	struct iovec iov = { .iov_base = rx, .iov_len = bufsize };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int bindings = 0, nq = 0;
	int fd = nl_open(), dfd = nl_open();
	uint16_t family = family_id(fd, DEVMEMX_FAMILY_NAME);
	struct nlmsghdr *h;
	ssize_t n;
	int err;

	if (!family) {
		fprintf(stderr, "dx-req: no devmemx family\n");
		return 1;
	}
	msg_init(&m, family, DEVMEMX_CMD_BINDING_GET, true);
	((struct nlmsghdr *)m.buf)->nlmsg_len = m.len;
	if (send(dfd, m.buf, m.len, 0) != (ssize_t)m.len) {
		perror("dx-req: send");
		return 1;
	}
	for (;;) {
		/* MSG_TRUNC: the datagram's whole length, however much fits. */
		n = recvmsg(dfd, &mh, MSG_TRUNC);
		if (n < 0) {
			perror("dx-req: recv");
			return 1;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			h = (struct nlmsghdr *)rx;
			printf("truncated: a message of %u bytes into %zu\n",
			       h->nlmsg_len, bufsize);
			return 0;
		}
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE) {
				/* The error, or DONE's status: an int first in both. */
				memcpy(&err, NLMSG_DATA(h), sizeof(err));
				if (err)
					printf("errno %d\n", -err);
				else
					printf("ok %u %u\n", bindings, nq);
				return 0;
			}
			bindings++;
			nq += queues(h);
		}
	}
}

int main(int argc, char **argv)
{
	uint32_t ifindex, queue, phys;
	struct outcome o = { 0 };
	bool netdev, caps, lease, policy;
	size_t nest, inner;
	uint16_t family;
	int fd, buf;

	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "dump")) {
		buf = argc == 3 ? strtoul(argv[2], NULL, 0) : 1 << 17;
		if (buf < 16 || buf > 1 << 17) {
			fprintf(stderr, "dx-req: dump's BUFSIZE: 16 to 131072\n");
			return 2;
		}
		return dump(buf);
	}
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: dx-req bind|netdev-bind|caps|policy|lease IFINDEX [QUEUE [PHYS-IFINDEX]]\n       dx-req dump [BUFSIZE]\n");
		return 2;
	}
	lease = !strcmp(argv[1], "lease");
	netdev = lease || !strcmp(argv[1], "netdev-bind");
	caps = !strcmp(argv[1], "caps");
	policy = !strcmp(argv[1], "policy");
	if (!netdev && !caps && !policy && strcmp(argv[1], "bind")) {
		fprintf(stderr, "dx-req: unknown request %s\n", argv[1]);
		return 2;
	}
	ifindex = strtoul(argv[2], NULL, 0);
	queue = argc >= 4 ? strtoul(argv[3], NULL, 0) : 0;
	phys = argc == 5 ? strtoul(argv[4], NULL, 0) : 0;
	fd = nl_open();
	family = family_id(fd, netdev ? NETDEV_FAMILY_NAME : DEVMEMX_FAMILY_NAME);
	if (fd < 0 || !family) {
		fprintf(stderr, "dx-req: no %s family\n", netdev ? "netdev" : "devmemx");
		return 1;
	}
	if (caps) {
		msg_init(&m, family, DEVMEMX_CMD_CAPS_GET, false);
		put_u32(&m, DEVMEMX_A_CAPS_IFINDEX, ifindex);
	} else if (policy) {
		msg_init(&m, family, DEVMEMX_CMD_POLICY_SET, false);
		put_u32(&m, DEVMEMX_A_POLICY_IFINDEX, ifindex);
		put_u32(&m, DEVMEMX_A_POLICY_RX_BUF_SIZE, 65536);
	} else if (lease) {
		msg_init(&m, family, NETDEV_CMD_QUEUE_CREATE, false);
		put_u32(&m, NETDEV_A_QUEUE_IFINDEX, ifindex);
		put_u32(&m, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
		nest = nest_start(&m, NETDEV_A_QUEUE_LEASE);
		put_u32(&m, NETDEV_A_LEASE_IFINDEX, phys);
		inner = nest_start(&m, NETDEV_A_LEASE_QUEUE);
		put_u32(&m, NETDEV_A_QUEUE_ID, queue);
		put_u32(&m, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
		nest_end(&m, inner);
		nest_end(&m, nest);
	} else {
		buf = udmabuf(4 << 20, false);
		if (buf < 0) {
			perror("dx-req: udmabuf");
			return 1;
		}
		msg_init(&m, family, netdev ? NETDEV_CMD_BIND_RX : DEVMEMX_CMD_BIND_RX,
			 false);
		put_u32(&m, netdev ? NETDEV_A_DMABUF_IFINDEX : DEVMEMX_A_BINDING_IFINDEX,
			ifindex);
		put_u32(&m, netdev ? NETDEV_A_DMABUF_FD : DEVMEMX_A_BINDING_FD, buf);
		nest = nest_start(&m, netdev ? NETDEV_A_DMABUF_QUEUES :
				  DEVMEMX_A_BINDING_QUEUES);
		put_u32(&m, netdev ? NETDEV_A_QUEUE_ID : DEVMEMX_A_QUEUE_ID, queue);
		if (netdev)
			put_u32(&m, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
		nest_end(&m, nest);
	}
	if (call(fd, &m, 1, &o) < 0)
		return 1;
	if (o.err)
		printf("errno %d: %s\n", o.err, o.text);
	else if (lease || (!netdev && !caps && !policy))
		printf("ok %u\n", o.id);
	else
		printf("ok\n");
	return 0;
}
