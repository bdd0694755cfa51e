// SPDX-License-Identifier: GPL-2.0
/*
 * Where the device's DMA writes land, as the machine's fabric routes them.
 *
 * Without an IOMMU a DMA address is a bus address, on x86 the physical
 * one. It reaches either host memory (the kernel has a struct page
 * for it) or another PCI function's memory BAR, a peer write, as a NIC's
 * write into GPU memory is. The BARs a peer write can reach are the 64-bit
 * prefetchable ones (GPU memory, QEMU's ivshmem), mapped once at load:
 * the write path runs in softirq and cannot map anything (a test VM's
 * machine: mapped write-back for good, they would clash with a driver that
 * maps one write-combined, or uncached where the BAR's MTRR type is
 * write-back: vfio-pci maps every BAR uncached when its device is opened;
 * SeaBIOS puts the test VM's BAR below 4G, where the MTRRs make both
 * uncached). Behind an IOMMU
 * (the sim's DMA device is then a PCI function, see main.c) every address
 * is an IOVA, translated through the device's domain page by page; except
 * where a PCIe switch routes it first: a write to the bus address of a BAR
 * behind the switch the device sits under goes straight to that peer and
 * never meets the IOMMU, unless the device's downstream port redirects
 * peer requests upstream (ACS redirect or egress control). The kernel's p2pdma
 * maps such a pair with bus addresses (PCI_P2PDMA_MAP_BUS_ADDR). An
 * address that reaches nothing (not mapped in the IOMMU, or neither memory
 * nor a peer BAR) loses the write, as an IOMMU or the root complex would
 * block it, and is counted and logged as a DMA fault; the packet still
 * goes up, since the device cannot tell.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/memory_hotplug.h>
#include <linux/pci.h>

#include "sim.h"

#define DXSIM_MAX_WINDOWS	8

struct dxsim_window {
	struct pci_dev *pdev;
	phys_addr_t start;
	resource_size_t len;
	void *va;
	dma_addr_t bus;		/* the BAR's bus address */
	bool switched;		/* the DMA device's switch routes to it */
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

/* Whether @port sends peer requests up to the root complex (ACS). */
static bool dxsim_acs_redirects(struct pci_dev *port)
{
	int pos = pci_find_ext_capability(port, PCI_EXT_CAP_ID_ACS);
	u16 ctrl;

	if (!pos)
		return false;
	pci_read_config_word(port, pos + PCI_ACS_CTRL, &ctrl);
	return ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC);
}

static bool dxsim_below(struct pci_dev *dev, struct pci_dev *bridge)
{
	while ((dev = pci_upstream_bridge(dev)))
		if (dev == bridge)
			return true;
	return false;
}

/*
 * Whether a switch takes the sim's DMA device's writes to @peer itself: on
 * the way up from the device, through switch ports only, a switch's
 * upstream port with @peer below it comes before any root port, and no
 * downstream port on the way redirects peer requests upstream. ACS is
 * read once, at load: the kernel sets it at enumeration, before.
 */
static bool dxsim_switch_routes(struct pci_dev *peer)
{
	struct pci_dev *p;

	if (!dev_is_pci(dxsim_dma_dev))
		return false;
	for (p = pci_upstream_bridge(to_pci_dev(dxsim_dma_dev)); p;
	     p = pci_upstream_bridge(p)) {
		if (!pci_is_pcie(p))
			return false;
		switch (pci_pcie_type(p)) {
		case PCI_EXP_TYPE_DOWNSTREAM:
			if (dxsim_acs_redirects(p))
				return false;
			break;
		case PCI_EXP_TYPE_UPSTREAM:
			if (dxsim_below(peer, p))
				return true;
			break;
		default:	/* a root port: up to the host bridge */
			return false;
		}
	}
	return false;
}

static const char dxsim_switched[] =
	", routed by the sim's PCIe switch (bus addresses, past the IOMMU)";

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
	w->bus = pci_bus_address(pdev, bar);
	w->switched = dxsim_switch_routes(pdev);
	pr_info("peer writes reach %s BAR %d %pR%s\n", pci_name(pdev), bar, res,
		w->switched ? dxsim_switched : "");
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

/* A write the switch routes to a peer by its bus address, or NULL. */
static void *dxsim_switch_va(dma_addr_t addr, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < dxsim_nr_windows; i++) {
		const struct dxsim_window *w = &dxsim_windows[i];

		if (w->switched && addr >= w->bus && addr - w->bus < w->len &&
		    len <= w->len - (addr - w->bus))
			return w->va + (addr - w->bus);
	}
	return NULL;
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

/*
 * A DMA address as the fabric sees it: through the device's IOMMU domain
 * when it has one (an address it does not map is a fault: false), else
 * dma-direct's bus address.
 */
static bool dxsim_dma_to_phys(dma_addr_t addr, phys_addr_t *phys)
{
	if (!dxsim_iommu) {
		*phys = dma_to_phys(dxsim_dma_dev, addr);
		return true;
	}
	*phys = iommu_iova_to_phys(dxsim_iommu, addr);
	return *phys;
}

/* @len bytes at @phys, within one page: a peer BAR's or host memory's. */
static bool dxsim_write_piece(phys_addr_t phys, const struct sk_buff *from,
			      unsigned int off, unsigned int len)
{
	void *va = dxsim_window_va(phys, len);

	if (va) {
		skb_copy_bits(from, off, va, len);
		return true;
	}
	/* Host memory the kernel manages; not MMIO in a section with RAM. */
	if (!pfn_to_online_page(PHYS_PFN(phys)))
		return false;
	va = kmap_local_pfn(PHYS_PFN(phys));
	skb_copy_bits(from, off, va + offset_in_page(phys), len);
	kunmap_local(va);
	return true;
}

/*
 * The device writes @len bytes of @from at @off to DMA address @addr, one
 * page of addresses at a time (behind an IOMMU each may go elsewhere).
 */
void dxsim_dma_write(struct dxsim_priv *priv, dma_addr_t addr,
		     const struct sk_buff *from, unsigned int off,
		     unsigned int len)
{
	bool remapped = false, switched = false;

	while (len) {
		unsigned int n = min_t(unsigned int, len,
				       PAGE_SIZE - offset_in_page(addr));
		phys_addr_t phys;
		bool mapped;
		void *va = dxsim_switch_va(addr, n);

		if (va) {
			skb_copy_bits(from, off, va, n);
			switched = true;
			goto next;
		}
		mapped = dxsim_dma_to_phys(addr, &phys);
		if (!mapped || !dxsim_write_piece(phys, from, off, n)) {
			atomic64_inc(&priv->dma_faults);
			if (net_ratelimit())
				netdev_err(priv->dev, "DMA fault: a write of %u bytes to %pad reaches no memory%s\n",
					   n, &addr,
					   mapped ? "" : " (not mapped in the IOMMU)");
			return;
		}
		remapped |= phys != addr;
next:
		addr += n;
		off += n;
		len -= n;
	}
	if (remapped)
		atomic64_inc(&priv->dma_remapped);
	if (switched)
		atomic64_inc(&priv->dma_switch_routed);
}
