// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx caps: what a device offers for large niovs (the module's
 * CAPS-GET), then each unmet prerequisite of a bind with the command that
 * fixes it. The module reports what only it can see (the driver's buffer
 * sizes, header-data split); the rest comes from what the kernel reports
 * anyway: HW-GRO from ethtool's features (ethtool netlink), XDP from
 * rtnetlink (IFLA_XDP), who holds a queue from the netdev family's queue
 * dump.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/if_link.h>
#include <linux/netdev.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>

#include "cli.h"
#include "family.h"
#include "generated/devmemx-names.h"

#define CAPS_MAX_UNMET	(8 + DX_MAX_QUEUES)

struct caps_args {
	const char *dev;
	unsigned int ifindex;
	uint32_t queue;
	bool has_queue;
};

/* What the prerequisites are judged on, and the verdicts. */
struct caps_state {
	const struct caps_args *a;
	uint8_t tcp_data_split;
	uint32_t hds_thresh;
	uint64_t buf_sizes;
	bool dma_bounce;
	int gro_hw;		/* 1 on, 0 off, -1 the driver has no rx-gro-hw */
	int xdp;		/* IFLA_XDP_ATTACHED: XDP_ATTACHED_* */
	struct nlattr *reply;	/* CAPS-GET's attributes */
	int reply_len;
	struct id_list ids;	/* devmemx's bindings */
	char *unmet[CAPS_MAX_UNMET];
	unsigned int nunmet;
};

__attribute__((format(printf, 2, 3)))
static int unmet(struct caps_state *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (s->nunmet == CAPS_MAX_UNMET)
		return 0;
	va_start(ap, fmt);
	ret = vasprintf(&s->unmet[s->nunmet], fmt, ap);
	va_end(ap);
	if (ret < 0)
		return dx_nomem();
	s->nunmet++;
	return 0;
}

/* ---- the module's view -------------------------------------------------- */

/* Keep the reply (printed once the rest is known) and what is judged on. */
static int caps_reply(const struct dx_reply *r, void *arg)
{
	struct caps_state *s = arg;
	struct nlattr **tb = r->tb;

	if (!tb[DEVMEMX_A_CAPS_TCP_DATA_SPLIT] || !tb[DEVMEMX_A_CAPS_HDS_THRESH] ||
	    !tb[DEVMEMX_A_CAPS_RX_BUF_SIZES] || s->reply)
		return -EPROTO;
	s->tcp_data_split = nla_get_u8(tb[DEVMEMX_A_CAPS_TCP_DATA_SPLIT]);
	s->hds_thresh = nla_get_u32(tb[DEVMEMX_A_CAPS_HDS_THRESH]);
	s->buf_sizes = nla_get_u64(tb[DEVMEMX_A_CAPS_RX_BUF_SIZES]);
	s->dma_bounce = tb[DEVMEMX_A_CAPS_DMA_BOUNCE] &&
			nla_get_u8(tb[DEVMEMX_A_CAPS_DMA_BOUNCE]);
	s->reply = malloc(r->len);
	if (!s->reply)
		return dx_nomem();
	memcpy(s->reply, r->attrs, r->len);
	s->reply_len = r->len;
	return 0;
}

static int caps_get(struct dx_nl *nl, struct caps_state *s)
{
	const struct caps_args *a = s->a;
	struct nl_msg *msg;
	char what[64];

	msg = dx_nl_msg(nl, DEVMEMX_CMD_CAPS_GET, false);
	if (!msg || nla_put_u32(msg, DEVMEMX_A_CAPS_IFINDEX, a->ifindex) ||
	    (a->has_queue &&
	     nla_put_u32(msg, DEVMEMX_A_CAPS_QUEUE_ID, a->queue))) {
		nlmsg_free(msg);
		return dx_nomem();
	}
	snprintf(what, sizeof(what), "caps of %s", a->dev);
	return dx_nl_call(nl, msg, DEVMEMX_A_CAPS_MAX, caps_reply, s, what);
}

