// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx: control the devmemx kernel module over generic netlink. main
 * hands each command to its file (cli-bind.c, cli-cmds.c, cli-caps.c;
 * info is here); what they share is cli-util.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "generated/devmemx-names.h"

static int print_info(const struct dx_reply *r, void *arg)
{
	(void)arg;
	dx_print(r, dx_info_attrs, DEVMEMX_A_INFO_MAX, cli_json);
	return 0;
}

static int cli_info(int argc, char **argv)
{
	struct nl_msg *msg;
	struct dx_nl nl;
	int ret;

	if (cli_help(argc, argv))
		return CLI_OK;
	if (argc > 1) {
		dx_bad_usage("info takes no arguments");
		return CLI_USAGE;
	}
	if (cli_open(&nl))
		return CLI_FAIL;
	msg = dx_nl_msg(&nl, DEVMEMX_CMD_INFO, false);
	ret = msg ? dx_nl_call(&nl, msg, DEVMEMX_A_INFO_MAX, print_info, NULL,
			       "info") : dx_nomem();
	dx_nl_close(&nl);
	return ret ? CLI_FAIL : CLI_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "bind", cli_bind },
	{ "unbind", cli_unbind },
	{ "show", cli_show },
	{ "caps", cli_caps },
	{ "info", cli_info },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli_json = true;
			break;
		case 'h':
			cli_usage(stdout);
			return CLI_OK;
		case 'V':
			printf("devmemx %s\n", DEVMEMX_VERSION);
			return CLI_OK;
		default:
			cli_usage(stderr);
			return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage(stderr);
		return CLI_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[optind], cmds[i].name))
			return cmds[i].fn(argc - optind, argv + optind);
	dx_bad_usage("unknown command \"%s\" (try: devmemx --help)",
		     argv[optind]);
	return CLI_USAGE;
}
