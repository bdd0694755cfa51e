// SPDX-License-Identifier: GPL-2.0
/*
 * The receive side: listen, accept one connection, recvmsg(MSG_SOCK_DEVMEM)
 * until EOF, verify every byte (in the dma-buf or in the linear buffer)
 * against the pattern, and hand the tokens back with SO_DEVMEM_DONTNEED
 * (with --hold, only after holding every one of them for a while; with
 * --hold-bytes, in batches of that much payload).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
/* <linux/uio.h> redefines glibc's struct iovec: take only its devmem types. */
#define iovec dx_linux_iovec
#include <linux/uio.h>
#undef iovec

#include "pattern.h"
#include "rx.h"

#define RX_IOV_LEN	(1 << 20)	/* bytes asked for per recvmsg */
#define RX_MAX_CMSGS	1024
#define RX_TOKEN_ENTRIES 128		/* kernel limits per SO_DEVMEM_DONTNEED */
#define RX_TOKEN_FRAGS	1024
#define RX_SIGNAL_EVERY	64		/* recvmsg calls between signal checks */

struct rx_ctx {
	int fd;
	const struct rx_opts *o;
	struct dx_dmabuf *buf;
	uint32_t id;
	struct rx_stats *st;
	uint64_t off;			/* stream offset of the next byte */
	uint64_t frags;			/* dma-buf fragments seen */
	unsigned int niov_shift;	/* log2 of the buffer size asked for */
	uint32_t last_token;		/* the previous fragment's */
	struct dmabuf_token tok[RX_TOKEN_ENTRIES];
	unsigned int ntok;		/* entries in tok[] */
	unsigned int nfrags;		/* tokens they cover */
	/*
	 * --hold: tokens kept until hold_end (CLOCK_MONOTONIC seconds);
	 * --hold-bytes: until they cover hold_bytes of payload.
	 */
	struct dmabuf_token *held;
	size_t nheld, held_cap;
	uint64_t held_frags;
	uint64_t held_bytes;
	double hold_end;		/* 0: not started */
	bool holding;
	bool last;			/* holding the stream's last batch */
};

static double now_sec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Milliseconds until the hold ends (at most 0 once it has). */
static int rx_hold_left_ms(const struct rx_ctx *c)
{
	return (c->hold_end - now_sec()) * 1000 + 1;
}

static int rx_timeout_ms(const struct rx_opts *o)
{
	return o->timeout ? o->timeout * 1000 : -1;
}

static bool rx_past_deadline(const struct rx_ctx *c)
{
	return c->o->deadline && now_sec() >= c->o->deadline;
}

/* How long to wait for data: --timeout, cut at the deadline. */
static int rx_wait_ms(const struct rx_ctx *c)
{
	int ms = rx_timeout_ms(c->o);
	double left;

	if (!c->o->deadline)
		return ms;
	left = (c->o->deadline - now_sec()) * 1000 + 1;
	if (left < 0)
		left = 0;
	return ms < 0 || left < ms ? (int)left : ms;
}

/* Give the queued tokens back; the kernel says how many it freed. */
static int rx_tokens_flush(struct rx_ctx *c)
{
	int ret;

	if (!c->ntok)
		return 0;
	ret = setsockopt(c->fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, c->tok,
			 c->ntok * sizeof(c->tok[0]));
	if (ret < 0) {
		fprintf(stderr, "devmemx-rx: SO_DEVMEM_DONTNEED: %s\n",
			strerror(errno));
		return -errno;
	}
	if ((unsigned int)ret != c->nfrags) {
		fprintf(stderr, "devmemx-rx: SO_DEVMEM_DONTNEED freed %d of %u tokens\n",
			ret, c->nfrags);
		return -EPROTO;
	}
	c->st->tokens += c->nfrags;
	c->st->dontneed_calls++;
	c->ntok = 0;
	c->nfrags = 0;
	return 0;
}

/* Extend the run @last (NULL: none yet) by @token if it comes next. */
static bool rx_token_merge(struct dmabuf_token *last, uint32_t token)
{
	if (!last || last->token_start + last->token_count != token)
		return false;
	last->token_count++;
	return true;
}

