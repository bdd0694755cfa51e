// SPDX-License-Identifier: GPL-2.0
/*
 * BINDING-GET: what the family reports of a binding, to one request (doit)
 * or to a dump, and how large that report can grow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "devmemx.h"
#include "generated/netlink.h"

/* Its queues: the named device's, and for a lease the physical ones. */
static int devmemx_show_queues(struct sk_buff *rsp, struct devmemx_binding *b)
{
	struct nlattr *nest;
	unsigned int q;

	for_each_set_bit(q, b->queues, b->nqueues) {
		nest = nla_nest_start(rsp, DEVMEMX_A_BINDING_QUEUES);
		if (!nest ||
		    nla_put_u32(rsp, DEVMEMX_A_QUEUE_ID, b->vq ? b->vq[q] : q) ||
		    (b->vq && nla_put_u32(rsp, DEVMEMX_A_QUEUE_LEASE_QUEUE, q)) ||
		    (b->pool_shift[q] &&
		     nla_put_u32(rsp, DEVMEMX_A_QUEUE_BUF_SIZE, 1U << b->pool_shift[q])))
			return -EMSGSIZE;
		nla_nest_end(rsp, nest);
	}
	return 0;
}

/*
 * Under devmemx_mutex and b->lock: bound, with its device (in the
 * binding's own namespace: a move ends it before the device leaves), or
 * draining.
 */
static int devmemx_show_state(struct sk_buff *rsp, struct devmemx_binding *b)
{
	bool bound = !b->unbound && b->dev;

	if (nla_put_u32(rsp, DEVMEMX_A_BINDING_STATE,
			bound ? DEVMEMX_BINDING_STATE_BOUND :
				DEVMEMX_BINDING_STATE_DRAINING) ||
	    (bound && nla_put_u32(rsp, DEVMEMX_A_BINDING_IFINDEX, b->dev->ifindex)))
		return -EMSGSIZE;
	/* The physical end of a lease, where the reader can see it. */
	if (bound && b->qdev != b->dev &&
	    net_eq(dev_net(b->qdev), dev_net(b->dev)) &&
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_LEASE_IFINDEX, b->qdev->ifindex))
		return -EMSGSIZE;
	return 0;
}

/*
 * The most @b's message takes: every attribute devmemx_show_fill() may
 * put. Its queues are bounded by those its bind named, not by those set
 * now: a bind still installing them adds to them. A queue's nest is 20
 * bytes (28 leased): about 180 queues fill a page, what GENLMSG_DEFAULT_SIZE and a
 * dump's usual skb (NLMSG_GOODSIZE) hold.
 */
static size_t devmemx_show_size(struct devmemx_binding *b)
{
	size_t queue = nla_total_size(nla_total_size(sizeof(u32)) +	/* ID */
				      (b->vq ? nla_total_size(sizeof(u32)) : 0) + /* LEASE_QUEUE */
				      nla_total_size(sizeof(u32)));	/* BUF_SIZE */
	const char *exp = b->import.dmabuf->exp_name;

	return min(b->nasked, b->nqueues) * queue +
	       /*
		* STATE, IFINDEX, LEASE_IFINDEX, POOLS_OTHER_SIZE, ID, FLAGS,
		* NIOV_SIZE, NIOV_COUNT, NIOVS_FREE, NIOVS_IN_USE,
		* NIOVS_HIGH_WATER, CREATOR_PID, PAGE_POOLS
		*/
	       13 * nla_total_size(sizeof(u32)) +
	       /*
		* OTHER_SIZE_NS, BYTES_CARVED, BYTES_WASTED, ALLOC_FAILURES,
		* DMABUF_SIZE, DMABUF_INO, METADATA_BYTES
		*/
	       7 * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(sizeof(u8)) +			/* AUTORELEASE */
	       nla_total_size(0) +				/* POLICY */
	       (exp ? nla_total_size(strlen(exp) + 1) : 0);	/* EXPORTER */
}

/* The bytes of a dump's skb @b's message takes, headers included. */
static size_t devmemx_show_dump_size(struct devmemx_binding *b)
{
	return nlmsg_total_size(genlmsg_total_size(devmemx_show_size(b)));
}

