// SPDX-License-Identifier: GPL-2.0
/*
 * The device a bind's queues are on. A netkit's queue leased from a
 * physical device (7.2's queue-create) is bound on the physical queue, as
 * the kernel's netif_mp_open_rxq() binds it: the netkit's instance lock,
 * then the physical device's. The binding names the netkit (its namespace
 * sees it, ends it, and the lease's end ends it: end.c). What the physical
 * device refuses goes to the host's log; the requester, maybe in a pod,
 * hears only of its own device.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netdev_lock.h>
#include <net/netdev_rx_queue.h>

#include "devmemx.h"

/*
 * With @dev locked: if its queues @q (@n of them) are leased, the
 * physical device they are leased from, held, and their indices there in
 * @pq; NULL if none is leased. A lease's pointers are written under both
 * devices' locks and the lease holds the physical device.
 */
static struct net_device *devmemx_lease_find(struct net_device *dev,
					     const u32 *q, unsigned int n,
					     u32 *pq,
					     struct netlink_ext_ack *extack)
{
	struct netdev_rx_queue *lease;
	struct net_device *qdev = NULL;
	unsigned int i, leased = 0;

	if (dev->dev.parent)
		return NULL;
	for (i = 0; i < n; i++) {
		lease = READ_ONCE(__netif_get_rx_queue(dev, q[i])->lease);
		if (!lease)
			continue;
		if (qdev && lease->dev != qdev) {
			NL_SET_ERR_MSG_FMT(extack,
					   "queues %u and %u of %s are leased from two devices",
					   q[0], q[i], dev->name);
			return ERR_PTR(-EOPNOTSUPP);
		}
		qdev = lease->dev;
		pq[i] = get_netdev_rx_queue_index(lease);
		leased++;
	}
	if (!leased)
		return NULL;
	for (i = 0; leased < n && i < n; i++) {
		if (READ_ONCE(__netif_get_rx_queue(dev, q[i])->lease))
			continue;
		NL_SET_ERR_MSG_FMT(extack,
				   "queue %u of %s is not leased, the others are: bind it alone",
				   q[i], dev->name);
		return ERR_PTR(-EINVAL);
	}
	if (!qdev->dev.parent) {
		NL_SET_ERR_MSG_FMT(extack,
				   "the queues of %s are leased from a virtual device",
				   dev->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* Its unregister has begun: the netkit goes next (netkit.c). */
	if (READ_ONCE(qdev->reg_state) != NETREG_REGISTERED) {
		NL_SET_ERR_MSG_FMT(extack,
				   "the device %s leases from is going away",
				   dev->name);
		return ERR_PTR(-ENODEV);
	}
	dev_hold(qdev);
	return qdev;
}

/*
 * With @dev locked, named in @net by @attr: the device and queues a bind
 * of @dev's queues @q (@n of them) at @size goes to, locked, and every
 * check passed there (devmemx_check_bind()). @t->extack gets the
 * refusals of the queues' device: the request's own, or, for a lease, one
 * that devmemx_lease_refused() reports. Undone by devmemx_lease_end().
 */
int devmemx_lease_begin(struct devmemx_target *t, struct net_device *dev,
			struct net *net, const u32 *q, unsigned int n, u32 size,
			struct netlink_ext_ack *extack, const struct nlattr *attr)
{
	struct net_device *qdev;
	struct device *dma_dev;
	unsigned int i;
	u32 *pq;
	int err;

	memset(t, 0, sizeof(*t));
	t->dev = dev;
	t->qdev = dev;
	t->req_q = q;
	t->q = q;
	t->n = n;
	t->req = extack;
	t->extack = extack;
	if (dev->reg_state != NETREG_REGISTERED || !netif_device_present(dev) ||
	    !devmemx_check_here(dev, net, extack, attr))
		return -ENODEV;
	for (i = 0; i < n; i++) {
		err = devmemx_check_queue_range(dev, q[i], extack);
		if (err)
			return err;
	}
	pq = kmemdup_array(q, n, sizeof(*q), GFP_KERNEL);
	if (!pq)
		return -ENOMEM;
	qdev = devmemx_lease_find(dev, q, n, pq, extack);
	if (IS_ERR_OR_NULL(qdev)) {
		kfree(pq);
		if (IS_ERR(qdev))
			return PTR_ERR(qdev);
	} else {
		netdev_lock(qdev);
		t->qdev = qdev;
		t->pq = pq;
		t->q = pq;
		t->extack = &t->scratch;
	}
	dma_dev = devmemx_check_bind(t, size);
	if (IS_ERR(dma_dev)) {
		err = devmemx_lease_refused(t, PTR_ERR(dma_dev));
		devmemx_lease_end(t);
		return err;
	}
	t->dma_dev = dma_dev;
	return 0;
}

void devmemx_lease_end(struct devmemx_target *t)
{
	if (t->qdev == t->dev)
		return;
	netdev_unlock(t->qdev);
	dev_put(t->qdev);
	kfree(t->pq);
	t->qdev = t->dev;
	t->q = t->req_q;
}

/*
 * The physical device of a lease refused @err: the host's log says why in
 * the words the checks used, and the requester gets the part about its
 * own device. Returns @err.
 */
int devmemx_lease_refused(const struct devmemx_target *t, int err)
{
	unsigned int i;

	if (t->qdev == t->dev || !err)
		return err;
	netdev_info(t->qdev, "devmemx: a bind of %s's leased queues refused: %s (%d)\n",
		    t->dev->name, t->scratch._msg ?: "no reason given", err);
	for (i = 0; i < t->n; i++) {
		if (__netif_get_rx_queue(t->qdev, t->q[i])->mp_params.mp_priv) {
			NL_SET_ERR_MSG_FMT(t->req,
					   "queue %u of %s is already bound to a memory provider",
					   t->req_q[i], t->dev->name);
			return err;
		}
	}
	NL_SET_ERR_MSG_FMT(t->req,
			   "the device %s leases from refuses: see the host's log",
			   t->dev->name);
	return err;
}
