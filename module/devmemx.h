/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DEVMEMX_H
#define _DEVMEMX_H

#include <linux/ethtool.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu-refcount.h>
#include <linux/sockptr.h>
#include <linux/workqueue.h>
#include <net/netmem.h>

#include "compat.h"

struct dma_buf;
struct dma_buf_attachment;
struct gen_pool;
struct genl_info;
struct page_pool;
struct sg_table;
struct devmemx_requeue;

/*
 * A niov's owner: the stack finds the binding through it
 * (net_iov_owner() -> container -> binding). One per run's piece of a
 * segment; on kernels whose stack shifts by PAGE_SHIFT (7.2), one per niov
 * larger than a page, so that net_iov_idx() is 0 and that arithmetic
 * holds. The in-tree owner's base_dma_addr, after binding, is left out:
 * only the in-tree provider's alloc and free read it (7.2 net/core/devmem.c
 * net_devmem_get_dma_addr()), never called for devmemx's niovs, and at
 * 32 bytes a full segment's owners, one per niov, fill exactly 1 MiB.
 */
struct devmemx_owner {
	struct net_iov_area area;
	struct devmemx_binding *binding;
};

/* Where the stack reads the binding (struct dmabuf_genpool_chunk_owner). */
static_assert(offsetof(struct devmemx_owner, binding) ==
	      DEVMEMX_BTF_OWNER_BINDING,
	      "this kernel's devmem finds a niov's binding elsewhere: update struct devmemx_owner");

/*
 * A segment: at most 2^15 niovs and 1 GiB of niovs (niov.c), in one
 * array, in dma-buf order, their owners and one gen_pool chunk.
 */
struct devmemx_seg {
	struct net_iov *niovs;
	struct devmemx_owner *owners;
	u32 count;
	u32 nowners;
};

/*
 * The dma-buf as the binding imported it (import.c): attached dynamically
 * and peer-to-peer, pinned and mapped for the queues' DMA device.
 */
struct devmemx_import {
	struct device *dma_dev;		/* held until the dma-buf is unmapped */
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	/*
	 * Under the dma-buf's reservation lock: the mapping (NULL once
	 * unmapped), whether the exporter revoked it, and whether the binding
	 * is published (from then on a revoke ends it, through revoke_work).
	 */
	struct sg_table *sgt;
	bool pinned;
	bool revoked;
	bool live;
	struct delayed_work revoke_work;
	bool waited;			/* revoke_work: it said it waits */
	atomic_t stuck_queues;		/* restarts failed, retried (queue.c) */
};

/*
 * A full reopen of a driver's channels (mlx5e_open_channels) can build a
 * bound queue's page pool without its queue config, with buffers smaller
 * than the niovs. The pool is served (each niov then holds one smaller
 * buffer) and the queue restarted at the niov size by work (resize.c).
 * Under the binding's lock.
 */
struct devmemx_resize {
	u64 *since;		/* per queue: since when its pool has another size, or 0 */
	/*
	 * Per queue: its newest pool of another size and what making it
	 * changed, until it is known to serve. A driver builds and discards
	 * pools under the device's lock (a full reopen that fails after it
	 * built them all, as mlx5e_safe_switch_params() can); a pool still
	 * there once that lock was let go serves the queue.
	 */
	struct devmemx_resize_unseen {
		const struct page_pool *pool;	/* compared, never followed */
		u64 since;	/* the queue's since before it */
		u64 ns;		/* what it added to ns */
		bool counted;	/* it was counted in pools */
		u8 shift;	/* the queue's pool_shift before it */
	} *unseen;
	u32 pools;		/* pools of another size that served, ever */
	u64 ns;			/* time queues spent at another size, ended */
	bool running;		/* work is restarting queues */
	bool own;		/* its restart made a pool of our size */
	unsigned int delay;	/* jiffies before its next retry */
	struct delayed_work work;
};

struct devmemx_binding {
	/*
	 * The in-tree binding's layout where the stack reads it: the
	 * reference skb fragments take, and the id dmabuf_cmsg reports.
	 */
	union {
		u8 intree[DEVMEMX_BTF_BINDING_SIZE];
		struct {
			u8 pad_ref[DEVMEMX_BTF_BINDING_REF];
			struct percpu_ref ref;
		};
		struct {
			u8 pad_id[DEVMEMX_BTF_BINDING_ID];
			u32 id;
		};
	};

