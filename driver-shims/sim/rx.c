// SPDX-License-Identifier: GPL-2.0
/*
 * The receive side: NAPI takes the packets the peer sent, splits headers
 * from payload, and "DMAs" the payload into page pool buffers through their
 * DMA addresses. The payload is never reached through the buffer's netmem:
 * when a memory provider is installed the buffers are not pages at all.
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/page_pool/helpers.h>

#include "sim.h"

/* References taken on a fresh buffer: more than it can ever have fragments. */
static long dxsim_bias(const struct dxsim_rxq *rxq)
{
	return rxq->buf_size + 1;
}

/* Give back the references the current buffer did not hand out. */
void dxsim_buf_release(struct dxsim_rxq *rxq)
{
	struct dxsim_buf *b = &rxq->cur;

	if (!b->netmem)
		return;
	if (!page_pool_unref_netmem(b->netmem, dxsim_bias(rxq) - b->refs))
		page_pool_put_unrefed_netmem(rxq->pool, b->netmem, -1, false);
	memset(b, 0, sizeof(*b));
}

static int dxsim_buf_next(struct dxsim_rxq *rxq)
{
	struct dxsim_faults *f = &rxq->priv->faults;
	netmem_ref netmem;

	dxsim_buf_release(rxq);
	if (atomic_dec_if_positive(&f->fail_alloc) >= 0) {
		atomic64_inc(&f->alloc_failed);
		return -ENOMEM;
	}
	netmem = page_pool_alloc_netmems(rxq->pool, GFP_ATOMIC | __GFP_NOWARN);
	if (!netmem)
		return -ENOMEM;
	page_pool_fragment_netmem(netmem, dxsim_bias(rxq));
	rxq->cur.netmem = netmem;
	return 0;
}

/*
 * Where the headers end (@p->payoff, 0 if the packet cannot be split), and
 * whether the packet is plain enough for HW-GRO: TCP straight after an
 * IPv4 header without options or an IPv6 header, not a fragment, no padding.
 */
static void dxsim_parse(const struct sk_buff *skb, struct dxsim_pkt *p)
{
	unsigned int off = ETH_HLEN, l3len;
	__be16 proto, _proto;
	const __be16 *pp;

	memset(p, 0, sizeof(*p));
	pp = skb_header_pointer(skb, offsetof(struct ethhdr, h_proto),
				sizeof(_proto), &_proto);
	if (!pp)
		return;
	proto = *pp;
	if (proto == htons(ETH_P_IP)) {
		struct iphdr _iph;
		const struct iphdr *iph;

		iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
		if (!iph || iph->ihl < 5 || ip_is_fragment(iph))
			return;
		p->l4proto = iph->protocol;
		l3len = ntohs(iph->tot_len);
		p->gro_ok = iph->ihl == 5;
		off += iph->ihl * 4;
	} else if (proto == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6;
		const struct ipv6hdr *ip6;

		ip6 = skb_header_pointer(skb, off, sizeof(_ip6), &_ip6);
		if (!ip6)
			return;
		p->l4proto = ip6->nexthdr;
		l3len = sizeof(*ip6) + ntohs(ip6->payload_len);
		p->gro_ok = true;
		p->v6 = true;
		off += sizeof(*ip6);
	} else {
		return;
	}
	p->gro_ok &= l3len == skb->len - ETH_HLEN;
	p->l4off = off;

	if (p->l4proto == IPPROTO_TCP) {
		struct tcphdr _th;
		const struct tcphdr *th;

		th = skb_header_pointer(skb, off, sizeof(_th), &_th);
		if (!th || th->doff < 5)
			return;
		off += th->doff * 4;
		p->tcp = off <= skb->len;
	} else if (p->l4proto == IPPROTO_UDP) {
		off += sizeof(struct udphdr);
	} else {
		return;
	}
	if (off < skb->len)
		p->payoff = off;
}

