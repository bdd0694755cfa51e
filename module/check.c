// SPDX-License-Identifier: GPL-2.0
/*
 * What a bind needs of a device and its queues, as the kernel's
 * __netif_mp_open_rxq() checks it, each refusal saying what to change; the
 * buffer sizes the driver takes; the queues' DMA device; and what CAPS-GET
 * reports beyond the device's config.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/swiotlb.h>
#include <net/netdev_lock.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/memory_provider.h>

#include "devmemx.h"

/* The driver's own verdict on a buffer size, without touching a queue. */
static int devmemx_check_size(struct net_device *dev, u32 size,
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

/* What devmem needs of the driver itself: queue management ops. */
int devmemx_check_qops(struct net_device *dev, struct netlink_ext_ack *extack)
{
	if (dev->queue_mgmt_ops && netdev_need_ops_lock(dev))
		return 0;
	NL_SET_ERR_MSG_FMT(extack,
			   "%s has no queue management ops (devmem needs them)",
			   dev->name);
	return -EOPNOTSUPP;
}

/* The driver takes RX buffers of @niov_size (after devmemx_check_qops()). */
int devmemx_check_rx_page_size(struct net_device *dev, u32 niov_size,
			       struct netlink_ext_ack *extack)
{
	if (niov_size == PAGE_SIZE ||
	    (dev->queue_mgmt_ops->supported_params & QCFG_RX_PAGE_SIZE))
		return 0;
	NL_SET_ERR_MSG_FMT(extack, "the driver of %s takes no rx-buf-size but %lu",
			   dev->name, PAGE_SIZE);
	return -EOPNOTSUPP;
}

/* The device-wide conditions for devmem; called with the device locked. */
int devmemx_check_dev(struct net_device *dev, u32 niov_size,
		      struct netlink_ext_ack *extack)
{
	int err;

	err = devmemx_check_qops(dev, extack);
	if (err)
		return err;
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
	err = devmemx_check_rx_page_size(dev, niov_size, extack);
	if (err)
		return err;
	err = devmemx_check_size(dev, niov_size, extack);
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
u64 devmemx_check_sizes(struct net_device *dev)
{
	u64 sizes = 0;
	unsigned int n;

	if (!dev->queue_mgmt_ops)
		return 0;
	/* A driver that takes no size but its default: bind refuses others. */
	if (!(dev->queue_mgmt_ops->supported_params & QCFG_RX_PAGE_SIZE))
		return BIT_ULL(PAGE_SHIFT);
	for (n = PAGE_SHIFT; n <= 20; n++) {
		if (devmemx_check_size(dev, 1U << n, NULL))
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
	return 0;
}

/* The device the queues DMA through; they must agree on one. */
struct device *devmemx_check_dma_dev(struct net_device *dev, const u32 *q,
				     unsigned int n,
				     struct netlink_ext_ack *extack)
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
 * With the device locked: is it still in @net? A move to another namespace
 * drops the device's lock while it happens (moving_ns), as
 * netdev_get_by_index_lock() checks (it is not exported). The refusal
 * points at @attr, the request's device.
 */
bool devmemx_check_here(struct net_device *dev, struct net *net,
			struct netlink_ext_ack *extack,
			const struct nlattr *attr)
{
	if (!dev->moving_ns && net_eq(dev_net(dev), net))
		return true;
	NL_SET_ERR_MSG_ATTR(extack, attr, "no such device in this network namespace");
	return false;
}

/*
 * With the devices of @t locked (lease.c, which checked @t->dev): every
 * check of a bind of its queues at @size; the queues' DMA device. The
 * physical end of a lease binds only through the lease, as in-tree.
 */
struct device *devmemx_check_bind(const struct devmemx_target *t, u32 size)
{
	struct net_device *dev = t->qdev;
	struct netlink_ext_ack *extack = t->extack;
	unsigned int i;
	int err;

	err = devmemx_check_dev(dev, size, extack);
	for (i = 0; !err && i < t->n; i++) {
		err = devmemx_check_queue(dev, t->q[i], extack);
		if (!err && t->qdev == t->dev &&
		    READ_ONCE(__netif_get_rx_queue(dev, t->q[i])->lease)) {
			NL_SET_ERR_MSG_FMT(extack,
					   "queue %u of %s is leased: bind it through the lease",
					   t->q[i], dev->name);
			err = -EBUSY;
		}
	}
	if (err)
		return ERR_PTR(err);
	return devmemx_check_dma_dev(dev, t->q, t->n, extack);
}

/*
 * devmem never syncs payload for the CPU: DMA that bounces through swiotlb
 * would land in memory nobody reads.
 */
bool devmemx_check_bounces(struct device *dma_dev)
{
	return is_swiotlb_force_bounce(dma_dev);
}

static void devmemx_check_driver(struct net_device *dev, char *buf, size_t len)
{
	struct ethtool_drvinfo drv = {};

	if (dev->ethtool_ops && dev->ethtool_ops->get_drvinfo)
		dev->ethtool_ops->get_drvinfo(dev, &drv);
	if (!drv.driver[0] && dev->dev.parent && dev->dev.parent->driver)
		strscpy(drv.driver, dev->dev.parent->driver->name, sizeof(drv.driver));
	strscpy(buf, drv.driver[0] ? drv.driver : "unknown", len);
}

/* With the device locked: its driver, and queue @q's DMA and sizes. */
void devmemx_check_caps(struct net_device *dev, u32 q, struct devmemx_caps *caps)
{
	struct device *dma_dev;

	devmemx_check_driver(dev, caps->driver, sizeof(caps->driver));
	caps->bounce = false;
	if (dev->queue_mgmt_ops && dev->real_num_rx_queues) {
		dma_dev = devmemx_check_dma_dev(dev, &q, 1, NULL);
		caps->bounce = !IS_ERR(dma_dev) && devmemx_check_bounces(dma_dev);
	}
	caps->sizes = devmemx_check_sizes(dev);
}
