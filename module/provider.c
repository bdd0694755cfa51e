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

int devmemx_mp_init(struct page_pool *pool)
{
	struct devmemx_binding *b = pool->mp_priv;

	/* The driver sized the pool from rx_page_size: it must be ours. */
	if (pool->p.order != b->niov_shift - PAGE_SHIFT)
		return -E2BIG;
	/* dma-buf addresses are never synced */
	pool->dma_sync = false;
	pool->dma_sync_for_cpu = false;
	if (!percpu_ref_tryget_live(&b->ref))
		return -ENODEV;

	mutex_lock(&b->lock);
	if (pool->slow.queue_idx < b->nqueues)
		set_bit(pool->slow.queue_idx, b->pooled);
	mutex_unlock(&b->lock);
	atomic_inc(&b->page_pools);
	atomic_inc(&devmemx_counters.page_pools);
	return 0;
}

netmem_ref devmemx_mp_alloc_netmems(struct page_pool *pool, gfp_t gfp)
{
	struct devmemx_binding *b = pool->mp_priv;
	struct net_iov *niov;
	netmem_ref netmem;

	niov = devmemx_niov_alloc(b);
	if (!niov)
		return 0;
	netmem = net_iov_to_netmem(niov);
	/* What page_pool_set_pp_info() does (it is not exported). */
	niov->desc.pp = pool;
	niov->desc.pp_magic |= PP_SIGNATURE;
	page_pool_fragment_netmem(netmem, 1);
	pool->pages_state_hold_cnt++;
	return netmem;
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

/* The device is being unregistered: the queue is no longer ours to undo. */
void devmemx_mp_uninstall(void *mp_priv, struct netdev_rx_queue *rxq)
{
	struct devmemx_binding *b = mp_priv;
	unsigned int q = get_netdev_rx_queue_index(rxq);

	mutex_lock(&b->lock);
	if (q < b->nqueues)
		clear_bit(q, b->queues);
	mutex_unlock(&b->lock);
}
