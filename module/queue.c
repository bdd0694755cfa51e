// SPDX-License-Identifier: GPL-2.0
/*
 * Installing the provider on RX queues, with the exported pieces of what
 * the kernel's __netif_mp_open_rxq() does: the same checks (each refusal
 * saying what to change), mp_params set, the queue restarted; and every
 * queue rolled back on any failure.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/string_choices.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/memory_provider.h>

#include "devmemx.h"

/* The driver's own verdict on a buffer size, without touching a queue. */
static int devmemx_validate_size(struct net_device *dev, u32 size,
				 struct netlink_ext_ack *extack)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;
	struct netdev_queue_config qcfg = {};

	if (!qops->ndo_validate_qcfg)
		return size == PAGE_SIZE ? 0 : -EOPNOTSUPP;
	if (qops->ndo_default_qcfg)
		qops->ndo_default_qcfg(dev, &qcfg);
	qcfg.rx_page_size = size;
	return qops->ndo_validate_qcfg(dev, &qcfg, extack);
}

/*
 * A queue a virtual device (netkit) leases from a physical one: in-tree
 * bind-rx follows the lease to the physical queue (7.2's queue-create);
 * devmemx does not yet (nor binds the physical end, devmemx_check_queue()),
 * and says so before any check that would name the virtual device's own
 * settings. The physical device goes unnamed: it may be in another
 * namespace. (Extack messages hold 79 characters.)
 */
int devmemx_check_lease(struct net_device *dev, const u32 *q, unsigned int n,
			struct netlink_ext_ack *extack)
{
	unsigned int i;

