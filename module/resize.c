// SPDX-License-Identifier: GPL-2.0
/*
 * Pools of another size. A full reopen of a driver's channels (mlx5's
 * mlx5e_open_channels) may build a bound queue's page pool without the
 * queue's config, with buffers smaller than the niovs: the provider serves
 * it (each niov holds one smaller buffer), and the queue is restarted at
 * the niov size once the device is unlocked. What that came to is kept
 * for BINDING-GET.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/memory_provider.h>
#include <net/page_pool/types.h>

#include "devmemx.h"

/*
 * For each page pool a driver makes for a bound queue, from the provider's
 * init (the driver holds the device's lock; b->lock held; b->pool_shift[q]
 * still the queue's previous pool's): at the binding's niov size or, after
 * a full reopen of its channels, smaller. A smaller one is served and its
 * queue restarted at the niov size by devmemx_resize_work() once the
 * device is unlocked. Either may be discarded by the driver before it
 * served (devmemx_resize_pool_gone()): what its making changed is kept
 * until the queue's pools are known to serve.
 */
void devmemx_resize_pool_made(struct devmemx_binding *b,
			      const struct page_pool *pool, unsigned int q,
			      bool own_size)
{
	struct devmemx_resize_unseen *u = &b->resize.unseen[q];
	u64 now = ktime_get_ns();

	lockdep_assert_held(&b->lock);
	/* resize_work's own restart: it judges once that returned. */
	if (own_size && b->resize.running) {
		b->resize.own = true;
		return;
	}
	*u = (struct devmemx_resize_unseen){
		.pool = pool,
		.since = b->resize.since[q],
		.shift = b->pool_shift[q],
		.counted = !own_size,
	};
	if (own_size) {
		if (b->resize.since[q]) {
			u->ns = now - b->resize.since[q];
			b->resize.ns += u->ns;
		}
		b->resize.since[q] = 0;
		return;
	}
	b->resize.pools++;
	if (!b->resize.since[q])
		b->resize.since[q] = now;
	if (!b->resize.running)
		mod_delayed_work(system_wq, &b->resize.work, 0);
}

/*
 * A page pool of the binding is destroyed (b->lock held). The queue's
 * newest pool, gone before anything else held the device's lock and
 * without having handed out a buffer, never served: the driver built it
 * for a full reopen that failed, and the queue runs on with the pool it
 * had. What its making recorded is undone, so that show does not count
 * it, and the queue is restarted only if its old pool calls for it.
 */
void devmemx_resize_pool_gone(struct devmemx_binding *b,
			      const struct page_pool *pool, unsigned int q)
{
	struct devmemx_resize_unseen *u;

	lockdep_assert_held(&b->lock);
	if (q >= b->nqueues || b->resize.unseen[q].pool != pool)
		return;
	u = &b->resize.unseen[q];
	u->pool = NULL;
	if (pool->pages_state_hold_cnt)
		return;
	b->resize.pools -= u->counted;
	b->resize.ns -= u->ns;
	b->resize.since[q] = u->since;
	b->pool_shift[q] = u->shift;
	if (u->since && !b->resize.running)
		mod_delayed_work(system_wq, &b->resize.work, 0);
}

/* How long bound queues ran with pools of another size, until now. */
u64 devmemx_resize_other_ns(struct devmemx_binding *b)
{
	u64 ns = b->resize.ns, now = ktime_get_ns();
	unsigned int q;

	lockdep_assert_held(&b->lock);
	for (q = 0; q < b->nqueues; q++)
		if (b->resize.since[q])
			ns += now - b->resize.since[q];
	return ns;
}

/*
 * Under b->lock with the device's lock held: every pool still there
 * survived the reopen that made it, and serves.
 */
void devmemx_resize_seen(struct devmemx_binding *b)
{
	memset(b->resize.unseen, 0, b->nqueues * sizeof(*b->resize.unseen));
}

