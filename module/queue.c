// SPDX-License-Identifier: GPL-2.0
/*
 * The provider on RX queues: installed with the exported pieces of what
 * the kernel's __netif_mp_open_rxq() does (mp_params set, the queue
 * restarted), every queue rolled back on any failure; taken off when the
 * binding ends, and a queue whose restart failed retried until it works.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/memory_provider.h>

#include "devmemx.h"

/*
 * A queue whose restart without the provider failed (its driver found no
 * memory for the new page pool) goes on running on the binding's buffers,
 * and the binding cannot end. Such queues are restarted again every second
 * until that works, or the device goes down (its pools go with it) or away.
 *
 * Each queue's record is made with the binding (devmemx_queue_init()):
 * recording a stuck queue cannot fail, so an exporter's revoke always
 * sees it (import.c) and never unmaps memory the queue still writes into.
 */
struct devmemx_requeue {
	struct list_head node;		/* devmemx_requeues; empty while unlisted */
	struct net_device *dev;
	netdevice_tracker tracker;
	struct devmemx_binding *b;	/* referenced while listed */
	u32 q;
};

static LIST_HEAD(devmemx_requeues);
static DEFINE_MUTEX(devmemx_requeue_lock);	/* devmemx_requeues, nodes */
static void devmemx_requeue_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(devmemx_requeue_dw, devmemx_requeue_work);

/* A record for each queue of @b, before it can hold a queue. */
int devmemx_queue_init(struct devmemx_binding *b)
{
	unsigned int q;

	b->requeues = kvcalloc(b->nqueues, sizeof(*b->requeues), GFP_KERNEL);
	if (!b->requeues)
		return -ENOMEM;
	for (q = 0; q < b->nqueues; q++) {
		INIT_LIST_HEAD(&b->requeues[q].node);
		b->requeues[q].b = b;
		b->requeues[q].q = q;
	}
	return 0;
}

/* Nothing listed holds a freed binding: a listed record holds a reference. */
void devmemx_queue_destroy(struct devmemx_binding *b)
{
	kvfree(b->requeues);
}

static void devmemx_requeue_add(struct net_device *dev, u32 q,
				struct devmemx_binding *b)
{
	struct devmemx_requeue *r = &b->requeues[q];

	mutex_lock(&devmemx_requeue_lock);
	/* A queue leaves a binding once: listed already cannot happen. */
	if (list_empty(&r->node)) {
		r->dev = dev;
		netdev_hold(dev, &r->tracker, GFP_KERNEL);
		/* A revoke does not unmap the memory while the queue may write to it. */
		percpu_ref_get(&b->ref);
		atomic_inc(&b->import.stuck_queues);
		list_add_tail(&r->node, &devmemx_requeues);
	}
	mutex_unlock(&devmemx_requeue_lock);
	queue_delayed_work(system_wq, &devmemx_requeue_dw, HZ);
}

/* Off the list; the binding's reference goes last (it may free @r). */
static void devmemx_requeue_free(struct devmemx_requeue *r)
{
	struct devmemx_binding *b = r->b;

	mutex_lock(&devmemx_requeue_lock);
	list_del_init(&r->node);
	mutex_unlock(&devmemx_requeue_lock);
	netdev_put(r->dev, &r->tracker);
	r->dev = NULL;
	atomic_dec(&b->import.stuck_queues);
	percpu_ref_put(&b->ref);
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
	devmemx_requeue_add(dev, q, b);
	netdev_warn(dev, "devmemx: restarting queue %u without the provider failed: %d; retrying every second\n",
		    q, err);
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
	smaller = b->resize.since[q];
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
 * Called with the devices locked, after devmemx_check_bind() passed
 * under those same locks, with @q the queues of b->qdev; on failure no
 * queue keeps the provider.
 */
int devmemx_queues_install(struct devmemx_binding *b, const u32 *q,
			   unsigned int n, struct netlink_ext_ack *extack)
{
	struct net_device *dev = b->qdev;
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

/* Undo every queue still holding the provider; drop the devices. */
void devmemx_queues_release(struct devmemx_binding *b)
{
	struct net_device *qdev, *dev;
	unsigned int q;

	qdev = devmemx_binding_lock_dev(b, &dev);
	if (!qdev)
		return;
	/* The queues' pools served; a restart below replaces them. */
	devmemx_resize_seen(b);
	for_each_set_bit(q, b->queues, b->nqueues) {
		mutex_unlock(&b->lock);
		devmemx_queue_close(qdev, q, b);
		mutex_lock(&b->lock);
	}
	devmemx_queue_drop_dev(b);
	devmemx_binding_unlock_dev(b, qdev, dev);
}

/*
 * Under b->lock: the binding leaves its devices (its queues already
 * undone, or gone with the device), and the time at another size stops.
 */
void devmemx_queue_drop_dev(struct devmemx_binding *b)
{
	lockdep_assert_held(&b->lock);
	bitmap_zero(b->queues, b->nqueues);
	devmemx_resize_end(b);
	if (b->qdev != b->dev)
		netdev_put(b->qdev, &b->qdev_tracker);
	netdev_put(b->dev, &b->dev_tracker);
	b->qdev = NULL;
	b->dev = NULL;
}

void devmemx_queue_exit(void)
{
	struct devmemx_requeue *r, *tmp;

	cancel_delayed_work_sync(&devmemx_requeue_dw);
	list_for_each_entry_safe(r, tmp, &devmemx_requeues, node)
		devmemx_requeue_free(r);
}
