// SPDX-License-Identifier: GPL-2.0
/*
 * Bind backends: who attaches the dma-buf to the RX queues. "netdev" is the
 * kernel's in-tree devmem (NETDEV_CMD_BIND_RX); "devmemx" is the module's
 * family, to come. A binding lives as long as the netlink socket that made it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/netdev.h>

#include "rx.h"

/* What to change when the kernel refused a bind without saying why. */
static const char *netdev_hint(int err, const char *extack, void *arg)
{
	const struct rx_opts *o = arg;
	static char hint[160];

	if (extack) {
		if (o->rx_page_size && !strcmp(extack, "Unknown attribute type"))
			return "this kernel's in-tree devmem has no rx-page-size (it came in 7.3): drop --rx-page-size or use --provider devmemx";
		return NULL;
	}
	switch (err) {
	case EOPNOTSUPP:
		snprintf(hint, sizeof(hint), "%s has no queue API: in-tree devmem needs a driver with queue management ops",
			 o->dev);
		return hint;
	case EINVAL:
		snprintf(hint, sizeof(hint), "a queue in --queues does not exist on %s (see: ethtool -l %s)",
			 o->dev, o->dev);
		return hint;
	case ENODEV:
		return "the device is not present";
	case EBADF:
		return "the dma-buf fd is not valid";
	case EPERM:
		return "binding needs CAP_NET_ADMIN";
	default:
		return NULL;
	}
}

static int netdev_open(struct rx_bind *b)
{
	if (dx_nl_open(&b->nl, NETDEV_FAMILY_NAME))
		return -ENOENT;
	b->nl_open = true;
	return 0;
}

static int netdev_reply(struct nlattr **tb, void *arg)
{
	struct rx_bind *b = arg;

	if (!tb[NETDEV_A_DMABUF_ID])
		return -EPROTO;
	b->id = nla_get_u32(tb[NETDEV_A_DMABUF_ID]);
	return 0;
}

static int netdev_put_queues(struct nl_msg *msg, const struct rx_opts *o)
{
	struct nlattr *q;
	unsigned int i;

	for (i = 0; i < o->nqueues; i++) {
		q = nla_nest_start(msg, NETDEV_A_DMABUF_QUEUES);
		if (!q ||
		    nla_put_u32(msg, NETDEV_A_QUEUE_ID, o->queues[i]) ||
		    nla_put_u32(msg, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX))
			return -EMSGSIZE;
		nla_nest_end(msg, q);
	}
	return 0;
}

static int netdev_bind(struct rx_bind *b, const struct rx_opts *o,
		       int dmabuf_fd)
{
	struct nl_msg *msg;
	char what[64];

	msg = dx_nl_msg(&b->nl, NETDEV_CMD_BIND_RX, false);
	if (!msg)
		goto nomem;
	if (nla_put_u32(msg, NETDEV_A_DMABUF_IFINDEX, o->ifindex) ||
	    nla_put_u32(msg, NETDEV_A_DMABUF_FD, dmabuf_fd) ||
	    netdev_put_queues(msg, o) ||
	    (o->rx_page_size &&
	     nla_put_u32(msg, NETDEV_A_DMABUF_RX_PAGE_SIZE, o->rx_page_size))) {
		nlmsg_free(msg);
		goto nomem;
	}
	snprintf(what, sizeof(what), "bind to %s", o->dev);
	b->nl.hint = netdev_hint;
	b->nl.hint_arg = (void *)o;
	return dx_nl_call(&b->nl, msg, NETDEV_A_DMABUF_MAX, netdev_reply, b,
			  what);
nomem:
	fprintf(stderr, "devmemx-rx: out of memory\n");
	return -ENOMEM;
}

static void netdev_close(struct rx_bind *b)
{
	if (b->nl_open)
		dx_nl_close(&b->nl);
	b->nl_open = false;
}

static int devmemx_open(struct rx_bind *b)
{
	(void)b;
	fprintf(stderr, "devmemx-rx: --provider devmemx is not available yet\n");
	return -EOPNOTSUPP;
}

static int devmemx_bind(struct rx_bind *b, const struct rx_opts *o,
			int dmabuf_fd)
{
	(void)b;
	(void)o;
	(void)dmabuf_fd;
	return -EOPNOTSUPP;
}

static void devmemx_close(struct rx_bind *b)
{
	(void)b;
}

static const struct rx_provider providers[] = {
	{ "netdev", netdev_open, netdev_bind, netdev_close },
	{ "devmemx", devmemx_open, devmemx_bind, devmemx_close },
};

const struct rx_provider *rx_provider_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}