/* The binding leaves its queues: the time at another size stops. */
void devmemx_resize_end(struct devmemx_binding *b)
{
	lockdep_assert_held(&b->lock);
	b->resize.ns = devmemx_resize_other_ns(b);
	memset(b->resize.since, 0, b->nqueues * sizeof(*b->resize.since));
	devmemx_resize_seen(b);
}

/* Errors a restart may not meet again: retried, with a growing delay. */
static bool devmemx_resize_transient(int err)
{
	return err == -ENOMEM || err == -EBUSY || err == -EAGAIN ||
	       err == -EIO || err == -ETIMEDOUT;
}

/*
 * Restart each bound queue whose newest pool is not at the niov size. The
 * time at another size ends only when a restart both returned 0 and made
 * a pool of the niov size (a restart that fails after making its pool
 * keeps the old queue).
 */
static void devmemx_resize_work(struct work_struct *work)
{
	struct devmemx_binding *b = container_of(to_delayed_work(work),
						 struct devmemx_binding,
						 resize.work);
	u32 size = 1U << b->niov_shift;
	struct net_device *dev, *named;
	bool again = false;
	unsigned int q;
	u64 since;
	u8 shift;
	int err;

	dev = devmemx_binding_lock_dev(b, &named);
	if (!dev)
		return;
	devmemx_resize_seen(b);
	b->resize.running = true;
	for (q = 0; q < b->nqueues && b->qdev == dev && netif_running(dev); q++) {
		if (!b->resize.since[q] || !test_bit(q, b->queues) ||
		    __netif_get_rx_queue(dev, q)->mp_params.mp_priv != b)
			continue;
		since = b->resize.since[q];
		shift = b->pool_shift[q];
		b->resize.own = false;
		mutex_unlock(&b->lock);
		err = netdev_rx_queue_restart(dev, q);
		mutex_lock(&b->lock);
		/* A pool its restart made and kept serves; one it undid is gone. */
		b->resize.unseen[q].pool = NULL;
		/* A failed restart runs the queue on with its old pool. */
		if (err)
			b->pool_shift[q] = shift;
		if (!err && b->resize.own) {
			b->resize.ns += ktime_get_ns() - since;
			b->resize.since[q] = 0;
			b->resize.delay = 0;
			netdev_info(dev, "devmemx: queue %u back at rx-buf-size %u for binding %u after %llu ms with smaller buffers\n",
				    q, size, b->id,
				    div_u64(ktime_get_ns() - since, NSEC_PER_MSEC));
		} else if (!err) {
			netdev_warn(dev, "devmemx: the driver restarted queue %u with smaller buffers than rx-buf-size %u; it stays so until the driver reopens it\n",
				    q, size);
		} else if (devmemx_resize_transient(err)) {
			if (!b->resize.delay)
				netdev_info(dev, "devmemx: restarting queue %u at rx-buf-size %u failed (%d); trying again\n",
					    q, size, err);
			again = true;
		} else {
			netdev_warn(dev, "devmemx: cannot restart queue %u at rx-buf-size %u (%d): it keeps smaller buffers until the driver reopens it\n",
				    q, size, err);
		}
	}
	b->resize.running = false;
	if (again) {
		b->resize.delay = clamp_t(unsigned int, b->resize.delay * 2, HZ, 64 * HZ);
		mod_delayed_work(system_wq, &b->resize.work, b->resize.delay);
	}
	devmemx_binding_unlock_dev(b, dev, named);
}

/* Before the binding can serve a pool. */
int devmemx_resize_init(struct devmemx_binding *b)
{
	INIT_DELAYED_WORK(&b->resize.work, devmemx_resize_work);
	b->resize.since = kcalloc(b->nqueues, sizeof(*b->resize.since),
				  GFP_KERNEL);
	b->resize.unseen = kcalloc(b->nqueues, sizeof(*b->resize.unseen),
				   GFP_KERNEL);
	return b->resize.since && b->resize.unseen ? 0 : -ENOMEM;
}

void devmemx_resize_free(struct devmemx_binding *b)
{
	kfree(b->resize.unseen);
	kfree(b->resize.since);
}