/* --hold: keep a token, runs of consecutive ones as one entry. */
static int rx_token_hold(struct rx_ctx *c, uint32_t token)
{
	struct dmabuf_token *t;

	if (!c->hold_end && c->o->hold)
		c->hold_end = now_sec() + c->o->hold;
	if (++c->held_frags > c->st->held_max)
		c->st->held_max = c->held_frags;
	if (rx_token_merge(c->nheld ? &c->held[c->nheld - 1] : NULL, token))
		return 0;
	if (c->nheld == c->held_cap) {
		size_t cap = c->held_cap ? 2 * c->held_cap : 1024;

		t = realloc(c->held, cap * sizeof(*t));
		if (!t) {
			fprintf(stderr, "devmemx-rx: out of memory holding tokens\n");
			return -ENOMEM;
		}
		c->held = t;
		c->held_cap = cap;
	}
	c->held[c->nheld].token_start = token;
	c->held[c->nheld].token_count = 1;
	c->nheld++;
	return 0;
}

static int rx_token_add(struct rx_ctx *c, uint32_t token);

/*
 * Give back what was held: --hold is over (from now on tokens go back), or
 * a --hold-bytes batch is (the next one starts).
 */
static int rx_hold_release(struct rx_ctx *c)
{
	size_t i;
	uint32_t k;
	int ret = 0;

	c->holding = false;
	for (i = 0; i < c->nheld && !ret; i++)
		for (k = 0; k < c->held[i].token_count && !ret; k++)
			ret = rx_token_add(c, c->held[i].token_start + k);
	c->nheld = 0;
	c->held_frags = 0;
	c->held_bytes = 0;
	ret = ret ?: rx_tokens_flush(c);
	c->holding = !c->o->hold && c->o->hold_bytes;
	return ret;
}

/*
 * --hold-bytes, before the fragment at stream offset c->off: with the
 * length known and a @held callback, the last hold_bytes of the stream are
 * one batch, started here (what is held before it goes back first).
 */
static int rx_batch_last(struct rx_ctx *c)
{
	const struct rx_opts *o = c->o;

	if (c->last || !o->held || !o->expect ||
	    c->off + o->hold_bytes < o->expect)
		return 0;
	c->last = true;
	return rx_hold_release(c);
}

/* --hold-bytes: give the batch back once it is full (not the last one). */
static int rx_batch_full(struct rx_ctx *c)
{
	if (!c->o->hold_bytes || c->last || c->held_bytes < c->o->hold_bytes)
		return 0;
	return rx_hold_release(c);
}

/* The end of the stream: the last batch is reported held, then goes back. */
static int rx_batch_end(struct rx_ctx *c)
{
	if (!c->o->hold_bytes)
		return 0;
	if (c->o->held)
		c->o->held(c->o->held_arg, c->held, c->nheld, c->held_frags,
			   c->held_bytes);
	return rx_hold_release(c);
}

/* Queue a token, runs of consecutive ones as one entry. */
static int rx_token_add(struct rx_ctx *c, uint32_t token)
{
	int ret;

	if (c->holding)
		return rx_token_hold(c, token);

	if (c->nfrags < RX_TOKEN_FRAGS &&
	    rx_token_merge(c->ntok ? &c->tok[c->ntok - 1] : NULL, token)) {
		c->nfrags++;
		return 0;
	}
	if (c->ntok == RX_TOKEN_ENTRIES || c->nfrags == RX_TOKEN_FRAGS) {
		ret = rx_tokens_flush(c);
		if (ret)
			return ret;
	}
	c->tok[c->ntok].token_start = token;
	c->tok[c->ntok].token_count = 1;
	c->ntok++;
	c->nfrags++;
	return 0;
}

/* Verify @len bytes at @p against the stream; report the first mismatch. */
static void rx_verify(struct rx_ctx *c, const uint8_t *p, size_t len,
		      const char *where, uint64_t where_off)
{
	size_t first = 0, bad;
	uint64_t at;

	if (c->o->no_verify)
		return;
	c->st->verified_bytes += len;
	bad = dx_pat_check(p, len, c->off, c->o->seed, &first);
	if (!bad)
		return;
	if (!c->st->mismatches) {
		at = c->off + first;
		fprintf(stderr, "devmemx-rx: first mismatch at stream offset %" PRIu64 ", %s offset %" PRIu64 ": got 0x%02x, expected 0x%02x\n",
			at, where, where_off + first, p[first],
			dx_pat_byte(c->o->seed, at));
	}
	c->st->mismatches += bad;
}

