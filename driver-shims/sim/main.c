// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx_sim: a pair of simulated NICs, dxsim0 <-> dxsim1, with queue
 * management, header-data split and a devmem-capable RX path, so that
 * devmem TCP (in-tree and devmemx) can be tested without hardware.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kmemleak.h>
#include <linux/module.h>

#include "sim.h"

static unsigned int queues = 4;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "RX/TX queues per device (1-16, default 4)");

static bool keep_dma_dev = true;
module_param(keep_dma_dev, bool, 0444);
MODULE_PARM_DESC(keep_dma_dev,
		 "keep the DMA device past unload while dma-bufs were mapped for it (default 1; 0 frees it as a PCI unplug would: only for importers that hold it, as devmemx does)");

/* The device both netdevs DMA through: dma-direct, 64-bit (fabric.c). */
struct device *dxsim_dma_dev;
static struct net_device *dxsim_devs[2];
bool dxsim_dma_dev_shared;

static int __init dxsim_init(void)
{
	unsigned int i;
	int err;

	if (!queues || queues > DXSIM_MAX_QUEUES) {
		pr_err("queues=%u: must be 1 to %u\n", queues, DXSIM_MAX_QUEUES);
		return -EINVAL;
	}

	dxsim_dma_dev = root_device_register(KBUILD_MODNAME);
	if (IS_ERR(dxsim_dma_dev))
		return PTR_ERR(dxsim_dma_dev);
	/*
	 * A dma-buf bound to a queue stays attached to, and mapped for, this
	 * device until its binding is freed, which may be long after the
	 * module is gone (the binding lives while its user holds it). Like a
	 * PCI device outliving its driver, the device then outlives the
	 * module: see dxsim_exit().
	 */
	get_device(dxsim_dma_dev);
	dxsim_dma_dev->dma_mask = &dxsim_dma_dev->coherent_dma_mask;
	err = dma_set_mask_and_coherent(dxsim_dma_dev, DMA_BIT_MASK(64));
	if (err)
		goto err_dev;

	dxsim_fabric_init();
	dxsim_debugfs_init();
	for (i = 0; i < ARRAY_SIZE(dxsim_devs); i++) {
		dxsim_devs[i] = dxsim_create(i ? "dxsim1" : "dxsim0", queues);
		if (IS_ERR(dxsim_devs[i])) {
			err = PTR_ERR(dxsim_devs[i]);
			goto err_netdevs;
		}
		dxsim_debugfs_add(netdev_priv(dxsim_devs[i]));
	}
	dxsim_pair(dxsim_devs[0], dxsim_devs[1]);
	pr_info("dxsim0 <-> dxsim1, %u queues, rx-page-size up to %u\n",
		queues, DXSIM_MAX_RX_PAGE);
	return 0;

err_netdevs:
	while (i--)
		dxsim_destroy(dxsim_devs[i]);
	dxsim_debugfs_exit();
	dxsim_fabric_exit();
err_dev:
	root_device_unregister(dxsim_dma_dev);
	put_device(dxsim_dma_dev);
	return err;
}

static void __exit dxsim_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dxsim_devs); i++)
		dxsim_destroy(dxsim_devs[i]);
	dxsim_debugfs_exit();
	dxsim_fabric_exit();
	root_device_unregister(dxsim_dma_dev);
	if (dxsim_dma_dev_shared && keep_dma_dev) {
		/* Kept on purpose, one per load: not a leak for kmemleak. */
		kmemleak_not_leak(dxsim_dma_dev);
		pr_info("DMA device kept for dma-buf mappings that may outlive the module\n");
	} else {
		put_device(dxsim_dma_dev);
	}
}

module_init(dxsim_init);
module_exit(dxsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated NIC pair with a devmem RX path, for devmemx tests");
