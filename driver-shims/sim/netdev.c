// SPDX-License-Identifier: GPL-2.0
/* The net_device side: create, open, stop, and send to the peer. */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>

#include "sim.h"

static void dxsim_update_carrier(struct net_device *dev)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	if (peer && netif_running(dev) && netif_running(peer)) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	} else {
		netif_carrier_off(dev);
		if (peer)
			netif_carrier_off(peer);
	}
}

static int dxsim_open(struct net_device *dev)
{
	int err;

	err = dxsim_queues_open(dev);
	if (err)
		return err;
	netif_tx_start_all_queues(dev);
	dxsim_update_carrier(dev);
	return 0;
}

static int dxsim_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	dxsim_update_carrier(dev);
	dxsim_queues_close(dev);
	return 0;
}

static void dxsim_tx_drop(struct dxsim_priv *priv, struct sk_buff *skb)
{
	atomic64_inc(&priv->tx_dropped);
	dev_kfree_skb_any(skb);
}

/*
 * Put a run of packets for one RX queue of the peer into its ring at once,
 * as a NIC fetches what a doorbell announced, and kick its NAPI.
 */
static void dxsim_tx_post(struct dxsim_priv *priv, struct dxsim_rxq *rxq,
			  struct sk_buff_head *run)
{
	struct dxsim_chan *chan;
	struct sk_buff *skb;
	unsigned long flags;
	u32 room;

	if (!rxq)
		return;
	spin_lock_irqsave(&rxq->ring.lock, flags);
	room = READ_ONCE(rxq->priv->ring_size);
	room = room > skb_queue_len(&rxq->ring) ? room - skb_queue_len(&rxq->ring) : 0;
	while (skb_queue_len(run) > room) {
		skb = __skb_dequeue_tail(run);
		u64_stats_update_begin(&rxq->stats.syncp);
		rxq->stats.ring_full++;
		u64_stats_update_end(&rxq->stats.syncp);
		dxsim_tx_drop(priv, skb);
	}
	skb_queue_walk(run, skb) {
		atomic64_inc(&priv->tx_packets);
		atomic64_add(skb->len, &priv->tx_bytes);
	}
	skb_queue_splice_tail_init(run, &rxq->ring);
	spin_unlock_irqrestore(&rxq->ring.lock, flags);
	/*
	 * A stopped queue has no channel: its next start polls what waits
	 * (see dxsim_rxq_start). Under rcu_read_lock(): a channel's NAPI is
	 * deleted only after a grace period (netif_napi_del_locked).
	 */
	smp_mb();
	chan = rcu_dereference(rxq->chan);
	if (chan)
		napi_schedule(&chan->napi);
}

/* The doorbell: hand what the stack queued on @pend to the peer. */
static void dxsim_tx_doorbell(struct dxsim_priv *priv, struct sk_buff_head *pend)
{
	struct dxsim_rxq *rxq = NULL, *to;
	struct net_device *peer;
	struct dxsim_priv *ppriv;
	struct sk_buff_head run;
	struct sk_buff *skb;

	__skb_queue_head_init(&run);
	atomic64_inc(&priv->tx_doorbells);
	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	while ((skb = __skb_dequeue(pend))) {
		if (!peer || !netif_running(peer)) {
			dxsim_tx_drop(priv, skb);
			continue;
		}
		ppriv = netdev_priv(peer);
		to = &ppriv->rxq[dxsim_pick_queue(ppriv, skb)];
		if (to != rxq) {
			dxsim_tx_post(priv, rxq, &run);
			rxq = to;
		}
		__skb_queue_tail(&run, skb);
	}
	dxsim_tx_post(priv, rxq, &run);
	rcu_read_unlock();
}

/*
 * Packets wait on their TX queue until the stack says no more follow
 * (xmit_more), then reach the peer together: a GSO burst is never seen by
 * the peer's NAPI half-way, as a NIC sees descriptors only at the doorbell.
 * Sent is sent: the socket stops owning the packet here, as it would at a
 * NIC's TX completion, not when the peer gets round to receiving it (TCP
 * small queues would otherwise cut the sender's bursts to what a guest's
 * NAPI keeps up with).
 */
static netdev_tx_t dxsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct sk_buff_head *pend = &priv->tx_pend[skb_get_queue_mapping(skb)];

	skb_tx_timestamp(skb);
	skb_orphan(skb);
	__skb_queue_tail(pend, skb);
	if (!netdev_xmit_more())
		dxsim_tx_doorbell(priv, pend);
	return NETDEV_TX_OK;
}

