// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx policy: per-device policies, under which the kernel's own netdev
 * bind-rx (ncdevmem's, kperf's) is served by devmemx at a niov size.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "family.h"
#include "generated/devmemx-names.h"

struct policy_args {
	const char *dev;
	uint32_t size;
	bool size_set, off;
	uint32_t queues[DX_MAX_QUEUES];
	unsigned int nqueues;
};

static int kw_dev(void *ctx, char **argv)
{
	((struct policy_args *)ctx)->dev = argv[0];
	return 0;
}

static int kw_size(void *ctx, char **argv)
{
	struct policy_args *a = ctx;

	a->size_set = true;
	return dx_parse_buf_size(argv[0], "size", &a->size);
}

static int kw_queues(void *ctx, char **argv)
{
	struct policy_args *a = ctx;

	return dx_parse_queues(argv[0], "queues", a->queues, DX_MAX_QUEUES,
			       &a->nqueues);
}

static int kw_off(void *ctx, char **argv)
{
	(void)argv;
	((struct policy_args *)ctx)->off = true;
	return 0;
}

static int print_policy(const struct dx_reply *r, void *arg)
{
	unsigned int *n = arg;

	if (!cli_json && (*n)++)
		putchar('\n');
	dx_print(r, dx_policy_attrs, DEVMEMX_A_POLICY_MAX, cli_json);
	return 0;
}

static int policy_show(struct dx_nl *nl)
{
	unsigned int n = 0;
	struct nl_msg *msg;

	msg = dx_nl_msg(nl, DEVMEMX_CMD_POLICY_GET, true);
	if (!msg)
		return dx_nomem();
	return dx_nl_call(nl, msg, DEVMEMX_A_POLICY_MAX, print_policy, &n,
			  "policy show");
}

static int policy_set(struct dx_nl *nl, const struct policy_args *a,
		      unsigned int ifindex)
{
	struct nl_msg *msg;
	char what[64];

	msg = dx_policy_set_msg(nl, ifindex, a->size, a->queues, a->nqueues);
	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "policy on %s", a->dev);
	return dx_nl_call(nl, msg, DEVMEMX_A_POLICY_MAX, NULL, NULL, what);
}

/* POLICY-DEL's reply: the bindings made under the policy that stay. */
static int print_left(const struct dx_reply *r, void *arg)
{
	(void)arg;
	dx_print(r, dx_policy_attrs, DEVMEMX_A_POLICY_MAX, cli_json);
	return 0;
}

static int policy_del(struct dx_nl *nl, const char *dev, unsigned int ifindex)
{
	struct nl_msg *msg = dx_policy_del_msg(nl, ifindex);
	char what[64];

	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "policy off on %s", dev);
	return dx_nl_call(nl, msg, DEVMEMX_A_POLICY_MAX, print_left, NULL, what);
}

static int cli_policy(int argc, char **argv)
{
	static const struct cli_kw kw[] = {
		{ "dev", 1, "IFNAME", kw_dev },
		{ "size", 1, "SIZE", kw_size },
		{ "queues", 1, "LIST", kw_queues },
		{ "off", 0, NULL, kw_off },
	};
	struct policy_args a = { 0 };
	unsigned int ifindex;
	struct dx_nl nl;
	int ret;

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "show"))) {
		if (cli_open(&nl))
			return CLI_FAIL;
		return cli_close(&nl, policy_show(&nl));
	}
	ret = cli_parse_kw(&cli_cmd_policy, argc, argv, kw, ARRAY_SIZE(kw), &a);
	if (ret)
		return ret < 0 ? CLI_OK : ret;
	if (!a.dev) {
		dx_bad_usage("policy needs dev IFNAME");
		return CLI_USAGE;
	}
	if (a.off == a.size_set) {
		dx_bad_usage(a.off ? "policy: off takes no size" :
			     "policy dev %s needs size SIZE, or off", a.dev);
		return CLI_USAGE;
	}
	if (a.off && a.nqueues) {
		dx_bad_usage("policy: off takes no queues (it ends the device's policy)");
		return CLI_USAGE;
	}
	ifindex = cli_ifindex(a.dev);
	if (!ifindex)
		return CLI_FAIL;
	if (cli_open(&nl))
		return CLI_FAIL;
	nl.hint = dx_perm_hint;
	nl.hint_arg = "setting a policy";
	ret = a.off ? policy_del(&nl, a.dev, ifindex) : policy_set(&nl, &a, ifindex);
	return cli_close(&nl, ret);
}

const struct cli_cmd cli_cmd_policy = {
	.name = "policy",
	.synopsis = "policy [show | dev IFNAME (size SIZE [queues LIST] | off)]",
	.run = cli_policy,
	.help =
	"policy: serve the kernel's own netdev bind-rx for IFNAME (what ncdevmem, kperf\n"
	"and NCCL's devmem plugins send) with devmemx at SIZE; alone, or with show,\n"
	"list this network namespace's policies.\n"
	"  dev IFNAME            the network device, in this network namespace\n"
	"  size SIZE             the niov size of bindings made under the policy\n"
	"  queues LIST           only requests for these RX queues (default: all)\n"
	"  off                   end the policy; bindings made under it stay until\n"
	"                        their sockets close (the reply counts them)\n",
};
