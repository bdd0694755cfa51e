// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's netdev bind-rx, served by devmemx under a device's policy
 * (policy.c, doc/policy.md). netdev_nl_bind_rx_doit is private; the gate
 * (gate.c) gives its address where its review passed. Nothing found is
 * called. While a policy exists, ftrace sends the requests for a device
 * (and queues) it covers to devmemx_pol_doit(); any other request runs
 * the kernel's doit, untouched. On a kernel the gate refuses, POLICY-SET
 * says why and the rest of devmemx works.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <net/genetlink.h>
#include <net/netdev_lock.h>
#include <uapi/linux/netdev.h>

#include "devmemx.h"
#include "gate.h"
#include "generated/netlink.h"

static unsigned long devmemx_pol_addr;	/* the gate's */
/* Why policies are unavailable (the gate's why), or not. */
static char devmemx_pol_why[NETLINK_MAX_FMTMSG_LEN];
/* The longest why POLICY-SET's refusal quotes whole. */
#define DEVMEMX_POL_WHY_MAX \
	(NETLINK_MAX_FMTMSG_LEN - sizeof("no policies here: "))
static bool devmemx_pol_ready;
/* The doit's hook: POLICY-SET's hook and insert, the unhook work's check. */
DEFINE_MUTEX(devmemx_polhook_lock);
static bool devmemx_pol_hooked;		/* under devmemx_polhook_lock */
/* Requests the thunk sent to the body that have not left it. */
static atomic_t devmemx_pol_inflight = ATOMIC_INIT(0);
static void devmemx_pol_work_fn(struct work_struct *w);
static DECLARE_WORK(devmemx_pol_work, devmemx_pol_work_fn);

void devmemx_polhook_init(void)
{
	devmemx_pol_addr = devmemx_gate_addr(DEVMEMX_GATE_BIND_RX,
					     devmemx_pol_why,
					     sizeof(devmemx_pol_why));
	if (!devmemx_pol_addr) {
		pr_info("no policies: %s\n", devmemx_pol_why);
		return;
	}
	devmemx_pol_ready = true;
	snprintf(devmemx_pol_why, sizeof(devmemx_pol_why), "reviewed for %s",
		 devmemx_gate_release());
}

/* For INFO: whether policies may be set, and why (or why not). */
u32 devmemx_polhook_state(const char **why)
{
	*why = devmemx_pol_why;
	if (!devmemx_pol_ready)
		return DEVMEMX_POLICIES_UNAVAILABLE;
	return READ_ONCE(devmemx_pol_hooked) ? DEVMEMX_POLICIES_HOOKED :
					       DEVMEMX_POLICIES_READY;
}

/*
 * The request's queues, parsed as the kernel's doit parses them: each
 * once (a repeat is taken once, as the kernel's bitmap takes it), of type
 * RX and below the device's count, else -EINVAL on that attribute.
 */
