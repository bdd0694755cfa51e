// SPDX-License-Identifier: GPL-2.0
/* The devmemx generic netlink family: request handlers. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/ethtool.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>

#include "devmemx.h"
#include "generated/netlink.h"

/*
 * INFO's live objects: the module's in the initial network namespace, the
 * namespace's own bindings anywhere else (a container learns nothing of
 * its neighbours).
 */
static void devmemx_nl_live(struct net *net, u32 *bindings, u64 *niovs,
			    u32 *pools)
{
	struct devmemx_binding *b;

	if (net_eq(net, &init_net)) {
		*bindings = atomic_read(&devmemx_counters.bindings);
		*niovs = atomic64_read(&devmemx_counters.niovs);
		*pools = atomic_read(&devmemx_counters.page_pools);
		return;
	}
	*bindings = 0;
	*niovs = 0;
	*pools = 0;
	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node) {
		if (!devmemx_binding_made_in(b, net))
			continue;
		(*bindings)++;
		*niovs += b->niov_count;
		*pools += atomic_read(&b->page_pools);
	}
	mutex_unlock(&devmemx_mutex);
}

int devmemx_nl_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *rsp;
	const char *why, *pol_why;
	u32 bindings, pools, pol;
	void *hdr;
	u64 niovs;

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

	devmemx_nl_live(genl_info_net(info), &bindings, &niovs, &pools);
	pol = devmemx_polhook_state(&pol_why);
	hdr = genlmsg_iput(rsp, info);
	if (!hdr)
		goto err_free;
	if (nla_put_string(rsp, DEVMEMX_A_INFO_VERSION, DEVMEMX_VERSION) ||
	    nla_put_string(rsp, DEVMEMX_A_INFO_KERNEL, init_utsname()->release) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_FEATURES, devmemx_features()) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_HOOKS, devmemx_hooks) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_BINDINGS, bindings) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_INFO_NIOVS, niovs, 0) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_PAGE_POOLS, pools) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_TOKEN_ARRAY,
			devmemx_tokhook_state(&why)) ||
	    nla_put_string(rsp, DEVMEMX_A_INFO_TOKEN_ARRAY_WHY, why) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_TOKEN_SOCKETS,
			atomic_read(&devmemx_tok_socks)) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_INFO_TOKEN_BYTES,
			      atomic_long_read(&devmemx_tok_bytes), 0) ||
	    nla_put_u32(rsp, DEVMEMX_A_INFO_POLICIES, pol) ||
	    nla_put_string(rsp, DEVMEMX_A_INFO_POLICIES_WHY, pol_why))
		goto err_free;

	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);

err_free:
	nlmsg_free(rsp);
	return -EMSGSIZE;
}

/* The queue list of a request: ids, each once. */
int devmemx_nl_queues(struct genl_info *info, int type, u32 *q,
		      unsigned int *n)
{
	struct nlattr *tb[DEVMEMX_A_QUEUE_MAX + 1];
	const struct nlattr *attr;
	unsigned int i;
	int rem, err;

	*n = 0;
	nla_for_each_attr_type(attr, type, genlmsg_data(info->genlhdr),
			       genlmsg_len(info->genlhdr), rem) {
		err = nla_parse_nested(tb, DEVMEMX_A_QUEUE_MAX, attr,
				       devmemx_queue_nl_policy, info->extack);
		if (err)
			return err;
		if (NL_REQ_ATTR_CHECK(info->extack, attr, tb, DEVMEMX_A_QUEUE_ID))
			return -EINVAL;
		if (*n == DEVMEMX_MAX_QUEUES) {
			NL_SET_ERR_MSG_FMT(info->extack, "more than %u queues",
					   DEVMEMX_MAX_QUEUES);
			return -E2BIG;
		}
		q[*n] = nla_get_u32(tb[DEVMEMX_A_QUEUE_ID]);
		for (i = 0; i < *n; i++) {
			if (q[i] == q[*n]) {
				NL_SET_ERR_MSG_FMT(info->extack,
						   "queue %u is listed twice", q[i]);
				return -EINVAL;
			}
		}
		(*n)++;
	}
	return 0;
}

