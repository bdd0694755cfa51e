// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device policies (doc/policy.md). While a device has one, the
 * kernel's netdev bind-rx for it (and for the queues it lists) is served
 * by devmemx at the policy's niov size (polhook.c). A policy belongs to
 * the network namespace it was set in, and ends with POLICY-DEL, with its
 * device (gone, or moved to another namespace) and with the namespace.
 * Each holds a module reference. The first one hooks the kernel's doit;
 * after the last one ends, polhook.c's work unhooks it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "devmemx.h"
#include "generated/netlink.h"

/*
 * Read under RCU (the thunk) or devmemx_pol_lock; written under the lock.
 * Lock order: devmemx_polhook_lock, then rtnl or a device's lock (whoever
 * holds them), then devmemx_pol_lock, then devmemx_mutex. polhook.c's body
 * never holds a device's lock and devmemx_pol_lock at once.
 */
static LIST_HEAD(devmemx_policies);
DEFINE_MUTEX(devmemx_pol_lock);	/* the list's writers, and its readers but the thunk */

/*
 * @net's policy for device @ifindex; under RCU or devmemx_pol_lock. notrace,
 * as what polhook.c's thunk calls.
 */
struct devmemx_policy *notrace devmemx_policy_find(const struct net *net,
						   int ifindex)
{
	struct devmemx_policy *p;

	list_for_each_entry_rcu(p, &devmemx_policies, node,
				lockdep_is_held(&devmemx_pol_lock))
		if (p->ifindex == ifindex && p->net_cookie == net->net_cookie)
			return p;
	return NULL;
}

/* Whether any policy exists (polhook.c's work, under its lock). */
bool devmemx_policy_any(void)
{
	return !list_empty_careful(&devmemx_policies);
}

/* Whether @p covers queue @q. */
bool notrace devmemx_policy_covers(const struct devmemx_policy *p, u32 q)
{
	unsigned int i;

	if (!p->n)
		return true;
	for (i = 0; i < p->n; i++)
		if (p->q[i] == q)
			return true;
	return false;
}

/* Under devmemx_pol_lock. */
static void devmemx_policy_free(struct devmemx_policy *p)
{
	list_del_rcu(&p->node);
	kfree_rcu(p, rcu);
	if (list_empty(&devmemx_policies))
		devmemx_polhook_idle();
	module_put(THIS_MODULE);
}

/* Live bindings made under @net's policy for @ifindex. */
static u32 devmemx_policy_bindings(const struct net *net, int ifindex)
{
	struct devmemx_binding *b;
	u32 n = 0;

	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node) {
		mutex_lock(&b->lock);
		if (b->policy && !b->unbound && b->dev &&
		    b->dev->ifindex == ifindex &&
		    devmemx_binding_made_in(b, net))
			n++;
		mutex_unlock(&b->lock);
	}
	mutex_unlock(&devmemx_mutex);
	return n;
}

/*
 * What POLICY-SET asks for, checked against the device as it is now with
 * check.c's checks (what may change, up or down, HDS, XDP, is the bind's
 * to check).
 */
static int devmemx_policy_check(struct genl_info *info, struct net_device *dev,
				struct devmemx_policy *p)
{
	unsigned int i;
	int err;

	if (!is_power_of_2(p->size) || p->size < PAGE_SIZE) {
		NL_SET_ERR_MSG_ATTR_FMT(info->extack,
					info->attrs[DEVMEMX_A_POLICY_RX_BUF_SIZE],
					"rx-buf-size %u: must be a power of two of at least %lu",
					p->size, PAGE_SIZE);
		return -EINVAL;
	}
	/*
	 * A virtual device (netkit) binds only the queues it leases, whose
	 * physical device takes the size or not at the bind (lease.c).
	 */
	err = devmemx_check_qops(dev, info->extack) ?:
	      (dev->dev.parent ?
	       devmemx_check_rx_page_size(dev, p->size, info->extack) : 0);
	for (i = 0; !err && i < p->n; i++)
		err = devmemx_check_queue_range(dev, p->q[i], info->extack);
	return err;
}

int devmemx_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct devmemx_policy *p, *old;
	netdevice_tracker tracker;
	struct net_device *dev;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_POLICY_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_POLICY_RX_BUF_SIZE))
		return -EINVAL;
	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->ifindex = nla_get_u32(info->attrs[DEVMEMX_A_POLICY_IFINDEX]);
	p->size = nla_get_u32(info->attrs[DEVMEMX_A_POLICY_RX_BUF_SIZE]);
	p->net_cookie = net->net_cookie;
	err = devmemx_nl_queues(info, DEVMEMX_A_POLICY_QUEUES, p->q, &p->n);
	if (err)
		goto out_free;
	dev = netdev_get_by_index(net, p->ifindex, &tracker, GFP_KERNEL);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DEVMEMX_A_POLICY_IFINDEX],
				    "no such device in this network namespace");
		err = -ENODEV;
		goto out_free;
	}
	err = devmemx_policy_check(info, dev, p);
	if (err)
		goto out_put;
	/*
	 * Requests run without a module reference: rmmod may be waiting for
	 * this one to end, and a policy made now would outlive the module.
	 */
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(info->extack, "devmemx is being unloaded");
		err = -ENODEV;
		goto out_put;
	}
	/*
	 * The hook and the policy under the hook's lock: polhook.c's work
	 * cannot find no policy and unhook in between.
	 */
	mutex_lock(&devmemx_polhook_lock);
	err = devmemx_polhook_on(info->extack);
	if (err) {
		mutex_unlock(&devmemx_polhook_lock);
		module_put(THIS_MODULE);
		goto out_put;
	}
	mutex_lock(&devmemx_pol_lock);
	/*
	 * Unregistering, or a move, takes the device out of its namespace's
	 * index before the notifier runs (devmemx_policy_dev_gone(), which
	 * takes this lock): a device still indexed here sees its end later.
	 */
	rcu_read_lock();
	if (dev_get_by_index_rcu(net, p->ifindex) != dev) {
		rcu_read_unlock();
		mutex_unlock(&devmemx_pol_lock);
		mutex_unlock(&devmemx_polhook_lock);
		devmemx_polhook_idle();	/* hooked for nothing, maybe */
		module_put(THIS_MODULE);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DEVMEMX_A_POLICY_IFINDEX],
				    "the device left this network namespace");
		err = -ENODEV;
		goto out_put;
	}
	rcu_read_unlock();
	old = devmemx_policy_find(net, p->ifindex);
	list_add_tail_rcu(&p->node, &devmemx_policies);
	if (old)
		devmemx_policy_free(old);
	mutex_unlock(&devmemx_pol_lock);
	mutex_unlock(&devmemx_polhook_lock);
	netdev_put(dev, &tracker);
	return 0;

