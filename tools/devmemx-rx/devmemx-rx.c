// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx: receive a TCP stream into a dma-buf bound with devmem (in-tree
 * netdev or devmemx), verify every byte, report counters; and the sender of
 * that stream. main hands each subcommand to its parser (which sits with
 * its usage) and then to the code that runs it: recv in rx-recv.c, send in
 * rx-send.c, ab in rx-ab.c, pools/queues/qstats in rx-netdev.c, lease and
 * redirect in rx-pod.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "pattern.h"
#include "rx-ab.h"
#include "rx.h"

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
		rx_lease_synopsis, rx_redirect_synopsis,
		"devmemx-rx -h | --help\n",
	};
	static const char *const helps[] = {
		rx_recv_help, rx_send_help, rx_ab_help, rx_netdev_help,
		rx_lease_help, rx_redirect_help,
		"Every command also takes --help. Exit status: 0 on success (recv: every\n"
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
	struct rx_redirect_opts rd = { 0 };
	struct rx_lease_opts lo = { 0 };
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
		return rx_recv(&ro) ? 1 : 0;
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
	if (!strcmp(cmd, "lease")) {
		ret = rx_parse_lease(argc - 1, argv + 1, &lo);
		if (ret)
			return rx_parsed(ret);
		return rx_lease_run(&lo) ? 1 : 0;
	}
	if (!strcmp(cmd, "redirect")) {
		ret = rx_parse_redirect(argc - 1, argv + 1, &rd);
		if (ret)
			return rx_parsed(ret);
		return rx_redirect_run(&rd) ? 1 : 0;
	}
	if (!strcmp(cmd, "selftest-pattern") && argc == 2)
		return cmd_selftest_pattern() ? 1 : 0;
	fprintf(stderr, "devmemx-rx: unknown command \"%s\" (try: devmemx-rx --help)\n",
		cmd);
	return 2;
}
