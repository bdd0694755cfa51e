// SPDX-License-Identifier: GPL-2.0
/*
 * Receive with io_uring zcrx (see rx-zcrx.h). The ring is made disabled so
 * that ab can register the interface queue before it starts timing, and is
 * enabled by the thread that then reaps it: DEFER_TASKRUN runs completions
 * only in the submitter's io_uring_enter().
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/mman.h>

#include "pattern.h"
#include "rx-zcrx.h"
#include "util.h"

#define ZC_SQ_ENTRIES	64
#define ZC_CQ_ENTRIES	4096
#define ZC_RQ_MAX	32768		/* the kernel's most (IO_RQ_MAX_ENTRIES) */
#define ZC_CQE_SIZE	32		/* IORING_SETUP_CQE32 */

static int zc_setup(unsigned int entries, struct io_uring_params *p)
{
	long r = syscall(__NR_io_uring_setup, entries, p);

	return r < 0 ? -errno : (int)r;
}

static int zc_enter(int fd, unsigned int submit, unsigned int wait,
		    unsigned int flags, void *arg, size_t argsz)
{
	long r = syscall(__NR_io_uring_enter, fd, submit, wait, flags, arg,
			 argsz);

	return r < 0 ? -errno : (int)r;
}

static int zc_register(int fd, unsigned int op, void *arg, unsigned int n)
{
	long r = syscall(__NR_io_uring_register, fd, op, arg, n);

	return r < 0 ? -errno : (int)r;
}

static double zc_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int zc_ring_map(struct rx_zcrx *z, const struct io_uring_params *p)
{
	uint8_t *r;

	z->rings_len = p->cq_off.cqes + (size_t)p->cq_entries * ZC_CQE_SIZE;
	z->rings = mmap(NULL, z->rings_len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, z->ring, IORING_OFF_SQ_RING);
	if (z->rings == MAP_FAILED) {
		z->rings = NULL;
		return -errno;
	}
	z->sqes_len = (size_t)p->sq_entries * sizeof(struct io_uring_sqe);
	z->sqes = mmap(NULL, z->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, z->ring, IORING_OFF_SQES);
	if (z->sqes == MAP_FAILED) {
		z->sqes = NULL;
		return -errno;
	}
	r = z->rings;
	z->sq_head = (unsigned int *)(r + p->sq_off.head);
	z->sq_tail = (unsigned int *)(r + p->sq_off.tail);
	z->sq_mask = *(unsigned int *)(r + p->sq_off.ring_mask);
	z->sq_entries = p->sq_entries;
	z->cq_head = (unsigned int *)(r + p->cq_off.head);
	z->cq_tail = (unsigned int *)(r + p->cq_off.tail);
	z->cq_mask = *(unsigned int *)(r + p->cq_off.ring_mask);
	z->cqes = r + p->cq_off.cqes;
	return 0;
}

/* Why registering failed, in what the user can change. */
static void zc_reg_error(const char *dev, uint32_t queue, uint32_t buf_len,
			 bool dmabuf, bool hugetlb, int err)
{
	char sz[16];

	dx_fmt_size(buf_len ? buf_len : (uint64_t)sysconf(_SC_PAGESIZE), sz,
		    sizeof(sz));
	fprintf(stderr, "devmemx-rx: zcrx on %s queue %u with %s buffers: %s", dev,
		queue, sz, strerror(-err));
	switch (err) {
	case -EPERM:
		fprintf(stderr, " (registering an interface queue needs CAP_NET_ADMIN)\n");
		break;
	case -ERANGE:
		fprintf(stderr, " (queue %u is out of the device's range, or the area is not contiguous in %s pieces: %s)\n",
			queue, sz,
			dmabuf ? "the dma-buf's mapped chunks must be multiples of the buffer size" :
			hugetlb ? "host memory of 2M huge pages takes up to 2M" :
			"host memory larger than 4K needs huge pages (--hugetlb)");
		break;
	case -EOPNOTSUPP:
		fprintf(stderr, " (the driver has no queue management for memory providers, or takes no buffer size)\n");
		break;
	case -EEXIST:
		fprintf(stderr, " (the queue has a memory provider already, or the device an XDP program: unbind it)\n");
		break;
	case -EBUSY:
		fprintf(stderr, " (the queue is in use by AF_XDP, or leased to another device)\n");
		break;
	case -EINVAL:
		fprintf(stderr, " (zcrx needs tcp-data-split on with hds-thresh 0: devmemx caps dev %s queue %u)\n",
			dev, queue);
		break;
	default:
		fputc('\n', stderr);
	}
}