out_put:
	netdev_put(dev, &tracker);
out_free:
	kfree(p);
	return err;
}

int devmemx_nl_policy_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct devmemx_policy *p;
	struct sk_buff *rsp;
	void *hdr;
	int ifindex;

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_POLICY_IFINDEX))
		return -EINVAL;
	ifindex = nla_get_u32(info->attrs[DEVMEMX_A_POLICY_IFINDEX]);
	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	mutex_lock(&devmemx_pol_lock);
	p = devmemx_policy_find(net, ifindex);
	if (p)
		devmemx_policy_free(p);
	mutex_unlock(&devmemx_pol_lock);
	if (!p) {
		nlmsg_free(rsp);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DEVMEMX_A_POLICY_IFINDEX],
				    "no policy on this device");
		return -ENOENT;
	}
	hdr = genlmsg_iput(rsp, info);
	if (!hdr || nla_put_u32(rsp, DEVMEMX_A_POLICY_BINDINGS,
				devmemx_policy_bindings(net, ifindex))) {
		nlmsg_free(rsp);
		return -EMSGSIZE;
	}
	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);
}

static int devmemx_policy_fill(struct sk_buff *rsp, const struct devmemx_policy *p,
			       const struct net *net, u32 portid, u32 seq, int flags)
{
	struct nlattr *nest;
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(rsp, portid, seq, &devmemx_nl_family, flags,
			  DEVMEMX_CMD_POLICY_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(rsp, DEVMEMX_A_POLICY_IFINDEX, p->ifindex) ||
	    nla_put_u32(rsp, DEVMEMX_A_POLICY_RX_BUF_SIZE, p->size))
		goto err;
	for (i = 0; i < p->n; i++) {
		nest = nla_nest_start(rsp, DEVMEMX_A_POLICY_QUEUES);
		if (!nest || nla_put_u32(rsp, DEVMEMX_A_QUEUE_ID, p->q[i]))
			goto err;
		nla_nest_end(rsp, nest);
	}
	if (nla_put_u32(rsp, DEVMEMX_A_POLICY_BINDINGS,
			devmemx_policy_bindings(net, p->ifindex)))
		goto err;
	genlmsg_end(rsp, hdr);
	return 0;
err:
	genlmsg_cancel(rsp, hdr);
	return -EMSGSIZE;
}

int devmemx_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	const struct devmemx_policy *p;
	struct sk_buff *rsp;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_POLICY_IFINDEX))
		return -EINVAL;
	rsp = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	mutex_lock(&devmemx_pol_lock);
	p = devmemx_policy_find(net, nla_get_u32(info->attrs[DEVMEMX_A_POLICY_IFINDEX]));
	err = p ? devmemx_policy_fill(rsp, p, net, info->snd_portid,
				      info->snd_seq, 0) : -ENOENT;
	mutex_unlock(&devmemx_pol_lock);
	if (err) {
		nlmsg_free(rsp);
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[DEVMEMX_A_POLICY_IFINDEX],
					    "no policy on this device");
		return err;
	}
	return genlmsg_reply(rsp, info);
}

/* One policy per message; cb->args[0] counts those sent. */
int devmemx_nl_policy_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	const struct devmemx_policy *p;
	long i = 0;
	int err = 0;

	mutex_lock(&devmemx_pol_lock);
	list_for_each_entry(p, &devmemx_policies, node) {
		if (p->net_cookie != net->net_cookie)
			continue;
		if (i++ < cb->args[0])
			continue;
		err = devmemx_policy_fill(skb, p, net, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		cb->args[0] = i;
	}
	mutex_unlock(&devmemx_pol_lock);
	return err == -EMSGSIZE && skb->len ? skb->len : err ?: skb->len;
}

/*
 * @dev goes away or leaves its namespace (end.c's notifier, rtnl held):
 * its namespace's policy for it ends. Bindings made under it end their
 * own way (end.c).
 */
void devmemx_policy_dev_gone(struct net_device *dev)
{
	struct devmemx_policy *p;

	mutex_lock(&devmemx_pol_lock);
	p = devmemx_policy_find(dev_net(dev), dev->ifindex);
	if (p) {
		netdev_info(dev, "devmemx: the policy on %s ended with it\n", dev->name);
		devmemx_policy_free(p);
	}
	mutex_unlock(&devmemx_pol_lock);
}

/* @net ends (end.c's pre_exit): its policies end. */
void devmemx_policy_net_gone(const struct net *net)
{
	struct devmemx_policy *p, *tmp;

	mutex_lock(&devmemx_pol_lock);
	list_for_each_entry_safe(p, tmp, &devmemx_policies, node)
		if (p->net_cookie == net->net_cookie)
			devmemx_policy_free(p);
	mutex_unlock(&devmemx_pol_lock);
}
