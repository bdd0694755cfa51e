// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx: receive a TCP stream into a dma-buf bound with devmem (in-tree
 * netdev or devmemx), verify every byte, report counters; and the sender of
 * that stream. main hands each subcommand to its parser (which sits with
 * its usage) and then to the code that runs it: recv here, send in
 * rx-send.c, ab in rx-ab.c, pools/queues/qstats in rx-netdev.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "pattern.h"
#include "rx-ab.h"
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

static int cmd_recv(struct rx_opts *o)
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

/* Hidden: check the pattern against fixed values and its own checker. */
static int cmd_selftest_pattern(void)
{
	uint8_t a[4096], b[4096];
	size_t first = 0, bad;
	uint64_t off;

	if (dx_pat_mix(0) != 0 || dx_pat_mix(1) != 0x5692161d100b05e5ULL)
		goto fail;
	for (off = 0; off < 24; off += 3) {
		dx_pat_fill(a, sizeof(a), off, 7);
		for (size_t i = 0; i < sizeof(a); i++)
			if (a[i] != dx_pat_byte(7, off + i))
				goto fail;
		if (dx_pat_check(a, sizeof(a), off, 7, &first))
			goto fail;
	}
	dx_pat_fill(b, sizeof(b), 256, 7);
	dx_pat_fill(a, sizeof(a), 0, 7);
	if (!memcmp(a, b, sizeof(a)))
		goto fail;
	a[1000] ^= 1;
	a[1001] ^= 1;
	bad = dx_pat_check(a, sizeof(a), 0, 7, &first);
	if (bad != 2 || first != 1000)
		goto fail;
	printf("pattern: ok\n");
	return 0;
fail:
	fprintf(stderr, "devmemx-rx: pattern self-test failed\n");
	return -EIO;
}

/*
 * Usage: every subcommand's synopsis, then its help, each from the file of
 * its parser, in this order.
 */
static void rx_usage(FILE *f)
{
	static const char *const synopses[] = {
		rx_recv_synopsis, rx_send_synopsis, rx_ab_synopsis,
		rx_pools_synopsis, rx_queues_synopsis, rx_qstats_synopsis,
		"devmemx-rx -h | --help\n",
	};
	static const char *const helps[] = {
		rx_recv_help, rx_send_help, rx_ab_help, rx_netdev_help,
		"recv, send and ab also take --help. Exit status: 0 on success (recv: every\n"
		"byte arrived and verified), 1 on failure, 2 on bad usage.\n",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(synopses); i++) {
		fputs(i ? "       " : "usage: ", f);
		fputs(synopses[i], f);
	}
	for (i = 0; i < ARRAY_SIZE(helps); i++) {
		fputc('\n', f);
		fputs(helps[i], f);
	}
}

/* A parser's answer as main's: usage printed for --help (exit 0), 2 for bad usage. */
static int rx_parsed(int ret)
{
	if (ret > 0)
		rx_usage(stdout);
	return ret > 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
	struct rx_netdev_opts no = { 0 };
	struct ab_opts ao = { 0 };
	struct rx_opts ro = { 0 };
	struct tx_opts to = { 0 };
	const char *cmd;
	int ret;

	dx_prog = "devmemx-rx";
	opterr = 0;
	if (argc < 2) {
		rx_usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		rx_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "recv")) {
		ret = rx_parse_recv(argc - 1, argv + 1, &ro);
		if (ret)
			return rx_parsed(ret);
		return cmd_recv(&ro) ? 1 : 0;
	}
	if (!strcmp(cmd, "send")) {
		ret = rx_parse_send(argc - 1, argv + 1, &to);
		if (ret)
			return rx_parsed(ret);
		return tx_send(&to) ? 1 : 0;
	}
	if (!strcmp(cmd, "ab")) {
		ret = rx_parse_ab(argc - 1, argv + 1, &ao);
		if (ret)
			return rx_parsed(ret);
		return rx_ab_run(&ao);
	}
	if (!strcmp(cmd, "pools") || !strcmp(cmd, "queues") ||
	    !strcmp(cmd, "qstats")) {
		ret = rx_parse_netdev(argc - 1, argv + 1, &no);
		if (ret == -ENODEV)
			return 1;
		if (ret)
			return rx_parsed(ret);
		return rx_netdev_run(&no) ? 1 : 0;
	}
	if (!strcmp(cmd, "selftest-pattern") && argc == 2)
		return cmd_selftest_pattern() ? 1 : 0;
	fprintf(stderr, "devmemx-rx: unknown command \"%s\" (try: devmemx-rx --help)\n",
		cmd);
	return 2;
}