int rx_zcrx_open(struct rx_zcrx *z, const char *dev, unsigned int ifindex,
		 uint32_t queue, uint32_t buf_len, struct dx_dmabuf *dmabuf,
		 uint64_t host_bytes, bool hugetlb)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			 IORING_SETUP_CQE32 | IORING_SETUP_NO_SQARRAY |
			 IORING_SETUP_R_DISABLED | IORING_SETUP_SUBMIT_ALL |
			 IORING_SETUP_CQSIZE,
		.cq_entries = ZC_CQ_ENTRIES,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct io_uring_region_desc rd = { 0 };
	struct io_uring_zcrx_area_reg area = { 0 };
	struct zcrx_event_desc ev = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	unsigned int rq_entries;
	size_t stats_off;
	uint64_t abytes;
	int ret;

	*z = (struct rx_zcrx)RX_ZCRX_INIT;
	ret = zc_setup(ZC_SQ_ENTRIES, &p);
	if (ret < 0) {
		fprintf(stderr, "devmemx-rx: io_uring_setup: %s%s\n", strerror(-ret),
			ret == -EINVAL ? " (zcrx needs Linux 6.15 or later)" :
			ret == -EPERM ? " (io_uring is disabled: sysctl kernel.io_uring_disabled)" : "");
		return ret;
	}
	z->ring = ret;
	ret = zc_ring_map(z, &p);
	if (ret) {
		fprintf(stderr, "devmemx-rx: mapping the io_uring: %s\n",
			strerror(-ret));
		return ret;
	}

	/*
	 * The refill ring, and zcrx's copy counters after it. Room for every
	 * buffer of the area, up to the kernel's most: the kernel takes
	 * entries only as its pool runs dry.
	 */
	abytes = dmabuf ? dmabuf->size : host_bytes;
	for (rq_entries = 64; rq_entries < ZC_RQ_MAX &&
	     rq_entries < abytes / (buf_len ?: (uint64_t)page); rq_entries *= 2)
		;
	z->rq_len = (page + rq_entries * sizeof(struct io_uring_zcrx_rqe) +
		     sizeof(struct zcrx_stats) + page - 1) & ~(page - 1);
	z->rq = mmap(NULL, z->rq_len, PROT_READ | PROT_WRITE,
		     MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, -1, 0);
	if (z->rq == MAP_FAILED) {
		z->rq = NULL;
		return dx_nomem();
	}
	/*
	 * io_uring pins it (and a host area): a child forked later (ab's
	 * senders) would have to copy pinned private pages at fork.
	 */
	madvise(z->rq, z->rq_len, MADV_DONTFORK);
	stats_off = z->rq_len - sizeof(struct zcrx_stats);
	rd.size = z->rq_len;
	rd.user_addr = (uintptr_t)z->rq;
	rd.flags = IORING_MEM_REGION_TYPE_USER;
	ev.flags = ZCRX_EVENT_DESC_FLAG_STATS;
	ev.stats_offset = stats_off;

	if (dmabuf) {
		area.flags = IORING_ZCRX_AREA_DMABUF;
		area.dmabuf_fd = dmabuf->fd;
		area.len = dmabuf->size;
		z->dmabuf = dmabuf;
		z->area_bytes = dmabuf->size;
	} else {
		z->area_len = host_bytes;
		z->area = mmap(NULL, host_bytes, PROT_READ | PROT_WRITE,
			       MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE |
			       (hugetlb ? MAP_HUGETLB | MAP_HUGE_2MB : 0), -1, 0);
		if (z->area == MAP_FAILED) {
			char sz[16];

			z->area = NULL;
			dx_fmt_size(host_bytes, sz, sizeof(sz));
			fprintf(stderr, "devmemx-rx: zcrx: %s of host memory%s: %s\n",
				sz, hugetlb ? " in 2M huge pages" : "",
				strerror(errno));
			return -ENOMEM;
		}
		madvise(z->area, host_bytes, MADV_DONTFORK);
		area.addr = (uintptr_t)z->area;
		area.len = host_bytes;
		z->area_bytes = host_bytes;
	}
	reg.if_idx = ifindex;
	reg.if_rxq = queue;
	reg.rq_entries = rq_entries;
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&rd;
	reg.rx_buf_len = buf_len == page ? 0 : buf_len;
	reg.event_desc = (uintptr_t)&ev;
	ret = zc_register(z->ring, IORING_REGISTER_ZCRX_IFQ, &reg, 1);
	if (ret < 0) {
		zc_reg_error(dev, queue, buf_len, dmabuf, hugetlb, ret);
		return ret;
	}
	z->id = reg.zcrx_id;
	z->buf_len = reg.rx_buf_len;
	z->token = area.rq_area_token;
	z->rq_khead = (unsigned int *)((uint8_t *)z->rq + reg.offsets.head);
	z->rq_ktail = (unsigned int *)((uint8_t *)z->rq + reg.offsets.tail);
	z->rqes = (struct io_uring_zcrx_rqe *)((uint8_t *)z->rq + reg.offsets.rqes);
	z->rq_mask = reg.rq_entries - 1;
	z->zstats = (const volatile struct zcrx_stats *)((uint8_t *)z->rq + stats_off);
	if (buf_len && z->buf_len != buf_len) {
		fprintf(stderr, "devmemx-rx: zcrx on %s queue %u: asked for %u-byte buffers, the kernel took %u\n",
			dev, queue, buf_len, z->buf_len);
		return -EINVAL;
	}
	return 0;
}