/* A request's queues, and its niov size. */
struct devmemx_nl_req {
	u32 q[DEVMEMX_MAX_QUEUES];
	unsigned int n;
	u32 size;
};

/*
 * BIND-RX's and BIND-CHECK's device, dma-buf and queues, and the
 * autorelease they may ask for (refused before anything is made).
 */
static int devmemx_nl_bind_req(struct genl_info *info, struct devmemx_nl_req *req)
{
	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_BINDING_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_BINDING_FD) ||
	    GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_BINDING_QUEUES))
		return -EINVAL;
	return devmemx_nl_queues(info, DEVMEMX_A_BINDING_QUEUES, req->q, &req->n) ?:
	       devmemx_tokhook_check_bind(info->attrs[DEVMEMX_A_BINDING_AUTORELEASE],
					  info->extack);
}

/* The device attribute @attr names, held; NULL (with extack) when none. */
static struct net_device *devmemx_nl_get_dev(struct genl_info *info, int attr,
					     netdevice_tracker *tracker)
{
	struct net_device *dev;

	dev = netdev_get_by_index(genl_info_net(info),
				  nla_get_u32(info->attrs[attr]), tracker,
				  GFP_KERNEL);
	if (!dev)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr],
				    "no such device in this network namespace");
	return dev;
}

/*
 * Run @fn with the device attribute @attr names held and locked, and send
 * the reply it fills.
 */
static int devmemx_nl_on_dev(struct genl_info *info, int attr,
			     int (*fn)(struct net_device *dev,
				       struct genl_info *info,
				       const struct devmemx_nl_req *req,
				       struct sk_buff *rsp),
			     const struct devmemx_nl_req *req)
{
	netdevice_tracker tracker;
	struct net_device *dev;
	struct sk_buff *rsp;
	int err;

	dev = devmemx_nl_get_dev(info, attr, &tracker);
	if (!dev)
		return -ENODEV;
	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp) {
		netdev_put(dev, &tracker);
		return -ENOMEM;
	}
	netdev_lock(dev);
	err = fn(dev, info, req, rsp);
	netdev_unlock(dev);
	netdev_put(dev, &tracker);
	if (err) {
		nlmsg_free(rsp);
		return err;
	}
	return genlmsg_reply(rsp, info);
}

static int devmemx_nl_bind_reply(struct sk_buff *rsp, struct genl_info *info,
				 struct devmemx_binding *b)
{
	void *hdr = genlmsg_iput(rsp, info);

	if (!hdr ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_ID, b->id) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOV_SIZE, 1U << b->niov_shift) ||
	    nla_put_u32(rsp, DEVMEMX_A_BINDING_NIOV_COUNT, b->niov_count) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_BYTES_CARVED, b->carved, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_BYTES_WASTED, b->wasted, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_METADATA_BYTES,
			      b->metadata, 0))
		return -EMSGSIZE;
	genlmsg_end(rsp, hdr);
	return 0;
}

/*
 * With @t's devices locked and checked (devmemx_lease_begin()): the
 * binding, its queues.
 */
