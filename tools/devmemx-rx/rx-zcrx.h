/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring zero-copy receive (zcrx), the other in-tree way to receive TCP
 * payload into memory the NIC writes: an interface queue registered on one
 * RX queue with an area (host memory or a dma-buf), multishot RECV_ZC on
 * each socket steered there, completions naming area offsets, and a refill
 * ring that hands the buffers back. Raw io_uring system calls: liburing in
 * Debian 13 (2.9) has no zcrx.
 */
#ifndef DX_RX_ZCRX_H
#define DX_RX_ZCRX_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/io_uring.h>

#include "rx.h"

struct rx_zcrx {
	int ring;			/* the io_uring; -1: none */
	void *rings;			/* SQ and CQ heads, tails and CQEs */
	size_t rings_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	unsigned int *sq_head, *sq_tail, *cq_head, *cq_tail;
	unsigned int sq_mask, cq_mask, sq_entries;
	uint8_t *cqes;			/* 32-byte CQEs (IORING_SETUP_CQE32) */
	void *rq;			/* the refill ring's region (ours) */
	size_t rq_len;
	unsigned int *rq_khead, *rq_ktail;
	struct io_uring_zcrx_rqe *rqes;
	unsigned int rq_mask, rq_tail;
	/*
	 * Refills the ring had no room for (an area of more buffers than the
	 * ring's 32768 entries): they wait here, not the reaping thread,
	 * whose io_uring_enter runs the task work that moves the data.
	 */
	struct io_uring_zcrx_rqe *pend;
	size_t npend, pend_cap;
	const volatile struct zcrx_stats *zstats; /* copy fallbacks */
	uint32_t id;			/* zcrx_id, for RECV_ZC */
	uint64_t token;			/* the area's token, for refills */
	uint32_t buf_len;		/* the buffer size the kernel took */
	uint8_t *area;			/* a host memory area, or NULL */
	size_t area_len;
	struct dx_dmabuf *dmabuf;	/* a dma-buf area, or NULL */
	uint64_t area_bytes;
	bool enabled;
};

#define RX_ZCRX_INIT { .ring = -1 }

/* One socket the interface queue receives for. */
struct rx_zcrx_sock {
	int fd;
	const struct rx_opts *o;	/* expect, seed, port, deadline, ... */
	struct rx_stats *st;
};

/*
 * Register an interface queue on RX queue @queue of @ifindex with buffers
 * of @buf_len (0: PAGE_SIZE, as the kernel picks) over the dma-buf @dmabuf
 * or, when NULL, @host_bytes of anonymous memory (2M huge pages if
 * @hugetlb). 0 or -errno after a message.
 */
int rx_zcrx_open(struct rx_zcrx *z, const char *dev, unsigned int ifindex,
		 uint32_t queue, uint32_t buf_len, struct dx_dmabuf *dmabuf,
		 uint64_t host_bytes, bool hugetlb);
/*
 * Receive on the @n sockets of @s until each ends (or the deadline
 * passes), verifying every byte unless no_verify; from the thread that
 * reaps (the ring's only submitter). 0 or -errno after a message.
 */
int rx_zcrx_receive(struct rx_zcrx *z, struct rx_zcrx_sock *s, unsigned int n);
/* The ring, and with it the interface queue (the kernel ends it later). */
void rx_zcrx_close(struct rx_zcrx *z);

#endif
