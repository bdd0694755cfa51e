// SPDX-License-Identifier: GPL-2.0
/*
 * The memory provider for devmemx bindings: what the in-tree devmem
 * provider's functions do instead, when their binding is devmemx's.
 */
#include <linux/netdevice.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/helpers.h>
#include <net/page_pool/memory_provider.h>
#include <uapi/linux/netdev.h>

#include "devmemx.h"

/*
 * What page_pool_set_pp_info() and page_pool_clear_pp_info() do to a niov
 * (they are not exported), devmemx does itself below: set pp, or
 * PP_SIGNATURE into pp_magic, one fragment; and clear both. That holds
 * while a netmem_desc is these six words and nothing else; a kernel that
 * adds one may track more per buffer, and devmemx must be reviewed for it.
 */
static_assert(sizeof(struct netmem_desc) == 6 * sizeof(long),
	      "struct netmem_desc changed: check what page_pool_set_pp_info() sets now");
static_assert(sizeof(struct net_iov) == sizeof(struct netmem_desc) + 2 * sizeof(long),
	      "struct net_iov changed: check what the in-tree provider sets in a niov");

int devmemx_mp_init(struct page_pool *pool)
{
	struct devmemx_binding *b = pool->mp_priv;
	unsigned int order = b->niov_shift - PAGE_SHIFT;

	/*
	 * Buffers larger than a niov would overrun it. Smaller ones fit: a
	 * full reopen of the driver's channels builds pools without the
	 * queue's config (mlx5e_open_channels), and the queue is restarted
	 * at the niov size once the device is unlocked.
	 */
	if (pool->p.order > order)
		return -E2BIG;
	/* set_pp_info() would call it; nothing devmem binds to sets one. */
	if (pool->has_init_callback)
		return -EOPNOTSUPP;
	/* dma-buf addresses are never synced */
	pool->dma_sync = false;
	pool->dma_sync_for_cpu = false;
	if (!percpu_ref_tryget_live(&b->ref))
		return -ENODEV;

	mutex_lock(&b->lock);
	if (pool->slow.queue_idx < b->nqueues) {
		set_bit(pool->slow.queue_idx, b->pooled);
		/* Before pool_shift changes: it keeps the old one. */
		devmemx_resize_pool_made(b, pool, pool->slow.queue_idx,
					 pool->p.order == order);
		b->pool_shift[pool->slow.queue_idx] = PAGE_SHIFT + pool->p.order;
	}
	mutex_unlock(&b->lock);
	atomic_inc(&b->page_pools);
	atomic_inc(&devmemx_counters.page_pools);
	return 0;
}

/*
 * The page pool calls this, through the redirect, only when its cache and
 * ring are empty, for one niov. Fill the cache as the pool's own refill
 * from its ring does (and io_uring zcrx's provider): one call a batch. A
 * batch is at most a 64th of the binding, so that on a small binding one
 * queue's cache does not strand niovs another queue needs.
 */
netmem_ref devmemx_mp_alloc_netmems(struct page_pool *pool, gfp_t gfp)
{
	struct devmemx_binding *b = pool->mp_priv;
	netmem_ref *cache = pool->alloc.cache;
	struct net_iov *niov;
	unsigned int i, n;

	/* The pool asks only with its cache empty. */
	if (WARN_ON_ONCE(pool->alloc.count))
		return 0;
	n = devmemx_niov_alloc(b, cache, clamp_t(u32, b->niov_count >> 6, 1,
						 PP_ALLOC_CACHE_REFILL));
	for (i = 0; i < n; i++) {
		niov = netmem_to_net_iov(cache[i]);
		/* What page_pool_set_pp_info() does (it is not exported). */
		niov->desc.pp = pool;
		niov->desc.pp_magic |= PP_SIGNATURE;
		page_pool_fragment_netmem(cache[i], 1);
		pool->pages_state_hold_cnt++;
	}
	if (!n)
		return 0;
	pool->alloc.count = n - 1;
	return cache[n - 1];
}

bool devmemx_mp_release_netmem(struct page_pool *pool, netmem_ref netmem)
{
	struct devmemx_binding *b = pool->mp_priv;
	struct net_iov *niov;

	if (WARN_ON_ONCE(!netmem_is_net_iov(netmem)))
		return false;
	niov = netmem_to_net_iov(netmem);
	if (WARN_ON_ONCE(atomic_long_read(&niov->desc.pp_ref_count) != 1))
		return false;
	/* What page_pool_clear_pp_info() does. */
	niov->desc.pp_magic = 0;
	niov->desc.pp = NULL;
	devmemx_niov_free(b, niov);
	/* The niov goes back to the binding, never to the page allocator. */
	return false;
}

void devmemx_mp_destroy(struct page_pool *pool)
{
	struct devmemx_binding *b = pool->mp_priv;

	/*
	 * Process context: the driver's page_pool_destroy(), its retry work,
	 * or page_pool_create()'s error path.
	 */
	mutex_lock(&b->lock);
	devmemx_resize_pool_gone(b, pool, pool->slow.queue_idx);
	mutex_unlock(&b->lock);
	atomic_dec(&b->page_pools);
	atomic_dec(&devmemx_counters.page_pools);
	percpu_ref_put(&b->ref);
}

int devmemx_mp_nl_fill(void *mp_priv, struct sk_buff *rsp,
		       struct netdev_rx_queue *rxq)
{
	struct devmemx_binding *b = mp_priv;

	return nla_put_u32(rsp, rxq ? NETDEV_A_QUEUE_DMABUF :
				      NETDEV_A_PAGE_POOL_DMABUF, b->id);
}

/*
 * The queue's device is being unregistered: the queue is no longer ours
 * to undo. Or a lease ends with the provider still on the physical queue
 * (netif_rxq_cleanup_unlease(), which closed it): @rxq is then the
 * netkit's, standing for the queue it leased.
 */
void devmemx_mp_uninstall(void *mp_priv, struct netdev_rx_queue *rxq)
{
	struct netdev_rx_queue *lease = READ_ONCE(rxq->lease);
	struct devmemx_binding *b = mp_priv;
	unsigned int q;

	if (lease && !rxq->dev->dev.parent) {
		rxq = lease;
	} else if (lease) {
		/*
		 * A leased queue of a physical device going away: the lease
		 * ends later (the netkit goes with it) and must find no
		 * provider, or it would restart a queue of a closed device.
		 */
		memset(&rxq->mp_params, 0, sizeof(rxq->mp_params));
	}
	q = get_netdev_rx_queue_index(rxq);
	mutex_lock(&b->lock);
	if (q < b->nqueues)
		clear_bit(q, b->queues);
	mutex_unlock(&b->lock);
}
