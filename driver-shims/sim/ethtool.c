// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: rings and header-data split, channels, ntuple rules on the TCP
 * destination port, the RSS indirection table, and counters. Also the
 * queue choice on receive, which rules and RSS drive.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/flow_dissector.h>
#include <net/netdev_queues.h>

#include "sim.h"

u32 dxsim_pick_queue(struct dxsim_priv *priv, struct sk_buff *skb)
{
	struct net_device *dev = priv->dev;
	u32 q = U32_MAX, flow_type;
	struct flow_keys keys;
	unsigned int i;

	if ((dev->features & NETIF_F_NTUPLE) &&
	    skb_flow_dissect_flow_keys(skb, &keys, 0) &&
	    keys.basic.ip_proto == IPPROTO_TCP) {
		flow_type = keys.basic.n_proto == htons(ETH_P_IP) ?
			    TCP_V4_FLOW : TCP_V6_FLOW;
		spin_lock(&priv->steer_lock);
		for (i = 0; i < DXSIM_MAX_RULES; i++) {
			struct dxsim_rule *r = &priv->rules[i];

			if (r->used && r->flow_type == flow_type &&
			    r->dport == keys.ports.dst) {
				q = r->queue;
				break;
			}
		}
		spin_unlock(&priv->steer_lock);
	}
	if (q == U32_MAX)
		q = READ_ONCE(priv->indir[skb_get_hash(skb) % DXSIM_INDIR_SIZE]);
	return q < dev->real_num_rx_queues ? q : 0;
}

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

	if (!ring->rx_pending) {
		NL_SET_ERR_MSG(extack, "rx ring size must be at least 1");
		return -EINVAL;
	}
	/* The ring size applies to page pools made from now on. */
	WRITE_ONCE(priv->ring_size, ring->rx_pending);
	WRITE_ONCE(priv->hds, kring->tcp_data_split);
	WRITE_ONCE(priv->hds_thresh, kring->hds_thresh);
	return 0;
}

static void dxsim_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	ch->max_combined = dev->num_rx_queues;
	ch->combined_count = dev->real_num_rx_queues;
}

static u32 dxsim_get_rx_ring_count(struct net_device *dev)
{
	return dev->real_num_rx_queues;
}

static void dxsim_rule_to_fs(const struct dxsim_rule *r,
			     struct ethtool_rx_flow_spec *fs)
{
	memset(&fs->h_u, 0, sizeof(fs->h_u));
	memset(&fs->m_u, 0, sizeof(fs->m_u));
	fs->flow_type = r->flow_type;
	fs->ring_cookie = r->queue;
	if (r->flow_type == TCP_V4_FLOW) {
		fs->h_u.tcp_ip4_spec.pdst = r->dport;
		fs->m_u.tcp_ip4_spec.pdst = htons(0xffff);
	} else {
		fs->h_u.tcp_ip6_spec.pdst = r->dport;
		fs->m_u.tcp_ip6_spec.pdst = htons(0xffff);
	}
}

static int dxsim_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc,
			   u32 *locs)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int i, n = 0;
	int err = 0;

	spin_lock_bh(&priv->steer_lock);
	switch (nfc->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
	case ETHTOOL_GRXCLSRLALL:
		for (i = 0; i < DXSIM_MAX_RULES; i++) {
			if (!priv->rules[i].used)
				continue;
			if (nfc->cmd == ETHTOOL_GRXCLSRLALL) {
				if (n == nfc->rule_cnt) {
					err = -EMSGSIZE;
					break;
				}
				locs[n] = i;
			}
			n++;
		}
		nfc->rule_cnt = n;
		nfc->data = DXSIM_MAX_RULES;
		if (nfc->cmd == ETHTOOL_GRXCLSRLCNT)
			nfc->data |= RX_CLS_LOC_SPECIAL;
		break;
	case ETHTOOL_GRXCLSRULE:
		if (nfc->fs.location >= DXSIM_MAX_RULES ||
		    !priv->rules[nfc->fs.location].used) {
			err = -ENOENT;
			break;
		}
		dxsim_rule_to_fs(&priv->rules[nfc->fs.location], &nfc->fs);
		break;
	default:
		err = -EOPNOTSUPP;
	}
	spin_unlock_bh(&priv->steer_lock);
	return err;
}

/* Only "flow-type tcp4|tcp6 dst-port P action Q" is offered. */
static int dxsim_fs_to_rule(struct net_device *dev,
			    const struct ethtool_rx_flow_spec *fs,
			    struct dxsim_rule *r)
{
	union ethtool_flow_union m = fs->m_u;
	__be16 dport, mask;