	if (dev->dev.parent)
		return 0;
	for (i = 0; i < n; i++) {
		if (q[i] < dev->real_num_rx_queues &&
		    READ_ONCE(__netif_get_rx_queue(dev, q[i])->lease)) {
			NL_SET_ERR_MSG_FMT(extack,
					   "queue %u of %s is leased: devmemx takes no leased queue",
					   q[i], dev->name);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* The device-wide conditions for devmem; called with the device locked. */
int devmemx_check_dev(struct net_device *dev, u32 niov_size,
		      struct netlink_ext_ack *extack)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;
	int err;

	if (!qops || !netdev_need_ops_lock(dev)) {
		NL_SET_ERR_MSG_FMT(extack,
				   "%s has no queue management ops (devmem needs them)",
				   dev->name);
		return -EOPNOTSUPP;
	}
	/* A down device has no RX queues to restart (mlx5: -ENODEV). */
	if (!netif_running(dev)) {
		NL_SET_ERR_MSG_FMT(extack, "%s is down: ip link set %s up",
				   dev->name, dev->name);
		return -ENETDOWN;
	}
	if (dev->cfg->hds_config != ETHTOOL_TCP_DATA_SPLIT_ENABLED) {
		NL_SET_ERR_MSG_FMT(extack,
				   "tcp-data-split is off: ethtool -G %s tcp-data-split on",
				   dev->name);
		return -EINVAL;
	}
	if (dev->cfg->hds_thresh) {
		NL_SET_ERR_MSG_FMT(extack,
				   "hds-thresh is %u: ethtool -G %s hds-thresh 0",
				   dev->cfg->hds_thresh, dev->name);
		return -EINVAL;
	}
	if (dev_xdp_prog_count(dev)) {
		NL_SET_ERR_MSG_FMT(extack, "%s has an XDP program attached",
				   dev->name);
		return -EEXIST;
	}
	if (niov_size != PAGE_SIZE && !(qops->supported_params & QCFG_RX_PAGE_SIZE)) {
		NL_SET_ERR_MSG_FMT(extack,
				   "the driver of %s takes no rx-buf-size but %lu",
				   dev->name, PAGE_SIZE);
		return -EOPNOTSUPP;
	}
	err = devmemx_validate_size(dev, niov_size, extack);
	if (err && extack && !extack->_msg)
		NL_SET_ERR_MSG_FMT(extack, "the driver of %s refuses rx-buf-size %u",
				   dev->name, niov_size);
	return err;
}

/*
 * Bit n set: the driver accepts RX buffers of 2^n bytes (PAGE_SIZE..1M).
 * Drivers take a range of sizes, and mlx5 logs an error for each size it
 * refuses: the probe stops at the first refusal.
 */
u64 devmemx_probe_sizes(struct net_device *dev)
{
	u64 sizes = 0;
	unsigned int n;

	if (!dev->queue_mgmt_ops)
		return 0;
	/* A driver that takes no size but its default: bind refuses others. */
	if (!(dev->queue_mgmt_ops->supported_params & QCFG_RX_PAGE_SIZE))
		return BIT_ULL(PAGE_SHIFT);
	for (n = PAGE_SHIFT; n <= 20; n++) {
		if (devmemx_validate_size(dev, 1U << n, NULL))
			break;
		sizes |= BIT_ULL(n);
	}
	return sizes;
}

int devmemx_check_queue_range(struct net_device *dev, u32 q,
			      struct netlink_ext_ack *extack)
{
	if (q < dev->real_num_rx_queues)
		return 0;
	NL_SET_ERR_MSG_FMT(extack, "queue %u out of range: %s has %u RX queues",
			   q, dev->name, dev->real_num_rx_queues);
	return -ERANGE;
}

int devmemx_check_queue(struct net_device *dev, u32 q,
			struct netlink_ext_ack *extack)
{
	struct netdev_rx_queue *rxq;

	if (devmemx_check_queue_range(dev, q, extack))
		return -ERANGE;
	rxq = __netif_get_rx_queue(dev, q);
	if (rxq->mp_params.mp_ops || rxq->mp_params.mp_priv) {
		NL_SET_ERR_MSG_FMT(extack,
				   "queue %u of %s is already bound to a memory provider",
				   q, dev->name);
		return -EEXIST;
	}
#ifdef CONFIG_XDP_SOCKETS
	if (rxq->pool) {
		NL_SET_ERR_MSG_FMT(extack, "queue %u of %s is used by AF_XDP",
				   q, dev->name);
		return -EBUSY;
	}
#endif
	if (READ_ONCE(rxq->lease)) {
		NL_SET_ERR_MSG_FMT(extack, "queue %u of %s is leased", q, dev->name);
		return -EBUSY;
	}
	return 0;
}

/* The device the queues DMA through; they must agree on one. */
struct device *devmemx_dma_dev(struct net_device *dev, const u32 *q,
			       unsigned int n, struct netlink_ext_ack *extack)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;
	struct device *dma = NULL, *d;
	unsigned int i;

	for (i = 0; i < n; i++) {
		d = qops->ndo_queue_get_dma_dev ?
		    qops->ndo_queue_get_dma_dev(dev, q[i]) : dev->dev.parent;
		if (!d || !d->dma_mask) {
			NL_SET_ERR_MSG_FMT(extack,
					   "queue %u of %s has no DMA device", q[i],
					   dev->name);
			return ERR_PTR(-EOPNOTSUPP);
		}
		if (dma && d != dma) {
			NL_SET_ERR_MSG_FMT(extack,
					   "queues %u and %u of %s DMA through different devices",
					   q[0], q[i], dev->name);
			return ERR_PTR(-EOPNOTSUPP);
		}
		dma = d;
	}
	return dma;
}

/*
 * A queue whose restart without the provider failed (its driver found no
 * memory for the new page pool) goes on running on the binding's buffers,
 * and the binding cannot end. Such queues are restarted again every second
 * until that works, or the device goes down (its pools go with it) or away.
 */
struct devmemx_requeue {
	struct list_head node;
	struct net_device *dev;
	netdevice_tracker tracker;
	struct devmemx_binding *b;	/* referenced: its memory is still used */
	u32 q;
};

static LIST_HEAD(devmemx_requeues);
static DEFINE_MUTEX(devmemx_requeue_lock);	/* devmemx_requeues */
static void devmemx_requeue_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(devmemx_requeue_dw, devmemx_requeue_work);

static bool devmemx_requeue_add(struct net_device *dev, u32 q,
				struct devmemx_binding *b)
{
	struct devmemx_requeue *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return false;
	r->dev = dev;
	r->q = q;
	r->b = b;
	/* A revoke does not unmap the memory while the queue may write to it. */
	percpu_ref_get(&b->ref);
	atomic_inc(&b->stuck_queues);
	netdev_hold(dev, &r->tracker, GFP_KERNEL);
	mutex_lock(&devmemx_requeue_lock);
	list_add_tail(&r->node, &devmemx_requeues);
	mutex_unlock(&devmemx_requeue_lock);
	queue_delayed_work(system_wq, &devmemx_requeue_dw, HZ);
	return true;
}

static void devmemx_requeue_free(struct devmemx_requeue *r)
{
	list_del(&r->node);
	netdev_put(r->dev, &r->tracker);
	atomic_dec(&r->b->stuck_queues);
	percpu_ref_put(&r->b->ref);
	kfree(r);
}

static void devmemx_requeue_work(struct work_struct *work)
{
	struct devmemx_requeue *r, *tmp;
	struct net_device *dev;
	LIST_HEAD(todo);
	int err;

	mutex_lock(&devmemx_requeue_lock);
	list_splice_init(&devmemx_requeues, &todo);
	mutex_unlock(&devmemx_requeue_lock);

	list_for_each_entry_safe(r, tmp, &todo, node) {
		dev = r->dev;
		err = 0;
		netdev_lock(dev);
		/* Not if the device goes, or the queue went or was bound again. */
		if (READ_ONCE(dev->reg_state) == NETREG_REGISTERED &&
		    r->q < dev->real_num_rx_queues &&
		    !__netif_get_rx_queue(dev, r->q)->mp_params.mp_priv)
			err = netdev_rx_queue_restart(dev, r->q);
		netdev_unlock(dev);
		/* Down, the queue has no memory; it comes up without the binding. */
		if (err && err != -ENETDOWN && netif_running(dev))
			continue;
		if (!err)
			netdev_info(dev, "devmemx: queue %u restarted without the provider\n",
				    r->q);
		devmemx_requeue_free(r);
	}

	mutex_lock(&devmemx_requeue_lock);
	list_splice(&todo, &devmemx_requeues);
	if (!list_empty(&devmemx_requeues))
		queue_delayed_work(system_wq, &devmemx_requeue_dw, HZ);
	mutex_unlock(&devmemx_requeue_lock);
}

static void devmemx_queue_close(struct net_device *dev, u32 q,
				struct devmemx_binding *b)
{
	struct netdev_rx_queue *rxq = __netif_get_rx_queue(dev, q);
	int err;

