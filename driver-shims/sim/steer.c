// SPDX-License-Identifier: GPL-2.0
/*
 * Steering: which RX queue of the receiving device takes a packet.
 *
 * ntuple rules come first, in the forms mlx5 takes: flow-type tcp4, tcp6,
 * udp4 or udp6, matching exactly on any of source and destination address
 * and port (full masks only), sending to one queue. The first rule, by
 * location, whose every field matches wins. Anything else is refused with
 * a message naming what the sim cannot match on. Packets no rule takes go
 * through the RSS indirection table, indexed by the packet's hash.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/flow_dissector.h>
#include <net/ipv6.h>

#include "sim.h"

#define DXSIM_RULE_SRC_IP	BIT(0)
#define DXSIM_RULE_DST_IP	BIT(1)
#define DXSIM_RULE_SRC_PORT	BIT(2)
#define DXSIM_RULE_DST_PORT	BIT(3)

static bool dxsim_flow_is_v6(u32 flow_type)
{
	return flow_type == TCP_V6_FLOW || flow_type == UDP_V6_FLOW;
}

/* The rule's flow type of a dissected packet; 0 if no rule can match it. */
static u32 dxsim_keys_flow_type(const struct flow_keys *k)
{
	bool tcp = k->basic.ip_proto == IPPROTO_TCP;

	if (!tcp && k->basic.ip_proto != IPPROTO_UDP)
		return 0;
	if (k->control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS)
		return tcp ? TCP_V4_FLOW : UDP_V4_FLOW;
	if (k->control.addr_type == FLOW_DISSECTOR_KEY_IPV6_ADDRS)
		return tcp ? TCP_V6_FLOW : UDP_V6_FLOW;
	return 0;
}

static bool dxsim_addr_match(const struct dxsim_rule *r,
			     const struct in6_addr *want,
			     const __be32 *v4, const struct in6_addr *v6)
{
	if (dxsim_flow_is_v6(r->flow_type))
		return ipv6_addr_equal(want, v6);
	return want->s6_addr32[0] == *v4;
}

static bool dxsim_rule_match(const struct dxsim_rule *r, u32 flow_type,
			     const struct flow_keys *k)
{
	const struct flow_dissector_key_ipv4_addrs *a4 = &k->addrs.v4addrs;
	const struct flow_dissector_key_ipv6_addrs *a6 = &k->addrs.v6addrs;

	if (!r->used || r->flow_type != flow_type)
		return false;
	if ((r->fields & DXSIM_RULE_SRC_IP) &&
	    !dxsim_addr_match(r, &r->src, &a4->src, &a6->src))
		return false;
	if ((r->fields & DXSIM_RULE_DST_IP) &&
	    !dxsim_addr_match(r, &r->dst, &a4->dst, &a6->dst))
		return false;
	if ((r->fields & DXSIM_RULE_SRC_PORT) && r->sport != k->ports.src)
		return false;
	if ((r->fields & DXSIM_RULE_DST_PORT) && r->dport != k->ports.dst)
		return false;
	return true;
}

/* The queue of the first rule the packet matches; U32_MAX if none. */
static u32 dxsim_rules_pick(struct dxsim_priv *priv, struct sk_buff *skb)
{
	struct flow_keys keys;
	u32 q = U32_MAX, flow_type;
	unsigned int i;

	if (!skb_flow_dissect_flow_keys(skb, &keys, 0))
		return q;
	flow_type = dxsim_keys_flow_type(&keys);
	if (!flow_type)
		return q;
	spin_lock(&priv->steer_lock);
	for (i = 0; i < DXSIM_MAX_RULES; i++) {
		if (dxsim_rule_match(&priv->rules[i], flow_type, &keys)) {
			q = priv->rules[i].queue;
			break;
		}
	}
	spin_unlock(&priv->steer_lock);
	return q;
}

u32 dxsim_pick_queue(struct dxsim_priv *priv, struct sk_buff *skb)
{
	struct net_device *dev = priv->dev;
	u32 q = U32_MAX;

	if (dev->features & NETIF_F_NTUPLE)
		q = dxsim_rules_pick(priv, skb);
	if (q == U32_MAX)
		q = READ_ONCE(priv->indir[skb_get_hash(skb) % DXSIM_INDIR_SIZE]);
	/* Only while the queue count changes can either point past it. */
	return q < READ_ONCE(dev->real_num_rx_queues) ? q : 0;
}

/* ---- ethtool -N / -n ---------------------------------------------------- */

static void dxsim_put_addr(bool v6, __be32 *h, __be32 *m,
			   const struct in6_addr *a)
{
	unsigned int i, n = v6 ? 4 : 1;

	for (i = 0; i < n; i++) {
		h[i] = a->s6_addr32[i];
		m[i] = htonl(0xffffffff);
	}
}

