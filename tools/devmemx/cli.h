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

void cli_usage(FILE *f);

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
 * Parse argv[1..] (argv[0] is the command) as keywords of @kw in any order.
 * Returns 0, CLI_USAGE after a message, or -1 after printing --help.
 */
int cli_parse_kw(int argc, char **argv, const struct cli_kw *kw,
		 unsigned int nkw, void *ctx);
/* "-h" or "--help" as @argc == 2's argument: print the help, return true. */
bool cli_help(int argc, char **argv);
/* if_nametoindex() with the CLI's message; 0 when there is no such device. */
unsigned int cli_ifindex(const char *name);
/* Open the devmemx family (with the CLI's message when it is missing). */
int cli_open(struct dx_nl *nl);

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

/* The commands: argv[0] is the command's name; they return an exit status. */
int cli_bind(int argc, char **argv);
int cli_unbind(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_caps(int argc, char **argv);

#endif
