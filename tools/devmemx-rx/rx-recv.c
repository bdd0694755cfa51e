// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx recv: make the dma-buf, bind it to the queues (rx-bind.c),
 * steer the flow there and accept it (rx-flow.c), receive and verify the
 * stream (rx-devmem.c), and report its counters as one JSON line.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "rx.h"

/*
 * Metadata of the binding: what devmemx says it allocated; for in-tree
 * devmem one struct net_iov (its size from BTF) per niov, as make ab counts.
 */
static void meta_json(struct dx_json *j, const struct rx_opts *o,
		      const struct rx_bind *b, const struct dx_dmabuf *buf)
{
	uint64_t niov = o->rx_page_size ? o->rx_page_size : (uint64_t)getpagesize();
	bool devmemx = !strcmp(o->provider->name, "devmemx");
	struct rx_meta m;

	rx_bind_meta(b, devmemx, buf->size, niov,
		     devmemx ? 0 : rx_btf_struct_size("net_iov"), &m);
	dx_json_u64_field(j, "niov_count", m.niov_count);
	dx_json_u64_field(j, "meta_bytes", m.bytes);
	dx_json_string_field(j, "meta_source", m.source);
}

/* recv's report: one JSON line of counters (see man devmemx-rx). */
static void print_json(const struct rx_opts *o, const struct rx_bind *b,
		       const struct dx_dmabuf *buf, const struct rx_stats *st)
{
	struct dx_json j;

	dx_json_init(&j, stdout, false);
	dx_json_open_object(&j);
	dx_json_string_field(&j, "provider", o->provider->name);
	dx_json_u64_field(&j, "binding_id", b->id);
	dx_json_u64_field(&j, "rx_page_size", o->rx_page_size ?
			  o->rx_page_size : (uint64_t)getpagesize());
	dx_json_u64_field(&j, "bytes", st->bytes);
	dx_json_u64_field(&j, "recvmsg_calls", st->recvmsg_calls);
	dx_json_u64_field(&j, "cmsgs_dmabuf", st->cmsgs_dmabuf);
	dx_json_u64_field(&j, "cmsgs_linear", st->cmsgs_linear);
	dx_json_u64_field(&j, "tokens", st->tokens);
	dx_json_u64_field(&j, "frag_max", st->frag_max);
	dx_json_u64_field(&j, "mismatches", st->mismatches);
	dx_json_u64_field(&j, "verified_bytes", st->verified_bytes);
	dx_json_u64_field(&j, "held_max", st->held_max);
	dx_json_u64_field(&j, "tokens_at_index", st->tokens_at_index);
	dx_json_u64_field(&j, "token_repeats", st->token_repeats);
	if (o->probe_dontneed)
		dx_json_string_field(&j, "dontneed_probe", st->probe);
	dx_json_u64_field(&j, "frag_off_min", st->off_min);
	dx_json_u64_field(&j, "frag_off_end", st->off_end);
	dx_json_bool_field(&j, "verified", !o->no_verify);
	dx_json_u64_field(&j, "dmabuf_bytes", buf->size);
	dx_json_float_field(&j, "bind_sec", "%.3f", st->bind_sec);
	meta_json(&j, o, b, buf);
	dx_json_float_field(&j, "cpu_sec", "%.3f", st->cpu_sec);
	dx_json_float_field(&j, "wall_sec", "%.3f", st->wall_sec);
	dx_json_close_object(&j);
	fflush(stdout);
}

/* Accept one connection, receive and verify the stream, report. */
static int recv_stream(const struct rx_opts *o, struct dx_dmabuf *buf,
		       const struct rx_bind *b, struct rx_stats *st)
{
	int lfd, fd, ret;

	lfd = rx_listen(o);
	if (lfd < 0)
		return lfd;
	fd = rx_accept(lfd, o);
	close(lfd);
	if (fd < 0)
		return fd;
	ret = rx_receive(fd, o, buf, b->id, st);
	close(fd);
	print_json(o, b, buf, st);
	return ret;
}

/* A dma-buf of someone else's that the CPU cannot map: a GPU's, typically. */
static int unreadable(const struct dx_dmabuf *buf)
{
	char exp[64];

	dx_dmabuf_exporter(buf->fd, exp, sizeof(exp));
	fprintf(stderr, "devmemx-rx: the dma-buf cannot be read back here (its exporter, %s, refuses mmap): --no-verify receives and counts without checking the payload (check it in the application that owns the memory)\n",
		exp);
	return -EOPNOTSUPP;
}

int rx_recv(struct rx_opts *o)
{
	struct dx_dmabuf buf = DX_DMABUF_INIT;
	struct rx_bind bind = { .ops = o->provider };
	struct rx_flow flow = { .fd = -1 };
	struct rx_stats st = { 0 };
	struct timespec t0, t1;
	int ret;

	o->ifindex = if_nametoindex(o->dev);
	if (!o->ifindex) {
		fprintf(stderr, "devmemx-rx: no network device \"%s\" (see: ip link)\n",
			o->dev);
		return -ENODEV;
	}
	rx_signals_setup();
	ret = rx_watch_link(o->dev, o->ifindex);
	if (!ret)
		ret = bind.ops->open(&bind);
	if (ret)
		goto out;
	ret = dx_dmabuf_create(&buf, &o->buf);
	if (!ret && !o->no_verify && !dx_dmabuf_readable(&buf))
		ret = unreadable(&buf);
	if (!ret) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = bind.ops->bind(&bind, o, buf.fd);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		st.bind_sec = t1.tv_sec - t0.tv_sec +
			      (t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	if (!ret && !o->no_flow_rule)
		ret = rx_flow_add(&flow, o);
	if (!ret)
		ret = recv_stream(o, &buf, &bind, &st);
	/* Undo in reverse; each step is a no-op when its part was not made. */
	rx_flow_del(&flow);
	bind.ops->close(&bind);
	dx_dmabuf_destroy(&buf);
out:
	rx_unwatch_link();
	if (ret == -EINTR && rx_stop_sig)
		fprintf(stderr, "devmemx-rx: stopped by %s\n",
			rx_stop_sig == SIGINT ? "SIGINT" : "SIGTERM");
	if (ret == -ENODEV && rx_link_lost)
		fprintf(stderr, "devmemx-rx: %s went away (unregistered, or moved to another network namespace)\n",
			o->dev);
	return ret;
}