static int devmemx_pol_queues(struct genl_info *info, struct net_device *dev,
			      u32 *q, unsigned int *n)
{
	static const struct nla_policy qpol[NETDEV_A_QUEUE_TYPE + 1] = {
		[NETDEV_A_QUEUE_ID] = { .type = NLA_U32, },
		[NETDEV_A_QUEUE_TYPE] = NLA_POLICY_MAX(NLA_U32, 1),
	};
	struct nlattr *tb[NETDEV_A_QUEUE_TYPE + 1];
	const struct nlattr *attr;
	unsigned int i;
	int rem, err;
	u32 id;

	*n = 0;
	nla_for_each_attr_type(attr, NETDEV_A_DMABUF_QUEUES,
			       genlmsg_data(info->genlhdr),
			       genlmsg_len(info->genlhdr), rem) {
		err = nla_parse_nested(tb, NETDEV_A_QUEUE_TYPE, attr, qpol,
				       info->extack);
		if (err < 0)
			return err;
		if (NL_REQ_ATTR_CHECK(info->extack, attr, tb, NETDEV_A_QUEUE_ID) ||
		    NL_REQ_ATTR_CHECK(info->extack, attr, tb, NETDEV_A_QUEUE_TYPE))
			return -EINVAL;
		if (nla_get_u32(tb[NETDEV_A_QUEUE_TYPE]) != NETDEV_QUEUE_TYPE_RX) {
			NL_SET_BAD_ATTR(info->extack, tb[NETDEV_A_QUEUE_TYPE]);
			return -EINVAL;
		}
		id = nla_get_u32(tb[NETDEV_A_QUEUE_ID]);
		if (id >= dev->real_num_rx_queues) {
			NL_SET_BAD_ATTR(info->extack, tb[NETDEV_A_QUEUE_ID]);
			return -EINVAL;
		}
		for (i = 0; i < *n && q[i] != id; i++)
			;
		if (i < *n)
			continue;
		if (*n == DEVMEMX_MAX_QUEUES) {
			NL_SET_ERR_MSG_FMT(info->extack,
					   "devmemx: more than %u queues",
					   DEVMEMX_MAX_QUEUES);
			return -E2BIG;
		}
		q[(*n)++] = id;
	}
	return 0;
}

/*
 * The policy's niov size for these queues of @dev, or an error: the
 * policy ended since the thunk saw it, or it covers some of the queues
 * and not all.
 */
static int devmemx_pol_size(struct genl_info *info, struct net_device *dev,
			    const u32 *q, unsigned int n, u32 *size)
{
	const struct devmemx_policy *p;
	unsigned int i;
	int err = 0;

	mutex_lock(&devmemx_pol_lock);
	p = devmemx_policy_find(genl_info_net(info), dev->ifindex);
	if (!p) {
		NL_SET_ERR_MSG_FMT(info->extack,
				   "devmemx: the policy on %s ended during this bind-rx: retry",
				   dev->name);
		err = -EAGAIN;
		goto out;
	}
	for (i = 0; i < n && !devmemx_policy_covers(p, q[i]); i++)
		;
	if (i == n) {	/* replaced since by one that covers none of them */
		NL_SET_ERR_MSG_FMT(info->extack,
				   "devmemx: the policy on %s changed during this bind-rx: retry",
				   dev->name);
		err = -EAGAIN;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!devmemx_policy_covers(p, q[i])) {
			NL_SET_ERR_MSG_FMT(info->extack,
					   "devmemx policy on %s omits queue %u: bind it separately",
					   dev->name, q[i]);
			err = -EINVAL;
			goto out;
		}
	}
	*size = p->size;
out:
	mutex_unlock(&devmemx_pol_lock);
	return err;
}

/*
 * With @dev held: the checks of the kernel's doit, then devmemx's bind.
 * The policy is read under the device's lock (policy.c's lock order).
 */
static int devmemx_pol_bind(struct genl_info *info, struct net_device *dev,
			    struct sk_buff *rsp)
{
	struct devmemx_bind_args a = {
		.net = genl_info_net(info),
		.dev_attr = info->attrs[NETDEV_A_DEV_IFINDEX],
		.extack = info->extack,
		.fd = nla_get_u32(info->attrs[NETDEV_A_DMABUF_FD]),
		.autorelease = DEVMEMX_AUTORELEASE_XARRAY,
		.policy = true,
		.portid = info->snd_portid,
	};
	u32 q[DEVMEMX_MAX_QUEUES];
	struct devmemx_binding *b;
	void *hdr;
	int err;

