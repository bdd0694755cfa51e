// SPDX-License-Identifier: GPL-2.0
/* Generic netlink plumbing for the devmemx tools (libnl-genl-3). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct dx_call {
	struct nlattr **tb;
	int maxattr;
	dx_reply_fn fn;
	void *arg;
	int err;
	bool done;
	char extack[256];
};

int dx_nl_open(struct dx_nl *nl, const char *family_name)
{
	int one = 1, ret;

	nl->family_name = family_name;
	nl->hint = NULL;
	nl->hint_arg = NULL;
	nl->quiet_err = 0;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(stderr, "%s: out of memory\n", dx_prog);
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		fprintf(stderr, "%s: cannot open a generic netlink socket: %s\n",
			dx_prog, nl_geterror(ret));
		goto err;
	}
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, family_name);
	if (nl->family < 0) {
		if (nl->family == -NLE_OBJ_NOTFOUND)
			fprintf(stderr,
				"%s: generic netlink family \"%s\" not found: is the %s module loaded? (modprobe %s)\n",
				dx_prog, family_name, family_name, family_name);
		else
			fprintf(stderr, "%s: cannot resolve family \"%s\": %s\n",
				dx_prog, family_name, nl_geterror(nl->family));
		ret = -ENOENT;
		goto err;
	}
	return 0;
err:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return ret < 0 ? ret : -EIO;
}

void dx_nl_close(struct dx_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *dx_nl_msg(struct dx_nl *nl, int cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, 1)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int dx_valid(struct nl_msg *msg, void *data)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct dx_call *c = data;
	struct dx_reply r = {
		.tb = c->tb,
		.attrs = genlmsg_attrdata(nlmsg_data(nlh), 0),
		.len = genlmsg_attrlen(nlmsg_data(nlh), 0),
	};
	int ret;

	ret = genlmsg_parse(nlh, 0, c->tb, c->maxattr, NULL);
	if (ret < 0) {
		c->err = -EPROTO;
		return NL_STOP;
	}
	if (c->fn) {
		ret = c->fn(&r, c->arg);
		if (ret < 0) {
			c->err = ret;
			return NL_STOP;
		}
	}
	return NL_OK;
}

/* Pull the kernel's extack message out of an error message, if it has one. */
static void dx_extack(struct nlmsgerr *e, struct dx_call *c)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (NLMSG_HDRLEN + off > nlh->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(c->extack, sizeof(c->extack), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
}

static int dx_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *data)
{
	struct dx_call *c = data;

	(void)who;
	c->err = e->error;
	c->done = true;
	if (e->error)
		dx_extack(e, c);
	return NL_STOP;
}

static int dx_finish(struct nl_msg *msg, void *data)
{
	struct dx_call *c = data;

	(void)msg;
	c->done = true;
	return NL_STOP;
}

/*
 * One line: "PROG: WHAT: <extack> (<errno text>)", or without the kernel's
 * message "PROG: WHAT: <errno text>"; the caller's hint, if any, takes the
 * place of a missing message or follows the kernel's.
 */
static void dx_nl_report(struct dx_nl *nl, struct dx_call *c, const char *what)
{
	const char *err = strerror(-c->err), *hint = NULL;

	if (nl->hint)
		hint = nl->hint(-c->err, c->extack[0] ? c->extack : NULL,
				nl->hint_arg);
	if (c->extack[0] && hint)
		fprintf(stderr, "%s: %s: %s (%s): %s\n", dx_prog, what,
			c->extack, err, hint);
	else if (c->extack[0] || hint)
		fprintf(stderr, "%s: %s: %s (%s)\n", dx_prog, what,
			c->extack[0] ? c->extack : hint, err);
	else
		fprintf(stderr, "%s: %s: %s\n", dx_prog, what, err);
}

uint64_t dx_nla_uint(const struct nlattr *a)
{
	if (nla_len(a) == 4)
		return nla_get_u32((struct nlattr *)a);
	return nla_get_u64((struct nlattr *)a);
}

uint64_t dx_reply_uint(const struct dx_reply *r, int attr)
{
	return r->tb[attr] ? dx_nla_uint(r->tb[attr]) : 0;
}

int dx_nl_call(struct dx_nl *nl, struct nl_msg *msg, int maxattr,
	       dx_reply_fn fn, void *arg, const char *what)
{
	struct nlattr *tb[maxattr + 1];
	struct dx_call c = { .tb = tb, .maxattr = maxattr, .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		fprintf(stderr, "%s: out of memory\n", dx_prog);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, dx_valid, &c);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, dx_finish, &c);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, dx_finish, &c);
	nl_cb_err(cb, NL_CB_CUSTOM, dx_error, &c);

	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	while (ret >= 0 && !c.done && !c.err)
		ret = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);

	if (c.err) {
		if (-c.err != nl->quiet_err)
			dx_nl_report(nl, &c, what);
		return c.err;
	}
	if (ret < 0) {
		fprintf(stderr, "%s: %s: %s\n", dx_prog, what, nl_geterror(ret));
		return -EIO;
	}
	return 0;
}

int dx_nl_dump(const char *family, int cmd, int maxattr, int attr,
	       uint32_t val, dx_reply_fn fn, void *arg, const char *what,
	       int quiet_err)
{
	struct dx_nl nl = { 0 };
	struct nl_msg *msg;
	int ret;

	ret = dx_nl_open(&nl, family);
	if (ret)
		return ret;
	nl.quiet_err = quiet_err;
	msg = dx_nl_msg(&nl, cmd, true);
	if (msg && attr && nla_put_u32(msg, attr, val) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		dx_nl_close(&nl);
		return dx_nomem();
	}
	ret = dx_nl_call(&nl, msg, maxattr, fn, arg, what);
	dx_nl_close(&nl);
	return ret;
}
