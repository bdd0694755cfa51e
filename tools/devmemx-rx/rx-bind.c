// SPDX-License-Identifier: GPL-2.0
/*
 * Bind backends: who attaches the dma-buf to the RX queues. "netdev" is the
 * kernel's in-tree devmem (NETDEV_CMD_BIND_RX); "devmemx" is the module's
 * family (DEVMEMX_CMD_BIND_RX). Either binding lives as long as the netlink
 * socket that made it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netdev.h>

#include "btf.h"
#include "family.h"
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

/* Both backends: the binding lives as long as b->nl. */
static int bind_nl_open(struct rx_bind *b, const char *family)
{
	if (dx_nl_open(&b->nl, family))
		return -ENOENT;
	b->nl_open = true;
	return 0;
}

static void bind_nl_close(struct rx_bind *b)
{
	if (b->nl_open)
		dx_nl_close(&b->nl);
	b->nl_open = false;
}

static int netdev_open(struct rx_bind *b)
{
	return bind_nl_open(b, NETDEV_FAMILY_NAME);
}

static int netdev_reply(const struct dx_reply *r, void *arg)
{
	struct rx_bind *b = arg;

	if (!r->tb[NETDEV_A_DMABUF_ID])
		return -EPROTO;
	b->id = nla_get_u32(r->tb[NETDEV_A_DMABUF_ID]);
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

static int devmemx_open(struct rx_bind *b)
{
	return bind_nl_open(b, DEVMEMX_FAMILY_NAME);
}

static int devmemx_reply(const struct dx_reply *r, void *arg)
{
	struct rx_bind *b = arg;

	if (!r->tb[DEVMEMX_A_BINDING_ID])
		return -EPROTO;
	b->id = nla_get_u32(r->tb[DEVMEMX_A_BINDING_ID]);
	if (r->tb[DEVMEMX_A_BINDING_NIOV_SIZE])
		b->niov_size = nla_get_u32(r->tb[DEVMEMX_A_BINDING_NIOV_SIZE]);
	if (r->tb[DEVMEMX_A_BINDING_NIOV_COUNT])
		b->niov_count = nla_get_u32(r->tb[DEVMEMX_A_BINDING_NIOV_COUNT]);
	if (r->tb[DEVMEMX_A_BINDING_METADATA_BYTES])
		b->meta_bytes = nla_get_u64(r->tb[DEVMEMX_A_BINDING_METADATA_BYTES]);
	return 0;
}

/* A binding that is not persistent: it ends when devmemx-rx closes b->nl. */
static int devmemx_bind(struct rx_bind *b, const struct rx_opts *o,
			int dmabuf_fd)
{
	struct dx_bind_req req = {
		.ifindex = o->ifindex,
		.fd = dmabuf_fd,
		.queues = o->queues,
		.nqueues = o->nqueues,
		.rx_buf_size = o->rx_page_size,
		.has_rx_buf_size = o->rx_page_size != 0,
		.autorelease = o->autorelease,
		.has_autorelease = o->has_autorelease,
	};
	struct nl_msg *msg;
	char what[64];

	msg = dx_bind_rx_msg(&b->nl, &req);
	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "bind to %s", o->dev);
	b->nl.hint = dx_perm_hint;
	b->nl.hint_arg = "binding";
	return dx_nl_call(&b->nl, msg, DEVMEMX_A_BINDING_MAX, devmemx_reply, b,
			  what);
}

static int token_bytes_reply(const struct dx_reply *r, void *arg)
{
	if (!r->tb[DEVMEMX_A_INFO_TOKEN_BYTES])
		return -EPROTO;
	*(uint64_t *)arg = nla_get_u64(r->tb[DEVMEMX_A_INFO_TOKEN_BYTES]);
	return 0;
}

int rx_token_bytes(uint64_t *bytes)
{
	struct dx_nl nl;
	struct nl_msg *msg;
	int ret;

	ret = dx_nl_open(&nl, DEVMEMX_FAMILY_NAME);
	if (ret)
		return ret;
	msg = dx_nl_msg(&nl, DEVMEMX_CMD_INFO, false);
	ret = msg ? dx_nl_call(&nl, msg, DEVMEMX_A_INFO_MAX, token_bytes_reply,
			       bytes, "info") : -ENOMEM;
	dx_nl_close(&nl);
	return ret;
}

static const struct rx_provider providers[] = {
	{ "netdev", netdev_open, netdev_bind, bind_nl_close },
	{ "devmemx", devmemx_open, devmemx_bind, bind_nl_close },
};

const struct rx_provider *rx_provider_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}

void rx_bind_meta(const struct rx_bind *b, bool devmemx, uint64_t dmabuf_bytes,
		  uint64_t niov_size, long net_iov_size, struct rx_meta *m)
{
	if (devmemx) {
		m->niov_count = b->niov_count;
		m->bytes = b->meta_bytes;
		m->source = b->meta_bytes ? "devmemx" : "none";
		return;
	}
	m->niov_count = dmabuf_bytes / niov_size;
	m->bytes = net_iov_size > 0 ? m->niov_count * net_iov_size : 0;
	m->source = net_iov_size > 0 ? "btf" : "none";
}

long rx_btf_struct_size(const char *name)
{
	const char *path = DX_BTF_VMLINUX;
	size_t len = 0;
	char *b;
	long ret;

	b = dx_btf_load(path, &len);
	if (!b) {
		fprintf(stderr, "devmemx-rx: cannot read %s: %s (in-tree metadata is not computed)\n",
			path, strerror(errno));
		return -errno;
	}
	ret = dx_btf_struct_size(b, len, name);
	free(b);
	if (ret < 0)
		fprintf(stderr, "devmemx-rx: no struct %s in %s\n", name, path);
	return ret;
}
