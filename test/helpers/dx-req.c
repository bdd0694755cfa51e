// SPDX-License-Identifier: GPL-2.0
/*
 * dx-req REQUEST IFINDEX [QUEUE]: one request with a raw ifindex, as no
 * CLI sends it (the CLI resolves names in its own network namespace), and
 * its outcome on one line: "ok" (and the id of a devmemx binding) or
 * "errno N: extack message". REQUEST is bind (devmemx BIND-RX of a 4M
 * udmabuf, on QUEUE), netdev-bind (the kernel's bind-rx, the same) or caps
 * (devmemx CAPS-GET). A binding it made ends with its socket, at exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/devmemx.h"
#include "linux/netdev.h"
#include "dxnl.h"

static struct msg m;

int main(int argc, char **argv)
{
	uint32_t ifindex, queue;
	struct outcome o = { 0 };
	bool netdev, caps;
	uint16_t family;
	size_t nest;
	int fd, buf;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: dx-req bind|netdev-bind|caps IFINDEX [QUEUE]\n");
		return 2;
	}
	netdev = !strcmp(argv[1], "netdev-bind");
	caps = !strcmp(argv[1], "caps");
	if (!netdev && !caps && strcmp(argv[1], "bind")) {
		fprintf(stderr, "dx-req: unknown request %s\n", argv[1]);
		return 2;
	}
	ifindex = strtoul(argv[2], NULL, 0);
	queue = argc == 4 ? strtoul(argv[3], NULL, 0) : 0;
	fd = nl_open();
	family = family_id(fd, netdev ? NETDEV_FAMILY_NAME : DEVMEMX_FAMILY_NAME);
	if (fd < 0 || !family) {
		fprintf(stderr, "dx-req: no %s family\n", netdev ? "netdev" : "devmemx");
		return 1;
	}
	if (caps) {
		msg_init(&m, family, DEVMEMX_CMD_CAPS_GET, false);
		put_u32(&m, DEVMEMX_A_CAPS_IFINDEX, ifindex);
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
	else if (!netdev && !caps)
		printf("ok %u\n", o.id);
	else
		printf("ok\n");
	return 0;
}