	switch (fs->flow_type) {
	case TCP_V4_FLOW:
		dport = fs->h_u.tcp_ip4_spec.pdst;
		mask = m.tcp_ip4_spec.pdst;
		m.tcp_ip4_spec.pdst = 0;
		break;
	case TCP_V6_FLOW:
		dport = fs->h_u.tcp_ip6_spec.pdst;
		mask = m.tcp_ip6_spec.pdst;
		m.tcp_ip6_spec.pdst = 0;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (mask != htons(0xffff) || memchr_inv(&m, 0, sizeof(m)))
		return -EOPNOTSUPP;
	if (fs->ring_cookie >= dev->real_num_rx_queues)
		return -EINVAL;
	r->used = true;
	r->flow_type = fs->flow_type;
	r->dport = dport;
	r->queue = fs->ring_cookie;
	return 0;
}

static int dxsim_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct ethtool_rx_flow_spec *fs = &nfc->fs;
	struct dxsim_rule rule;
	u32 loc = fs->location;
	int err = 0;

	switch (nfc->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		err = dxsim_fs_to_rule(dev, fs, &rule);
		if (err)
			return err;
		spin_lock_bh(&priv->steer_lock);
		if (loc == RX_CLS_LOC_ANY) {
			for (loc = 0; loc < DXSIM_MAX_RULES; loc++)
				if (!priv->rules[loc].used)
					break;
		}
		if (loc >= DXSIM_MAX_RULES) {
			err = -ENOSPC;
		} else {
			priv->rules[loc] = rule;
			fs->location = loc;
		}
		spin_unlock_bh(&priv->steer_lock);
		return err;
	case ETHTOOL_SRXCLSRLDEL:
		spin_lock_bh(&priv->steer_lock);
		if (loc >= DXSIM_MAX_RULES || !priv->rules[loc].used)
			err = -ENOENT;
		else
			priv->rules[loc].used = false;
		spin_unlock_bh(&priv->steer_lock);
		return err;
	default:
		return -EOPNOTSUPP;
	}
}

static u32 dxsim_get_rxfh_indir_size(struct net_device *dev)
{
	return DXSIM_INDIR_SIZE;
}

static int dxsim_get_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int i;

	p->hfunc = ETH_RSS_HASH_TOP;
	if (p->indir)
		for (i = 0; i < DXSIM_INDIR_SIZE; i++)
			p->indir[i] = READ_ONCE(priv->indir[i]);
	return 0;
}

static int dxsim_set_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p,
			  struct netlink_ext_ack *extack)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int i;

	if (p->key || (p->hfunc != ETH_RSS_HASH_NO_CHANGE &&
		       p->hfunc != ETH_RSS_HASH_TOP)) {
		NL_SET_ERR_MSG(extack, "only the indirection table can be set");
		return -EOPNOTSUPP;
	}
	if (p->indir)
		for (i = 0; i < DXSIM_INDIR_SIZE; i++)
			WRITE_ONCE(priv->indir[i], p->indir[i]);
	return 0;
}

/* ethtool -S: per RX queue counters, then what the fault knobs did. */
static const char * const dxsim_rxq_stat_names[] = {
	"packets", "bytes", "split", "frags", "alloc_fail", "ring_full",
	"fault_drops", "hw_gro_packets", "hw_gro_bytes", "hw_gro_wire_packets",
	"hw_gro_wire_bytes", "device_ns",
};

static const char * const dxsim_fault_stat_names[] = {
	"fault_queue_start", "fault_alloc", "fault_drop",
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
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void dxsim_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int q;

	for (q = 0; q < dev->num_rx_queues; q++, data += DXSIM_RXQ_NSTATS)
		dxsim_rxq_stats(&priv->rxq[q], data);
	*data++ = atomic64_read(&priv->faults.queue_start_failed);
	*data++ = atomic64_read(&priv->faults.alloc_failed);
	*data++ = atomic64_read(&priv->faults.dropped);
}

const struct ethtool_ops dxsim_ethtool_ops = {
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT |
				  ETHTOOL_RING_USE_HDS_THRS,
	.get_drvinfo		= dxsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= dxsim_get_ringparam,
	.set_ringparam		= dxsim_set_ringparam,
	.get_channels		= dxsim_get_channels,
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

static void dxsim_base_stats(struct net_device *dev,
			     struct netdev_queue_stats_rx *rx,
			     struct netdev_queue_stats_tx *tx)
{
	struct dxsim_priv *priv = netdev_priv(dev);

	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	rx->hw_drops = 0;
	rx->hw_gro_packets = 0;
	rx->hw_gro_bytes = 0;
	rx->hw_gro_wire_packets = 0;
	rx->hw_gro_wire_bytes = 0;
	tx->packets = atomic64_read(&priv->tx_packets);
	tx->bytes = atomic64_read(&priv->tx_bytes);
}

const struct netdev_stat_ops dxsim_stat_ops = {
	.get_queue_stats_rx	= dxsim_queue_stats_rx,
	.get_base_stats		= dxsim_base_stats,
};