static int rx_frag(struct rx_ctx *c, const struct dmabuf_cmsg *d)
{
	int ret;

	if (d->dmabuf_id != c->id) {
		fprintf(stderr, "devmemx-rx: a frag of binding %u arrived, expected binding %u\n",
			d->dmabuf_id, c->id);
		return -EPROTO;
	}
	if (d->frag_offset > c->buf->size ||
	    d->frag_size > c->buf->size - d->frag_offset) {
		fprintf(stderr, "devmemx-rx: frag at dma-buf offset %llu size %u is outside the %zu byte dma-buf\n",
			(unsigned long long)d->frag_offset, d->frag_size,
			c->buf->size);
		return -EPROTO;
	}
	if (!c->o->no_verify &&
	    (c->o->verify_every < 2 || !(c->frags % c->o->verify_every))) {
		const uint8_t *p = dx_dmabuf_read(c->buf, d->frag_offset,
						  d->frag_size);

		if (!p)
			return -EIO;
		rx_verify(c, p, d->frag_size, "dma-buf", d->frag_offset);
	}
	if (!c->st->cmsgs_dmabuf++ || d->frag_offset < c->st->off_min)
		c->st->off_min = d->frag_offset;
	if (d->frag_offset + d->frag_size > c->st->off_end)
		c->st->off_end = d->frag_offset + d->frag_size;
	if (d->frag_size > c->st->frag_max)
		c->st->frag_max = d->frag_size;
	ret = c->o->hold_bytes ? rx_batch_last(c) : 0;
	if (ret)
		return ret;
	/* What a token is: its niov's index in the dma-buf (token array)? */
	if (d->frag_token == d->frag_offset >> c->niov_shift)
		c->st->tokens_at_index++;
	if (c->frags && d->frag_token == c->last_token)
		c->st->token_repeats++;
	c->last_token = d->frag_token;
	c->frags++;
	c->off += d->frag_size;
	if (c->holding)
		c->held_bytes += d->frag_size;
	return rx_token_add(c, d->frag_token);
}

static int rx_linear(struct rx_ctx *c, const struct dmabuf_cmsg *d,
		     const uint8_t *iov, size_t n, size_t *lin)
{
	if (d->frag_size > n - *lin) {
		fprintf(stderr, "devmemx-rx: linear cmsgs cover more than the %zu bytes recvmsg returned\n",
			n);
		return -EPROTO;
	}
	rx_verify(c, iov + *lin, d->frag_size, "linear buffer", *lin);
	c->st->cmsgs_linear++;
	*lin += d->frag_size;
	c->off += d->frag_size;
	return 0;
}

static int rx_cmsgs(struct rx_ctx *c, struct msghdr *msg, const uint8_t *iov,
		    size_t n)
{
	struct dmabuf_cmsg d;
	struct cmsghdr *cm;
	size_t lin = 0;
	uint64_t start = c->off;
	int ret = 0;

	for (cm = CMSG_FIRSTHDR(msg); cm && !ret; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    (cm->cmsg_type != SCM_DEVMEM_DMABUF &&
		     cm->cmsg_type != SCM_DEVMEM_LINEAR) ||
		    cm->cmsg_len < CMSG_LEN(sizeof(d))) {
			fprintf(stderr, "devmemx-rx: unexpected cmsg level %d type %d\n",
				cm->cmsg_level, cm->cmsg_type);
			return -EPROTO;
		}
		memcpy(&d, CMSG_DATA(cm), sizeof(d));
		if (cm->cmsg_type == SCM_DEVMEM_LINEAR)
			ret = rx_linear(c, &d, iov, n, &lin);
		else
			ret = rx_frag(c, &d);
	}
	if (!ret && c->off - start != n) {
		fprintf(stderr, "devmemx-rx: recvmsg returned %zu bytes, its cmsgs cover %" PRIu64 "\n",
			n, c->off - start);
		ret = -EPROTO;
	}
	return ret;
}

