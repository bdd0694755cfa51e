// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: driver info, rings and header-data split, channels, and
 * counters (ethtool -S and the netdev family's qstats). Steering (ntuple
 * rules and RSS) is in steer.c.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/netdev_queues.h>

#include "sim.h"

static void dxsim_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static void dxsim_get_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct dxsim_priv *priv = netdev_priv(dev);

	ring->rx_max_pending = DXSIM_RING_MAX;
	ring->rx_pending = priv->ring_size;
	kring->tcp_data_split = priv->hds;
	kring->hds_thresh = priv->hds_thresh;
	kring->hds_thresh_max = DXSIM_HDS_THRESH_MAX;
}

static int dxsim_set_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	u32 old = priv->ring_size;
	int err;

	if (!ring->rx_pending) {
		NL_SET_ERR_MSG(extack, "rx ring size must be at least 1");
		return -EINVAL;
	}
	WRITE_ONCE(priv->hds, kring->tcp_data_split);
	WRITE_ONCE(priv->hds_thresh, kring->hds_thresh);
	if (ring->rx_pending == old)
		return 0;
	/* A new ring size: new page pools for every queue, as mlx5 does. */
	WRITE_ONCE(priv->ring_size, ring->rx_pending);
	err = dxsim_queues_reopen(dev);
	if (err) {
		WRITE_ONCE(priv->ring_size, old);
		NL_SET_ERR_MSG(extack, "cannot make the RX queues' new page pools");
	}
	return err;
}

/* Combined channels only: max_rx and max_tx 0 make the core refuse rx/tx. */
static void dxsim_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	ch->max_combined = dev->num_rx_queues;
	ch->combined_count = dev->real_num_rx_queues;
}

static int dxsim_set_channels(struct net_device *dev,
			      struct ethtool_channels *ch)
{
	return dxsim_queues_set_count(dev, ch->combined_count);
}

/* ethtool -S: per RX queue counters, then what the fault knobs did. */
static const char * const dxsim_rxq_stat_names[] = {
	"packets", "bytes", "split", "frags", "alloc_fail", "ring_full",
	"fault_drops", "hw_gro_packets", "hw_gro_bytes", "hw_gro_wire_packets",
	"hw_gro_wire_bytes", "device_ns", "hw_gro_poll_ends", "nosplit_drops",
	"buf_size",
};

/* After the queues: the device's own, then what the fault knobs did. */
static const char * const dxsim_fault_stat_names[] = {
	"tx_doorbells", "dma_faults", "dma_remapped", "dma_switch_routed",
	"fault_queue_start", "fault_alloc", "fault_drop", "fault_reopen",
	"fault_bad_ref",
};

#define DXSIM_RXQ_NSTATS ARRAY_SIZE(dxsim_rxq_stat_names)

static int dxsim_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return dev->num_rx_queues * DXSIM_RXQ_NSTATS +
	       ARRAY_SIZE(dxsim_fault_stat_names);
}

static void dxsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (q = 0; q < dev->num_rx_queues; q++)
		for (i = 0; i < DXSIM_RXQ_NSTATS; i++)
			ethtool_sprintf(&data, "rx%u_%s", q, dxsim_rxq_stat_names[i]);
	for (i = 0; i < ARRAY_SIZE(dxsim_fault_stat_names); i++)
		ethtool_puts(&data, dxsim_fault_stat_names[i]);
}

static void dxsim_rxq_stats(struct dxsim_rxq *rxq, u64 *v)
{
	struct dxsim_rx_stats *st = &rxq->stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		v[0] = st->packets;
		v[1] = st->bytes;
		v[2] = st->split;
		v[3] = st->frags;
		v[4] = st->alloc_fail;
		v[5] = st->ring_full;
		v[6] = st->fault_drops;
		v[7] = st->gro_packets;
		v[8] = st->gro_bytes;
		v[9] = st->gro_wire_packets;
		v[10] = st->gro_wire_bytes;
		v[11] = st->device_ns;
		v[12] = st->gro_poll_ends;
		v[13] = st->nosplit_drops;
	} while (u64_stats_fetch_retry(&st->syncp, start));
	/* Not a counter: the RX buffer size of the queue's page pool now. */
	v[14] = READ_ONCE(rxq->buf_size);
}