static struct devmemx_binding *
devmemx_bind_on(const struct devmemx_target *t, const struct devmemx_bind_args *a)
{
	struct devmemx_binding *b;
	unsigned int i;
	int err;

	b = devmemx_binding_create(t->qdev, t->dma_dev, a->fd, a->size,
				   a->extack);
	if (IS_ERR(b))
		return b;
	if (t->qdev != t->dev) {
		b->vq = kvcalloc(b->nqueues, sizeof(*b->vq), GFP_KERNEL);
		if (!b->vq) {
			devmemx_binding_abort(b);
			return ERR_PTR(-ENOMEM);
		}
		for (i = 0; i < t->n; i++)
			b->vq[t->q[i]] = t->req_q[i];
	}
	if (a->autorelease == DEVMEMX_AUTORELEASE_TOKEN_ARRAY) {
		err = devmemx_tokhook_get(a->extack);
		if (err) {
			devmemx_binding_abort(b);
			return ERR_PTR(err);
		}
		b->tok_user = true;
	}
	b->flags = a->flags;
	b->autorelease = a->autorelease;
	b->policy = a->policy;
	b->nasked = a->n;
	b->net_cookie = a->net->net_cookie;
	b->portid = a->portid;
	/*
	 * The devices before the id: once published, an UNBIND may find the
	 * binding, and must see it on them (visible only in its namespace;
	 * its queue release waits for the device locks held here).
	 */
	mutex_lock(&b->lock);
	b->dev = t->dev;
	netdev_hold(t->dev, &b->dev_tracker, GFP_KERNEL);
	b->qdev = t->qdev;
	if (t->qdev != t->dev)
		netdev_hold(t->qdev, &b->qdev_tracker, GFP_KERNEL);
	mutex_unlock(&b->lock);
	err = devmemx_binding_publish(b);
	if (err) {
		mutex_lock(&b->lock);
		devmemx_queue_drop_dev(b);
		mutex_unlock(&b->lock);
		devmemx_binding_abort(b);
		return ERR_PTR(err);
	}
	err = devmemx_import_go_live(b, a->extack) ?:
	      devmemx_lease_refused(t, devmemx_queues_install(b, t->q, t->n,
							      t->extack));
	if (err) {
		/* Queues are rolled back; the devices stay locked here. */
		devmemx_end_failed_bind(b);
		return ERR_PTR(err);
	}
	return b;
}

/* With the device locked: the checks, the binding, its queues. */
struct devmemx_binding *
devmemx_bind_make(struct net_device *dev, const struct devmemx_bind_args *a)
{
	struct devmemx_binding *b;
	struct devmemx_target t;
	int err;

	err = devmemx_lease_begin(&t, dev, a->net, a->q, a->n, a->size,
				  a->extack, a->dev_attr);
	if (err)
		return ERR_PTR(err);
	b = devmemx_bind_on(&t, a);
	devmemx_lease_end(&t);
	return b;
}

static int devmemx_nl_bind_locked(struct net_device *dev,
				  struct genl_info *info,
				  const struct devmemx_nl_req *req,
				  struct sk_buff *rsp)
{
	const struct devmemx_bind_args a = {
		.net = genl_info_net(info),
		.dev_attr = info->attrs[DEVMEMX_A_BINDING_IFINDEX],
		.extack = info->extack,
		.q = req->q,
		.n = req->n,
		.size = req->size,
		.fd = nla_get_u32(info->attrs[DEVMEMX_A_BINDING_FD]),
		.flags = nla_get_u32_default(info->attrs[DEVMEMX_A_BINDING_FLAGS], 0),
		.autorelease = nla_get_u8_default(info->attrs[DEVMEMX_A_BINDING_AUTORELEASE],
						  DEVMEMX_AUTORELEASE_XARRAY),
		.portid = info->snd_portid,
	};
	struct devmemx_binding *b;

	b = devmemx_bind_make(dev, &a);
	/* Under the device lock: an UNBIND cannot end the binding before. */
	return IS_ERR(b) ? PTR_ERR(b) : devmemx_nl_bind_reply(rsp, info, b);
}

int devmemx_nl_bind_rx_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct devmemx_nl_req req = { .size = PAGE_SIZE };
	int err;

	err = devmemx_nl_bind_req(info, &req);
	if (err)
		return err;
	if (info->attrs[DEVMEMX_A_BINDING_RX_BUF_SIZE])
		req.size = nla_get_u32(info->attrs[DEVMEMX_A_BINDING_RX_BUF_SIZE]);
	if (!is_power_of_2(req.size) || req.size < PAGE_SIZE) {
		NL_SET_ERR_MSG_FMT(info->extack,
				   "rx-buf-size %u: must be a power of two of at least %lu",
				   req.size, PAGE_SIZE);
		return -EINVAL;
	}
	/*
	 * Requests run without a module reference: rmmod may have passed its
	 * refcount check and wait in genl_unregister_family() for this one
	 * to end. A binding made now would outlive the module's text.
	 */
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(info->extack, "devmemx is being unloaded");
		return -ENODEV;
	}
	err = devmemx_nl_on_dev(info, DEVMEMX_A_BINDING_IFINDEX,
				devmemx_nl_bind_locked, &req);
	module_put(THIS_MODULE);
	return err;
}

