/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemx_sim: a pair of software NICs with a devmem-capable RX path.
 *
 * A packet sent on one device is received on its peer like a striding-RQ
 * NIC would: the queue is picked by ntuple rule or RSS, the headers are
 * copied into the skb, and the payload is written through the DMA address
 * of the queue's current page pool buffer, packed behind the previous one.
 * With rx-gro-hw, a flow's consecutive segments become one skb (gro.c).
 */
#ifndef _DXSIM_H
#define _DXSIM_H

#include <linux/ethtool.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/u64_stats_sync.h>
#include <net/netmem.h>

/* As many channels as an mlx5 host has at the most. */
#define DXSIM_MAX_QUEUES	256
#define DXSIM_RING_DEFAULT	1024	/* packets waiting for RX, per queue */
#define DXSIM_RING_MAX		4096
/* An RSS entry for every queue, as mlx5 sizes its table to its channels. */
#define DXSIM_INDIR_SIZE	DXSIM_MAX_QUEUES
#define DXSIM_MAX_RULES		64
#define DXSIM_HDS_THRESH_MAX	1024
#define DXSIM_MAX_MTU		9000
/* Largest RX buffer a queue takes, like mlx5's striding RQ (2^17). */
#define DXSIM_MAX_RX_PAGE	(128 * 1024)
/* HW-GRO places payload in reservations of 64K, like mlx5's SHAMPO. */
#define DXSIM_RESV_SIZE		SZ_64K

struct dxsim_rx_stats {
	u64 packets;
	u64 bytes;
	u64 split;		/* packets whose payload went to buffers */
	u64 frags;		/* payload fragments handed to the stack */
	u64 alloc_fail;		/* buffer allocation failed: packet dropped */
	u64 ring_full;		/* RX ring full: packet dropped */
	u64 fault_drops;	/* dropped by the drop knob */
	u64 gro_packets;	/* HW-GRO: skbs coalesced from 2+ segments */
	u64 gro_bytes;		/* their bytes, one Ethernet header each */
	u64 gro_wire_packets;	/* the segments they were made of */
	u64 gro_wire_bytes;	/* and those segments' bytes */
	u64 device_ns;		/* spent being the device (see dxsim_dev_time) */
	u64 gro_poll_ends;	/* HW-GRO sessions the end of a poll closed */
	u64 nosplit_drops;	/* unsplit on net_iov buffers: dropped (as mlx5) */
	struct u64_stats_sync syncp;
};

/* The buffer a queue is filling. */
struct dxsim_buf {
	netmem_ref netmem;
	unsigned int used;	/* bytes written */
	unsigned int refs;	/* fragments handed out */
};

/* What the receive path learns of a packet's headers. */
struct dxsim_pkt {
	u16 l4off;		/* transport header */
	u16 payoff;		/* payload; 0: no TCP/UDP payload to split */
	u8 l4proto;
	bool v6;
	bool tcp;		/* TCP: the device splits its headers off */
	bool gro_ok;		/* headers HW-GRO can coalesce behind */
	bool split;		/* the payload goes to buffers */
};

/* The HW-GRO session a queue is building, within one NAPI poll. */
struct dxsim_gro {
	struct sk_buff *skb;	/* first segment's headers, all payloads */
	u32 next_seq;		/* the sequence number that continues it */
	u16 segs;
	bool v6;
	bool fixedid;		/* IPv4 ID did not change between segments */
	__be16 first_id;
	u32 wire_bytes;
};

/*
 * What mlx5 calls a channel, as far as the sim has one: a NAPI and the
 * page pool of the RQ it polls. Made anew for every queue start (a
 * restart, a full reopen, the device's open), as mlx5e_open_channel()
 * makes one: a new NAPI from the queue's persistent NAPI config, so the
 * same NAPI id and threaded mode, but a new kthread when threaded.
 */
struct dxsim_chan {
	struct napi_struct napi;
	struct dxsim_rxq *rxq;
	struct page_pool *pool;
	unsigned int buf_size;
};

struct dxsim_rxq {
	struct dxsim_priv *priv;
	unsigned int idx;
	/* the running channel; NULL while stopped (read by the peer's xmit) */
	struct dxsim_chan __rcu *chan;
	/* its NAPI, for the poll (changed only while that NAPI is disabled) */
	struct napi_struct *napi;
	struct sk_buff_head ring;	/* sent by the peer, not yet received */
	struct page_pool *pool;		/* payload buffers; NULL while stopped */
	unsigned int buf_size;
	struct dxsim_buf cur;
	unsigned int resv_left;		/* room in the HW-GRO reservation */
	struct dxsim_gro gro;
	u64 dev_ns;			/* device time of the running poll */
	struct dxsim_rx_stats stats;
};

/* What ndo_queue_mem_alloc builds and ndo_queue_start installs. */
struct dxsim_qmem {
	struct dxsim_chan *chan;
	bool ran;		/* a stopped queue's: it started before */
};

/* An ntuple rule: exact match on the fields it has (steer.c). */
struct dxsim_rule {
	bool used;
	u8 fields;		/* DXSIM_RULE_* it matches on */
	u32 flow_type;		/* TCP_V4_FLOW, UDP_V4_FLOW, TCP_V6_FLOW, UDP_V6_FLOW */
	struct in6_addr src;	/* IPv4: s6_addr32[0] */
	struct in6_addr dst;
	__be16 sport;
	__be16 dport;
	u32 queue;
};

