/* SPDX-License-Identifier: GPL-2.0 */
/* The devmemx CLI's commands and what they share. */
#ifndef DX_CLI_H
#define DX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "nl.h"

/* Exit statuses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

extern bool cli_json;	/* -j */

/*
 * A command, as its file defines it beside its parser: its name, its
 * synopsis (what follows "devmemx [-j] " in the usage; further lines
 * indented to stand under it), its help (its section of --help: a line
 * "NAME: what it does", then "  ARG  what it means" lines, which the bash
 * completion reads), and what runs it (argv[0] is the command's name; it
 * returns an exit status).
 */
struct cli_cmd {
	const char *name;
	const char *synopsis;
	const char *help;
	int (*run)(int argc, char **argv);
};

extern const struct cli_cmd cli_cmd_bind, cli_cmd_unbind, cli_cmd_show,
	cli_cmd_caps, cli_cmd_policy, cli_cmd_info;
extern const char cli_usage_footer[];

/* @cmd's usage: its synopsis, its help, then the footer every usage has. */
void cli_cmd_usage(const struct cli_cmd *cmd, FILE *f);

/*
 * A keyword argument: @name then @nargs words (@args names them for
 * messages); @set stores them in the command's @ctx or prints why not and
 * returns < 0.
 */
struct cli_kw {
	const char *name;
	int nargs;
	const char *args;
	int (*set)(void *ctx, char **argv);
};

/*
 * Parse argv[1..] (argv[0] is @cmd's name) as keywords of @kw in any order.
 * Returns 0, CLI_USAGE after a message, or -1 after printing @cmd's usage
 * for -h or --help.
 */
int cli_parse_kw(const struct cli_cmd *cmd, int argc, char **argv,
		 const struct cli_kw *kw, unsigned int nkw, void *ctx);
/* "-h" or "--help" as @argc == 2's argument: print @cmd's usage, return true. */
bool cli_help(const struct cli_cmd *cmd, int argc, char **argv);
/* if_nametoindex() with the CLI's message; 0 when there is no such device. */
unsigned int cli_ifindex(const char *name);
/* Open the devmemx family (with the CLI's message when it is missing). */
int cli_open(struct dx_nl *nl);
/* Close @nl; the exit status of a command whose request returned @ret. */
int cli_close(struct dx_nl *nl, int ret);

/* Binding ids, as a BINDING-GET dump lists them; the caller frees @ids. */
struct id_list {
	uint32_t *ids;
	unsigned int n, cap;
};

int cli_binding_ids(struct dx_nl *nl, struct id_list *l);

/*
 * print.c: the attributes of @r described by @desc, as "name: value" lines
 * or as one JSON object on a line.
 */
void dx_print(const struct dx_reply *r, const struct dx_attr *desc,
	      int maxattr, bool json);

#define DX_PRINT_JSON	1	/* one JSON object on a line */
#define DX_PRINT_RAW	2	/* JSON: enums and flags as their numbers */
/* dx_print() with DX_PRINT_* @flags. */
void dx_print_flags(const struct dx_reply *r, const struct dx_attr *desc,
		    int maxattr, unsigned int flags);
/* @r's attributes as members of the object open in @j (@raw: as above). */
void dx_json_reply(struct dx_json *j, const struct dx_reply *r,
		   const struct dx_attr *desc, int maxattr, bool raw);


#endif
