// SPDX-License-Identifier: GPL-2.0
/*
 * RX queue memory: one page pool per queue, of the order the queue config
 * asks for, created so that a memory provider bound to the queue takes it
 * over; and the queue management ops that swap it on a restart.
 */
#include <linux/log2.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/helpers.h>

#include "sim.h"

static bool open_qcfg;
module_param(open_qcfg, bool, 0644);
MODULE_PARM_DESC(open_qcfg,
		 "build the page pools of a full reopen (link up, MTU, rings, channels, recover) from each queue's config, kinder than mlx5 (default 0)");

/*
 * The config each queue gets in a full reopen of the channels. mlx5's
 * (mlx5e_open_channels) passes none: every queue gets PAGE_SIZE buffers,
 * whatever its rx-page-size, yet keeps a pool that takes the queue's
 * memory provider. Only a restart of one queue (ndo_queue_mem_alloc)
 * honours the queue's config.
 */
static void dxsim_reopen_qcfg(struct net_device *dev, unsigned int idx,
			      struct netdev_queue_config *qcfg)
{
	if (open_qcfg)
		netdev_queue_config(dev, idx, qcfg);
	else
		memset(qcfg, 0, sizeof(*qcfg));
}

/*
 * A new channel for queue @idx: its page pool and a new NAPI, as
 * mlx5e_open_channel() adds one (netif_napi_add_config_locked(), en_main.c:2885
 * in 7.2) for every queue it opens, whether by a restart of the queue
 * (mlx5e_queue_mem_alloc(), :5744) or by a full reopen: the NAPI takes
 * the queue's NAPI config, so the NAPI id and the threaded mode carry
 * over (napi_restore_config(), net/core/dev.c:7571), but a threaded one
 * gets a kthread of its own, made here, while the old channel still runs
 * (netif_napi_add_weight_locked(), dev.c:7689): whoever pinned or
 * prioritised the old thread has to do it again.
 */
static int dxsim_qmem_alloc(struct net_device *dev,
			    struct netdev_queue_config *qcfg,
			    struct dxsim_qmem *qm, unsigned int idx)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int size = qcfg->rx_page_size ?: PAGE_SIZE;
	struct page_pool_params pp = {
		.order		= ilog2(size) - PAGE_SHIFT,
		.pool_size	= priv->ring_size,
		.nid		= NUMA_NO_NODE,
		.dev		= dxsim_dma_dev,
		.dma_dir	= DMA_FROM_DEVICE,
		.max_len	= size,
		.netdev		= dev,
		.queue_idx	= idx,
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV |
				  PP_FLAG_ALLOW_UNREADABLE_NETMEM,
	};
	struct dxsim_chan *chan;
	struct page_pool *pool;

	netdev_assert_locked(dev);
	chan = kzalloc_obj(*chan, GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	pool = page_pool_create(&pp);
	if (IS_ERR(pool)) {
		kfree(chan);
		return PTR_ERR(pool);
	}
	chan->rxq = &priv->rxq[idx];
	chan->pool = pool;
	chan->buf_size = size;
	netif_napi_add_config_locked(dev, &chan->napi, dxsim_poll, idx);
	qm->chan = chan;
	qm->ran = false;
	return 0;
}

/*
 * The bad_ref knob (debugfs.c): one net_iov back in the pool's ring with a
 * page pool reference too many, just before the pool's destroy, which
 * hands it to the provider; its NAPI is gone, so nothing takes it out of
 * the ring again.
 */
static void dxsim_plant_bad_ref(struct dxsim_faults *f, struct page_pool *pool)
{
	netmem_ref netmem;

	if (!pool->mp_ops || atomic_read(&f->bad_ref) <= 0)
		return;
	netmem = page_pool_alloc_netmems(pool, GFP_KERNEL);
	if (!netmem)
		return;
	if (netmem_is_net_iov(netmem) && atomic_dec_if_positive(&f->bad_ref) >= 0) {
		atomic_long_inc(netmem_get_pp_ref_count_ref(netmem));
		atomic64_inc(&f->bad_ref_given);
		page_pool_put_unrefed_netmem(pool, netmem, -1, false);
		return;
	}
	page_pool_put_full_netmem(pool, netmem, false);
}

