/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A dma-buf to bind: udmabuf over a memfd, a dma-heap buffer, or device
 * memory from the test exporter devmemx_vram or from vfio-pci (read back
 * through the device that exported it).
 */
#ifndef DX_DMABUF_H
#define DX_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dx_dmabuf_kind {
	DX_DMABUF_NONE, DX_UDMABUF, DX_DMA_HEAP, DX_VRAM, DX_VFIO, DX_HELD,
};

/* What to make, as the command line asked for it. */
struct dx_dmabuf_spec {
	enum dx_dmabuf_kind kind;
	uint64_t size;
	bool hugetlb;		/* udmabuf over 2M huge pages */
	bool revocable;		/* device memory only revocable importers take */
	bool tail_first;	/* device memory whose last GiB lies first */
	bool p2pdma;		/* device memory mapped by the kernel's p2pdma */
	const char *vram_dev;	/* the test exporter's device, or NULL */
	const char *heap;	/* /dev/dma_heap/<heap> */
	const char *vfio;	/* the PCI function (BDF) vfio-pci exports */
	int pid, fd;		/* DX_HELD: fd @fd of process @pid */
	unsigned int held_set;	/* which of --pid (1) and --fd (2) came */
};

struct dx_dmabuf {
	int fd;			/* the dma-buf */
	int memfd;		/* udmabuf's backing memfd, or -1 */
	uint8_t *map;		/* a read-only CPU mapping, NULL when none */
	size_t size;
	bool sync;		/* bracket CPU reads with DMA_BUF_IOCTL_SYNC */
	/*
	 * Without a mapping: pread on dev_fd at dev_off + (offset + dev_rot)
	 * % size (dev_rot: DEVMEMX_VRAM_TAIL_FIRST's layout, else 0).
	 */
	int dev_fd;
	uint64_t dev_off;
	uint64_t dev_rot;
	uint8_t *scratch;
	size_t scratch_len;
	int vfio_group, vfio_container;
};

/* A dma-buf not made yet: dx_dmabuf_destroy() leaves it alone. */
#define DX_DMABUF_INIT { .fd = -1, .memfd = -1, .dev_fd = -1, \
	.vfio_group = -1, .vfio_container = -1 }

/* Bad usage in @s (sizes, --hugetlb): print it, return -EINVAL. */
int dx_dmabuf_check(const struct dx_dmabuf_spec *s);
int dx_dmabuf_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s);
int dx_dmabuf_begin_read(struct dx_dmabuf *b);
/* @len bytes at dma-buf offset @off, as the CPU reads them; NULL on error. */
const uint8_t *dx_dmabuf_read(struct dx_dmabuf *b, uint64_t off, size_t len);
int dx_dmabuf_end_read(struct dx_dmabuf *b);
/* A no-op on a dma-buf that was not made (fd -1). */
void dx_dmabuf_destroy(struct dx_dmabuf *b);
/*
 * Fd @fd of process @pid (pidfd_getfd), checked to be a dma-buf: our fd,
 * or -errno after saying why not.
 */
int dx_dmabuf_take(int pid, int fd);
/* Whether the CPU can read @b back (dx_dmabuf_read()). */
bool dx_dmabuf_readable(const struct dx_dmabuf *b);
/* The exporter's name of dma-buf @fd (fdinfo's exp_name), "?" if none. */
void dx_dmabuf_exporter(int fd, char *name, size_t size);
/*
 * Call @fn for each fd of a process this one can see that holds the
 * dma-buf whose inode is @ino: how many, or -errno.
 */
typedef void (*dx_holder_fn)(int pid, const char *comm, int fd, void *arg);
int dx_dmabuf_holders(uint64_t ino, dx_holder_fn fn, void *arg);
/* vfio.c: the first @b->size bytes of BAR 2 of PCI function @bdf. */
int dx_vfio_create(struct dx_dmabuf *b, const char *bdf);

#endif
