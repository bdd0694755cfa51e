// SPDX-License-Identifier: GPL-2.0
/*
 * What the devmemx CLI's commands share: -j, the usage and --help, keyword
 * arguments, the device and the family.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "generated/devmemx-names.h"

bool cli_json;

void cli_usage(FILE *f)
{
	fputs("usage: devmemx [-j] bind dev IFNAME queues LIST [size SIZE | size auto [max-waste W]]\n"
	      "                    (--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE | --pid PID --fd FD)\n"
	      "                    [--persist | --dry-run]\n"
	      "       devmemx [-j] unbind ID|all\n"
	      "       devmemx [-j] show [ID]\n"
	      "       devmemx [-j] caps dev IFNAME [queue N]\n"
	      "       devmemx [-j] info\n"
	      "       devmemx --help | --version\n"
	      "\n"
	      "bind: bind a dma-buf to RX queues of IFNAME with buffers (niovs) of SIZE\n"
	      "bytes and print the binding. Without --persist, devmemx then holds it until\n"
	      "Ctrl-C (SIGINT) or SIGTERM: the binding ends when devmemx's socket closes.\n"
	      "  dev IFNAME            the network device\n"
	      "  queues LIST           RX queues to bind: 2, 2,3 or 2-5,8\n"
	      "  size SIZE             niov size, a power of two from 4K (default: PAGE_SIZE)\n"
	      "  size auto             the largest size the driver takes whose metadata fits\n"
	      "                        and that wastes at most W of the dma-buf\n"
	      "  max-waste W           for size auto: bytes (256K) or a share (0.5%; default 1%)\n"
	      "  --udmabuf SIZE        a new dma-buf of SIZE bytes: a memfd via /dev/udmabuf\n"
	      "  --hugetlb             back it with 2M huge pages (SIZE a multiple of 2M)\n"
	      "  --dma-heap NAME SIZE  a new dma-buf from /dev/dma_heap/NAME instead\n"
	      "  --pid PID --fd FD     the dma-buf process PID has open as FD (pidfd_getfd:\n"
	      "                        needs ptrace access to PID)\n"
	      "  --persist             print the binding and exit, leaving it bound; it ends\n"
	      "                        on unbind or device removal (devmemx cannot be\n"
	      "                        unloaded while a binding lives)\n"
	      "  --dry-run             bind nothing: map the dma-buf for IFNAME as a bind\n"
	      "                        would and print, for each size the driver takes, the\n"
	      "                        niovs it would carve, the bytes it would waste, its\n"
	      "                        metadata, whether that fits in memory now, and whether\n"
	      "                        in-tree devmem (7.3) would take the mapping at that size\n"
	      "unbind: end binding ID, or every binding; print how many ended.\n"
	      "show: binding ID, or all of them (text: a blank line between), with counters.\n"
	      "caps: what IFNAME (and its RX queue N) offers for large niovs: the RX buffer\n"
	      "sizes its driver takes, header-data split, HW-GRO, XDP; then each unmet\n"
	      "prerequisite of a bind (of queue N, or of any queue) with the command that\n"
	      "fixes it, one \"unmet:\" line each, or \"unmet: none\". With -j, values are\n"
	      "numbers (tcp-data-split as ethtool's, rx-buf-sizes bit n for 2^n bytes, xdp\n"
	      "as IFLA_XDP_ATTACHED) and \"unmet\" a list.\n"
	      "info: module version, running kernel, detected kernel features, live objects.\n"
	      "\n"
	      "SIZE takes a K, M or G suffix (powers of 1024). ID is a binding id as bind\n"
	      "and show print it (the dmabuf_id of the devmem cmsgs).\n"
	      "\n"
	      "options:\n"
	      "  -j, --json     print JSON (one object per line)\n"
	      "  -h, --help     print this help\n"
	      "  -V, --version  print the CLI's version\n"
	      "\n"
	      "Exit status: 0 on success, 1 when a request failed (the kernel's reason is\n"
	      "printed as is), 2 on bad usage.\n", f);
}

static const struct cli_kw *cli_kw_find(const char *word,
					const struct cli_kw *kw,
					unsigned int nkw)
{
	unsigned int i;

	for (i = 0; i < nkw; i++)
		if (!strcmp(word, kw[i].name))
			return &kw[i];
	return NULL;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

bool cli_help(int argc, char **argv)
{
	if (argc != 2 || !is_help(argv[1]))
		return false;
	cli_usage(stdout);
	return true;
}

int cli_parse_kw(int argc, char **argv, const struct cli_kw *kw,
		 unsigned int nkw, void *ctx)
{
	const struct cli_kw *k = NULL;
	int i;

	for (i = 1; i < argc; i += 1 + k->nargs) {
		if (is_help(argv[i])) {
			cli_usage(stdout);
			return -1;
		}
		k = cli_kw_find(argv[i], kw, nkw);
		if (!k) {
			dx_bad_usage("unknown argument \"%s\" for %s (try: devmemx --help)",
				     argv[i], argv[0]);
			return CLI_USAGE;
		}
		if (argc - i - 1 < k->nargs) {
			dx_bad_usage("%s needs %s", k->name, k->args);
			return CLI_USAGE;
		}
		if (k->set(ctx, argv + i + 1))
			return CLI_USAGE;
	}
	return 0;
}

unsigned int cli_ifindex(const char *name)
{
	unsigned int ifindex = if_nametoindex(name);

	if (!ifindex)
		fprintf(stderr, "%s: no network device \"%s\" (see: ip link)\n",
			dx_prog, name);
	return ifindex;
}

int cli_open(struct dx_nl *nl)
{
	return dx_nl_open(nl, DEVMEMX_FAMILY_NAME);
}