	/* The netdev family's header, as the kernel's doit puts it first. */
	hdr = genlmsg_iput(rsp, info);
	if (!hdr)
		return -EMSGSIZE;
	netdev_lock(dev);
	/*
	 * Unregistering, or leaving the namespace (moving, or moved): the
	 * kernel's lookup finds none (7.2 net/core/dev.c:1091).
	 */
	if (dev->reg_state != NETREG_REGISTERED || dev->moving_ns ||
	    !net_eq(dev_net(dev), genl_info_net(info))) {
		err = -ENODEV;
		goto out;
	}
	if (!netif_device_present(dev))
		err = -ENODEV;
	else if (!netdev_need_ops_lock(dev))
		err = -EOPNOTSUPP;
	else
		err = 0;
	if (err) {
		NL_SET_BAD_ATTR(info->extack, info->attrs[NETDEV_A_DEV_IFINDEX]);
		goto out;
	}
	err = devmemx_pol_queues(info, dev, q, &a.n) ?:
	      devmemx_pol_size(info, dev, q, a.n, &a.size);
	if (err)
		goto out;
	a.q = q;
	b = devmemx_bind_make(dev, &a);
	if (IS_ERR(b)) {
		err = PTR_ERR(b);
		goto out;
	}
	/* The id, as the kernel's doit (which does not check the put). */
	if (nla_put_u32(rsp, NETDEV_A_DMABUF_ID, b->id)) {
		err = -EMSGSIZE;	/* the binding ends with the socket */
		goto out;
	}
	genlmsg_end(rsp, hdr);
out:
	netdev_unlock(dev);
	return err;
}

static int devmemx_pol_serve(struct sk_buff *skb, struct genl_info *info)
{
	netdevice_tracker tracker;
	struct net_device *dev;
	struct sk_buff *rsp;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DEV_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_FD) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_QUEUES))
		return -EINVAL;
	/* As devmemx's own bind-rx: no binding may outlive the module. */
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(info->extack, "devmemx is being unloaded");
		return -ENODEV;
	}
	err = -ENODEV;
	dev = netdev_get_by_index(genl_info_net(info),
				  nla_get_u32(info->attrs[NETDEV_A_DEV_IFINDEX]),
				  &tracker, GFP_KERNEL);
	if (!dev)
		goto out;
	err = -ENOMEM;
	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (rsp) {
		err = devmemx_pol_bind(info, dev, rsp);
		if (err)
			nlmsg_free(rsp);
		else
			err = genlmsg_reply(rsp, info);
	}
	netdev_put(dev, &tracker);
out:
	module_put(THIS_MODULE);
	return err < 0 ? err : 0;
}

/*
 * What ftrace runs in place of the kernel's doit. Its last act is to count
 * itself out: the unhooking waits for that, then for every task to leave
 * this text (devmemx_pol_unhook()).
 */
static int devmemx_pol_doit(struct sk_buff *skb, struct genl_info *info)
{
	int err = devmemx_pol_serve(skb, info);

	atomic_dec(&devmemx_pol_inflight);
	return err;
}

#if DEVMEMX_BTF_POL_PROTO
static_assert(__same_type(&devmemx_pol_doit,
			  int (*)(struct sk_buff *, struct genl_info *)));
#endif

/*
 * Whether a policy covers the request: its device in the requester's
 * namespace, and one of its queues at least (the body refuses a request
 * that also names others). A request without a device is the kernel's to
 * refuse. On 7.3 a request with its own rx-page-size is the kernel's: the
 * application chose. Atomic: no allocation, no lock but RCU.
 */
static bool notrace devmemx_pol_applies(const struct genl_info *info)
{
	const struct nlattr *ifindex = info->attrs[NETDEV_A_DEV_IFINDEX];
	const struct devmemx_policy *p;
	const struct nlattr *attr, *id;
	bool covers = false;
	int rem;

#if DEVMEMX_HAVE_INTREE_LARGE_NIOV
	if (info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE])
		return false;