void rx_zcrx_close(struct rx_zcrx *z)
{
	if (z->ring >= 0)
		close(z->ring);
	if (z->sqes)
		munmap(z->sqes, z->sqes_len);
	if (z->rings)
		munmap(z->rings, z->rings_len);
	if (z->rq)
		munmap(z->rq, z->rq_len);
	if (z->area)
		munmap(z->area, z->area_len);
	free(z->pend);
	*z = (struct rx_zcrx)RX_ZCRX_INIT;
}

/* Queue a multishot RECV_ZC on socket @i. */
static int zc_arm(struct rx_zcrx *z, const struct rx_zcrx_sock *s,
		  unsigned int i)
{
	unsigned int tail = *z->sq_tail;
	struct io_uring_sqe *sqe;

	if (tail - atomic_load_explicit((_Atomic unsigned int *)z->sq_head,
					memory_order_acquire) >= z->sq_entries)
		return -EBUSY;
	sqe = &z->sqes[tail & z->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_RECV_ZC;
	sqe->fd = s[i].fd;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = z->id;
	sqe->user_data = i;
	atomic_store_explicit((_Atomic unsigned int *)z->sq_tail, tail + 1,
			      memory_order_release);
	return 0;
}

static bool zc_rq_full(const struct rx_zcrx *z)
{
	return z->rq_tail - atomic_load_explicit((_Atomic unsigned int *)z->rq_khead,
						 memory_order_acquire) > z->rq_mask;
}

/* Into the refill ring (published with the batch's tail). */
static void zc_rq_put(struct rx_zcrx *z, const struct io_uring_zcrx_rqe *e)
{
	z->rqes[z->rq_tail & z->rq_mask] = *e;
	z->rq_tail++;
}

/* Refills that waited for room, in order, as far as there is room now. */
static void zc_rq_flush(struct rx_zcrx *z)
{
	size_t i = 0;

	while (i < z->npend && !zc_rq_full(z))
		zc_rq_put(z, &z->pend[i++]);
	memmove(z->pend, z->pend + i, (z->npend - i) * sizeof(*z->pend));
	z->npend -= i;
}

/*
 * Hand the buffer of a completion back. Never wait for room: the kernel
 * takes entries only when its pool needs buffers, which needs data, which
 * needs this thread back in io_uring_enter (DEFER_TASKRUN).
 */
static int zc_refill(struct rx_zcrx *z, uint64_t off, uint32_t len)
{
	struct io_uring_zcrx_rqe e = { .off = off | z->token, .len = len };
	struct io_uring_zcrx_rqe *p;

	if (!z->npend && !zc_rq_full(z)) {
		zc_rq_put(z, &e);
		return 0;
	}
	if (z->npend == z->pend_cap) {
		size_t cap = z->pend_cap ? 2 * z->pend_cap : 4096;

		p = realloc(z->pend, cap * sizeof(*p));
		if (!p)
			return dx_nomem();
		z->pend = p;
		z->pend_cap = cap;
	}
	z->pend[z->npend++] = e;
	return 0;
}

struct zc_state {
	struct rx_zcrx *z;
	struct rx_zcrx_sock *s;
	unsigned int n, open;
	uint64_t *off;			/* each stream's offset */
	bool *done;
	bool synced;			/* a dma-buf read is bracketed */
};

static int zc_data(struct zc_state *c, unsigned int i, uint64_t zoff,
		   uint32_t len)
{
	struct rx_zcrx *z = c->z;
	struct rx_stats *st = c->s[i].st;
	const struct rx_opts *o = c->s[i].o;
	uint64_t aoff = zoff & ~IORING_ZCRX_AREA_MASK;
	const uint8_t *p;
	size_t first = 0, bad;
	int ret;

	if (aoff > z->area_bytes || len > z->area_bytes - aoff) {
		fprintf(stderr, "devmemx-rx: zcrx completion at area offset %" PRIu64 " size %u is outside the %" PRIu64 "-byte area\n",
			aoff, len, z->area_bytes);
		return -EPROTO;
	}
	if (!o->no_verify &&
	    (o->verify_every < 2 || !(st->cmsgs_dmabuf % o->verify_every))) {
		if (z->area) {
			p = z->area + aoff;
		} else {
			if (!c->synced) {
				ret = dx_dmabuf_begin_read(z->dmabuf);
				if (ret)
					return ret;
				c->synced = true;
			}
			p = dx_dmabuf_read(z->dmabuf, aoff, len);
			if (!p)
				return -EIO;
		}
		bad = dx_pat_check(p, len, c->off[i], o->seed, &first);
		if (bad && !st->mismatches)
			fprintf(stderr, "devmemx-rx: first mismatch at stream offset %" PRIu64 ", area offset %" PRIu64 ": got 0x%02x, expected 0x%02x\n",
				c->off[i] + first, aoff + first, p[first],
				dx_pat_byte(o->seed, c->off[i] + first));
		st->mismatches += bad;
		st->verified_bytes += len;
	}
	if (!st->cmsgs_dmabuf++ || aoff < st->off_min)
		st->off_min = aoff;
	if (aoff + len > st->off_end)
		st->off_end = aoff + len;
	if (len > st->frag_max)
		st->frag_max = len;
	st->bytes += len;
	st->tokens++;
	c->off[i] += len;
	return zc_refill(z, aoff, len);
}

static int zc_cqe(struct zc_state *c, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *zc = (const void *)(cqe + 1);
	uint64_t i = cqe->user_data;
	int ret;

	if (i >= c->n || c->done[i]) {
		fprintf(stderr, "devmemx-rx: zcrx: a completion for no open socket (user_data %" PRIu64 ")\n",
			i);
		return -EPROTO;
	}
	/*
	 * The CQ filled in the middle of a receive: the multishot ends with
	 * -ENOSPC and what it could not post stays queued in the socket.
	 * This batch drains the CQ before the new arm is submitted.
	 */
	if (cqe->res == -ENOSPC)
		return zc_arm(c->z, c->s, i);
	if (cqe->res < 0) {
		fprintf(stderr, "devmemx-rx: zcrx receive on port %u: %s%s\n",
			c->s[i].o->port, strerror(-cqe->res),
			cqe->res == -ENOMEM ? " (no free buffer: the area is too small for what is in flight)" : "");
		return cqe->res;
	}
	if (cqe->res > 0) {
		ret = zc_data(c, i, zc->off, cqe->res);
		if (ret)
			return ret;
	}
	if (cqe->flags & IORING_CQE_F_MORE)
		return 0;
	if (!cqe->res) {		/* the end of the stream */
		c->done[i] = true;
		c->open--;
		return 0;
	}
	return zc_arm(c->z, c->s, i);	/* the multishot stopped: again */
}

/* Milliseconds to wait for completions: --timeout, cut at the deadline. */
static long zc_wait_ms(const struct zc_state *c)
{
	const struct rx_opts *o = c->s[0].o;
	long ms = o->timeout ? o->timeout * 1000L : -1;
	double left;

	if (!o->deadline)
		return ms;
	left = (o->deadline - zc_now()) * 1000 + 1;
	if (left < 0)
		left = 0;
	return ms < 0 || left < ms ? (long)left : ms;
}

static int zc_loop(struct zc_state *c)
{
	struct rx_zcrx *z = c->z;
	const struct rx_opts *o = c->s[0].o;
	struct __kernel_timespec ts;
	struct io_uring_getevents_arg arg = {
		.sigmask = (uintptr_t)rx_wait_mask(),
		.sigmask_sz = _NSIG / 8,
	};
	unsigned int head, tail, submit;
	double last = zc_now();
	long ms;
	int ret, err;

	for (;;) {
		submit = *z->sq_tail - *z->sq_head;
		ms = zc_wait_ms(c);
		arg.ts = ms < 0 ? 0 : (uintptr_t)&ts;
		ts.tv_sec = ms < 0 ? 0 : ms / 1000;
		ts.tv_nsec = ms < 0 ? 0 : ms % 1000 * 1000000L;
		ret = zc_enter(z->ring, submit, 1,
			       IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			       &arg, sizeof(arg));
		if (rx_stop_sig)
			return -EINTR;
		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			fprintf(stderr, "devmemx-rx: io_uring_enter: %s\n",
				strerror(-ret));
			return ret;
		}
		c->s[0].st->recvmsg_calls++;	/* the ring's waits */
		head = *z->cq_head;
		tail = atomic_load_explicit((_Atomic unsigned int *)z->cq_tail,
					    memory_order_acquire);
		if (head != tail)
			last = zc_now();
		c->synced = false;
		ret = 0;
		for (; head != tail && !ret; head++)
			ret = zc_cqe(c, (const struct io_uring_cqe *)
				     (z->cqes + (size_t)(head & z->cq_mask) * ZC_CQE_SIZE));
		atomic_store_explicit((_Atomic unsigned int *)z->cq_head, head,
				      memory_order_release);
		/* The buffers go back once per batch of completions. */
		zc_rq_flush(z);
		atomic_store_explicit((_Atomic unsigned int *)z->rq_ktail,
				      z->rq_tail, memory_order_release);
		if (c->synced) {
			err = dx_dmabuf_end_read(z->dmabuf);
			ret = ret ?: err;
		}
		if (ret || !c->open)
			return ret;
		if (o->deadline && zc_now() >= o->deadline)
			return 0;
		if (o->timeout && zc_now() - last >= o->timeout) {
			fprintf(stderr, "devmemx-rx: no data for %d s on the zcrx queue (is the sender running?)\n",
				o->timeout);
			return -ETIMEDOUT;
		}
	}
}

