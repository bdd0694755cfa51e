// SPDX-License-Identifier: GPL-2.0
/*
 * A PCI function's memory BAR exported as a dma-buf by vfio-pci
 * (VFIO_DEVICE_FEATURE_DMA_BUF), as a GPU's memory is handed to an
 * importer, and read back through the vfio device (region reads), never
 * through a mapping of the dma-buf.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pci_regs.h>
/* include/uapi holds the kernel's header as is: headers_install drops this. */
#define __user
#include <linux/vfio.h>

#include "dmabuf.h"
#include "util.h"

#define VFIO_BAR	2	/* ivshmem-plain's memory; a GPU's is BAR 1 */
#define VFIO_POISON	0x5a	/* what the range holds before it is written */

static int vfio_err(const char *bdf, const char *what, const char *hint)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s: %s%s%s\n", dx_prog, bdf, what,
		strerror(err), hint ? " " : "", hint ?: "");
	return -err;
}

/* The IOMMU group of @bdf, and that vfio-pci drives it. */
static int vfio_group_of(const char *bdf, int *group)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	if (access(path, F_OK)) {
		fprintf(stderr, "%s: no PCI function %s (see /sys/bus/pci/devices; a BDF is written 0000:01:00.0)\n",
			dx_prog, bdf);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0 || (link[n] = 0, strcmp(basename(link), "vfio-pci"))) {
		fprintf(stderr, "%s: %s is not bound to vfio-pci: echo vfio-pci > /sys/bus/pci/devices/%s/driver_override, unbind its driver, echo %s > /sys/bus/pci/drivers_probe\n",
			dx_prog, bdf, bdf, bdf);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		fprintf(stderr, "%s: %s has no IOMMU group: vfio-pci needs an IOMMU (intel_iommu=on or amd_iommu=on)\n",
			dx_prog, bdf);
		return -ENODEV;
	}
	link[n] = 0;
	*group = atoi(basename(link));
	return 0;
}

static int vfio_region(int dev, unsigned int index,
		       struct vfio_region_info *info)
{
	memset(info, 0, sizeof(*info));
	info->argsz = sizeof(*info);
	info->index = index;
	return ioctl(dev, VFIO_DEVICE_GET_REGION_INFO, info);
}

/* Memory decode and bus mastering on: a dma-buf made without starts revoked. */
static int vfio_enable_memory(int dev, const char *bdf)
{
	struct vfio_region_info cfg;
	uint16_t cmd;

	if (vfio_region(dev, VFIO_PCI_CONFIG_REGION_INDEX, &cfg) ||
	    pread(dev, &cmd, sizeof(cmd), cfg.offset + PCI_COMMAND) != sizeof(cmd))
		return vfio_err(bdf, "reading its command register", NULL);
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	if (pwrite(dev, &cmd, sizeof(cmd), cfg.offset + PCI_COMMAND) != sizeof(cmd))
		return vfio_err(bdf, "writing its command register", NULL);
	return 0;
}

static int vfio_poison(struct dx_dmabuf *b, const char *bdf)
{
	static uint8_t chunk[1 << 16];
	uint64_t off;

	memset(chunk, VFIO_POISON, sizeof(chunk));
	for (off = 0; off < b->size; off += sizeof(chunk)) {
		size_t n = b->size - off < sizeof(chunk) ? b->size - off : sizeof(chunk);

		if (pwrite(b->dev_fd, chunk, n, b->dev_off + off) != (ssize_t)n)
			return vfio_err(bdf, "writing its memory", NULL);
	}
	return 0;
}

/* The first @b->size bytes of BAR 2 of @bdf, as vfio-pci exports them. */
int dx_vfio_create(struct dx_dmabuf *b, const char *bdf)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	struct {
		struct vfio_device_feature f;
		struct vfio_device_feature_dma_buf d;
		struct vfio_region_dma_range r;
	} req = { 0 };
	struct vfio_region_info bar;
	char path[64];
	int group, fd, ret;

	ret = vfio_group_of(bdf, &group);
	if (ret)
		return ret;
	b->vfio_container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (b->vfio_container < 0)
		return vfio_err(bdf, "/dev/vfio/vfio", "(modprobe vfio-pci)");
	snprintf(path, sizeof(path), "/dev/vfio/%d", group);
	b->vfio_group = open(path, O_RDWR | O_CLOEXEC);
	if (b->vfio_group < 0)
		return vfio_err(bdf, path, "(is another process using it?)");
	if (ioctl(b->vfio_group, VFIO_GROUP_GET_STATUS, &status))
		return vfio_err(bdf, "VFIO_GROUP_GET_STATUS", NULL);
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		fprintf(stderr, "%s: %s: IOMMU group %d is not viable: bind every device in /sys/kernel/iommu_groups/%d/devices to vfio-pci\n",
			dx_prog, bdf, group, group);
		return -EPERM;
	}
	if (ioctl(b->vfio_group, VFIO_GROUP_SET_CONTAINER, &b->vfio_container) ||
	    ioctl(b->vfio_container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return vfio_err(bdf, "attaching its group to a vfio container", NULL);
	b->dev_fd = ioctl(b->vfio_group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (b->dev_fd < 0)
		return vfio_err(bdf, "VFIO_GROUP_GET_DEVICE_FD", NULL);
	if (vfio_region(b->dev_fd, VFIO_BAR, &bar))
		return vfio_err(bdf, "its BAR 2", NULL);
	if (b->size > bar.size) {
		fprintf(stderr, "%s: %s: BAR 2 holds %llu bytes, less than the %zu asked for\n",
			dx_prog, bdf, (unsigned long long)bar.size, b->size);
		return -ENOSPC;
	}
	b->dev_off = bar.offset;
	ret = vfio_enable_memory(b->dev_fd, bdf) ?: vfio_poison(b, bdf);
	if (ret)
		return ret;
	req.f.argsz = sizeof(req);
	req.f.flags = VFIO_DEVICE_FEATURE_GET | VFIO_DEVICE_FEATURE_DMA_BUF;
	req.d.region_index = VFIO_BAR;
	req.d.open_flags = O_RDWR | O_CLOEXEC;
	req.d.nr_ranges = 1;
	req.r.length = b->size;
	fd = ioctl(b->dev_fd, VFIO_DEVICE_FEATURE, &req);
	if (fd < 0)
		return vfio_err(bdf, "VFIO_DEVICE_FEATURE_DMA_BUF", NULL);
	b->fd = fd;
	return 0;
}