static bool dxsim_split(struct dxsim_rxq *rxq, unsigned int len)
{
	struct dxsim_priv *priv = rxq->priv;

	if (page_pool_is_unreadable(rxq->pool))
		return true;
	return READ_ONCE(priv->hds) == ETHTOOL_TCP_DATA_SPLIT_ENABLED &&
	       len > READ_ONCE(priv->hds_thresh);
}

/*
 * With HW-GRO the device places payload in 64K reservations, as mlx5 does
 * with SHAMPO: each session gets a fresh one, aligned (a 64K boundary in a
 * buffer, or the next buffer when buffers are smaller), and what it leaves
 * unused stays so (mlx5's filler CQE). A session never spans two: one that
 * outgrows its reservation ends (dxsim_gro_rx()). So with 64K buffers one
 * fragment carries a whole session.
 */
void dxsim_resv_new(struct dxsim_rxq *rxq)
{
	struct dxsim_buf *b = &rxq->cur;

	if (rxq->resv_left == DXSIM_RESV_SIZE)
		return;
	if (b->netmem)
		b->used = round_up(b->used, min_t(unsigned int, DXSIM_RESV_SIZE,
						  rxq->buf_size));
	rxq->resv_left = DXSIM_RESV_SIZE;
}

static void dxsim_resv_take(struct dxsim_rxq *rxq, unsigned int n)
{
	if (n > rxq->resv_left)
		dxsim_resv_new(rxq);
	rxq->resv_left -= min(n, rxq->resv_left);
}

/*
 * Pack the payload behind what the queue's buffers already hold. A piece
 * that continues the skb's last fragment in the same buffer extends it, as
 * mlx5e_add_skb_frag() does; fragments never cross a buffer.
 */
int dxsim_rx_payload(struct dxsim_rxq *rxq, struct sk_buff *skb,
		     const struct sk_buff *from, unsigned int off)
{
	struct dxsim_buf *b = &rxq->cur;

	if (rxq->priv->dev->features & NETIF_F_GRO_HW)
		dxsim_resv_take(rxq, from->len - off);
	while (off < from->len) {
		unsigned int n, nr = skb_shinfo(skb)->nr_frags;
		u64 t;

		if (!b->netmem || b->used == rxq->buf_size) {
			if (dxsim_buf_next(rxq))
				return -ENOMEM;
		}
		n = min(from->len - off, rxq->buf_size - b->used);
		if (skb_can_coalesce_netmem(skb, nr, b->netmem, b->used)) {
			skb_coalesce_rx_frag(skb, nr - 1, n, n);
		} else {
			if (nr == MAX_SKB_FRAGS)
				return -EMSGSIZE;
			skb_add_rx_frag_netmem(skb, nr, b->netmem, b->used, n, n);
			b->refs++;
		}
		t = local_clock();
		dxsim_dma_write(rxq->priv,
				page_pool_get_dma_addr_netmem(b->netmem) + b->used,
				from, off, n);
		dxsim_dev_time(rxq, t);
		b->used += n;
		off += n;
	}
	return 0;
}

/* A new skb holding the first @hlen bytes of @from: its headers, or all. */
struct sk_buff *dxsim_rx_head(struct dxsim_rxq *rxq, const struct sk_buff *from,
			      unsigned int hlen)
{
	struct sk_buff *skb = napi_alloc_skb(rxq->napi, hlen);

	if (!skb)
		return NULL;
	skb_copy_bits(from, 0, skb_put(skb, hlen), hlen);
	skb_mark_for_recycle(skb);
	return skb;
}

/* A packet received: @split when its payload went to buffers. */
void dxsim_rx_count(struct dxsim_rxq *rxq, unsigned int len, bool split)
{
	struct dxsim_rx_stats *st = &rxq->stats;

	u64_stats_update_begin(&st->syncp);
	st->packets++;
	st->bytes += len;
	st->split += split;
	u64_stats_update_end(&st->syncp);
}

