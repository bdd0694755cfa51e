// SPDX-License-Identifier: GPL-2.0
/*
 * What the devmemx CLI's commands share: -j, the end of every usage and a
 * command's own, keyword arguments, the device and the family.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "generated/devmemx-names.h"

bool cli_json;

/* What every usage ends with: the words the commands share, -j, exit status. */
const char cli_usage_footer[] =
	"SIZE takes a K, M or G suffix (powers of 1024). ID is a binding id as bind\n"
	"and show print it (the dmabuf_id of the devmem cmsgs).\n"
	"\n"
	"options:\n"
	"  -j, --json     print JSON (one object per line)\n"
	"  -h, --help     print this help (after a command: that command's)\n"
	"  -V, --version  print the CLI's version\n"
	"\n"
	"Exit status: 0 on success, 1 when a request failed (the kernel's reason is\n"
	"printed as is), 2 on bad usage.\n";

void cli_cmd_usage(const struct cli_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: devmemx [-j] %s\n\n%s\n%s", cmd->synopsis, cmd->help,
		cli_usage_footer);
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

bool cli_help(const struct cli_cmd *cmd, int argc, char **argv)
{
	if (argc != 2 || !is_help(argv[1]))
		return false;
	cli_cmd_usage(cmd, stdout);
	return true;
}

int cli_parse_kw(const struct cli_cmd *cmd, int argc, char **argv,
		 const struct cli_kw *kw, unsigned int nkw, void *ctx)
{
	const struct cli_kw *k = NULL;
	int i;

	for (i = 1; i < argc; i += 1 + k->nargs) {
		if (is_help(argv[i])) {
			cli_cmd_usage(cmd, stdout);
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

int cli_close(struct dx_nl *nl, int ret)
{
	dx_nl_close(nl);
	return ret ? CLI_FAIL : CLI_OK;
}