static void dxsim_put_port(__be16 *h, __be16 *m, __be16 port)
{
	*h = port;
	*m = htons(0xffff);
}

static void dxsim_rule_to_fs(const struct dxsim_rule *r,
			     struct ethtool_rx_flow_spec *fs)
{
	bool v6 = dxsim_flow_is_v6(r->flow_type);
	struct ethtool_tcpip6_spec *h6 = &fs->h_u.tcp_ip6_spec;
	struct ethtool_tcpip6_spec *m6 = &fs->m_u.tcp_ip6_spec;
	struct ethtool_tcpip4_spec *h4 = &fs->h_u.tcp_ip4_spec;
	struct ethtool_tcpip4_spec *m4 = &fs->m_u.tcp_ip4_spec;

	memset(&fs->h_u, 0, sizeof(fs->h_u));
	memset(&fs->m_u, 0, sizeof(fs->m_u));
	memset(&fs->h_ext, 0, sizeof(fs->h_ext));
	memset(&fs->m_ext, 0, sizeof(fs->m_ext));
	fs->flow_type = r->flow_type;
	fs->ring_cookie = r->queue;
	if (r->fields & DXSIM_RULE_SRC_IP)
		dxsim_put_addr(v6, v6 ? h6->ip6src : &h4->ip4src,
			       v6 ? m6->ip6src : &m4->ip4src, &r->src);
	if (r->fields & DXSIM_RULE_DST_IP)
		dxsim_put_addr(v6, v6 ? h6->ip6dst : &h4->ip4dst,
			       v6 ? m6->ip6dst : &m4->ip4dst, &r->dst);
	if (r->fields & DXSIM_RULE_SRC_PORT)
		dxsim_put_port(v6 ? &h6->psrc : &h4->psrc,
			       v6 ? &m6->psrc : &m4->psrc, r->sport);
	if (r->fields & DXSIM_RULE_DST_PORT)
		dxsim_put_port(v6 ? &h6->pdst : &h4->pdst,
			       v6 ? &m6->pdst : &m4->pdst, r->dport);
}

static int dxsim_rule_locs(struct dxsim_priv *priv, struct ethtool_rxnfc *nfc,
			   u32 *locs)
{
	unsigned int i, n = 0;

	for (i = 0; i < DXSIM_MAX_RULES; i++) {
		if (!priv->rules[i].used)
			continue;
		if (locs) {
			if (n == nfc->rule_cnt)
				return -EMSGSIZE;
			locs[n] = i;
		}
		n++;
	}
	nfc->rule_cnt = n;
	nfc->data = DXSIM_MAX_RULES;
	return 0;
}

int dxsim_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc,
		    u32 *locs)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	u32 loc = nfc->fs.location;
	int err = 0;

	spin_lock_bh(&priv->steer_lock);
	switch (nfc->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
		dxsim_rule_locs(priv, nfc, NULL);
		/* The driver picks a location when asked for RX_CLS_LOC_ANY. */
		nfc->data |= RX_CLS_LOC_SPECIAL;
		break;
	case ETHTOOL_GRXCLSRLALL:
		err = dxsim_rule_locs(priv, nfc, locs);
		break;
	case ETHTOOL_GRXCLSRULE:
		if (loc >= DXSIM_MAX_RULES || !priv->rules[loc].used)
			err = -ENOENT;
		else
			dxsim_rule_to_fs(&priv->rules[loc], &nfc->fs);
		break;
	default:
		err = -EOPNOTSUPP;
	}
	spin_unlock_bh(&priv->steer_lock);
	return err;
}

/*
 * One field of a rule: a zero mask leaves it out, a full mask matches it
 * exactly. ethtool sends a full mask for a field given without "m".
 */
static int dxsim_take_field(struct net_device *dev, const char *name,
			    const void *mask, size_t len, u8 bit, u8 *fields)
{
	if (!memchr_inv(mask, 0, len))
		return 0;
	if (memchr_inv(mask, 0xff, len)) {
		netdev_err(dev, "ntuple: %s takes no mask (exact match only)\n",
			   name);
		return -EOPNOTSUPP;
	}
	*fields |= bit;
	return 0;
}

static int dxsim_unsupported(struct net_device *dev, const char *name)
{
	netdev_err(dev, "ntuple: %s is not supported\n", name);
	return -EOPNOTSUPP;
}

