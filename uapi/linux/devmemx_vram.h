/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * devmemx_vram: the test exporter of device memory (driver-shims/vram).
 *
 * /dev/devmemx_vram stands for a GPU: its memory is a PCI BAR the kernel has
 * no struct page for. DEVMEMX_VRAM_EXPORT allocates a range of it and
 * returns a dma-buf of that range, exported as NVIDIA's driver exports
 * video memory (no pages in the scatterlist, no mmap). The memory is read
 * and written with pread/pwrite on /dev/devmemx_vram at the range's offset,
 * as an application copies GPU memory (cudaMemcpy). The range is freed when
 * the last reference to its dma-buf goes.
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