#endif
	if (!ifindex)
		return false;
	rcu_read_lock();
	p = devmemx_policy_find(genl_info_net(info), nla_get_u32(ifindex));
	if (p) {
		/* The nests were validated against the family's policy. */
		nla_for_each_attr_type(attr, NETDEV_A_DMABUF_QUEUES,
				       genlmsg_data(info->genlhdr),
				       genlmsg_len(info->genlhdr), rem) {
			id = nla_find_nested(attr, NETDEV_A_QUEUE_ID);
			if (id && devmemx_policy_covers(p, nla_get_u32(id))) {
				covers = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return covers;
}

static void notrace devmemx_pol_thunk(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	const struct genl_info *info = (void *)ftrace_regs_get_argument(fregs, 1);

	if (!devmemx_pol_applies(info))
		return;
	atomic_inc(&devmemx_pol_inflight);
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)devmemx_pol_doit);
}

/*
 * PERMANENT, as dispatch.c's: kernel.ftrace_enabled cannot go to 0 while
 * a policy promises its device's bind-rx to devmemx.
 */
static struct ftrace_ops devmemx_pol_ops = {
	.func = devmemx_pol_thunk,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_PERMANENT,
};

/*
 * Under devmemx_polhook_lock: the doit hooked, for a policy about to be
 * set; or why not, in @extack.
 */
int devmemx_polhook_on(struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&devmemx_polhook_lock);
	if (!devmemx_pol_ready) {
		if (strlen(devmemx_pol_why) <= DEVMEMX_POL_WHY_MAX)
			NL_SET_ERR_MSG_FMT(extack, "no policies here: %s",
					   devmemx_pol_why);
		else	/* it would be cut */
			NL_SET_ERR_MSG(extack,
				       "no policies here (see devmemx info)");
		return -EOPNOTSUPP;
	}
	if (devmemx_pol_hooked)
		return 0;
	err = devmemx_ftrace_on(&devmemx_pol_ops, devmemx_pol_addr);
	if (err == -EBUSY)
		pr_err("cannot hook netdev_nl_bind_rx_doit (-EBUSY): kernel.ftrace_enabled is 0 (sysctl kernel.ftrace_enabled=1), or a live patch holds it\n");
	else if (err)
		pr_err("cannot hook netdev_nl_bind_rx_doit (%d): is it live-patched or traced with IPMODIFY by someone else?\n",
		       err);
	if (err) {
		NL_SET_ERR_MSG_FMT(extack,
				   "cannot hook netdev_nl_bind_rx_doit (%d): see dmesg", err);
		return err;
	}
	WRITE_ONCE(devmemx_pol_hooked, true);
	return 0;
}

/*
 * Under devmemx_polhook_lock, holding no lock the body takes: once the
 * ops are off no thunk runs, so the count only falls; once it is 0, every
 * task that was in the body is past its decrement, and a tasks-RCU grace
 * period sees each out of its last instructions.
 */
static void devmemx_pol_unhook(void)
{
	lockdep_assert_held(&devmemx_polhook_lock);
	if (!devmemx_pol_hooked)
		return;
	devmemx_ftrace_off(&devmemx_pol_ops, devmemx_pol_addr);
	while (atomic_read(&devmemx_pol_inflight))
		msleep(20);
	synchronize_rcu_tasks();
	WRITE_ONCE(devmemx_pol_hooked, false);
}

static void devmemx_pol_work_fn(struct work_struct *w)
{
	mutex_lock(&devmemx_polhook_lock);
	if (!devmemx_policy_any())
		devmemx_pol_unhook();
	mutex_unlock(&devmemx_polhook_lock);
}

/* The last policy may have ended; any context. */
void devmemx_polhook_idle(void)
{
	queue_work(devmemx_wq, &devmemx_pol_work);
}

/* Module exit: no policy holds the module any more. */
void devmemx_polhook_exit(void)
{
	cancel_work_sync(&devmemx_pol_work);
	mutex_lock(&devmemx_polhook_lock);
	WARN_ON_ONCE(devmemx_policy_any());
	devmemx_pol_unhook();
	mutex_unlock(&devmemx_polhook_lock);
}
