// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx: control the devmemx kernel module over generic netlink. main
 * hands each command to its file (cli-bind.c, cli-cmds.c, cli-caps.c,
 * cli-policy.c; info and help are here), where its usage sits with its
 * parser; what they share is cli-util.c's.
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

	if (cli_help(&cli_cmd_info, argc, argv))
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
	return cli_close(&nl, ret);
}

const struct cli_cmd cli_cmd_info = {
	.name = "info", .synopsis = "info", .run = cli_info,
	.help = "info: module version, running kernel, detected kernel features, live objects.\n",
};

/* The commands, in the order the usage lists them. */
static const struct cli_cmd *const cmds[] = {
	&cli_cmd_bind, &cli_cmd_unbind, &cli_cmd_show, &cli_cmd_caps,
	&cli_cmd_policy, &cli_cmd_info,
};

/* The whole usage: every command's synopsis, then each one's help. */
static void cli_usage(FILE *f)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "%s devmemx [-j] %s\n", i ? "      " : "usage:",
			cmds[i]->synopsis);
	fputs("       devmemx help [COMMAND]\n"
	      "       devmemx --help | --version\n\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fputs(cmds[i]->help, f);
	fprintf(f, "help: this usage, or COMMAND's alone (as COMMAND --help prints it).\n\n%s",
		cli_usage_footer);
}

static const struct cli_cmd *cli_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(name, cmds[i]->name))
			return cmds[i];
	dx_bad_usage("unknown command \"%s\" (try: devmemx --help)", name);
	return NULL;
}

/* devmemx help [COMMAND]. */
static int cli_help_cmd(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	if (argc == 1 || (argc == 2 && (!strcmp(argv[1], "-h") ||
					!strcmp(argv[1], "--help")))) {
		cli_usage(stdout);
		return CLI_OK;
	}
	if (argc > 2) {
		dx_bad_usage("unexpected argument \"%s\" for help", argv[2]);
		return CLI_USAGE;
	}
	cmd = cli_find(argv[1]);
	if (!cmd)
		return CLI_USAGE;
	cli_cmd_usage(cmd, stdout);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_cmd *cmd;
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
	if (!strcmp(argv[optind], "help"))
		return cli_help_cmd(argc - optind, argv + optind);
	cmd = cli_find(argv[optind]);
	return cmd ? cmd->run(argc - optind, argv + optind) : CLI_USAGE;
}