/* ---- rx-gro-hw: ethtool netlink features-get ------------------------------ */

/*
 * Is feature @name set in an ethtool bitset (verbose form: one nest per bit,
 * with its name; without a mask every listed bit is set)?
 */
static bool bitset_has(struct nlattr *set, const char *name)
{
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1];
	struct nlattr *bit[ETHTOOL_A_BITSET_BIT_MAX + 1];
	struct nlattr *a;
	int rem;

	if (!set || nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, set, NULL) < 0 ||
	    !tb[ETHTOOL_A_BITSET_BITS])
		return false;
	nla_for_each_nested(a, tb[ETHTOOL_A_BITSET_BITS], rem) {
		if (nla_type(a) != ETHTOOL_A_BITSET_BITS_BIT ||
		    nla_parse_nested(bit, ETHTOOL_A_BITSET_BIT_MAX, a, NULL) < 0 ||
		    !bit[ETHTOOL_A_BITSET_BIT_NAME] ||
		    strcmp(nla_get_string(bit[ETHTOOL_A_BITSET_BIT_NAME]), name))
			continue;
		return tb[ETHTOOL_A_BITSET_NOMASK] || bit[ETHTOOL_A_BITSET_BIT_VALUE];
	}
	return false;
}

static int features_reply(const struct dx_reply *r, void *arg)
{
	struct caps_state *s = arg;

	if (bitset_has(r->tb[ETHTOOL_A_FEATURES_ACTIVE], "rx-gro-hw"))
		s->gro_hw = 1;
	else if (bitset_has(r->tb[ETHTOOL_A_FEATURES_HW], "rx-gro-hw"))
		s->gro_hw = 0;
	else
		s->gro_hw = -1;
	return 0;
}

static int caps_gro_hw(struct caps_state *s)
{
	struct nl_msg *msg = NULL;
	struct nlattr *hdr;
	struct dx_nl nl;
	char what[64];
	int ret;

	ret = dx_nl_open(&nl, ETHTOOL_GENL_NAME);
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, ETHTOOL_MSG_FEATURES_GET, false);
	hdr = msg ? nla_nest_start(msg, ETHTOOL_A_FEATURES_HEADER) : NULL;
	if (!hdr ||
	    nla_put_u32(msg, ETHTOOL_A_HEADER_DEV_INDEX, s->a->ifindex) < 0) {
		nlmsg_free(msg);
		dx_nl_close(&nl);
		return dx_nomem();
	}
	nla_nest_end(msg, hdr);
	snprintf(what, sizeof(what), "features of %s (ethtool netlink)",
		 s->a->dev);
	ret = dx_nl_call(&nl, msg, ETHTOOL_A_FEATURES_MAX, features_reply, s,
			 what);
	dx_nl_close(&nl);
	return ret;
}

/* ---- XDP: rtnetlink getlink ---------------------------------------------- */

static int link_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[IFLA_MAX + 1], *xdp[IFLA_XDP_MAX + 1];
	struct caps_state *s = arg;

	if (nlmsg_parse(nlmsg_hdr(msg), sizeof(struct ifinfomsg), tb, IFLA_MAX,
			NULL) < 0)
		return NL_SKIP;
	if (tb[IFLA_XDP] &&
	    !nla_parse_nested(xdp, IFLA_XDP_MAX, tb[IFLA_XDP], NULL) &&
	    xdp[IFLA_XDP_ATTACHED])
		s->xdp = nla_get_u8(xdp[IFLA_XDP_ATTACHED]);
	return NL_OK;
}