void dxsim_rx_count_drop(struct dxsim_rxq *rxq)
{
	u64_stats_update_begin(&rxq->stats.syncp);
	rxq->stats.alloc_fail++;
	u64_stats_update_end(&rxq->stats.syncp);
}

/* To the stack: an skb whose headers start with the Ethernet header. */
void dxsim_rx_deliver(struct dxsim_rxq *rxq, struct sk_buff *skb)
{
	struct dxsim_rx_stats *st = &rxq->stats;

	skb->protocol = eth_type_trans(skb, rxq->priv->dev);
	if (skb->ip_summed == CHECKSUM_NONE)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_record_rx_queue(skb, rxq->idx);
	if (skb_shinfo(skb)->nr_frags) {
		u64_stats_update_begin(&st->syncp);
		st->frags += skb_shinfo(skb)->nr_frags;
		u64_stats_update_end(&st->syncp);
	}
	napi_gro_receive(rxq->napi, skb);
}

/* One packet the peer sent: split it, and coalesce it or receive it alone. */
static void dxsim_rx_one(struct dxsim_rxq *rxq, struct sk_buff *from)
{
	struct dxsim_rx_stats *st = &rxq->stats;
	struct dxsim_priv *priv = rxq->priv;
	unsigned int hlen = from->len;
	struct sk_buff *skb;
	struct dxsim_pkt p;
	u64 t;

	if (atomic_dec_if_positive(&priv->faults.drop) >= 0) {
		atomic64_inc(&priv->faults.dropped);
		u64_stats_update_begin(&st->syncp);
		st->fault_drops++;
		u64_stats_update_end(&st->syncp);
		return;
	}

	t = local_clock();
	dxsim_parse(from, &p);
	p.split = p.payoff && dxsim_split(rxq, from->len);
	dxsim_dev_time(rxq, t);
	/*
	 * SHAMPO splits the headers of TCP only; anything else lands whole in
	 * a data buffer, and where that is a net_iov mlx5 drops it, uncounted,
	 * so that the kernel never reads it (mlx5e_handle_rx_cqe_mpwrq_shampo).
	 */
	if (!p.tcp && page_pool_is_unreadable(rxq->pool)) {
		u64_stats_update_begin(&st->syncp);
		st->nosplit_drops++;
		u64_stats_update_end(&st->syncp);
		return;
	}
	if (dxsim_gro_rx(rxq, from, &p))
		return;

	if (p.split)
		hlen = p.payoff;
	skb = dxsim_rx_head(rxq, from, hlen);
	if (!skb)
		goto drop;
	if (hlen < from->len && dxsim_rx_payload(rxq, skb, from, hlen)) {
		kfree_skb(skb);
		goto drop;
	}
	dxsim_rx_count(rxq, from->len, hlen < from->len);
	dxsim_rx_deliver(rxq, skb);
	return;
drop:
	dxsim_rx_count_drop(rxq);
}

int dxsim_poll(struct napi_struct *napi, int budget)
{
	struct dxsim_rxq *rxq = container_of(napi, struct dxsim_chan, napi)->rxq;
	struct sk_buff *from;
	int done = 0;
	u64 t;

	while (done < budget && (from = skb_dequeue(&rxq->ring))) {
		dxsim_rx_one(rxq, from);
		/* The peer's TX completion: its work, not this host's. */
		t = local_clock();
		napi_consume_skb(from, budget);
		dxsim_dev_time(rxq, t);
		done++;
	}
	/* A session never outlives the poll that built it. */
	u64_stats_update_begin(&rxq->stats.syncp);
	rxq->stats.gro_poll_ends += !!rxq->gro.skb;
	u64_stats_update_end(&rxq->stats.syncp);
	dxsim_gro_flush(rxq);
	u64_stats_update_begin(&rxq->stats.syncp);
	rxq->stats.device_ns += rxq->dev_ns;
	u64_stats_update_end(&rxq->stats.syncp);
	rxq->dev_ns = 0;
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}