static int devmemx_nl_put_carve(struct sk_buff *rsp, unsigned int shift,
				const struct devmemx_carve *c)
{
	struct nlattr *nest = nla_nest_start(rsp, DEVMEMX_A_BINDING_CARVE);

	if (!nest ||
	    nla_put_u32(rsp, DEVMEMX_A_CARVE_NIOV_SIZE, 1U << shift) ||
	    nla_put_u32(rsp, DEVMEMX_A_CARVE_NIOV_COUNT, min(c->niovs, U32_MAX)) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_CARVE_BYTES_CARVED, c->carved, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_CARVE_BYTES_WASTED,
			      c->wasted, 0) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_CARVE_METADATA_BYTES,
			      c->metadata, 0) ||
	    nla_put_u8(rsp, DEVMEMX_A_CARVE_METADATA_FITS, c->fits) ||
	    nla_put_u8(rsp, DEVMEMX_A_CARVE_INTREE_ALIGNED, c->aligned))
		return -EMSGSIZE;
	nla_nest_end(rsp, nest);
	return 0;
}

/*
 * With the device locked: bind-rx's checks, the dma-buf attached and
 * mapped as bind-rx would, counted at each size the driver takes, undone.
 */
static int devmemx_nl_check_locked(struct net_device *dev,
				   struct genl_info *info,
				   const struct devmemx_nl_req *req,
				   struct sk_buff *rsp)
{
	struct devmemx_binding *b;
	struct devmemx_target t;
	struct devmemx_carve c;
	unsigned long sizes;
	unsigned int shift;
	void *hdr;
	int err;

	err = devmemx_lease_begin(&t, dev, genl_info_net(info), req->q, req->n,
				  PAGE_SIZE, info->extack,
				  info->attrs[DEVMEMX_A_BINDING_IFINDEX]);
	if (err)
		return err;
	b = devmemx_binding_create(t.qdev, t.dma_dev,
				   nla_get_u32(info->attrs[DEVMEMX_A_BINDING_FD]),
				   0, info->extack);
	sizes = IS_ERR(b) ? 0 : devmemx_check_sizes(t.qdev);
	devmemx_lease_end(&t);
	if (IS_ERR(b))
		return PTR_ERR(b);
	hdr = genlmsg_iput(rsp, info);
	err = !hdr || nla_put_u64_64bit(rsp, DEVMEMX_A_BINDING_DMABUF_SIZE,
					b->import.dmabuf->size, 0) ? -EMSGSIZE : 0;
	for_each_set_bit(shift, &sizes, BITS_PER_LONG) {
		if (err)
			break;
		err = devmemx_niov_count(b, shift, &c) ?:
		      devmemx_nl_put_carve(rsp, shift, &c);
	}
	devmemx_binding_abort(b);
	if (!err)
		genlmsg_end(rsp, hdr);
	return err;
}

int devmemx_nl_bind_check_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct devmemx_nl_req req = {};
	int err;

	err = devmemx_nl_bind_req(info, &req);
	if (err)
		return err;
	return devmemx_nl_on_dev(info, DEVMEMX_A_BINDING_IFINDEX,
				 devmemx_nl_check_locked, &req);
}

/*
 * Under devmemx_mutex: the binding the request's ID names, if the caller's
 * network namespace made it (no other sees it), else NULL.
 */
struct devmemx_binding *devmemx_nl_binding(struct genl_info *info)
{
	struct devmemx_binding *b;

	b = devmemx_binding_lookup(nla_get_u32(info->attrs[DEVMEMX_A_BINDING_ID]));
	return b && devmemx_binding_made_in(b, genl_info_net(info)) ? b : NULL;
}

/* The refusal of a request whose ID names no binding the caller sees. */
int devmemx_nl_no_binding(struct genl_info *info)
{
	NL_SET_ERR_MSG_FMT(info->extack, "no devmemx binding %u",
			   nla_get_u32(info->attrs[DEVMEMX_A_BINDING_ID]));
	return -ENOENT;
}

