// SPDX-License-Identifier: GPL-2.0
/*
 * The receive side: NAPI takes the packets the peer sent, splits headers
 * from payload, and "DMAs" the payload into page pool buffers through their
 * DMA addresses. The payload is never reached through the buffer's netmem:
 * when a memory provider is installed the buffers are not pages at all.
 */
#include <linux/dma-direct.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
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

/* The device's DMA write: dma-direct, so the DMA address is physical. */
static void dxsim_dma_write(dma_addr_t addr, const struct sk_buff *from,
			    unsigned int off, unsigned int len)
{
	phys_addr_t phys = dma_to_phys(dxsim_dma_dev, addr);

	while (len) {
		unsigned int poff = offset_in_page(phys);
		unsigned int n = min_t(unsigned int, len, PAGE_SIZE - poff);
		void *va;

		va = kmap_local_pfn(PHYS_PFN(phys));
		skb_copy_bits(from, off, va + poff, n);
		kunmap_local(va);
		phys += n;
		off += n;
		len -= n;
	}
}

/* Where the payload of a TCP or UDP packet starts; 0 if it cannot be split. */
static unsigned int dxsim_payload_off(const struct sk_buff *skb)
{
	unsigned int off = ETH_HLEN;
	__be16 proto, _proto;
	const __be16 *p;
	u8 l4;

	p = skb_header_pointer(skb, offsetof(struct ethhdr, h_proto),
			       sizeof(_proto), &_proto);
	if (!p)
		return 0;
	proto = *p;
	if (proto == htons(ETH_P_IP)) {
		struct iphdr _iph;
		const struct iphdr *iph;

		iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
		if (!iph || iph->ihl < 5 || ip_is_fragment(iph))
			return 0;
		l4 = iph->protocol;
		off += iph->ihl * 4;
	} else if (proto == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6;
		const struct ipv6hdr *ip6;

		ip6 = skb_header_pointer(skb, off, sizeof(_ip6), &_ip6);
		if (!ip6)
			return 0;
		l4 = ip6->nexthdr;
		off += sizeof(*ip6);
	} else {
		return 0;
	}

	if (l4 == IPPROTO_TCP) {
		struct tcphdr _th;
		const struct tcphdr *th;

		th = skb_header_pointer(skb, off, sizeof(_th), &_th);
		if (!th || th->doff < 5)
			return 0;
		off += th->doff * 4;
	} else if (l4 == IPPROTO_UDP) {
		off += sizeof(struct udphdr);
	} else {
		return 0;
	}
	return off < skb->len ? off : 0;
}

static bool dxsim_split(struct dxsim_rxq *rxq, unsigned int len)
{
	struct dxsim_priv *priv = rxq->priv;

	if (page_pool_is_unreadable(rxq->pool))
		return true;
	return READ_ONCE(priv->hds) == ETHTOOL_TCP_DATA_SPLIT_ENABLED &&
	       len > READ_ONCE(priv->hds_thresh);
}

/* Pack the payload behind what the queue's buffers already hold. */
static int dxsim_rx_payload(struct dxsim_rxq *rxq, struct sk_buff *skb,
			    const struct sk_buff *from, unsigned int off)
{
	struct dxsim_buf *b = &rxq->cur;

	while (off < from->len) {
		unsigned int n;

		if (!b->netmem || b->used == rxq->buf_size) {
			if (dxsim_buf_next(rxq))
				return -ENOMEM;
		}
		if (skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS)
			return -EMSGSIZE;
		n = min(from->len - off, rxq->buf_size - b->used);
		dxsim_dma_write(page_pool_get_dma_addr_netmem(b->netmem) + b->used,
				from, off, n);
		skb_add_rx_frag_netmem(skb, skb_shinfo(skb)->nr_frags, b->netmem,
				       b->used, n, n);
		b->used += n;
		b->refs++;
		off += n;
	}
	return 0;
}

static void dxsim_rx_one(struct dxsim_rxq *rxq, struct sk_buff *from)
{
	struct dxsim_rx_stats *st = &rxq->stats;
	struct dxsim_priv *priv = rxq->priv;
	unsigned int hlen = from->len, split;
	struct sk_buff *skb;
	u64 len = from->len;

	if (atomic_dec_if_positive(&priv->faults.drop) >= 0) {
		atomic64_inc(&priv->faults.dropped);
		u64_stats_update_begin(&st->syncp);
		st->fault_drops++;
		u64_stats_update_end(&st->syncp);
		return;
	}

	split = dxsim_payload_off(from);
	if (split && dxsim_split(rxq, from->len))
		hlen = split;

	skb = napi_alloc_skb(&rxq->napi, hlen);
	if (!skb)
		goto drop;
	skb_copy_bits(from, 0, skb_put(skb, hlen), hlen);
	skb_mark_for_recycle(skb);
	if (hlen < from->len && dxsim_rx_payload(rxq, skb, from, hlen)) {
		kfree_skb(skb);
		goto drop;
	}

	skb->protocol = eth_type_trans(skb, priv->dev);
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_record_rx_queue(skb, rxq->idx);

	u64_stats_update_begin(&st->syncp);
	st->packets++;
	st->bytes += len;
	if (hlen < len) {
		st->split++;
		st->frags += skb_shinfo(skb)->nr_frags;
	}
	u64_stats_update_end(&st->syncp);

	napi_gro_receive(&rxq->napi, skb);
	return;
drop:
	u64_stats_update_begin(&st->syncp);
	st->alloc_fail++;
	u64_stats_update_end(&st->syncp);
}

int dxsim_poll(struct napi_struct *napi, int budget)
{
	struct dxsim_rxq *rxq = container_of(napi, struct dxsim_rxq, napi);
	struct sk_buff *from;
	int done = 0;

	while (done < budget && (from = skb_dequeue(&rxq->ring))) {
		dxsim_rx_one(rxq, from);
		napi_consume_skb(from, budget);
		done++;
	}
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}
