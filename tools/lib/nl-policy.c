// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the running kernel accepts an attribute in a request: the generic
 * netlink controller's policy dump (CTRL_CMD_GETPOLICY) for one operation
 * of a family, as YNL does it. Asking is better than guessing from the
 * kernel release: backports and other trees move features.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/attr.h>

#include "nl.h"

struct dx_policy_q {
	int want_attr;
	int do_idx;		/* the op's do policy, -1 until seen */
	uint32_t seen[8];	/* policies holding want_attr (idx < 256) */
};

static int dx_policy_reply(const struct dx_reply *r, void *arg)
{
	struct dx_policy_q *q = arg;
	struct nlattr *op, *a, *pol, *at;
	int rem, rem2, rem3;

	if (r->tb[CTRL_ATTR_OP_POLICY]) {
		nla_for_each_nested(op, r->tb[CTRL_ATTR_OP_POLICY], rem) {
			nla_for_each_nested(a, op, rem2)
				if (nla_type(a) == CTRL_ATTR_POLICY_DO)
					q->do_idx = nla_get_u32(a);
		}
	}
	if (r->tb[CTRL_ATTR_POLICY]) {
		/* policy index -> attribute type -> its properties */
		nla_for_each_nested(pol, r->tb[CTRL_ATTR_POLICY], rem) {
			unsigned int idx = nla_type(pol);

			nla_for_each_nested(at, pol, rem3)
				if (nla_type(at) == q->want_attr && idx < 256)
					q->seen[idx / 32] |= 1u << (idx % 32);
		}
	}
	return 0;
}

int dx_op_takes_attr(const char *family, uint8_t cmd, uint16_t attr)
{
	struct dx_policy_q q = { .want_attr = attr, .do_idx = -1 };
	struct nl_msg *msg;
	struct dx_nl nl;
	int ret;

	ret = dx_nl_open(&nl, "nlctrl");
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, CTRL_CMD_GETPOLICY, true);
	if (!msg || nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, family) ||
	    nla_put_u32(msg, CTRL_ATTR_OP, cmd)) {
		nlmsg_free(msg);
		dx_nl_close(&nl);
		return -ENOMEM;
	}
	ret = dx_nl_call(&nl, msg, CTRL_ATTR_MAX, dx_policy_reply, &q,
			 "the netlink policy dump");
	dx_nl_close(&nl);
	if (ret)
		return ret;
	if (q.do_idx < 0 || q.do_idx >= 256)
		return -ENOENT;
	return !!(q.seen[q.do_idx / 32] & (1u << (q.do_idx % 32)));
}