/*
 * The channel goes, as mlx5e_close_channel(): its NAPI (and kthread) with
 * it; its page pool once a memory provider has its buffers back.
 */
static void dxsim_qmem_free(struct dxsim_qmem *qm)
{
	struct dxsim_chan *chan = qm->chan;

	if (!chan)
		return;
	/* Waits out the peer's xmit, which may still schedule this NAPI. */
	netif_napi_del_locked(&chan->napi);
	if (qm->ran)
		dxsim_plant_bad_ref(&chan->rxq->priv->faults, chan->pool);
	page_pool_destroy(chan->pool);
	kfree(chan);
	qm->chan = NULL;
}

static void dxsim_rxq_start(struct dxsim_rxq *rxq, struct dxsim_qmem *qm)
{
	struct dxsim_chan *chan = qm->chan;

	rxq->pool = chan->pool;
	WRITE_ONCE(rxq->buf_size, chan->buf_size);
	rxq->resv_left = 0;
	rxq->napi = &chan->napi;
	if (page_pool_is_unreadable(rxq->pool))
		WRITE_ONCE(dxsim_dma_dev_shared, true);
	/* Only now: a pool whose start failed must not point at the NAPI. */
	page_pool_enable_direct_recycling(rxq->pool, &chan->napi);
	napi_enable_locked(&chan->napi);
	netif_queue_set_napi(rxq->priv->dev, rxq->idx, NETDEV_QUEUE_TYPE_RX,
			     &chan->napi);
	rcu_assign_pointer(rxq->chan, chan);
	qm->chan = NULL;
	/*
	 * Packets may have arrived while the queue was stopped; the sender
	 * saw no channel then, or sees this one now (dxsim_tx_post).
	 */
	smp_mb();
	if (!skb_queue_empty_lockless(&rxq->ring))
		napi_schedule(&chan->napi);
}

static void dxsim_rxq_stop(struct dxsim_rxq *rxq, struct dxsim_qmem *qm)
{
	struct dxsim_chan *chan = rcu_dereference_protected(rxq->chan, true);

	RCU_INIT_POINTER(rxq->chan, NULL);
	netif_queue_set_napi(rxq->priv->dev, rxq->idx, NETDEV_QUEUE_TYPE_RX,
			     NULL);
	napi_disable_locked(&chan->napi);
	dxsim_buf_release(rxq);
	page_pool_disable_direct_recycling(rxq->pool);
	qm->chan = chan;
	qm->ran = true;
	rxq->pool = NULL;
	rxq->napi = NULL;
}

/* Stop RX queues [from, to) and free their channels, NAPIs and all. */
static void dxsim_queues_stop(struct net_device *dev, unsigned int from,
			      unsigned int to)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct dxsim_qmem qm;
	unsigned int i;

	for (i = from; i < to; i++) {
		dxsim_rxq_stop(&priv->rxq[i], &qm);
		skb_queue_purge(&priv->rxq[i].ring);
		dxsim_qmem_free(&qm);
	}
}

/* Start RX queues [from, to) as a full reopen does (dxsim_reopen_qcfg). */
static int dxsim_queues_start(struct net_device *dev, unsigned int from,
			      unsigned int to)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct netdev_queue_config qcfg;
	struct dxsim_qmem qm;
	unsigned int i;
	int err;

	for (i = from; i < to; i++) {
		dxsim_reopen_qcfg(dev, i, &qcfg);
		err = dxsim_qmem_alloc(dev, &qcfg, &qm, i);
		if (err) {
			dxsim_queues_stop(dev, from, i);
			return err;
		}
		dxsim_rxq_start(&priv->rxq[i], &qm);
	}
	return 0;
}

