// SPDX-License-Identifier: GPL-2.0
/*
 * HW-GRO, as mlx5 does it with SHAMPO: consecutive in-order TCP segments of
 * one flow that arrive in one NAPI poll become one skb, with the headers of
 * the first segment and the payloads as fragments, written back to back into
 * the queue's buffers so that a payload contiguous with the previous one in
 * the same buffer extends that fragment. The skb leaves with its IP length
 * and GSO fields set as a HW-GRO driver sets them.
 *
 * Unlike mlx5, rx-gro-hw may be turned off while header-data split is on, so
 * that the one-skb-per-packet path can be compared with devmem.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "sim.h"

/* Flags a segment may carry and still join a session; PSH and FIN end it. */
#define DXSIM_GRO_FLAGS		(TCPHDR_ACK | TCPHDR_PSH | TCPHDR_FIN)
#define DXSIM_GRO_END_FLAGS	(TCPHDR_PSH | TCPHDR_FIN)

static struct tcphdr *dxsim_gro_th(const struct sk_buff *skb,
				   const struct dxsim_pkt *p)
{
	return (struct tcphdr *)(skb->data + p->l4off);
}

/* A segment with other flags than these is received on its own. */
static bool dxsim_gro_flags_ok(const struct tcphdr *th)
{
	u8 f = tcp_flag_byte(th);

	return (f & TCPHDR_ACK) && !(f & ~DXSIM_GRO_FLAGS);
}

/* Does the packet (headers in @hdr) continue the session of @skb? */
static bool dxsim_gro_match(const struct dxsim_gro *g, const u8 *hdr,
			    const struct dxsim_pkt *p)
{
	const struct sk_buff *skb = g->skb;
	const struct tcphdr *th = (const void *)(hdr + p->l4off);
	const struct tcphdr *th0 = (const void *)(skb->data + p->l4off);
	const u8 *ip = hdr + ETH_HLEN, *ip0 = skb->data + ETH_HLEN;

	if (p->payoff != skb_headlen(skb) || p->v6 != g->v6 ||
	    memcmp(hdr, skb->data, ETH_HLEN) || ntohl(th->seq) != g->next_seq)
		return false;
	if (p->v6) {
		/* version, class, flow label; next header, hop limit, addresses */
		if (memcmp(ip, ip0, 4) || memcmp(ip + 6, ip0 + 6, 34))
			return false;
	} else {
		/* version, ihl, tos; frag_off, ttl, protocol; addresses */
		if (memcmp(ip, ip0, 2) || memcmp(ip + 6, ip0 + 6, 4) ||
		    memcmp(ip + 12, ip0 + 12, 8))
			return false;
	}
	/* ports; ack; flags but PSH/FIN; the options (timestamps) */
	return !memcmp(th, th0, 4) && th->ack_seq == th0->ack_seq &&
	       !((tcp_flag_byte(th) ^ tcp_flag_byte(th0)) & ~DXSIM_GRO_END_FLAGS) &&
	       !memcmp(th + 1, th0 + 1, th->doff * 4 - sizeof(*th));
}

/* Room for @n more payload bytes: mlx5's rule, and an IP length that fits. */
static bool dxsim_gro_room(const struct dxsim_rxq *rxq,
			   const struct sk_buff *skb, unsigned int n)
{
	unsigned int nr = skb_shinfo(skb)->nr_frags;

	if (nr + DIV_ROUND_UP(n, rxq->buf_size) + 1 > MAX_SKB_FRAGS)
		return false;
	if (skb->len - ETH_HLEN + n > U16_MAX)
		return false;
	return rxq->buf_size >= GRO_LEGACY_MAX_SIZE ||
	       rxq->buf_size * nr + n <= GRO_LEGACY_MAX_SIZE;
}

/* Lengths, checksum start and GSO fields of a coalesced skb. */
static void dxsim_gro_finish(const struct dxsim_gro *g, struct sk_buff *skb)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int l3len = skb->len - ETH_HLEN;
	struct tcphdr *th;

	if (g->v6) {
		struct ipv6hdr *ip6 = (void *)(skb->data + ETH_HLEN);

		ip6->payload_len = htons(l3len - sizeof(*ip6));
		th = (struct tcphdr *)(ip6 + 1);
		th->check = ~tcp_v6_check(l3len - sizeof(*ip6), &ip6->saddr,
					  &ip6->daddr, 0);
		sh->gso_type = SKB_GSO_TCPV6;
	} else {
		struct iphdr *iph = (void *)(skb->data + ETH_HLEN);
		__be16 tot_len = htons(l3len);

		csum_replace2(&iph->check, iph->tot_len, tot_len);
		iph->tot_len = tot_len;
		th = (struct tcphdr *)((u8 *)iph + iph->ihl * 4);
		th->check = ~tcp_v4_check(l3len - iph->ihl * 4, iph->saddr,
					  iph->daddr, 0);
		sh->gso_type = SKB_GSO_TCPV4;
		if (g->fixedid)
			sh->gso_type |= SKB_GSO_TCP_FIXEDID;
	}
	sh->gso_segs = g->segs;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = (unsigned char *)th - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
}