int rx_zcrx_receive(struct rx_zcrx *z, struct rx_zcrx_sock *s, unsigned int n)
{
	struct zc_state c = { .z = z, .s = s, .n = n, .open = n };
	uint64_t copies = 0;
	double t0 = zc_now(), t1;
	unsigned int i;
	int ret;

	c.off = calloc(n, sizeof(*c.off));
	c.done = calloc(n, sizeof(*c.done));
	if (!c.off || !c.done) {
		ret = dx_nomem();
		goto out;
	}
	if (!z->enabled) {
		ret = zc_register(z->ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
		if (ret < 0) {
			fprintf(stderr, "devmemx-rx: enabling the io_uring: %s\n",
				strerror(-ret));
			goto out;
		}
		z->enabled = true;
	}
	for (i = 0; i < n; i++) {
		ret = zc_arm(z, s, i);
		if (ret)
			goto out;
	}
	copies = z->zstats->copy_count;
	ret = zc_loop(&c);
	t1 = zc_now();
	/* zcrx's copy fallbacks (data it could not place, copied into a buffer) */
	copies = z->zstats->copy_count - copies;
	for (i = 0; i < n; i++) {
		struct rx_stats *st = s[i].st;

		st->wall_sec = t1 - t0;
		if (!i)
			st->cmsgs_linear = copies;
		if (ret)
			continue;
		if (s[i].o->deadline && !st->bytes) {
			fprintf(stderr, "devmemx-rx: no data on port %u before the deadline\n",
				s[i].o->port);
			ret = -EIO;
		} else if (!s[i].o->deadline && st->bytes != s[i].o->expect) {
			fprintf(stderr, "devmemx-rx: received %" PRIu64 " bytes on port %u, expected %" PRIu64 "\n",
				st->bytes, s[i].o->port, s[i].o->expect);
			ret = -EIO;
		} else if (st->mismatches) {
			fprintf(stderr, "devmemx-rx: %" PRIu64 " of %" PRIu64 " bytes on port %u differ from the pattern\n",
				st->mismatches, st->bytes, s[i].o->port);
			ret = -EIO;
		}
	}
out:
	free(c.off);
	free(c.done);
	return ret;
}