static int dxsim_queues_grow(struct net_device *dev, unsigned int count)
{
	unsigned int old = dev->real_num_rx_queues;
	int err;

	/* First, as it can fail (queue kobjects): nothing to undo yet. */
	err = netif_set_real_num_queues(dev, count, count);
	if (err)
		return err;
	if (netif_running(dev)) {
		err = dxsim_queues_start(dev, old, count);
		if (err) {
			netif_set_real_num_queues(dev, old, old);
			return err;
		}
	}
	dxsim_steer_set_queues(netdev_priv(dev), count);
	return 0;
}

static void dxsim_queues_shrink(struct net_device *dev, unsigned int count)
{
	unsigned int old = dev->real_num_rx_queues;

	/* Steer away from the queues that go, then wait for senders to see it. */
	dxsim_steer_set_queues(netdev_priv(dev), count);
	netif_set_real_num_queues(dev, count, count);
	synchronize_net();
	if (netif_running(dev))
		dxsim_queues_stop(dev, count, old);
}

/*
 * A full reopen of the first @n RX queues of a running device (ring size,
 * MTU, channels, recovery), made as mlx5 makes it
 * (mlx5e_safe_switch_params): the new memory of every queue first, so
 * that a failure leaves the old queues running, then each queue swapped
 * over. A memory provider bound to a queue takes over its new page pool
 * (of the size dxsim_reopen_qcfg() gives); the old pool goes once its
 * buffers have come back.
 */
static int dxsim_queues_reopen_n(struct net_device *dev, unsigned int n)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct netdev_queue_config qcfg;
	struct dxsim_qmem *qm, old;
	unsigned int i;
	int err = 0;

	netdev_assert_locked(dev);
	if (!netif_running(dev) || !n)
		return 0;
	qm = kcalloc(n, sizeof(*qm), GFP_KERNEL);
	if (!qm)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		dxsim_reopen_qcfg(dev, i, &qcfg);
		err = dxsim_qmem_alloc(dev, &qcfg, &qm[i], i);
	}
	/* The fault knob: mlx5's switch fails after it built every channel. */
	if (!err && atomic_dec_if_positive(&priv->faults.fail_reopen) >= 0) {
		atomic64_inc(&priv->faults.reopen_failed);
		err = -ENOMEM;
	}
	for (i = 0; i < n && !err; i++) {
		dxsim_rxq_stop(&priv->rxq[i], &old);
		dxsim_rxq_start(&priv->rxq[i], &qm[i]);
		dxsim_qmem_free(&old);
	}
	for (i = 0; i < n && err; i++)
		dxsim_qmem_free(&qm[i]);
	kfree(qm);
	return err;
}

int dxsim_queues_reopen(struct net_device *dev)
{
	return dxsim_queues_reopen_n(dev, dev->real_num_rx_queues);
}

/*
 * ethtool -L combined COUNT. The core has checked COUNT against the
 * maximum, the ntuple rules, a user-set RSS table and memory providers
 * (none is bound to a queue that goes away). As in mlx5, every channel
 * is opened anew: the queues that stay first (a failure there changes
 * nothing), then the count (a failure there leaves the old count).
 */
int dxsim_queues_set_count(struct net_device *dev, unsigned int count)
{
	int err;

	netdev_assert_locked(dev);
	if (count == dev->real_num_rx_queues)
		return 0;
	err = dxsim_queues_reopen_n(dev, min(count, dev->real_num_rx_queues));
	if (err)
		return err;
	if (count > dev->real_num_rx_queues)
		return dxsim_queues_grow(dev, count);
	if (count < dev->real_num_rx_queues)
		dxsim_queues_shrink(dev, count);
	return 0;
}

int dxsim_queues_open(struct net_device *dev)
{
	return dxsim_queues_start(dev, 0, dev->real_num_rx_queues);
}

void dxsim_queues_close(struct net_device *dev)
{
	dxsim_queues_stop(dev, 0, dev->real_num_rx_queues);
}

