// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx_sim: a pair of simulated NICs, dxsim0 <-> dxsim1, with queue
 * management, header-data split and a devmem-capable RX path, so that
 * devmem TCP (in-tree and devmemx) can be tested without hardware.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kmemleak.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "sim.h"

static unsigned int queues = 4;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "RX/TX queues per device (1-256, default 4)");

static bool keep_dma_dev = true;
module_param(keep_dma_dev, bool, 0444);
MODULE_PARM_DESC(keep_dma_dev,
		 "keep the DMA device past unload while dma-bufs were mapped for it (default 1; 0 frees it as a PCI unplug would: only for importers that hold it, as devmemx does)");

/*
 * The device both netdevs DMA through (fabric.c), 64-bit: QEMU's edu
 * function when the machine has one, so that a machine with an IOMMU
 * gives the NIC IOVAs as it gives a real one; else a root device of ours,
 * dma-direct.
 */
struct device *dxsim_dma_dev;
static struct net_device *dxsim_devs[2];
bool dxsim_dma_dev_shared;
static struct pci_dev *dxsim_carrier;
static bool dxsim_dma_dev_is_carrier;
/* The carrier's IOMMU domain (fabric.c), NULL for dma-direct. */
struct iommu_domain *dxsim_iommu;

static int dxsim_carrier_probe(struct pci_dev *pdev,
			       const struct pci_device_id *id)
{
	int err;

	if (dxsim_carrier)
		return -ENODEV;
	err = pci_enable_device(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		pci_disable_device(pdev);
		return err;
	}
	pci_set_master(pdev);
	dxsim_carrier = pdev;
	return 0;
}

static void dxsim_carrier_remove(struct pci_dev *pdev)
{
	pci_clear_master(pdev);
	pci_disable_device(pdev);
	dxsim_carrier = NULL;
}

/* No MODULE_DEVICE_TABLE: an edu function must not load the sim. */
static const struct pci_device_id dxsim_carrier_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },	/* QEMU's edu */
	{ }
};

static struct pci_driver dxsim_carrier_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= dxsim_carrier_ids,
	.probe		= dxsim_carrier_probe,
	.remove		= dxsim_carrier_remove,
	.driver.suppress_bind_attrs = true,
	/* dxsim_dma_dev_get() looks for it as soon as registering returns. */
	.driver.probe_type = PROBE_FORCE_SYNCHRONOUS,
};

/*
 * The carrier is a PCI function: it outlives the driver, as a NIC's does.
 * The root device goes with the module unless @keep (mappings made for it
 * may outlive the module: see dxsim_dma_dev_get()).
 */
static void dxsim_dma_dev_put(bool keep)
{
	if (dxsim_dma_dev_is_carrier) {
		put_device(dxsim_dma_dev);
		pci_unregister_driver(&dxsim_carrier_driver);
		return;
	}
	pci_unregister_driver(&dxsim_carrier_driver);
	root_device_unregister(dxsim_dma_dev);
	if (keep) {
		/* Kept on purpose, one per load: not a leak for kmemleak. */
		kmemleak_not_leak(dxsim_dma_dev);
		pr_info("DMA device kept for dma-buf mappings that may outlive the module\n");
	} else {
		put_device(dxsim_dma_dev);
	}
}

/* The carrier if the machine has one, else a root device of our own. */
static int dxsim_dma_dev_get(void)
{
	int err;

	err = pci_register_driver(&dxsim_carrier_driver);
	if (err)
		return err;
	if (dxsim_carrier) {
		dxsim_dma_dev_is_carrier = true;
		dxsim_dma_dev = get_device(&dxsim_carrier->dev);
		/* Its domain cannot change while we drive it (no driver_managed_dma). */
		dxsim_iommu = iommu_get_domain_for_dev(dxsim_dma_dev);
		pci_info(dxsim_carrier, "the sim's DMA device%s\n",
			 dxsim_iommu ? ", behind an IOMMU" : "");
		return 0;
	}
	dxsim_dma_dev = root_device_register(KBUILD_MODNAME);
	if (IS_ERR(dxsim_dma_dev)) {
		pci_unregister_driver(&dxsim_carrier_driver);
		return PTR_ERR(dxsim_dma_dev);
	}
	/*
	 * A dma-buf bound to a queue stays attached to, and mapped for, this
	 * device until its binding is freed, which may be long after the
	 * module is gone (the binding lives while its user holds it). Like a
	 * PCI device outliving its driver, the device then outlives the
	 * module: see dxsim_dma_dev_put().
	 */
	get_device(dxsim_dma_dev);
	dxsim_dma_dev->dma_mask = &dxsim_dma_dev->coherent_dma_mask;
	err = dma_set_mask_and_coherent(dxsim_dma_dev, DMA_BIT_MASK(64));
	if (err) {
		dxsim_dma_dev_put(false);
		return err;
	}
	return 0;
}

static int __init dxsim_init(void)
{
	unsigned int i;
	int err;

	if (!queues || queues > DXSIM_MAX_QUEUES) {
		pr_err("queues=%u: must be 1 to %u\n", queues, DXSIM_MAX_QUEUES);
		return -EINVAL;
	}

	err = dxsim_dma_dev_get();
	if (err)
		return err;

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
	dxsim_dma_dev_put(false);
	return err;
}

static void __exit dxsim_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dxsim_devs); i++)
		dxsim_destroy(dxsim_devs[i]);
	dxsim_debugfs_exit();
	dxsim_fabric_exit();
	dxsim_dma_dev_put(dxsim_dma_dev_shared && keep_dma_dev);
}

module_init(dxsim_init);
module_exit(dxsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated NIC pair with a devmem RX path, for devmemx tests");