	struct list_head node;		/* devmemx_bindings, under devmemx_mutex */
	bool unbound;			/* under devmemx_mutex */
	/*
	 * The network namespace the binding was made in, by its cookie (never
	 * reused, unlike its address): the only one that sees the binding or
	 * can end it. The binding ends with it, and when its device leaves it;
	 * unless persistent, also with the socket that made it.
	 */
	u64 net_cookie;
	u32 portid;
	u32 flags;
	u8 autorelease;			/* enum devmemx_autorelease */
	bool tok_user;			/* holds the token array's hooks */
	bool policy;			/* made by netdev's bind-rx under a policy */
	struct pid *creator;

	struct mutex lock;		/* dev, qdev, queues, pool_shift, resize */
	struct net_device *dev;		/* NULL once unbound or unregistered */
	netdevice_tracker dev_tracker;
	/*
	 * The device whose queues hold the provider, set and dropped with
	 * dev: dev itself, or the physical device dev's queues are leased
	 * from (lease.c). Queue indices below are qdev's.
	 */
	struct net_device *qdev;
	netdevice_tracker qdev_tracker;
	u32 *vq;			/* leased: per queue of qdev, dev's queue */
	unsigned long *queues;		/* queues holding the provider */
	unsigned long *pooled;		/* queues whose page pool took it */
	unsigned int nqueues;
	unsigned int nasked;		/* queues the bind named: the most b->queues holds */
	u8 *pool_shift;			/* each queue's newest pool's buffer size, log2 */
	struct devmemx_resize resize;
	struct devmemx_requeue *requeues;	/* per queue: its restart retried (queue.c) */

	struct devmemx_import import;

	/* The niovs (niov.c). */
	struct gen_pool *pool;		/* of the niovs' addresses */
	struct devmemx_seg *segs;
	u32 *seg_order;		/* segments by address, when several */
	u32 nsegs;
	u32 niov_count;
	unsigned int niov_shift;
	u64 carved;
	u64 wasted;
	u64 metadata;		/* bytes of the above bookkeeping */

	atomic_t in_use;
	atomic_t high_water;
	atomic_t page_pools;
	atomic64_t alloc_failures;
	struct work_struct free_work;
};

struct devmemx_counters {
	atomic_t bindings;
	atomic64_t niovs;
	atomic_t page_pools;
};

extern struct devmemx_counters devmemx_counters;
extern struct mutex devmemx_mutex;
extern struct list_head devmemx_bindings;
extern struct workqueue_struct *devmemx_wq;

/*
 * Made in network namespace @net: the only one that sees the binding (also
 * a devmemx_end_all() match).
 */
static inline bool devmemx_binding_made_in(struct devmemx_binding *b,
					   const void *net)
{
	return b->net_cookie == ((const struct net *)net)->net_cookie;
}

/*
 * The binding's devices, held and locked: the device it names, then the
 * one its queues are on when that is another (a lease's netkit, then the
 * physical device, the kernel's own order), then b->lock. Returns the
 * queues' device (and the named one in @named), or NULL once the binding
 * has none. Dropping b->lock on the way, the caller checks after taking
 * it again that b->qdev still is the one returned.
 */
static inline struct net_device *
devmemx_binding_lock_dev(struct devmemx_binding *b, struct net_device **named)
{
	struct net_device *dev, *qdev;

	mutex_lock(&b->lock);
	dev = b->dev;
	qdev = b->qdev;
	dev_hold(dev);
	dev_hold(qdev);
	mutex_unlock(&b->lock);
	if (!dev)
		return NULL;
	netdev_lock(dev);
	if (qdev != dev)
		netdev_lock(qdev);
	mutex_lock(&b->lock);
	/* Whichever device the binding left, the locks say which to undo. */
	if (b->qdev != qdev || b->dev != dev) {
		mutex_unlock(&b->lock);
		if (qdev != dev)
			netdev_unlock(qdev);
		netdev_unlock(dev);
		dev_put(qdev);
		dev_put(dev);
		return NULL;
	}
	*named = dev;
	return qdev;
}