static int caps_xdp(struct caps_state *s)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_index = s->a->ifindex };
	struct nl_msg *msg = NULL;
	struct nl_sock *sk;
	int ret = -NLE_NOMEM;

	sk = nl_socket_alloc();
	if (!sk)
		return dx_nomem();
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (ret < 0)
		goto out;
	msg = nlmsg_alloc_simple(RTM_GETLINK, 0);
	ret = -NLE_NOMEM;
	if (!msg || nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0)
		goto out;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, link_reply, s);
	ret = nl_send_auto(sk, msg);
	if (ret >= 0)
		ret = nl_recvmsgs_default(sk);
	if (ret >= 0)
		ret = nl_wait_for_ack(sk);
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (ret < 0) {
		fprintf(stderr, "%s: XDP state of %s (rtnetlink): %s\n",
			dx_prog, s->a->dev, nl_geterror(ret));
		return -EIO;
	}
	return 0;
}

/* ---- who holds the queues: netdev queue-get dump ------------------------- */

static bool is_devmemx_id(const struct caps_state *s, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < s->ids.n; i++)
		if (s->ids.ids[i] == id)
			return true;
	return false;
}

static int queue_reply(const struct dx_reply *r, void *arg)
{
	struct caps_state *s = arg;
	struct nlattr **tb = r->tb;
	uint32_t q, id;

	if (!tb[NETDEV_A_QUEUE_ID] || !tb[NETDEV_A_QUEUE_TYPE] ||
	    nla_get_u32(tb[NETDEV_A_QUEUE_TYPE]) != NETDEV_QUEUE_TYPE_RX)
		return 0;
	q = nla_get_u32(tb[NETDEV_A_QUEUE_ID]);
	if (s->a->has_queue && q != s->a->queue)
		return 0;
	if (tb[NETDEV_A_QUEUE_DMABUF]) {
		id = nla_get_u32(tb[NETDEV_A_QUEUE_DMABUF]);
		if (is_devmemx_id(s, id))
			return unmet(s, "queue %" PRIu32 " is bound to devmemx binding %" PRIu32 ": devmemx unbind %" PRIu32,
				     q, id, id);
		return unmet(s, "queue %" PRIu32 " is bound to in-tree devmem binding %" PRIu32 ": it ends when the process that bound it exits",
			     q, id);
	}
	if (tb[NETDEV_A_QUEUE_IO_URING])
		return unmet(s, "queue %" PRIu32 " is used by io_uring zero-copy receive: it ends when that io_uring closes",
			     q);
	if (tb[NETDEV_A_QUEUE_XSK])
		return unmet(s, "queue %" PRIu32 " is used by AF_XDP: it ends when that socket closes",
			     q);
	return 0;
}

static int caps_queues(struct dx_nl *nl, struct caps_state *s)
{
	struct nl_msg *msg;
	struct dx_nl nd;
	char what[64];
	int ret;

	ret = cli_binding_ids(nl, &s->ids);
	if (ret)
		return ret;
	ret = dx_nl_open(&nd, "netdev");
	if (ret)
		return ret;
	msg = dx_nl_msg(&nd, NETDEV_CMD_QUEUE_GET, true);
	if (!msg || nla_put_u32(msg, NETDEV_A_QUEUE_IFINDEX, s->a->ifindex) < 0) {
		nlmsg_free(msg);
		dx_nl_close(&nd);
		return dx_nomem();
	}
	snprintf(what, sizeof(what), "queues of %s (netdev queue-get)",
		 s->a->dev);
	ret = dx_nl_call(&nd, msg, NETDEV_A_QUEUE_MAX, queue_reply, s, what);
	dx_nl_close(&nd);
	return ret;
}

/* ---- the verdicts, in the order to fix them ------------------------------ */

static const char * const xdp_modes[] = {
	[XDP_ATTACHED_NONE] = "none",
	[XDP_ATTACHED_DRV] = "driver",
	[XDP_ATTACHED_SKB] = "generic",
	[XDP_ATTACHED_HW] = "offload",
	[XDP_ATTACHED_MULTI] = "several",
};

static const char * const xdp_off[] = {
	[XDP_ATTACHED_DRV] = "xdpdrv",
	[XDP_ATTACHED_SKB] = "xdpgeneric",
	[XDP_ATTACHED_HW] = "xdpoffload",
};