struct dxsim_faults {
	atomic_t fail_queue_start;	/* fail this many starts of new memory */
	atomic_t fail_alloc;		/* fail this many buffer allocations */
	atomic_t drop;			/* drop this many received packets */
	atomic_t fail_reopen;		/* fail this many full reopens, once built */
	atomic_t bad_ref;		/* give back this many net_iovs with a ref too many */
	atomic64_t queue_start_failed;	/* what the knobs did */
	atomic64_t alloc_failed;
	atomic64_t dropped;
	atomic64_t reopen_failed;
	atomic64_t bad_ref_given;
};

struct dxsim_priv {
	struct net_device *dev;
	struct net_device __rcu *peer;
	struct dxsim_rxq *rxq;
	atomic64_t tx_packets, tx_bytes, tx_dropped;
	atomic64_t tx_doorbells;	/* bursts handed to the peer */
	atomic64_t dma_faults;		/* DMA writes that reached no memory */
	atomic64_t dma_remapped;	/* writes whose DMA address was not physical */
	atomic64_t dma_switch_routed;	/* writes a PCIe switch took to a peer */
	/* per TX queue: sent, not yet handed to the peer (see dxsim_xmit) */
	struct sk_buff_head *tx_pend;

	spinlock_t steer_lock;		/* rules and indir, read at xmit */
	struct dxsim_rule rules[DXSIM_MAX_RULES];
	u32 indir[DXSIM_INDIR_SIZE];

	u32 ring_size;
	u8 hds;				/* ETHTOOL_TCP_DATA_SPLIT_* */
	u32 hds_thresh;

	struct dxsim_faults faults;
	struct dentry *debugfs;
};

extern struct device *dxsim_dma_dev;
extern struct iommu_domain *dxsim_iommu;
/* A memory provider (a dma-buf mapped for dxsim_dma_dev) was installed. */
extern bool dxsim_dma_dev_shared;

/* netdev.c */
struct net_device *dxsim_create(const char *name, unsigned int queues);
void dxsim_destroy(struct net_device *dev);
void dxsim_pair(struct net_device *a, struct net_device *b);

/* fabric.c */
void dxsim_fabric_init(void);
void dxsim_fabric_exit(void);
void dxsim_dma_write(struct dxsim_priv *priv, dma_addr_t addr,
		     const struct sk_buff *from, unsigned int off,
		     unsigned int len);

/* rx.c */
int dxsim_poll(struct napi_struct *napi, int budget);
void dxsim_buf_release(struct dxsim_rxq *rxq);
int dxsim_rx_payload(struct dxsim_rxq *rxq, struct sk_buff *skb,
		     const struct sk_buff *from, unsigned int off);
struct sk_buff *dxsim_rx_head(struct dxsim_rxq *rxq, const struct sk_buff *from,
			      unsigned int hlen);
void dxsim_rx_deliver(struct dxsim_rxq *rxq, struct sk_buff *skb);
void dxsim_rx_count(struct dxsim_rxq *rxq, unsigned int len, bool split);
void dxsim_rx_count_drop(struct dxsim_rxq *rxq);
void dxsim_resv_new(struct dxsim_rxq *rxq);

/*
 * Time a guest CPU spends doing what a NIC does in hardware (parse headers,
 * decide HW-GRO, write payload by DMA) or what the sending host does (free
 * what it sent), counted so that benchmarks can take it out of the
 * receiving host's CPU figures. Started with local_clock(); NAPI context
 * only.
 */
static inline void dxsim_dev_time(struct dxsim_rxq *rxq, u64 start)
{
	rxq->dev_ns += local_clock() - start;
}

/* gro.c */
bool dxsim_gro_rx(struct dxsim_rxq *rxq, const struct sk_buff *from,
		  const struct dxsim_pkt *p);
void dxsim_gro_flush(struct dxsim_rxq *rxq);

/* queue.c */
extern const struct netdev_queue_mgmt_ops dxsim_queue_ops;
int dxsim_queues_open(struct net_device *dev);
void dxsim_queues_close(struct net_device *dev);
int dxsim_queues_set_count(struct net_device *dev, unsigned int count);
int dxsim_queues_reopen(struct net_device *dev);

/* ethtool.c */
extern const struct ethtool_ops dxsim_ethtool_ops;
extern const struct netdev_stat_ops dxsim_stat_ops;

/* steer.c */
u32 dxsim_pick_queue(struct dxsim_priv *priv, struct sk_buff *skb);
int dxsim_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc,
		    u32 *locs);
int dxsim_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc);
u32 dxsim_get_rx_ring_count(struct net_device *dev);
u32 dxsim_get_rxfh_indir_size(struct net_device *dev);
int dxsim_get_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p);
int dxsim_set_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p,
		   struct netlink_ext_ack *extack);
void dxsim_steer_set_queues(struct dxsim_priv *priv, unsigned int queues);

/* debugfs.c */
void dxsim_debugfs_init(void);
void dxsim_debugfs_exit(void);
void dxsim_debugfs_add(struct dxsim_priv *priv);

#endif