/* What devmemx_binding_lock_dev() took, given back. */
static inline void devmemx_binding_unlock_dev(struct devmemx_binding *b,
					      struct net_device *qdev,
					      struct net_device *dev)
{
	mutex_unlock(&b->lock);
	if (qdev != dev)
		netdev_unlock(qdev);
	netdev_unlock(dev);
	dev_put(qdev);
	dev_put(dev);
}

/*
 * Who calls whom, one way down (main.c and netlink.c call any of them but
 * show.c, whose handlers only the family's ops reach): show.c -> netlink.c,
 * binding.c, resize.c; binding.c -> import.c -> end.c -> queue.c ->
 * resize.c; binding.c -> niov.c, queue.c, resize.c; import.c -> check.c,
 * queue.c; dispatch.c -> binding.c, provider.c -> niov.c, resize.c;
 * tokhook.c -> gate.c, dispatch.c, tokens.c -> binding.c, niov.c;
 * polhook.c -> gate.c, policy.c, netlink.c, dispatch.c; policy.c ->
 * netlink.c; end.c -> policy.c; lease.c -> check.c; dispatch.c -> gate.c.
 * gate.c (its own header, gate.h), check.c, niov.c and resize.c call no
 * other file. Two calls go up, and
 * each only queues work: a token-array binding's free gives back the
 * hooks it held (devmemx_tokhook_put()), and the last policy's end asks
 * polhook.c to unhook (devmemx_polhook_idle()).
 */

/* dispatch.c: the in-tree provider ops and the redirect of their calls */
extern const struct memory_provider_ops *devmemx_intree_ops;
extern unsigned int devmemx_hooks;
struct ftrace_ops;
int devmemx_ftrace_on(struct ftrace_ops *ops, unsigned long ip);
void devmemx_ftrace_off(struct ftrace_ops *ops, unsigned long ip);
int devmemx_dispatch_init(void);
void devmemx_dispatch_exit(void);

/* tokhook.c: whether this kernel may have the token array, and its hooks */
void devmemx_tokhook_init(void);
void devmemx_tokhook_exit(void);
u32 devmemx_tokhook_state(const char **why);
int devmemx_tokhook_check_bind(const struct nlattr *attr,
			       struct netlink_ext_ack *extack);
int devmemx_tokhook_get(struct netlink_ext_ack *extack);
void devmemx_tokhook_put(void);

/* tokens.c: the token array's receive, DONTNEED and close */
/* In a TCP socket's sk_user_frags: its token array, marked. */
#define DEVMEMX_TOK_INDEX	BIT(32)
#define DEVMEMX_TOK_MARK	XA_MARK_2
extern atomic_t devmemx_tok_socks;
extern atomic_long_t devmemx_tok_bytes;
struct devmemx_binding *devmemx_tok_binding(netmem_ref netmem);
int devmemx_tok_recvmsg(struct sock *sk, const struct sk_buff *skb,
			unsigned int offset, struct msghdr *msg,
			int remaining_len);
int devmemx_tok_dontneed(struct sock *sk, sockptr_t optval,
			 unsigned int optlen);
bool devmemx_tok_close(struct sock *sk);

/* provider.c: what the redirected ops do for devmemx bindings */
int devmemx_mp_init(struct page_pool *pool);
netmem_ref devmemx_mp_alloc_netmems(struct page_pool *pool, gfp_t gfp);
bool devmemx_mp_release_netmem(struct page_pool *pool, netmem_ref netmem);
void devmemx_mp_destroy(struct page_pool *pool);
int devmemx_mp_nl_fill(void *mp_priv, struct sk_buff *rsp,
		       struct netdev_rx_queue *rxq);
void devmemx_mp_uninstall(void *mp_priv, struct netdev_rx_queue *rxq);

/* binding.c: ids, lookup, a binding's making and freeing */
struct devmemx_binding *devmemx_binding_lookup(u32 id);
bool devmemx_binding_is_ours(const void *mp_priv);
struct devmemx_binding *devmemx_binding_create(struct net_device *dev,
					       struct device *dma_dev,
					       unsigned int fd, u32 niov_size,
					       struct netlink_ext_ack *extack);
