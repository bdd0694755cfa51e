// SPDX-License-Identifier: GPL-2.0
/*
 * Where the device's DMA writes land, as the machine's fabric routes them.
 *
 * The DMA device is dma-direct: a DMA address is a bus address, on x86 the
 * physical one. It reaches either host memory (the kernel has a struct page
 * for it) or another PCI function's memory BAR, a peer write, as a NIC's
 * write into GPU memory is. The BARs a peer write can reach are the 64-bit
 * prefetchable ones (GPU memory, QEMU's ivshmem), mapped once at load:
 * the write path runs in softirq and cannot map anything. An address that
 * is neither reaches nothing: the write is lost, as an IOMMU or the root
 * complex would block it, and counted and logged as a DMA fault; the packet
 * still goes up, since the device cannot tell.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/pci.h>

#include "sim.h"

#define DXSIM_MAX_WINDOWS	8

struct dxsim_window {
	struct pci_dev *pdev;
	phys_addr_t start;
	resource_size_t len;
	void *va;
};

/* Written at load, read-only after: no lock on the write path. */
static struct dxsim_window dxsim_windows[DXSIM_MAX_WINDOWS];
static unsigned int dxsim_nr_windows;

static bool dxsim_bar_is_peer_memory(const struct resource *res)
{
	unsigned long want = IORESOURCE_MEM | IORESOURCE_PREFETCH |
			     IORESOURCE_MEM_64;

	return (res->flags & want) == want && res->start && resource_size(res);
}

static void dxsim_window_add(struct pci_dev *pdev, int bar)
{
	struct resource *res = pci_resource_n(pdev, bar);
	struct dxsim_window *w;
	void *va;

	if (dxsim_nr_windows == DXSIM_MAX_WINDOWS) {
		pr_info("%s BAR %d is out of the sim's reach (%u windows at most)\n",
			pci_name(pdev), bar, DXSIM_MAX_WINDOWS);
		return;
	}
	/* Cached, as the device memory's own exporter maps it. */
	va = memremap(res->start, resource_size(res), MEMREMAP_WB);
	if (!va) {
		pr_info("cannot map %s BAR %d %pR: writes to it will fault\n",
			pci_name(pdev), bar, res);
		return;
	}
	w = &dxsim_windows[dxsim_nr_windows++];
	w->pdev = pci_dev_get(pdev);
	w->start = res->start;
	w->len = resource_size(res);
	w->va = va;
	pr_info("peer writes reach %s BAR %d %pR\n", pci_name(pdev), bar, res);
}

void dxsim_fabric_init(void)
{
	struct pci_dev *pdev = NULL;
	int bar;

	for_each_pci_dev(pdev)
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
			if (dxsim_bar_is_peer_memory(pci_resource_n(pdev, bar)))
				dxsim_window_add(pdev, bar);
}

void dxsim_fabric_exit(void)
{
	while (dxsim_nr_windows) {
		struct dxsim_window *w = &dxsim_windows[--dxsim_nr_windows];

		memunmap(w->va);
		pci_dev_put(w->pdev);
	}
}

static void *dxsim_window_va(phys_addr_t phys, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < dxsim_nr_windows; i++) {
		const struct dxsim_window *w = &dxsim_windows[i];

		if (phys >= w->start && phys - w->start < w->len &&
		    len <= w->len - (phys - w->start))
			return w->va + (phys - w->start);
	}
	return NULL;
}

/* Host memory, page by page: all of it must have struct pages. */
static bool dxsim_ram_write(phys_addr_t phys, const struct sk_buff *from,
			    unsigned int off, unsigned int len)
{
	phys_addr_t p;

	for (p = round_down(phys, PAGE_SIZE); p < phys + len; p += PAGE_SIZE)
		if (!pfn_valid(PHYS_PFN(p)))
			return false;
	while (len) {
		unsigned int poff = offset_in_page(phys);
		unsigned int n = min_t(unsigned int, len, PAGE_SIZE - poff);
		void *va;

		va = kmap_local_pfn(PHYS_PFN(phys));
		skb_copy_bits(from, off, va + poff, n);
		kunmap_local(va);
		phys += n;
		off += n;
		len -= n;
	}
	return true;
}

/* The device writes @len bytes of @from at @off to DMA address @addr. */
void dxsim_dma_write(struct dxsim_priv *priv, dma_addr_t addr,
		     const struct sk_buff *from, unsigned int off,
		     unsigned int len)
{
	phys_addr_t phys = dma_to_phys(dxsim_dma_dev, addr);
	void *va = dxsim_window_va(phys, len);

	if (va) {
		skb_copy_bits(from, off, va, len);
		return;
	}
	if (dxsim_ram_write(phys, from, off, len))
		return;
	atomic64_inc(&priv->dma_faults);
	if (net_ratelimit())
		netdev_err(priv->dev, "DMA fault: a write of %u bytes to %pad reaches no memory\n",
			   len, &addr);
}
