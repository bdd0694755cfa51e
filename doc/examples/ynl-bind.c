// SPDX-License-Identifier: GPL-2.0
/*
 * Bind a dma-buf through devmemx from your own code, with the C client the
 * kernel's YNL generator makes from devmemx's spec (doc/own-code.md).
 *
 *   ynl-bind IFNAME QUEUE SIZE [NIOV-SIZE]
 *
 * makes a udmabuf of SIZE bytes (a sealed memfd), binds it to RX queue QUEUE
 * of IFNAME with niovs of NIOV-SIZE bytes (default: the page size), prints
 * the binding, and holds it until its standard input closes: the binding
 * belongs to the YNL socket, and ends when the socket closes. A receiver
 * that gets devmem cmsgs into this memory must be this process (or have its
 * dma-buf fd): the offsets they carry are offsets in this dma-buf.
 *
 * Build: generate devmemx-user.[ch] with
 *   tools/net/ynl/pyynl/ynl_gen_c.py --mode user --spec devmemx.yaml
 * (--header, --source) and link with the kernel's tools/net/ynl/libynl.a.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/udmabuf.h>

#include <ynl.h>
#include "devmemx-user.h"

/* A dma-buf of @size bytes of host memory: a sealed memfd, via udmabuf. */
static int make_udmabuf(size_t size)
{
	struct udmabuf_create req = { .flags = UDMABUF_FLAGS_CLOEXEC };
	int memfd, dev, buf;

	memfd = memfd_create("ynl-bind", MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		perror("ynl-bind: memfd");
		return -1;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("ynl-bind: /dev/udmabuf");
		return -1;
	}
	req.memfd = memfd;
	req.size = size;
	buf = ioctl(dev, UDMABUF_CREATE, &req);
	if (buf < 0)
		perror("ynl-bind: UDMABUF_CREATE");
	close(dev);
	close(memfd);
	return buf;
}

int main(int argc, char **argv)
{
	struct devmemx_bind_rx_req *req;
	struct devmemx_bind_rx_rsp *rsp;
	struct devmemx_queue *queues;
	struct ynl_error yerr;
	struct ynl_sock *ys;
	unsigned int ifindex;
	char c;
	int buf;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: ynl-bind IFNAME QUEUE SIZE [NIOV-SIZE]\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "ynl-bind: no network device \"%s\"\n", argv[1]);
		return 1;
	}
	buf = make_udmabuf(strtoull(argv[3], NULL, 0));
	if (buf < 0)
		return 1;

	ys = ynl_sock_create(&ynl_devmemx_family, &yerr);
	if (!ys) {
		fprintf(stderr, "ynl-bind: %s\n", yerr.msg);
		return 1;
	}
	req = devmemx_bind_rx_req_alloc();
	devmemx_bind_rx_req_set_ifindex(req, ifindex);
	devmemx_bind_rx_req_set_fd(req, buf);
	/* The request owns its queues from here: it frees them. */
	queues = devmemx_queue_alloc(1);
	devmemx_queue_set_id(&queues[0], strtoul(argv[2], NULL, 0));
	__devmemx_bind_rx_req_set_queues(req, queues, 1);
	if (argc == 5)
		devmemx_bind_rx_req_set_rx_buf_size(req, strtoul(argv[4], NULL, 0));
	rsp = devmemx_bind_rx(ys, req);
	devmemx_bind_rx_req_free(req);
	if (!rsp) {
		fprintf(stderr, "ynl-bind: bind-rx: %s\n", ys->err.msg);
		ynl_sock_destroy(ys);
		return 1;
	}
	printf("id %u niov-size %u niov-count %u bytes-wasted %llu\n", rsp->id,
	       rsp->niov_size, rsp->niov_count,
	       (unsigned long long)rsp->bytes_wasted);
	fflush(stdout);
	devmemx_bind_rx_rsp_free(rsp);

	/* Receive here (MSG_SOCK_DEVMEM); the binding lives while ys does. */
	while (read(0, &c, 1) > 0)
		;
	ynl_sock_destroy(ys);
	close(buf);
	return 0;
}