/* One recvmsg's worth: @n bytes described by the cmsgs of @msg. */
static int rx_one(struct rx_ctx *c, struct msghdr *msg, const uint8_t *iov,
		  size_t n)
{
	int ret, ret2;

	if (msg->msg_flags & MSG_CTRUNC) {
		fprintf(stderr, "devmemx-rx: recvmsg truncated its cmsgs\n");
		return -EPROTO;
	}
	/*
	 * Payload in host memory: after payload in the dma-buf, the binding
	 * ended (what a GPU application reads is no longer there); before,
	 * the flow never reached the bound queues.
	 */
	if (!CMSG_FIRSTHDR(msg) && c->st->cmsgs_dmabuf) {
		fprintf(stderr, "devmemx-rx: binding %u stopped receiving at stream offset %" PRIu64 ": the payload now arrives in host memory (the binding ended: unbound, its device gone, or its memory revoked by the exporter)\n",
			c->id, c->off);
		return -ENOLINK;
	}
	if (!CMSG_FIRSTHDR(msg)) {
		fprintf(stderr, "devmemx-rx: %zu bytes at stream offset %" PRIu64 " arrived in host memory, not in the dma-buf: the flow missed the bound queues (check --queues, the flow rule and RSS: ethtool -X %s equal N)\n",
			n, c->off, c->o->dev);
		return -EPROTO;
	}
	ret = c->o->no_verify ? 0 : dx_dmabuf_begin_read(c->buf);
	if (ret)
		return ret;
	ret = rx_cmsgs(c, msg, iov, n);
	ret2 = c->o->no_verify ? 0 : dx_dmabuf_end_read(c->buf);
	c->st->bytes += n;
	if (!ret)
		ret = ret2;
	if (!ret)
		ret = rx_tokens_flush(c);
	if (!ret)
		ret = rx_batch_full(c);
	if (!ret && c->holding && c->hold_end && now_sec() >= c->hold_end)
		ret = rx_hold_release(c);
	return ret;
}

/* Next recvmsg: > 0 bytes, 0 EOF, or -errno (reported). */
static ssize_t rx_recvmsg(struct rx_ctx *c, struct msghdr *msg, size_t ctrl_len)
{
	ssize_t n;
	int ret;

	for (;;) {
		msg->msg_controllen = ctrl_len;
		msg->msg_flags = 0;
		n = recvmsg(c->fd, msg, MSG_SOCK_DEVMEM | MSG_DONTWAIT);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			fprintf(stderr, "devmemx-rx: recvmsg after %" PRIu64 " bytes: %s\n",
				c->st->bytes, strerror(errno));
			return -errno;
		}
		if (c->holding && c->hold_end) {
			/* Stalled on held buffers, maybe: wake when the hold ends. */
			int left = rx_hold_left_ms(c);

			ret = left > 0 ? rx_wait(c->fd, POLLIN, left) : 0;
			if (ret == 0)
				ret = rx_hold_release(c);
			if (ret < 0)
				return ret;
			continue;
		}
		ret = rx_wait(c->fd, POLLIN, rx_wait_ms(c));
		if (ret == 0 && rx_past_deadline(c))
			return -ETIME;
		if (ret == 0 && c->o->deadline) {
			fprintf(stderr, "devmemx-rx: no data for %d s after %" PRIu64 " bytes (is the sender running?)\n",
				c->o->timeout, c->st->bytes);
			return -ETIMEDOUT;
		}
		if (ret == 0) {
			fprintf(stderr, "devmemx-rx: no data for %d s after %" PRIu64 " of %" PRIu64 " bytes (is the sender running?)\n",
				c->o->timeout, c->st->bytes, c->o->expect);
			return -ETIMEDOUT;
		}
		if (ret < 0)
			return ret;
	}
}

/*
 * --probe-dontneed: the stream ended with every token held; probe the
 * kernel's answers (rx-tokens.c) and leave what is held to the close.
 */