	if (rxq->mp_params.mp_priv != b)
		return;
	memset(&rxq->mp_params, 0, sizeof(rxq->mp_params));
	/*
	 * A down device has no queue memory (its pools went at ndo_stop) and
	 * builds it anew without the binding when it comes up; drivers answer
	 * a restart then with -ENETDOWN (the core's own) or -ENODEV (mlx5).
	 */
	err = netdev_rx_queue_restart(dev, q);
	if (!err || err == -ENETDOWN || !netif_running(dev))
		return;
	if (devmemx_requeue_add(dev, q, b))
		netdev_warn(dev, "devmemx: restarting queue %u without the provider failed: %d; retrying every second\n",
			    q, err);
	else
		netdev_warn(dev, "devmemx: restarting queue %u without the provider failed: %d; it keeps the binding until it restarts (ip link set %s down, then up)\n",
			    q, err, dev->name);
}

static int devmemx_queue_open(struct net_device *dev, u32 q,
			      struct devmemx_binding *b,
			      struct netlink_ext_ack *extack)
{
	struct netdev_rx_queue *rxq = __netif_get_rx_queue(dev, q);
	u32 size = 1U << b->niov_shift;
	bool pooled;
	u64 smaller;
	int err;

	rxq->mp_params.mp_ops = devmemx_intree_ops;
	rxq->mp_params.mp_priv = b;
	rxq->mp_params.rx_page_size = size == PAGE_SIZE ? 0 : size;
	err = netdev_rx_queue_restart(dev, q);
	if (err) {
		memset(&rxq->mp_params, 0, sizeof(rxq->mp_params));
		if (!extack || !extack->_msg)
			NL_SET_ERR_MSG_FMT(extack,
					   "restarting queue %u of %s with the provider failed",
					   q, dev->name);
		return err;
	}
	mutex_lock(&b->lock);
	pooled = test_bit(q, b->pooled);
	smaller = b->other_since[q];
	mutex_unlock(&b->lock);
	if (!pooled) {
		devmemx_queue_close(dev, q, b);
		NL_SET_ERR_MSG_FMT(extack,
				   "the driver of %s made no page pool with the provider for queue %u",
				   dev->name, q);
		return -ENODATA;
	}
	/* Only a full reopen may ignore the size; a restart must honour it. */
	if (smaller) {
		devmemx_queue_close(dev, q, b);
		NL_SET_ERR_MSG_FMT(extack,
				   "the driver of %s ignored rx-buf-size %u for queue %u",
				   dev->name, size, q);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * For each page pool a driver makes for a bound queue, from the provider's
 * init (the driver holds the device's lock; b->lock held): at the
 * binding's niov size or, after a full reopen of its channels, smaller.
 * A smaller one is served and its queue restarted at the niov size by
 * devmemx_queue_resize_work() once the device is unlocked.
 */
void devmemx_queue_pool_made(struct devmemx_binding *b, unsigned int q,
			     bool own_size)
{
	u64 now = ktime_get_ns();

	lockdep_assert_held(&b->lock);
	if (own_size) {
		/* resize_work's own restart: it judges once that returned. */
		if (b->resizing) {
			b->resize_own = true;
			return;
		}
		if (b->other_since[q])
			b->other_ns += now - b->other_since[q];
		b->other_since[q] = 0;
		return;
	}
	b->other_pools++;
	if (!b->other_since[q])
		b->other_since[q] = now;
	if (!b->resizing)
		mod_delayed_work(system_wq, &b->resize_work, 0);
}

/* How long bound queues ran with pools of another size, until now. */
u64 devmemx_queue_other_ns(struct devmemx_binding *b)
{
	u64 ns = b->other_ns, now = ktime_get_ns();
	unsigned int q;

	lockdep_assert_held(&b->lock);
	for (q = 0; q < b->nqueues; q++)
		if (b->other_since[q])
			ns += now - b->other_since[q];
	return ns;
}

/* The binding leaves its queues: the time at another size stops. */
static void devmemx_queue_other_end(struct devmemx_binding *b)
{
	lockdep_assert_held(&b->lock);
	b->other_ns = devmemx_queue_other_ns(b);
	memset(b->other_since, 0, b->nqueues * sizeof(*b->other_since));
}

/*
 * The binding's device, held and locked (its lock, then b->lock), or NULL
 * once it has none; the caller checks under the locks that it still is
 * the binding's.
 */
static struct net_device *devmemx_lock_dev(struct devmemx_binding *b)
{
	struct net_device *dev;

	mutex_lock(&b->lock);
	dev = b->dev;
	dev_hold(dev);
	mutex_unlock(&b->lock);
	if (!dev)
		return NULL;
	netdev_lock(dev);
	mutex_lock(&b->lock);
	return dev;
}

static void devmemx_unlock_dev(struct devmemx_binding *b,
			       struct net_device *dev)
{
	mutex_unlock(&b->lock);
	netdev_unlock(dev);
	dev_put(dev);
}

/* Errors a restart may not meet again: retried, with a growing delay. */
static bool devmemx_restart_transient(int err)
{
	return err == -ENOMEM || err == -EBUSY || err == -EAGAIN ||
	       err == -EIO || err == -ETIMEDOUT;
}

/*
 * Restart each bound queue whose newest pool is not at the niov size. The
 * time at another size ends only when a restart both returned 0 and made
 * a pool of the niov size (a restart that fails after making its pool
 * keeps the old queue).
 */
void devmemx_queue_resize_work(struct work_struct *work)
{
	struct devmemx_binding *b = container_of(to_delayed_work(work),
						 struct devmemx_binding,
						 resize_work);
	u32 size = 1U << b->niov_shift;
	struct net_device *dev;
	bool again = false;
	unsigned int q;
	u64 since;
	int err;

	dev = devmemx_lock_dev(b);
	if (!dev)
		return;
	b->resizing = true;
	for (q = 0; q < b->nqueues && b->dev == dev && netif_running(dev); q++) {
		if (!b->other_since[q] || !test_bit(q, b->queues) ||
		    __netif_get_rx_queue(dev, q)->mp_params.mp_priv != b)
			continue;
		since = b->other_since[q];
		b->resize_own = false;
		mutex_unlock(&b->lock);
		err = netdev_rx_queue_restart(dev, q);
		mutex_lock(&b->lock);
		if (!err && b->resize_own) {
			b->other_ns += ktime_get_ns() - since;
			b->other_since[q] = 0;
			b->resize_delay = 0;
			netdev_info(dev, "devmemx: queue %u back at rx-buf-size %u for binding %u after %llu ms with smaller buffers\n",
				    q, size, b->id,
				    div_u64(ktime_get_ns() - since, NSEC_PER_MSEC));
		} else if (!err) {
			netdev_warn(dev, "devmemx: the driver restarted queue %u with smaller buffers than rx-buf-size %u; it stays so until the driver reopens it\n",
				    q, size);
		} else if (devmemx_restart_transient(err)) {
			if (!b->resize_delay)
				netdev_info(dev, "devmemx: restarting queue %u at rx-buf-size %u failed (%d); trying again\n",
					    q, size, err);
			again = true;
		} else {
			netdev_warn(dev, "devmemx: cannot restart queue %u at rx-buf-size %u (%d): it keeps smaller buffers until the driver reopens it\n",
				    q, size, err);
		}
	}
	b->resizing = false;
	if (again) {
		b->resize_delay = clamp_t(unsigned int, b->resize_delay * 2, HZ, 64 * HZ);
		mod_delayed_work(system_wq, &b->resize_work, b->resize_delay);
	}
	devmemx_unlock_dev(b, dev);
}

/*
 * Called with the device locked, after devmemx_check_dev() and
 * devmemx_check_queue() (for every queue) passed under that same lock; on
 * failure no queue keeps the provider.
 */
int devmemx_queues_install(struct devmemx_binding *b, const u32 *q,
			   unsigned int n, struct netlink_ext_ack *extack)
{
	struct net_device *dev = b->dev;
	unsigned int i;
	int err = 0;

	for (i = 0; i < n; i++) {
		err = devmemx_queue_open(dev, q[i], b, extack);
		if (err)
			break;
		mutex_lock(&b->lock);
		set_bit(q[i], b->queues);
		mutex_unlock(&b->lock);
	}
	if (!err)
		return 0;
	while (i--) {
		devmemx_queue_close(dev, q[i], b);
		mutex_lock(&b->lock);
		clear_bit(q[i], b->queues);
		mutex_unlock(&b->lock);
	}
	return err;
}

/* Undo every queue still holding the provider; drop the device. */
void devmemx_queues_release(struct devmemx_binding *b)
{
	struct net_device *dev;
	unsigned int q;

	dev = devmemx_lock_dev(b);
	if (!dev)
		return;
	if (b->dev == dev) {
		for_each_set_bit(q, b->queues, b->nqueues) {
			mutex_unlock(&b->lock);
			devmemx_queue_close(dev, q, b);
			mutex_lock(&b->lock);
		}
		bitmap_zero(b->queues, b->nqueues);
		devmemx_queue_other_end(b);
		b->dev = NULL;
		netdev_put(dev, &b->dev_tracker);
	}
	devmemx_unlock_dev(b, dev);
}

static bool devmemx_on_dev(struct devmemx_binding *b, const void *dev)
{
	bool on;

	mutex_lock(&b->lock);
	on = b->dev == dev;
	mutex_unlock(&b->lock);
	return on;
}

/*
 * A device going away ends its bindings: the core already told the
 * provider (uninstall) and will destroy the queues' pools; drop the device
 * and the user's reference, so each binding goes once its niovs are back.
 *
 * A move to another network namespace says NETDEV_UNREGISTER too, with
 * the device still registered, closed, its instance lock free and rtnl
 * held: it ends the device's bindings here, their queues undone before
 * the device joins the other namespace, whose traffic must not land in
 * memory the first one can read (in-tree devmem keeps its bindings on a
 * moved device).
 */
static int devmemx_netdev_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct devmemx_binding *b;
	unsigned int n;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	if (READ_ONCE(dev->reg_state) == NETREG_REGISTERED) {
		n = devmemx_bindings_end(devmemx_on_dev, dev);
		if (n)
			netdev_info(dev, "devmemx: %u binding%s ended: %s moves to another network namespace\n",
				    n, str_plural(n), dev->name);
		return NOTIFY_DONE;
	}
	if (READ_ONCE(dev->reg_state) != NETREG_UNREGISTERING)
		return NOTIFY_DONE;
	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node) {
		mutex_lock(&b->lock);
		if (b->dev != dev) {
			mutex_unlock(&b->lock);
			continue;
		}
		bitmap_zero(b->queues, b->nqueues);
		devmemx_queue_other_end(b);
		b->dev = NULL;
		netdev_put(dev, &b->dev_tracker);
		mutex_unlock(&b->lock);
		if (devmemx_binding_mark_unbound(b))
			percpu_ref_kill(&b->ref);
	}
	mutex_unlock(&devmemx_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block devmemx_netdev_nb = {
	.notifier_call = devmemx_netdev_event,
};

int devmemx_queue_init(void)
{
	return register_netdevice_notifier(&devmemx_netdev_nb);
}

void devmemx_queue_exit(void)
{
	struct devmemx_requeue *r, *tmp;

	unregister_netdevice_notifier(&devmemx_netdev_nb);
	cancel_delayed_work_sync(&devmemx_requeue_dw);
	list_for_each_entry_safe(r, tmp, &devmemx_requeues, node)
		devmemx_requeue_free(r);
}