int devmemx_nl_unbind_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct devmemx_binding *b;
	bool mine;

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_BINDING_ID))
		return -EINVAL;
	mutex_lock(&devmemx_mutex);
	b = devmemx_nl_binding(info);
	mine = b && devmemx_end_mark(b);
	mutex_unlock(&devmemx_mutex);
	if (!mine)
		return devmemx_nl_no_binding(info);
	devmemx_end_finish(b);
	return 0;
}

/* caps-get reports ethtool's setting as the spec's enum: the same values. */
static_assert(ETHTOOL_TCP_DATA_SPLIT_UNKNOWN == (int)DEVMEMX_TCP_DATA_SPLIT_UNKNOWN);
static_assert(ETHTOOL_TCP_DATA_SPLIT_DISABLED == (int)DEVMEMX_TCP_DATA_SPLIT_DISABLED);
static_assert(ETHTOOL_TCP_DATA_SPLIT_ENABLED == (int)DEVMEMX_TCP_DATA_SPLIT_ENABLED);

/* With the device locked: its facts, of queue req->q[0] if req->n. */
static int devmemx_nl_caps_locked(struct net_device *dev,
				  struct genl_info *info,
				  const struct devmemx_nl_req *req,
				  struct sk_buff *rsp)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;
	struct devmemx_caps caps;
	u32 q = req->n ? req->q[0] : 0;
	void *hdr;

	if (!devmemx_check_here(dev, genl_info_net(info), info->extack,
				info->attrs[DEVMEMX_A_CAPS_IFINDEX]))
		return -ENODEV;
	if (req->n && devmemx_check_queue_range(dev, q, info->extack))
		return -ERANGE;
	devmemx_check_caps(dev, q, &caps);
	hdr = genlmsg_iput(rsp, info);
	if (!hdr ||
	    nla_put_u32(rsp, DEVMEMX_A_CAPS_IFINDEX, dev->ifindex) ||
	    (req->n && nla_put_u32(rsp, DEVMEMX_A_CAPS_QUEUE_ID, q)) ||
	    nla_put_string(rsp, DEVMEMX_A_CAPS_DRIVER, caps.driver) ||
	    nla_put_u8(rsp, DEVMEMX_A_CAPS_TCP_DATA_SPLIT,
		       dev->cfg->hds_config) ||
	    nla_put_u32(rsp, DEVMEMX_A_CAPS_HDS_THRESH, dev->cfg->hds_thresh) ||
	    nla_put_u8(rsp, DEVMEMX_A_CAPS_RX_PAGE_SIZE,
		       qops && (qops->supported_params & QCFG_RX_PAGE_SIZE)) ||
	    nla_put_u64_64bit(rsp, DEVMEMX_A_CAPS_RX_BUF_SIZES, caps.sizes, 0) ||
	    nla_put_u32(rsp, DEVMEMX_A_CAPS_QUEUES, dev->real_num_rx_queues) ||
	    nla_put_u8(rsp, DEVMEMX_A_CAPS_DMA_BOUNCE, caps.bounce))
		return -EMSGSIZE;
	genlmsg_end(rsp, hdr);
	return 0;
}

int devmemx_nl_caps_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct devmemx_nl_req req = {};

	if (GENL_REQ_ATTR_CHECK(info, DEVMEMX_A_CAPS_IFINDEX))
		return -EINVAL;
	if (info->attrs[DEVMEMX_A_CAPS_QUEUE_ID]) {
		req.q[0] = nla_get_u32(info->attrs[DEVMEMX_A_CAPS_QUEUE_ID]);
		req.n = 1;
	}
	return devmemx_nl_on_dev(info, DEVMEMX_A_CAPS_IFINDEX,
				 devmemx_nl_caps_locked, &req);
}

int devmemx_nl_init(void)
{
	return genl_register_family(&devmemx_nl_family);
}

void devmemx_nl_exit(void)
{
	genl_unregister_family(&devmemx_nl_family);
}