static int dxsim_parse_ip4(struct net_device *dev,
			   const struct ethtool_rx_flow_spec *fs,
			   struct dxsim_rule *r)
{
	const struct ethtool_tcpip4_spec *h = &fs->h_u.tcp_ip4_spec;
	const struct ethtool_tcpip4_spec *m = &fs->m_u.tcp_ip4_spec;
	int err;

	if (m->tos)
		return dxsim_unsupported(dev, "tos");
	err = dxsim_take_field(dev, "src-ip", &m->ip4src, sizeof(m->ip4src),
			       DXSIM_RULE_SRC_IP, &r->fields);
	err = err ?: dxsim_take_field(dev, "dst-ip", &m->ip4dst,
				      sizeof(m->ip4dst), DXSIM_RULE_DST_IP,
				      &r->fields);
	err = err ?: dxsim_take_field(dev, "src-port", &m->psrc,
				      sizeof(m->psrc), DXSIM_RULE_SRC_PORT,
				      &r->fields);
	err = err ?: dxsim_take_field(dev, "dst-port", &m->pdst,
				      sizeof(m->pdst), DXSIM_RULE_DST_PORT,
				      &r->fields);
	r->src.s6_addr32[0] = h->ip4src;
	r->dst.s6_addr32[0] = h->ip4dst;
	r->sport = h->psrc;
	r->dport = h->pdst;
	return err;
}

static int dxsim_parse_ip6(struct net_device *dev,
			   const struct ethtool_rx_flow_spec *fs,
			   struct dxsim_rule *r)
{
	const struct ethtool_tcpip6_spec *h = &fs->h_u.tcp_ip6_spec;
	const struct ethtool_tcpip6_spec *m = &fs->m_u.tcp_ip6_spec;
	int err;

	if (m->tclass)
		return dxsim_unsupported(dev, "tclass");
	err = dxsim_take_field(dev, "src-ip", m->ip6src, sizeof(m->ip6src),
			       DXSIM_RULE_SRC_IP, &r->fields);
	err = err ?: dxsim_take_field(dev, "dst-ip", m->ip6dst,
				      sizeof(m->ip6dst), DXSIM_RULE_DST_IP,
				      &r->fields);
	err = err ?: dxsim_take_field(dev, "src-port", &m->psrc,
				      sizeof(m->psrc), DXSIM_RULE_SRC_PORT,
				      &r->fields);
	err = err ?: dxsim_take_field(dev, "dst-port", &m->pdst,
				      sizeof(m->pdst), DXSIM_RULE_DST_PORT,
				      &r->fields);
	memcpy(&r->src, h->ip6src, sizeof(r->src));
	memcpy(&r->dst, h->ip6dst, sizeof(r->dst));
	r->sport = h->psrc;
	r->dport = h->pdst;
	return err;
}

/* The flow-type names ethtool takes, for the refusal message. */
static const char *dxsim_flow_name(u32 flow_type)
{
	switch (flow_type) {
	case ETHER_FLOW:	return "ether";
	case IPV4_USER_FLOW:	return "ip4";
	case IPV6_USER_FLOW:	return "ip6";
	case SCTP_V4_FLOW:	return "sctp4";
	case SCTP_V6_FLOW:	return "sctp6";
	case AH_V4_FLOW:	return "ah4";
	case AH_V6_FLOW:	return "ah6";
	case ESP_V4_FLOW:	return "esp4";
	case ESP_V6_FLOW:	return "esp6";
	default:		return NULL;
	}
}

/* What ethtool puts beside the flow: vlan, user-def, dst-mac, context. */
static int dxsim_check_ext(struct net_device *dev,
			   const struct ethtool_rx_flow_spec *fs)
{
	const struct ethtool_flow_ext *m = &fs->m_ext;

	if (fs->flow_type & FLOW_RSS)
		return dxsim_unsupported(dev, "an RSS context");
	if (fs->flow_type & FLOW_EXT) {
		if (m->vlan_etype)
			return dxsim_unsupported(dev, "vlan-etype");
		if (m->vlan_tci)
			return dxsim_unsupported(dev, "vlan");
		if (m->data[0] || m->data[1])
			return dxsim_unsupported(dev, "user-def");
	}
	if ((fs->flow_type & FLOW_MAC_EXT) && !is_zero_ether_addr(m->h_dest))
		return dxsim_unsupported(dev, "dst-mac");
	return 0;
}

static int dxsim_check_action(struct net_device *dev, u64 cookie)
{
	u32 queues = dev->real_num_rx_queues;

	if (cookie == RX_CLS_FLOW_DISC)
		return dxsim_unsupported(dev, "action -1 (drop)");
	if (cookie == RX_CLS_FLOW_WAKE)
		return dxsim_unsupported(dev, "action -2 (wake)");
	if (ethtool_get_flow_spec_ring_vf(cookie))
		return dxsim_unsupported(dev, "a VF queue");
	if (cookie >= queues) {
		netdev_err(dev, "ntuple: queue %llu is out of range: the device has queues 0-%u\n",
			   cookie, queues - 1);
		return -EINVAL;
	}
	return 0;
}