/* Hand the session to the stack; a one-segment session is a plain skb. */
void dxsim_gro_flush(struct dxsim_rxq *rxq)
{
	struct dxsim_rx_stats *st = &rxq->stats;
	struct dxsim_gro *g = &rxq->gro;
	struct sk_buff *skb = g->skb;

	if (!skb)
		return;
	g->skb = NULL;
	if (g->segs > 1) {
		dxsim_gro_finish(g, skb);
		u64_stats_update_begin(&st->syncp);
		st->gro_packets++;
		st->gro_bytes += skb->len;
		st->gro_wire_packets += g->segs;
		st->gro_wire_bytes += g->wire_bytes;
		u64_stats_update_end(&st->syncp);
	} else {
		skb_shinfo(skb)->gso_size = 0;
	}
	dxsim_rx_deliver(rxq, skb);
}

static void dxsim_gro_drop(struct dxsim_rxq *rxq)
{
	kfree_skb(rxq->gro.skb);
	rxq->gro.skb = NULL;
	dxsim_rx_count_drop(rxq);
}

enum dxsim_gro_how { DXSIM_GRO_ALONE, DXSIM_GRO_START, DXSIM_GRO_JOIN };

/* The device's decision: what becomes of @from (headers copied to @hdr). */
static enum dxsim_gro_how dxsim_gro_decide(const struct dxsim_rxq *rxq,
					   const struct sk_buff *from,
					   const struct dxsim_pkt *p, u8 *hdr,
					   unsigned int hdr_size)
{
	const struct dxsim_gro *g = &rxq->gro;

	if (!(rxq->priv->dev->features & NETIF_F_GRO_HW) || !p->split ||
	    !p->gro_ok || p->l4proto != IPPROTO_TCP || p->payoff > hdr_size ||
	    skb_copy_bits(from, 0, hdr, p->payoff) ||
	    !dxsim_gro_flags_ok((const struct tcphdr *)(hdr + p->l4off)))
		return DXSIM_GRO_ALONE;
	if (g->skb && dxsim_gro_match(g, hdr, p) &&
	    dxsim_gro_room(rxq, g->skb, from->len - p->payoff))
		return DXSIM_GRO_JOIN;
	return DXSIM_GRO_START;
}

/*
 * Take @from into the queue's session, or start one with it. False when it
 * is no HW-GRO candidate: the caller receives it on its own, and the session
 * has been flushed before it, as the order of the wire demands.
 */
bool dxsim_gro_rx(struct dxsim_rxq *rxq, const struct sk_buff *from,
		  const struct dxsim_pkt *p)
{
	u8 hdr[ETH_HLEN + sizeof(struct ipv6hdr) + 60];
	unsigned int n = from->len - p->payoff;
	struct dxsim_gro *g = &rxq->gro;
	const struct tcphdr *th = (const void *)(hdr + p->l4off);
	enum dxsim_gro_how how;
	u64 t = local_clock();

	how = dxsim_gro_decide(rxq, from, p, hdr, sizeof(hdr));
	dxsim_dev_time(rxq, t);
	if (how != DXSIM_GRO_JOIN)
		dxsim_gro_flush(rxq);
	if (how == DXSIM_GRO_ALONE)
		return false;

	if (!g->skb) {
		g->skb = dxsim_rx_head(rxq, from, p->payoff);
		if (!g->skb) {
			dxsim_rx_count_drop(rxq);
			return true;
		}
		g->segs = 0;
		g->wire_bytes = 0;
		g->v6 = p->v6;
		g->fixedid = false;
		g->first_id = p->v6 ? 0 : ((struct iphdr *)(hdr + ETH_HLEN))->id;
		skb_shinfo(g->skb)->gso_size = n;
	} else if (g->segs == 1 && !p->v6) {
		g->fixedid = ((struct iphdr *)(hdr + ETH_HLEN))->id == g->first_id;
	}

	if (dxsim_rx_payload(rxq, g->skb, from, p->payoff)) {
		dxsim_gro_drop(rxq);
		return true;
	}
	dxsim_rx_count(rxq, from->len, true);
	g->segs++;
	g->wire_bytes += from->len;
	g->next_seq = ntohl(th->seq) + n;
	if (tcp_flag_byte(th) & DXSIM_GRO_END_FLAGS) {
		/* The last segment's PSH or FIN goes out with the session. */
		tcp_flag_byte(dxsim_gro_th(g->skb, p)) |=
			tcp_flag_byte(th) & DXSIM_GRO_END_FLAGS;
		dxsim_gro_flush(rxq);
	}
	return true;
}
