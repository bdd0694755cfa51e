// SPDX-License-Identifier: GPL-2.0
/* Requests of the devmemx family that both tools make. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "util.h"

static int dx_put_queues(struct nl_msg *msg, const struct dx_bind_req *r)
{
	struct nlattr *q;
	unsigned int i;

	for (i = 0; i < r->nqueues; i++) {
		q = nla_nest_start(msg, DEVMEMX_A_BINDING_QUEUES);
		if (!q || nla_put_u32(msg, DEVMEMX_A_QUEUE_ID, r->queues[i]))
			return -EMSGSIZE;
		nla_nest_end(msg, q);
	}
	return 0;
}

/* What BIND-RX and BIND-CHECK share: device, dma-buf, queues, autorelease. */
static int dx_put_target(struct nl_msg *msg, const struct dx_bind_req *r)
{
	if (nla_put_u32(msg, DEVMEMX_A_BINDING_IFINDEX, r->ifindex) ||
	    nla_put_u32(msg, DEVMEMX_A_BINDING_FD, r->fd) ||
	    dx_put_queues(msg, r))
		return -EMSGSIZE;
	if (r->has_autorelease &&
	    nla_put_u8(msg, DEVMEMX_A_BINDING_AUTORELEASE, r->autorelease))
		return -EMSGSIZE;
	return 0;
}

static int dx_put_bind(struct nl_msg *msg, const struct dx_bind_req *r)
{
	if (dx_put_target(msg, r))
		return -EMSGSIZE;
	if (r->has_rx_buf_size &&
	    nla_put_u32(msg, DEVMEMX_A_BINDING_RX_BUF_SIZE, r->rx_buf_size))
		return -EMSGSIZE;
	if (r->flags && nla_put_u32(msg, DEVMEMX_A_BINDING_FLAGS, r->flags))
		return -EMSGSIZE;
	return 0;
}

struct nl_msg *dx_bind_rx_msg(struct dx_nl *nl, const struct dx_bind_req *r)
{
	struct nl_msg *msg = dx_nl_msg(nl, DEVMEMX_CMD_BIND_RX, false);

	if (msg && dx_put_bind(msg, r)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg)
		dx_nomem();
	return msg;
}

struct nl_msg *dx_bind_check_msg(struct dx_nl *nl, const struct dx_bind_req *r)
{
	struct nl_msg *msg = dx_nl_msg(nl, DEVMEMX_CMD_BIND_CHECK, false);

	if (msg && dx_put_target(msg, r)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg)
		dx_nomem();
	return msg;
}

struct nl_msg *dx_policy_set_msg(struct dx_nl *nl, unsigned int ifindex,
				 uint32_t size, const uint32_t *queues,
				 unsigned int nqueues)
{
	struct nl_msg *msg = dx_nl_msg(nl, DEVMEMX_CMD_POLICY_SET, false);
	struct nlattr *q;
	unsigned int i;

	if (!msg || nla_put_u32(msg, DEVMEMX_A_POLICY_IFINDEX, ifindex) ||
	    nla_put_u32(msg, DEVMEMX_A_POLICY_RX_BUF_SIZE, size))
		goto nomem;
	for (i = 0; i < nqueues; i++) {
		q = nla_nest_start(msg, DEVMEMX_A_POLICY_QUEUES);
		if (!q || nla_put_u32(msg, DEVMEMX_A_QUEUE_ID, queues[i]))
			goto nomem;
		nla_nest_end(msg, q);
	}
	return msg;
nomem:
	nlmsg_free(msg);
	dx_nomem();
	return NULL;
}

struct nl_msg *dx_policy_del_msg(struct dx_nl *nl, unsigned int ifindex)
{
	struct nl_msg *msg = dx_nl_msg(nl, DEVMEMX_CMD_POLICY_DEL, false);

	if (msg && nla_put_u32(msg, DEVMEMX_A_POLICY_IFINDEX, ifindex)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg)
		dx_nomem();
	return msg;
}

const char *dx_perm_hint(int err, const char *extack, void *arg)
{
	static char hint[64];

	if (extack || err != EPERM)
		return NULL;
	snprintf(hint, sizeof(hint), "%s needs CAP_NET_ADMIN", (const char *)arg);
	return hint;
}

int dx_parse_autorelease(const char *s, const char *opt, uint8_t *out)
{
	if (strcmp(s, "0") && strcmp(s, "1"))
		return dx_bad_usage("bad %s \"%s\": use 0 (token array) or 1 (xarray)",
				    opt, s);
	*out = s[0] - '0';
	return 0;
}