static int rx_probe(struct rx_ctx *c)
{
	uint32_t *flat;
	size_t n;
	int ret;

	flat = rx_tokens_sorted(c->held, c->nheld, &n);
	if (!flat)
		return -ENOMEM;
	ret = rx_probe_dontneed(c->fd, flat, n, c->st->probe,
				sizeof(c->st->probe));
	free(flat);
	return ret;
}

static int rx_loop(struct rx_ctx *c, uint8_t *iov, void *ctrl, size_t ctrl_len)
{
	struct iovec v = { .iov_base = iov, .iov_len = RX_IOV_LEN };
	struct msghdr msg = {
		.msg_iov = &v, .msg_iovlen = 1, .msg_control = ctrl,
	};
	ssize_t n;
	int ret;

	for (;;) {
		n = rx_recvmsg(c, &msg, ctrl_len);
		if (n == 0 && c->holding && c->hold_end && c->o->probe_dontneed)
			return rx_probe(c);
		if (n == 0 && c->holding && c->hold_end) {
			/* The stream ended inside the hold: keep it to the end. */
			int left = rx_hold_left_ms(c);

			fprintf(stderr, "devmemx-rx: the stream ended; holding %" PRIu64 " tokens for %.1f s more\n",
				c->held_frags, left > 0 ? left / 1000.0 : 0);
			ret = left > 0 ? rx_wait(-1, 0, left) : 0;
			return ret ?: rx_hold_release(c);
		}
		if (n == 0)
			return rx_batch_end(c);
		if (n < 0)
			return n;
		c->st->recvmsg_calls++;
		ret = rx_one(c, &msg, iov, n);
		if (ret)
			return ret;
		if (rx_past_deadline(c))
			return -ETIME;
		/* Take a pending SIGINT/SIGTERM even while data streams. */
		if (!(c->st->recvmsg_calls % RX_SIGNAL_EVERY) &&
		    rx_wait(c->fd, POLLIN, 0) == -EINTR)
			return -EINTR;
	}
}

static double tv_sec(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static int rx_final(const struct rx_ctx *c)
{
	if (c->o->deadline && !c->st->bytes) {
		fprintf(stderr, "devmemx-rx: no data on port %u before the deadline\n",
			c->o->port);
		return -EIO;
	}
	if (!c->o->deadline && c->st->bytes != c->o->expect) {
		fprintf(stderr, "devmemx-rx: received %" PRIu64 " bytes, expected %" PRIu64 "\n",
			c->st->bytes, c->o->expect);
		return -EIO;
	}
	if (c->st->mismatches) {
		fprintf(stderr, "devmemx-rx: %" PRIu64 " of %" PRIu64 " bytes differ from the pattern\n",
			c->st->mismatches, c->st->bytes);
		return -EIO;
	}
	return 0;
}

int rx_receive(int fd, const struct rx_opts *o, struct dx_dmabuf *buf,
	       uint32_t binding_id, struct rx_stats *st)
{
	size_t ctrl_len = RX_MAX_CMSGS * CMSG_SPACE(sizeof(struct dmabuf_cmsg));
	struct rx_ctx c = { .fd = fd, .o = o, .buf = buf, .id = binding_id,
			    .st = st, .holding = o->hold > 0 || o->hold_bytes,
			    .niov_shift = __builtin_ctzll(o->rx_page_size ?
							  o->rx_page_size :
							  (uint64_t)getpagesize()) };
	struct timespec t0, t1;
	struct rusage r0, r1;
	uint8_t *iov;
	void *ctrl;
	int ret;

	iov = malloc(RX_IOV_LEN);
	ctrl = malloc(ctrl_len);
	if (!iov || !ctrl) {
		fprintf(stderr, "devmemx-rx: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = rx_loop(&c, iov, ctrl, ctrl_len);
	if (ret == -ETIME)	/* the deadline: as the end of the stream */
		ret = c.o->hold_bytes ? rx_batch_end(&c) : 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &r1);
	st->cpu_sec = tv_sec(&r1.ru_utime) - tv_sec(&r0.ru_utime) +
		      tv_sec(&r1.ru_stime) - tv_sec(&r0.ru_stime);
	st->wall_sec = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!ret)
		ret = rx_final(&c);
out:
	free(c.held);
	free(ctrl);
	free(iov);
	return ret;
}