/*
 * XDP first: it keeps HW-GRO off (mlx5) and header-data split from being
 * enabled (single-buffer XDP); HW-GRO before header-data split, which mlx5
 * refuses without it.
 */
static int judge(struct caps_state *s)
{
	const char *dev = s->a->dev;
	int ret = 0;

	if (!s->buf_sizes)
		return unmet(s, "%s takes no devmem: its driver has no queue management ops",
			     dev);
	if (s->dma_bounce)
		return unmet(s, "DMA to %s bounces via swiotlb (swiotlb=force or a confidential-computing guest): devmem payload would never reach the dma-buf; boot without swiotlb=force",
			     dev);
	if (s->xdp == XDP_ATTACHED_MULTI)
		ret = unmet(s, "XDP programs are attached in several modes: ip link set dev %s xdpdrv off (and xdpgeneric, xdpoffload)",
			    dev);
	else if (s->xdp > XDP_ATTACHED_NONE && s->xdp < XDP_ATTACHED_MULTI)
		ret = unmet(s, "an XDP program is attached (%s): ip link set dev %s %s off",
			    xdp_modes[s->xdp], dev, xdp_off[s->xdp]);
	if (!ret && !s->gro_hw)
		ret = unmet(s, "rx-gro-hw is off: ethtool -K %s rx-gro-hw on", dev);
	if (!ret && s->tcp_data_split != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		ret = unmet(s, "tcp-data-split is not enabled: ethtool -G %s tcp-data-split on",
			    dev);
	if (!ret && s->hds_thresh)
		ret = unmet(s, "hds-thresh is %" PRIu32 ": ethtool -G %s hds-thresh 0",
			    s->hds_thresh, dev);
	return ret;
}

/*
 * Header-data split is set with ethtool, and hds-thresh only by ethtool
 * 6.15 or later (trixie has 6.14, which refuses the whole command): when
 * either needs setting (the runbook sets both in one command), say so if
 * this host's ethtool cannot.
 */
static void check_ethtool(const struct caps_state *s)
{
	unsigned int major = 0, minor = 0;
	char line[128] = "";
	FILE *f;

	if (!s->buf_sizes || (s->tcp_data_split == ETHTOOL_TCP_DATA_SPLIT_ENABLED &&
			      !s->hds_thresh))
		return;
	f = popen("ethtool --version 2>/dev/null", "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		pclose(f);
	}
	if (sscanf(line, "ethtool version %u.%u", &major, &minor) < 1) {
		fprintf(stderr, "%s: ethtool is not installed; the fixes below need it (apt install ethtool, 6.15 or later)\n",
			dx_prog);
		return;
	}
	if (major < 6 || (major == 6 && minor < 15))
		fprintf(stderr, "%s: this ethtool (%u.%u) cannot set hds-thresh and refuses \"ethtool -G ... hds-thresh 0\": it needs 6.15 or later (Debian: trixie-backports or sid)\n",
			dx_prog, major, minor);
}

static void print_state(const struct caps_state *s)
{
	const char *xdp = s->xdp >= 0 && s->xdp <= XDP_ATTACHED_MULTI ?
			  xdp_modes[s->xdp] : "unknown";
	struct nlattr *tb[DEVMEMX_A_CAPS_MAX + 1];
	struct dx_reply r = { .tb = tb, .attrs = s->reply, .len = s->reply_len };
	unsigned int i;

	nla_parse(tb, DEVMEMX_A_CAPS_MAX, s->reply, s->reply_len, NULL);
	if (cli_json) {
		struct dx_json j;

		dx_json_init(&j, stdout, false);
		dx_json_open_object(&j);
		dx_json_reply(&j, &r, dx_caps_attrs, DEVMEMX_A_CAPS_MAX, true);
		if (s->gro_hw >= 0)
			dx_json_s64_field(&j, "rx-gro-hw", s->gro_hw);
		dx_json_s64_field(&j, "xdp", s->xdp);
		dx_json_key(&j, "unmet");
		dx_json_open_array(&j);
		for (i = 0; i < s->nunmet; i++)
			dx_json_string(&j, s->unmet[i]);
		dx_json_close_array(&j);
		dx_json_close_object(&j);
		return;
	}
	dx_print(&r, dx_caps_attrs, DEVMEMX_A_CAPS_MAX, false);
	if (s->gro_hw >= 0)
		printf("rx-gro-hw: %s\n", s->gro_hw ? "on" : "off");
	printf("xdp: %s\n", xdp);
	if (!s->nunmet)
		puts("unmet: none");
	for (i = 0; i < s->nunmet; i++)
		printf("unmet: %s\n", s->unmet[i]);
	fflush(stdout);
	check_ethtool(s);
}

/* ---- the command ---------------------------------------------------------- */

static int caps_dev(void *ctx, char **argv)
{
	((struct caps_args *)ctx)->dev = argv[0];
	return 0;
}

static int caps_queue(void *ctx, char **argv)
{
	struct caps_args *a = ctx;
	uint64_t v;

	if (dx_parse_uint(argv[0], "queue", 0, UINT32_MAX, &v))
		return -EINVAL;
	a->queue = v;
	a->has_queue = true;
	return 0;
}

/*
 * Everything is gathered and judged before anything is printed: a failure
 * on the way prints its message and nothing half-done.
 */
static int caps(struct dx_nl *nl, struct caps_state *s)
{
	int ret;

	ret = caps_get(nl, s);
	if (!ret)
		ret = caps_gro_hw(s);
	if (!ret)
		ret = caps_xdp(s);
	if (!ret)
		ret = judge(s);
	/* Who holds a queue matters once the device can take devmem at all. */
	if (!ret && s->buf_sizes)
		ret = caps_queues(nl, s);
	if (!ret)
		print_state(s);
	return ret;
}

static int cli_caps(int argc, char **argv)
{
	static const struct cli_kw kw[] = {
		{ "dev", 1, "IFNAME", caps_dev },
		{ "queue", 1, "N", caps_queue },
	};
	struct caps_args a = { 0 };
	struct caps_state s = { .a = &a, .xdp = XDP_ATTACHED_NONE };
	struct dx_nl nl;
	unsigned int i;
	int ret;

	ret = cli_parse_kw(&cli_cmd_caps, argc, argv, kw, ARRAY_SIZE(kw), &a);
	if (ret)
		return ret < 0 ? CLI_OK : ret;
	if (!a.dev) {
		dx_bad_usage("caps needs dev IFNAME");
		return CLI_USAGE;
	}
	a.ifindex = cli_ifindex(a.dev);
	if (!a.ifindex)
		return CLI_FAIL;
	if (cli_open(&nl))
		return CLI_FAIL;
	nl.hint = dx_perm_hint;
	nl.hint_arg = "caps";
	ret = caps(&nl, &s);
	dx_nl_close(&nl);
	for (i = 0; i < s.nunmet; i++)
		free(s.unmet[i]);
	free(s.ids.ids);
	free(s.reply);
	return ret ? CLI_FAIL : CLI_OK;
}

const struct cli_cmd cli_cmd_caps = {
	.name = "caps",
	.synopsis = "caps dev IFNAME [queue N]",
	.help =
	"caps: what IFNAME (and its RX queue N) offers for large niovs: the RX buffer\n"
	"sizes its driver takes, header-data split, HW-GRO, XDP; then each unmet\n"
	"prerequisite of a bind (of queue N, or of any queue) with the command that\n"
	"fixes it, one \"unmet:\" line each, or \"unmet: none\". With -j, values are\n"
	"numbers (tcp-data-split as ethtool's, rx-buf-sizes bit n for 2^n bytes, xdp\n"
	"as IFLA_XDP_ATTACHED) and \"unmet\" a list.\n",
	.run = cli_caps,
};