static int dxsim_fs_to_rule(struct net_device *dev,
			    const struct ethtool_rx_flow_spec *fs,
			    struct dxsim_rule *r)
{
	u32 flow_type = fs->flow_type & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS);
	int err;

	memset(r, 0, sizeof(*r));
	err = dxsim_check_ext(dev, fs);
	if (err)
		return err;
	switch (flow_type) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		err = dxsim_parse_ip4(dev, fs, r);
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		err = dxsim_parse_ip6(dev, fs, r);
		break;
	default:
		if (dxsim_flow_name(flow_type))
			netdev_err(dev, "ntuple: flow-type %s is not supported (tcp4, tcp6, udp4, udp6 are)\n",
				   dxsim_flow_name(flow_type));
		else
			netdev_err(dev, "ntuple: flow-type 0x%x is not supported (tcp4, tcp6, udp4, udp6 are)\n",
				   flow_type);
		return -EOPNOTSUPP;
	}
	err = err ?: dxsim_check_action(dev, fs->ring_cookie);
	if (err)
		return err;
	r->used = true;
	r->flow_type = flow_type;
	r->queue = fs->ring_cookie;
	return 0;
}

static int dxsim_rule_insert(struct net_device *dev,
			     struct ethtool_rx_flow_spec *fs)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	struct dxsim_rule rule;
	u32 loc = fs->location;
	int err;

	if (loc != RX_CLS_LOC_ANY && loc >= DXSIM_MAX_RULES) {
		netdev_err(dev, "ntuple: loc %u is out of range: rules go in 0-%u\n",
			   loc, DXSIM_MAX_RULES - 1);
		return -EINVAL;
	}
	err = dxsim_fs_to_rule(dev, fs, &rule);
	if (err)
		return err;
	spin_lock_bh(&priv->steer_lock);
	if (loc == RX_CLS_LOC_ANY) {
		for (loc = 0; loc < DXSIM_MAX_RULES; loc++)
			if (!priv->rules[loc].used)
				break;
	}
	if (loc < DXSIM_MAX_RULES) {
		priv->rules[loc] = rule;
		fs->location = loc;
	}
	spin_unlock_bh(&priv->steer_lock);
	if (loc == DXSIM_MAX_RULES) {
		netdev_err(dev, "ntuple: all %u rules are in use: delete one first\n",
			   DXSIM_MAX_RULES);
		return -ENOSPC;
	}
	return 0;
}

static int dxsim_rule_delete(struct net_device *dev, u32 loc)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	int err = 0;

	spin_lock_bh(&priv->steer_lock);
	if (loc >= DXSIM_MAX_RULES || !priv->rules[loc].used)
		err = -ENOENT;
	else
		priv->rules[loc].used = false;
	spin_unlock_bh(&priv->steer_lock);
	return err;
}

int dxsim_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc)
{
	switch (nfc->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		return dxsim_rule_insert(dev, &nfc->fs);
	case ETHTOOL_SRXCLSRLDEL:
		return dxsim_rule_delete(dev, nfc->fs.location);
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- RSS: ethtool -X / -x ----------------------------------------------- */

u32 dxsim_get_rx_ring_count(struct net_device *dev)
{
	return dev->real_num_rx_queues;
}

u32 dxsim_get_rxfh_indir_size(struct net_device *dev)
{
	return DXSIM_INDIR_SIZE;
}

int dxsim_get_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p)
{
	struct dxsim_priv *priv = netdev_priv(dev);
	unsigned int i;

	p->hfunc = ETH_RSS_HASH_TOP;
	if (p->indir)
		for (i = 0; i < DXSIM_INDIR_SIZE; i++)
			p->indir[i] = READ_ONCE(priv->indir[i]);
	return 0;
}

int dxsim_set_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p,
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

/*
 * The queue count changes to @queues. The core has refused the change if
 * a rule or a table the user set points at a queue that goes away, so the
 * rules stay; a table the user never set spreads over the new count.
 */
void dxsim_steer_set_queues(struct dxsim_priv *priv, unsigned int queues)
{
	unsigned int i;

	if (netif_is_rxfh_configured(priv->dev))
		return;
	for (i = 0; i < DXSIM_INDIR_SIZE; i++)
		WRITE_ONCE(priv->indir[i], ethtool_rxfh_indir_default(i, queues));
}
