// SPDX-License-Identifier: GPL-2.0
/* devmemx: control the devmemx kernel module over generic netlink. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "nl.h"
#include "generated/devmemx-names.h"

static bool json;

static void usage(FILE *f)
{
	fputs("usage: devmemx [-j] COMMAND\n"
	      "\n"
	      "commands:\n"
	      "  info        module version, running kernel, detected kernel features\n"
	      "\n"
	      "options:\n"
	      "  -j, --json  print JSON (one object per line)\n"
	      "  -h, --help  print this help\n"
	      "  -V, --version\n"
	      "              print the CLI's version\n", f);
}

static int print_info(struct nlattr **tb, void *arg)
{
	(void)arg;
	dx_print(tb, dx_info_attrs, DEVMEMX_A_INFO_MAX, json);
	return 0;
}

static int cmd_info(struct dx_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "devmemx: info takes no arguments\n");
		return -EINVAL;
	}
	msg = dx_nl_msg(nl, DEVMEMX_CMD_INFO, false);
	if (!msg)
		return -ENOMEM;
	return dx_nl_call(nl, msg, DEVMEMX_A_INFO_MAX, print_info, NULL, "info");
}

static const struct {
	const char *name;
	int (*fn)(struct dx_nl *nl, int argc, char **argv);
} cmds[] = {
	{ "info", cmd_info },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct dx_nl nl;
	unsigned int i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("devmemx %s\n", DEVMEMX_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[optind], cmds[i].name))
			continue;
		if (dx_nl_open(&nl, DEVMEMX_FAMILY_NAME))
			return 1;
		ret = cmds[i].fn(&nl, argc - optind, argv + optind);
		dx_nl_close(&nl);
		return ret ? 1 : 0;
	}
	fprintf(stderr, "devmemx: unknown command \"%s\" (try: devmemx --help)\n",
		argv[optind]);
	return 2;
}
