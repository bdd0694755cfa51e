/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * devmemx_vram: the test exporter of device memory (driver-shims/vram).
 *
 * /dev/devmemx_vram stands for a GPU: its memory is a PCI BAR the kernel has
 * no struct page for (a second device is /dev/devmemx_vram1, and so on).
 * DEVMEMX_VRAM_EXPORT allocates a range of it and
 * returns a dma-buf of that range, exported as NVIDIA's driver exports
 * video memory (no pages in the scatterlist, no mmap). The memory is read
 * and written with pread/pwrite on /dev/devmemx_vram at the range's offset,
 * as an application copies GPU memory (cudaMemcpy). The range is freed when
 * the last reference to its dma-buf goes. A new range of up to 1 GiB holds
 * 0x5a in every byte; a larger one keeps what the memory held (filling it
 * would write every byte of a GPU-sized BAR).
 */
#ifndef _UAPI_LINUX_DEVMEMX_VRAM_H
#define _UAPI_LINUX_DEVMEMX_VRAM_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Attachments must be peer-to-peer and revocable (importer ops with
 * invalidate_mappings), as vfio-pci's dma-bufs demand; without it any
 * importer may attach, static ones included, as with NVIDIA's.
 */
#define DEVMEMX_VRAM_REVOCABLE	(1U << 0)

/*
 * The range's last GiB lies at its start in device memory, the rest after
 * it: a dma-buf of two pieces, as a driver backs one allocation with
 * memory from wherever it is free. Byte x of the dma-buf lies at the
 * range's offset plus (x + DEVMEMX_VRAM_TAIL) % size. Sizes of whole GiBs, 2G
 * or more. An importer that hands out memory from the last piece it was
 * given first (a gen_pool does) receives into the dma-buf's last GiB.
 */
#define DEVMEMX_VRAM_TAIL_FIRST	(1U << 1)
#define DEVMEMX_VRAM_TAIL	(1ULL << 30)

/*
 * Mapped as vfio-pci maps its dma-bufs: by the kernel's p2pdma rules, a bus
 * address for an importer behind the same PCIe switch (the switch routes
 * it; the IOMMU never sees it), through the host bridge where the kernel
 * trusts it (an IOVA behind an IOMMU, else the physical address); anything
 * else refused. Only peer-to-peer importers. EOPNOTSUPP where the kernel
 * has no p2pdma.
 */
#define DEVMEMX_VRAM_P2PDMA	(1U << 2)

struct devmemx_vram_export {
	__u64 size;	/* in: bytes, a multiple of 4K */
	__u64 offset;	/* out: where the range starts in the device memory */
	__u32 flags;	/* in: DEVMEMX_VRAM_* */
	__s32 fd;	/* out: the dma-buf, O_RDWR | O_CLOEXEC */
};

/*
 * Revoke a dma-buf of this exporter, as vfio-pci does on a reset: under
 * its reservation lock no new mapping is made, importers are told
 * (invalidate_mappings) and their fences waited for; then the call waits
 * up to timeout_ms for every mapping to go, and says how many were left.
 */
struct devmemx_vram_revoke {
	__s32 fd;		/* in: the dma-buf */
	__u32 timeout_ms;	/* in */
	__u32 mappings;		/* out: mappings left at the end (0: all gone) */
	__u32 pad;		/* 0 */
};

#define DEVMEMX_VRAM_EXPORT	_IOWR('x', 0x01, struct devmemx_vram_export)
#define DEVMEMX_VRAM_REVOKE	_IOWR('x', 0x02, struct devmemx_vram_revoke)

#endif /* _UAPI_LINUX_DEVMEMX_VRAM_H */
