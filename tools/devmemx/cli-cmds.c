// SPDX-License-Identifier: GPL-2.0
/* devmemx show and unbind: the bindings. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dmabuf.h"
#include "family.h"
#include "generated/devmemx-names.h"

/* A binding id, or with @all_ok the word "all" (*all set). */
static int parse_id(const char *s, bool all_ok, uint32_t *id, bool *all)
{
	uint64_t v;
	char *end;

	if (all_ok && !strcmp(s, "all")) {
		*all = true;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, dx_num_base(s));
	if (*s < '0' || *s > '9' || *end || errno || v > UINT32_MAX)
		return dx_bad_usage("bad binding id \"%s\": use a number from devmemx show%s",
				    s, all_ok ? ", or all" : "");
	*id = v;
	return 0;
}

/* ---- show ---------------------------------------------------------------- */

/* dx_dmabuf_holders()'s callback, the text's or the JSON's. */
static void print_holder(int pid, const char *comm, int fd, void *arg)
{
	unsigned int *n = arg;

	printf("%s%d (%s) fd %d", (*n)++ ? ", " : "", pid, comm, fd);
}

static void json_holder(int pid, const char *comm, int fd, void *arg)
{
	struct dx_json *j = arg;

	dx_json_open_object(j);
	dx_json_s64_field(j, "pid", pid);
	dx_json_string_field(j, "comm", comm);
	dx_json_s64_field(j, "fd", fd);
	dx_json_close_object(j);
}

/*
 * The processes whose fds hold the binding's dma-buf, found by its inode
 * in /proc/PID/fd (as far as this process may look): a bind with --pid
 * shows the application it took the buffer from, which creator-pid (the
 * process that bound) does not. JSON: member "held-by" of @j's object.
 */
static void print_holders(const struct dx_reply *r, struct dx_json *j)
{
	unsigned int n = 0;
	uint64_t ino;

	if (!r->tb[DEVMEMX_A_BINDING_DMABUF_INO])
		return;
	ino = nla_get_u64(r->tb[DEVMEMX_A_BINDING_DMABUF_INO]);
	if (j) {
		dx_json_key(j, "held-by");
		dx_json_open_array(j);
		dx_dmabuf_holders(ino, json_holder, j);
		dx_json_close_array(j);
		return;
	}
	fputs("held-by: ", stdout);
	dx_dmabuf_holders(ino, print_holder, &n);
	puts(n ? "" : "no process (the binding alone keeps the dma-buf)");
}

static int print_binding(const struct dx_reply *r, void *arg)
{
	unsigned int *n = arg;
	struct dx_json j;

	if (!cli_json) {
		if ((*n)++)
			putchar('\n');
		dx_print(r, dx_binding_attrs, DEVMEMX_A_BINDING_MAX, false);
		print_holders(r, NULL);
		return 0;
	}
	dx_json_init(&j, stdout, false);
	dx_json_open_object(&j);
	dx_json_reply(&j, r, dx_binding_attrs, DEVMEMX_A_BINDING_MAX, false);
	print_holders(r, &j);
	dx_json_close_object(&j);
	return 0;
}

static int show(struct dx_nl *nl, bool one, uint32_t id)
{
	unsigned int n = 0;
	struct nl_msg *msg;
	char what[32];

	msg = dx_nl_msg(nl, DEVMEMX_CMD_BINDING_GET, !one);
	if (!msg || (one && nla_put_u32(msg, DEVMEMX_A_BINDING_ID, id))) {
		nlmsg_free(msg);
		return dx_nomem();
	}
	if (one)
		snprintf(what, sizeof(what), "show %" PRIu32, id);
	else
		snprintf(what, sizeof(what), "show");
	return dx_nl_call(nl, msg, DEVMEMX_A_BINDING_MAX, print_binding, &n,
			  what);
}

static int cli_show(int argc, char **argv)
{
	struct dx_nl nl;
	uint32_t id = 0;
	int ret;

	if (cli_help(&cli_cmd_show, argc, argv))
		return CLI_OK;
	if (argc > 2) {
		dx_bad_usage("unexpected argument \"%s\" for show", argv[2]);
		return CLI_USAGE;
	}
	if (argc == 2 && parse_id(argv[1], false, &id, NULL))
		return CLI_USAGE;
	if (cli_open(&nl))
		return CLI_FAIL;
	ret = show(&nl, argc == 2, id);
	return cli_close(&nl, ret);
}