int devmemx_binding_publish(struct devmemx_binding *b);
void devmemx_binding_abort(struct devmemx_binding *b);
int devmemx_binding_init(void);
void devmemx_binding_exit(void);

/* niov.c: the mapping carved into niovs, and their gen_pool */
/* What a binding at one niov size carves, and the metadata it takes. */
struct devmemx_carve {
	u64 niovs;
	u64 nsegs;		/* the segments they take (niov.c) */
	u64 carved;		/* bytes */
	u64 wasted;		/* bytes: the dma-buf's size less carved */
	u64 metadata;		/* bytes the binding allocates for its niovs */
	bool fits;		/* metadata leaves a sixteenth of RAM free */
	bool aligned;		/* every mapped entry aligned to the size */
};

int devmemx_niov_carve(struct devmemx_binding *b,
		       struct netlink_ext_ack *extack);
int devmemx_niov_count(struct devmemx_binding *b, unsigned int shift,
		       struct devmemx_carve *c);
void devmemx_niov_destroy(struct devmemx_binding *b);
unsigned int devmemx_niov_alloc(struct devmemx_binding *b, netmem_ref *out,
				unsigned int want);
void devmemx_niov_free(struct devmemx_binding *b, struct net_iov *niov);
u32 devmemx_niov_token(const struct devmemx_binding *b,
		       const struct net_iov *niov);
struct net_iov *devmemx_niov_of_token(const struct devmemx_binding *b, u32 t);

/* import.c: the dma-buf attached, mapped, unmapped, revoked */
int devmemx_import(struct devmemx_binding *b, struct device *dma_dev,
		   unsigned int fd, u32 niov_size,
		   struct netlink_ext_ack *extack);
void devmemx_import_release(struct devmemx_binding *b);
int devmemx_import_go_live(struct devmemx_binding *b,
			   struct netlink_ext_ack *extack);

/* lease.c: the device a bind's queues are on, leased or not */
struct devmemx_target {
	struct net_device *dev;		/* the device the request names */
	struct net_device *qdev;	/* the one its queues are on */
	const u32 *req_q;		/* the request's queues, of dev */
	const u32 *q;			/* the same queues, of qdev */
	u32 *pq;			/* q, when leased */
	unsigned int n;
	struct device *dma_dev;
	struct netlink_ext_ack *req;	/* the request's */
	struct netlink_ext_ack *extack;	/* qdev's refusals: req, or scratch */
	struct netlink_ext_ack scratch;
};

int devmemx_lease_begin(struct devmemx_target *t, struct net_device *dev,
			struct net *net, const u32 *q, unsigned int n, u32 size,
			struct netlink_ext_ack *extack, const struct nlattr *attr);
void devmemx_lease_end(struct devmemx_target *t);
int devmemx_lease_refused(const struct devmemx_target *t, int err);

/* check.c: what a bind needs of the device and its queues */
int devmemx_check_qops(struct net_device *dev, struct netlink_ext_ack *extack);
int devmemx_check_rx_page_size(struct net_device *dev, u32 niov_size,
			       struct netlink_ext_ack *extack);
int devmemx_check_dev(struct net_device *dev, u32 niov_size,
		      struct netlink_ext_ack *extack);
int devmemx_check_queue_range(struct net_device *dev, u32 q,
			      struct netlink_ext_ack *extack);
int devmemx_check_queue(struct net_device *dev, u32 q,
			struct netlink_ext_ack *extack);
struct device *devmemx_check_dma_dev(struct net_device *dev, const u32 *q,
				     unsigned int n,
				     struct netlink_ext_ack *extack);
bool devmemx_check_here(struct net_device *dev, struct net *net,
			struct netlink_ext_ack *extack,
			const struct nlattr *attr);
struct device *devmemx_check_bind(const struct devmemx_target *t, u32 size);
bool devmemx_check_bounces(struct device *dma_dev);
u64 devmemx_check_sizes(struct net_device *dev);
/* What CAPS-GET reports of a device beyond its config. */
struct devmemx_caps {
	char driver[sizeof_field(struct ethtool_drvinfo, driver)];
	bool bounce;
	u64 sizes;		/* devmemx_check_sizes() */
};