/* Under devmemx_mutex. */
static int devmemx_show_fill(struct sk_buff *rsp, struct devmemx_binding *b,
			     u32 portid, u32 seq, int flags)
{
	u32 in_use = atomic_read(&b->in_use);
	pid_t creator = 0;
	void *hdr;
	int err;

	/* Its number, in the reader's pid namespace, while it is that process's. */
	if (pid_has_task(b->creator, PIDTYPE_TGID))
		creator = pid_vnr(b->creator);
	hdr = genlmsg_put(rsp, portid, seq, &devmemx_nl_family, flags,
			  DEVMEMX_CMD_BINDING_GET);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&b->lock);
	err = devmemx_show_state(rsp, b) ||
	      devmemx_show_queues(rsp, b) ||
	      nla_put_u32(rsp, DEVMEMX_A_BINDING_POOLS_OTHER_SIZE, b->resize.pools) ||
	      nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_OTHER_SIZE_NS,
				devmemx_resize_other_ns(b), 0);
	mutex_unlock(&b->lock);
	if (err ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_ID, b->id) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_FLAGS, b->flags) ||
	    nla_put_u8(rsp, DEVMEMX_A_BINDING_AUTORELEASE, b->autorelease) ||
	    (b->policy && nla_put_flag(rsp, DEVMEMX_A_BINDING_POLICY)) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOV_SIZE, 1U << b->niov_shift) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOV_COUNT, b->niov_count) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_BYTES_CARVED, b->carved, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_BYTES_WASTED, b->wasted, 0) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOVS_FREE, b->niov_count - in_use) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOVS_IN_USE, in_use) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOVS_HIGH_WATER,
			atomic_read(&b->high_water)) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_ALLOC_FAILURES,
			      atomic64_read(&b->alloc_failures), 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_DMABUF_SIZE,
			      b->import.dmabuf->size, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_DMABUF_INO,
			      file_inode(b->import.dmabuf->file)->i_ino, 0) ||
	    (b->import.dmabuf->exp_name &&
	     nla_put_string(rsp, DEVMEMX_A_BINDING_EXPORTER,
			    b->import.dmabuf->exp_name)) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_METADATA_BYTES,
			      b->metadata, 0) ||
	    (creator && nla_put_u32(rsp, DEVMEMX_A_BINDING_CREATOR_PID, creator)) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_PAGE_POOLS,
			atomic_read(&b->page_pools))) {
		genlmsg_cancel(rsp, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(rsp, hdr);
	return 0;
}

int devmemx_nl_binding_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct devmemx_binding *b;
	struct sk_buff *rsp;
	int err = -ENOMEM;

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_BINDING_ID))
		return -EINVAL;
	mutex_lock(&devmemx_mutex);
	b = devmemx_nl_binding(info);
	if (!b) {
		mutex_unlock(&devmemx_mutex);
		return devmemx_nl_no_binding(info);
	}
	rsp = genlmsg_new(devmemx_show_size(b), GFP_KERNEL);
	if (rsp)
		err = devmemx_show_fill(rsp, b, info->snd_portid, info->snd_seq, 0);
	mutex_unlock(&devmemx_mutex);
	if (err) {
		nlmsg_free(rsp);
		return err;
	}
	return genlmsg_reply(rsp, info);
}

/*
 * A dump's skbs are NLMSG_GOODSIZE (a page less its overhead), or the
 * reader's largest read when larger (up to 32K), or cb->min_dump_alloc
 * when that is larger still; and the core trims them to that size, so a
 * reader whose buffer is smaller gets MSG_TRUNC (7.2
 * net/netlink/af_netlink.c netlink_dump). A binding on more than about
 * 180 queues, or with a long exporter name, needs more than a page: ask
 * for the most any binding of this namespace needs, only then, so that a
 * reader with a page-sized buffer (libmnl's MNL_SOCKET_BUFFER_SIZE) reads
 * every dump of smaller bindings. A reader needs a buffer as large as the
 * largest message; libnl peeks at each one's size, YNL reads 128K.
 */
int devmemx_nl_binding_get_dump_start(struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct devmemx_binding *b;
	size_t need = 0;

	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node)
		if (devmemx_binding_made_in(b, net))
			need = max(need, devmemx_show_dump_size(b));
	mutex_unlock(&devmemx_mutex);
	if (need > NLMSG_GOODSIZE)
		cb->min_dump_alloc = need;
	return 0;
}

/*
 * A binding made after the dump started may need more than its skbs hold:
 * when one does not fit behind others, the next skb is made for it; when
 * it does not fit in an empty one, the dump ends with -EMSGSIZE (and the
 * next dump's start sizes for it).
 */
int devmemx_nl_binding_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct devmemx_binding *b;
	long i = 0, skip = cb->args[0];
	int err = 0;

	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node) {
		if (!devmemx_binding_made_in(b, net))
			continue;
		if (i++ < skip)
			continue;
		err = devmemx_show_fill(skb, b, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			cb->min_dump_alloc = max_t(size_t, cb->min_dump_alloc,
						   devmemx_show_dump_size(b));
			i--;
			break;
		}
	}
	mutex_unlock(&devmemx_mutex);
	cb->args[0] = i;
	return err == -EMSGSIZE && i > skip ? skb->len : err;
}