const struct cli_cmd cli_cmd_show = {
	.name = "show", .synopsis = "show [ID]", .run = cli_show,
	.help = "show: binding ID, or all of them (text: a blank line between), with counters.\n",
};

/* ---- unbind -------------------------------------------------------------- */

static int collect_id(const struct dx_reply *r, void *arg)
{
	struct id_list *l = arg;
	uint32_t *ids;

	if (!r->tb[DEVMEMX_A_BINDING_ID])
		return -EPROTO;
	if (l->n == l->cap) {
		ids = realloc(l->ids, (l->cap * 2 + 16) * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		l->ids = ids;
		l->cap = l->cap * 2 + 16;
	}
	l->ids[l->n++] = nla_get_u32(r->tb[DEVMEMX_A_BINDING_ID]);
	return 0;
}

static int unbind(struct dx_nl *nl, uint32_t id)
{
	struct nl_msg *msg;
	char what[32];

	msg = dx_nl_msg(nl, DEVMEMX_CMD_UNBIND, false);
	if (!msg || nla_put_u32(msg, DEVMEMX_A_BINDING_ID, id)) {
		nlmsg_free(msg);
		return dx_nomem();
	}
	snprintf(what, sizeof(what), "unbind %" PRIu32, id);
	return dx_nl_call(nl, msg, DEVMEMX_A_BINDING_MAX, NULL, NULL, what);
}

int cli_binding_ids(struct dx_nl *nl, struct id_list *l)
{
	struct nl_msg *msg;

	msg = dx_nl_msg(nl, DEVMEMX_CMD_BINDING_GET, true);
	if (!msg)
		return dx_nomem();
	return dx_nl_call(nl, msg, DEVMEMX_A_BINDING_MAX, collect_id, l, "show");
}

/*
 * Every binding the dump lists; one that ended meanwhile (ENOENT) is not
 * an error and is not counted.
 */
static int unbind_all(struct dx_nl *nl, unsigned int *count)
{
	struct id_list l = { 0 };
	unsigned int i;
	int ret;

	ret = cli_binding_ids(nl, &l);
	nl->quiet_err = ENOENT;
	for (i = 0; !ret && i < l.n; i++) {
		ret = unbind(nl, l.ids[i]);
		if (!ret)
			(*count)++;
		else if (ret == -ENOENT)
			ret = 0;
	}
	free(l.ids);
	return ret;
}

static int cli_unbind(int argc, char **argv)
{
	unsigned int count = 0;
	bool all = false;
	struct dx_nl nl;
	uint32_t id;
	int ret;

	if (cli_help(&cli_cmd_unbind, argc, argv))
		return CLI_OK;
	if (argc != 2) {
		if (argc < 2)
			dx_bad_usage("unbind needs a binding id or all");
		else
			dx_bad_usage("unexpected argument \"%s\" for unbind",
				     argv[2]);
		return CLI_USAGE;
	}
	if (parse_id(argv[1], true, &id, &all))
		return CLI_USAGE;
	if (cli_open(&nl))
		return CLI_FAIL;
	nl.hint = dx_perm_hint;
	nl.hint_arg = "unbinding";
	if (all) {
		ret = unbind_all(&nl, &count);
	} else {
		ret = unbind(&nl, id);
		count = !ret;
	}
	dx_nl_close(&nl);
	if (ret)
		return CLI_FAIL;
	if (cli_json) {
		struct dx_json j;

		dx_json_init(&j, stdout, false);
		dx_json_open_object(&j);
		dx_json_u64_field(&j, "unbound", count);
		dx_json_close_object(&j);
	} else {
		printf("unbound: %u\n", count);
	}
	return CLI_OK;
}

const struct cli_cmd cli_cmd_unbind = {
	.name = "unbind", .synopsis = "unbind ID|all", .run = cli_unbind,
	.help = "unbind: end binding ID, or every binding; print how many ended.\n",
};