static void dxsim_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *s)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int i, start;

	s->tx_packets = atomic64_read(&priv->tx_packets);
	s->tx_bytes = atomic64_read(&priv->tx_bytes);
	s->tx_dropped = atomic64_read(&priv->tx_dropped);
	for (i = 0; i < dev->num_rx_queues; i++) {
		struct dxsim_rx_stats *st = &priv->rxq[i].stats;
		u64 packets, bytes, dropped;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			packets = st->packets;
			bytes = st->bytes;
			dropped = st->alloc_fail + st->ring_full + st->fault_drops;
		} while (u64_stats_fetch_retry(&st->syncp, start));
		s->rx_packets += packets;
		s->rx_bytes += bytes;
		s->rx_dropped += dropped;
	}
}

/*
 * A new MTU reopens the RX queues, as mlx5 does when the MTU changes its RX
 * buffer layout: every queue gets a new page pool, with its memory provider.
 */
static int dxsim_change_mtu(struct net_device *dev, int mtu)
{
	int old = dev->mtu, err;

	WRITE_ONCE(dev->mtu, mtu);
	err = dxsim_queues_reopen(dev);
	if (err)
		WRITE_ONCE(dev->mtu, old);
	return err;
}

static const struct net_device_ops dxsim_netdev_ops = {
	.ndo_open		= dxsim_open,
	.ndo_stop		= dxsim_stop,
	.ndo_start_xmit		= dxsim_xmit,
	.ndo_get_stats64	= dxsim_get_stats64,
	.ndo_change_mtu		= dxsim_change_mtu,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

struct net_device *dxsim_create(const char *name, unsigned int queues)
{
	struct dxsim_priv *priv;
	struct net_device *dev;
	unsigned int i;
	int err;

	dev = alloc_netdev_mqs(sizeof(*priv), name, NET_NAME_USER, ether_setup,
			       queues, queues);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	priv = netdev_priv(dev);
	priv->dev = dev;
	priv->ring_size = DXSIM_RING_DEFAULT;
	spin_lock_init(&priv->steer_lock);
	dxsim_steer_set_queues(priv, queues);
	/* Up to 256 queues: a few hundred KiB, not one contiguous block. */
	priv->tx_pend = kvcalloc(queues, sizeof(*priv->tx_pend), GFP_KERNEL);
	priv->rxq = kvcalloc(queues, sizeof(*priv->rxq), GFP_KERNEL);
	if (!priv->tx_pend || !priv->rxq) {
		err = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < queues; i++)
		__skb_queue_head_init(&priv->tx_pend[i]);
	for (i = 0; i < queues; i++) {
		struct dxsim_rxq *rxq = &priv->rxq[i];

		rxq->priv = priv;
		rxq->idx = i;
		skb_queue_head_init(&rxq->ring);
		u64_stats_init(&rxq->stats.syncp);
		/* No NAPI yet: each queue start makes one (queue.c), as mlx5. */
	}

	SET_NETDEV_DEV(dev, dxsim_dma_dev);
	eth_hw_addr_random(dev);
	dev->netdev_ops = &dxsim_netdev_ops;
	dev->ethtool_ops = &dxsim_ethtool_ops;
	dev->queue_mgmt_ops = &dxsim_queue_ops;
	dev->stat_ops = &dxsim_stat_ops;
	dev->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM |
			   NETIF_F_NTUPLE | NETIF_F_GRO_HW;
	dev->features = dev->hw_features | NETIF_F_HIGHDMA;
	dev->max_mtu = DXSIM_MAX_MTU;
	netif_carrier_off(dev);

	err = register_netdev(dev);
	if (err)
		goto err_free;
	return dev;

err_free:
	kvfree(priv->rxq);
	kvfree(priv->tx_pend);
	free_netdev(dev);
	return ERR_PTR(err);
}

void dxsim_pair(struct net_device *a, struct net_device *b)
{
	struct dxsim_priv *pa = netdev_priv(a), *pb = netdev_priv(b);

	rtnl_lock();
	rcu_assign_pointer(pa->peer, b);
	rcu_assign_pointer(pb->peer, a);
	rtnl_unlock();
}

void dxsim_destroy(struct net_device *dev)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	unsigned int i;

	rtnl_lock();
	peer = rtnl_dereference(priv->peer);
	if (peer)
		RCU_INIT_POINTER(((struct dxsim_priv *)netdev_priv(peer))->peer, NULL);
	RCU_INIT_POINTER(priv->peer, NULL);
	rtnl_unlock();
	synchronize_net();

	unregister_netdev(dev);
	/* Closed by unregister: no channel, so no NAPI, is left. */
	for (i = 0; i < dev->num_rx_queues; i++) {
		skb_queue_purge(&priv->rxq[i].ring);
		__skb_queue_purge(&priv->tx_pend[i]);
	}
	kvfree(priv->rxq);
	kvfree(priv->tx_pend);
	free_netdev(dev);
}