static void dxsim_default_qcfg(struct net_device *dev,
			       struct netdev_queue_config *qcfg)
{
	qcfg->rx_page_size = PAGE_SIZE;
}

static int dxsim_validate_qcfg(struct net_device *dev,
			       struct netdev_queue_config *qcfg,
			       struct netlink_ext_ack *extack)
{
	u32 size = qcfg->rx_page_size;

	/* As mlx5e_queue_validate_qcfg(): the kernel log, no extack. */
	if (!is_power_of_2(size)) {
		netdev_err(dev, "rx_page_size not power of 2: %u", size);
		return -EINVAL;
	}
	if (size < PAGE_SIZE || size > DXSIM_MAX_RX_PAGE) {
		netdev_err(dev, "Selected rx_page_size %u not in supported range [%lu, %u]\n",
			   size, PAGE_SIZE, DXSIM_MAX_RX_PAGE);
		return -ERANGE;
	}
	return 0;
}

/* As mlx5e_queue_mem_alloc(), in what it refuses and how. */
static int dxsim_queue_mem_alloc(struct net_device *dev,
				 struct netdev_queue_config *qcfg,
				 void *mem, int idx)
{
	/* A closed device has no channels to clone. */
	if (!netif_running(dev))
		return -ENODEV;
	if (qcfg->rx_page_size && qcfg->rx_page_size != PAGE_SIZE &&
	    !netif_rxq_has_unreadable_mp(dev, idx)) {
		netdev_err(dev, "High order pages are supported only in Zero-Copy mode\n");
		return -EINVAL;
	}
	return dxsim_qmem_alloc(dev, qcfg, mem, idx);
}

static void dxsim_queue_mem_free(struct net_device *dev, void *mem)
{
	dxsim_qmem_free(mem);
}

static int dxsim_queue_start(struct net_device *dev,
			     struct netdev_queue_config *qcfg,
			     void *mem, int idx)
{
	struct dxsim_priv *priv = netdev_priv(dev);

	netdev_assert_locked(dev);
	/*
	 * The knob fails new memory only: the core starts the old memory
	 * again after a failed restart, and a failure there would leave the
	 * queue dead (netdev_rx_queue_reconfig() WARNs), which no test wants.
	 * So N failures are N restarts in a row that keep the old queue.
	 */
	if (!((struct dxsim_qmem *)mem)->ran &&
	    atomic_dec_if_positive(&priv->faults.fail_queue_start) >= 0) {
		atomic64_inc(&priv->faults.queue_start_failed);
		return -EIO;
	}
	dxsim_rxq_start(&priv->rxq[idx], mem);
	return 0;
}

static int dxsim_queue_stop(struct net_device *dev, void *mem, int idx)
{
	struct dxsim_priv *priv = netdev_priv(dev);

	netdev_assert_locked(dev);
	dxsim_rxq_stop(&priv->rxq[idx], mem);
	return 0;
}

/* Like mlx5's: the channel's device, and no channel while closed. */
static struct device *dxsim_queue_dma_dev(struct net_device *dev, int idx)
{
	return netif_running(dev) ? dxsim_dma_dev : NULL;
}

const struct netdev_queue_mgmt_ops dxsim_queue_ops = {
	.ndo_queue_mem_size	= sizeof(struct dxsim_qmem),
	.ndo_queue_mem_alloc	= dxsim_queue_mem_alloc,
	.ndo_queue_mem_free	= dxsim_queue_mem_free,
	.ndo_queue_start	= dxsim_queue_start,
	.ndo_queue_stop		= dxsim_queue_stop,
	.ndo_default_qcfg	= dxsim_default_qcfg,
	.ndo_validate_qcfg	= dxsim_validate_qcfg,
	.ndo_queue_get_dma_dev	= dxsim_queue_dma_dev,
	.supported_params	= QCFG_RX_PAGE_SIZE,
};