static void dxsim_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int q;

	for (q = 0; q < dev->num_rx_queues; q++, data += DXSIM_RXQ_NSTATS)
		dxsim_rxq_stats(&priv->rxq[q], data);
	*data++ = atomic64_read(&priv->tx_doorbells);
	*data++ = atomic64_read(&priv->dma_faults);
	*data++ = atomic64_read(&priv->dma_remapped);
	*data++ = atomic64_read(&priv->dma_switch_routed);
	*data++ = atomic64_read(&priv->faults.queue_start_failed);
	*data++ = atomic64_read(&priv->faults.alloc_failed);
	*data++ = atomic64_read(&priv->faults.dropped);
	*data++ = atomic64_read(&priv->faults.reopen_failed);
	*data++ = atomic64_read(&priv->faults.bad_ref_given);
}

const struct ethtool_ops dxsim_ethtool_ops = {
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT |
				  ETHTOOL_RING_USE_HDS_THRS,
	/* netif_set_real_num_tx_queues() wants rtnl, not only our lock. */
	.op_needs_rtnl		= ETHTOOL_OP_NEEDS_RTNL_SCHANNELS,
	.get_drvinfo		= dxsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= dxsim_get_ringparam,
	.set_ringparam		= dxsim_set_ringparam,
	.get_channels		= dxsim_get_channels,
	.set_channels		= dxsim_set_channels,
	.get_rx_ring_count	= dxsim_get_rx_ring_count,
	.get_rxnfc		= dxsim_get_rxnfc,
	.set_rxnfc		= dxsim_set_rxnfc,
	.get_rxfh_indir_size	= dxsim_get_rxfh_indir_size,
	.get_rxfh		= dxsim_get_rxfh,
	.set_rxfh		= dxsim_set_rxfh,
	.get_sset_count		= dxsim_get_sset_count,
	.get_strings		= dxsim_get_strings,
	.get_ethtool_stats	= dxsim_get_ethtool_stats,
};

static void dxsim_queue_stats_rx(struct net_device *dev, int idx,
				 struct netdev_queue_stats_rx *s)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	u64 v[DXSIM_RXQ_NSTATS];

	dxsim_rxq_stats(&priv->rxq[idx], v);
	s->packets = v[0];
	s->bytes = v[1];
	s->alloc_fail = v[4];
	s->hw_drops = v[5] + v[6];
	s->hw_gro_packets = v[7];
	s->hw_gro_bytes = v[8];
	s->hw_gro_wire_packets = v[9];
	s->hw_gro_wire_bytes = v[10];
}

/*
 * What queues counted before ethtool -L took them away: the device's totals
 * (queues plus base) must not go backwards.
 */
static void dxsim_base_stats(struct net_device *dev,
			     struct netdev_queue_stats_rx *rx,
			     struct netdev_queue_stats_tx *tx)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct netdev_queue_stats_rx q;
	unsigned int i;

	/* Only the counters the queues report: the rest stay "not reported". */
	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	rx->hw_drops = 0;
	rx->hw_gro_packets = 0;
	rx->hw_gro_bytes = 0;
	rx->hw_gro_wire_packets = 0;
	rx->hw_gro_wire_bytes = 0;
	for (i = dev->real_num_rx_queues; i < dev->num_rx_queues; i++) {
		dxsim_queue_stats_rx(dev, i, &q);
		rx->packets += q.packets;
		rx->bytes += q.bytes;
		rx->alloc_fail += q.alloc_fail;
		rx->hw_drops += q.hw_drops;
		rx->hw_gro_packets += q.hw_gro_packets;
		rx->hw_gro_bytes += q.hw_gro_bytes;
		rx->hw_gro_wire_packets += q.hw_gro_wire_packets;
		rx->hw_gro_wire_bytes += q.hw_gro_wire_bytes;
	}
	tx->packets = atomic64_read(&priv->tx_packets);
	tx->bytes = atomic64_read(&priv->tx_bytes);
}

const struct netdev_stat_ops dxsim_stat_ops = {
	.get_queue_stats_rx	= dxsim_queue_stats_rx,
	.get_base_stats		= dxsim_base_stats,
};