void devmemx_check_caps(struct net_device *dev, u32 q, struct devmemx_caps *caps);

/* queue.c: the provider installed on queues and taken off */
int devmemx_queues_install(struct devmemx_binding *b, const u32 *q,
			   unsigned int n, struct netlink_ext_ack *extack);
void devmemx_queues_release(struct devmemx_binding *b);
void devmemx_queue_drop_dev(struct devmemx_binding *b);
int devmemx_queue_init(struct devmemx_binding *b);
void devmemx_queue_destroy(struct devmemx_binding *b);
void devmemx_queue_exit(void);

/* resize.c: pools of another size after a full reopen */
int devmemx_resize_init(struct devmemx_binding *b);
void devmemx_resize_free(struct devmemx_binding *b);
void devmemx_resize_pool_made(struct devmemx_binding *b,
			      const struct page_pool *pool, unsigned int q,
			      bool own_size);
void devmemx_resize_pool_gone(struct devmemx_binding *b,
			      const struct page_pool *pool, unsigned int q);
u64 devmemx_resize_other_ns(struct devmemx_binding *b);
void devmemx_resize_end(struct devmemx_binding *b);
void devmemx_resize_seen(struct devmemx_binding *b);

/* end.c: every way a binding ends */
bool devmemx_end_mark(struct devmemx_binding *b);
void devmemx_end_finish(struct devmemx_binding *b);
unsigned int devmemx_end_all(bool (*match)(struct devmemx_binding *b,
					   const void *arg),
			     const void *arg);
void devmemx_end_failed_bind(struct devmemx_binding *b);
int devmemx_end_init(void);
void devmemx_end_exit(void);

#define DEVMEMX_MAX_QUEUES	256	/* in a bind's request */
/* polhook.c: netdev's bind-rx served under a policy */
extern struct mutex devmemx_polhook_lock;
void devmemx_polhook_init(void);
void devmemx_polhook_exit(void);
int devmemx_polhook_on(struct netlink_ext_ack *extack);
void devmemx_polhook_idle(void);
u32 devmemx_polhook_state(const char **why);
/* policy.c: the per-device policies */
struct devmemx_policy {
	struct list_head node;		/* policy.c's list */
	u64 net_cookie;			/* the namespace it was set in */
	int ifindex;
	u32 size;			/* niov size */
	unsigned int n;			/* queues listed; 0: all */
	u32 q[DEVMEMX_MAX_QUEUES];
	struct rcu_head rcu;
};

extern struct mutex devmemx_pol_lock;
struct devmemx_policy *devmemx_policy_find(const struct net *net, int ifindex);
bool devmemx_policy_covers(const struct devmemx_policy *p, u32 q);
bool devmemx_policy_any(void);
void devmemx_policy_dev_gone(struct net_device *dev);
void devmemx_policy_net_gone(const struct net *net);
/* netlink.c: the family's handlers (show.c: BINDING-GET's) */
/*
 * What a bind asks for, read from the request by its family's handler
 * (netlink.c's, or polhook.c's for netdev's bind-rx): nothing below looks
 * at a request's attributes, whose indices belong to the family that
 * parsed them.
 */
struct devmemx_bind_args {
	struct net *net;		/* the requester's namespace */
	const struct nlattr *dev_attr;	/* the request's device, for refusals */
	struct netlink_ext_ack *extack;
	const u32 *q;
	unsigned int n;
	u32 size;
	u32 fd;
	u32 flags;
	u8 autorelease;
	bool policy;			/* netdev's bind-rx, under a policy */
	u32 portid;			/* the socket the binding ends with */
};

struct devmemx_binding *devmemx_bind_make(struct net_device *dev,
					  const struct devmemx_bind_args *a);
struct devmemx_binding *devmemx_nl_binding(struct genl_info *info);
int devmemx_nl_queues(struct genl_info *info, int type, u32 *q,
		      unsigned int *n);
int devmemx_nl_no_binding(struct genl_info *info);
int devmemx_nl_init(void);
void devmemx_nl_exit(void);

#endif
