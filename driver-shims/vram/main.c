// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx_vram: device memory for tests, exported as a GPU driver exports
 * its memory.
 *
 * The memory is BAR2 of QEMU's ivshmem-plain function: memory behind a PCI
 * BAR, for which the kernel has no struct page, as it has none for a GPU's.
 * /dev/devmemx_vram hands out ranges of it as dma-bufs shaped like those of
 * NVIDIA's open driver: any importer may attach, static ones included; its
 * scatterlist carries addresses mapped for the importer's device with
 * dma_map_resource() and no pages; mmap is refused. Or, asked for, shaped
 * like vfio-pci's: only peer-to-peer, revocable importers may attach, and a
 * revoke takes the memory back; and mapped as vfio-pci maps, by the kernel's
 * p2pdma rules (a bus address for an importer behind the same PCIe switch,
 * an IOVA through the host bridge). The memory is read and written only
 * with pread/pwrite on the device at the range's offset, as an application
 * copies GPU memory. Each ivshmem function is a device of its own:
 * /dev/devmemx_vram, then /dev/devmemx_vram1, ... in probe order.
 * uapi/linux/devmemx_vram.h has the interface.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-buf-mapping.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/genalloc.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/devmemx_vram.h>

#define DXVRAM_BAR	2	/* ivshmem-plain's shared memory */
#define DXVRAM_POISON	0x5a	/* what a new range holds before it is written */
#define DXVRAM_POISON_MAX SZ_1G	/* larger ranges are left as they are */

static unsigned int seg_size = SZ_2M;
module_param(seg_size, uint, 0444);
MODULE_PARM_DESC(seg_size,
		 "bytes per scatterlist entry of an export, a power of two from 4K to 1G (default 2M)");

struct dxvram {
	struct pci_dev *pdev;
	phys_addr_t base;
	resource_size_t size;
	void *va;
	struct gen_pool *ranges;	/* free ranges, by physical address */
	struct p2pdma_provider *p2p;	/* NULL: the kernel has no p2pdma */
	int id;
	char name[24];
	struct miscdevice misc;
};

static DEFINE_IDA(dxvram_ida);

/* One exported range; it lives as long as its dma-buf. */
struct dxvram_buf {
	struct dxvram *vr;
	u64 offset;
	u64 size;
	u32 flags;		/* DEVMEMX_VRAM_* */
	bool revoked;		/* under the reservation lock */
	atomic_t mappings;
	wait_queue_head_t unmapped;
};

static int dxvram_attach(struct dma_buf *dmabuf, struct dma_buf_attachment *at)
{
	struct dxvram_buf *buf = dmabuf->priv;

	if (buf->revoked)
		return -ENODEV;
	if (buf->flags & DEVMEMX_VRAM_P2PDMA && !at->peer2peer)
		return -EOPNOTSUPP;
	if (!(buf->flags & DEVMEMX_VRAM_REVOCABLE))
		return 0;
	if (!at->peer2peer || !dma_buf_attach_revocable(at))
		return -EOPNOTSUPP;
	return 0;
}

/* Byte @x of @buf's dma-buf: its offset in the BAR. */
static u64 dxvram_dev_off(const struct dxvram_buf *buf, u64 x)
{
	if (buf->flags & DEVMEMX_VRAM_TAIL_FIRST)
		x = x + DEVMEMX_VRAM_TAIL < buf->size ?
		    x + DEVMEMX_VRAM_TAIL : x + DEVMEMX_VRAM_TAIL - buf->size;
	return buf->offset + x;
}

/* As vfio-pci maps: the kernel's p2pdma picks the kind of address. */
static struct sg_table *dxvram_map_p2pdma(struct dma_buf_attachment *at,
					  enum dma_data_direction dir)
{
	struct dxvram_buf *buf = at->dmabuf->priv;
	struct dxvram *vr = buf->vr;
	struct phys_vec vec[2];
	size_t n = 1;
	u64 head;

	vec[0].paddr = vr->base + dxvram_dev_off(buf, 0);
	vec[0].len = buf->size;
	if (buf->flags & DEVMEMX_VRAM_TAIL_FIRST) {
		head = buf->size - DEVMEMX_VRAM_TAIL;
		vec[0].len = head;
		vec[1].paddr = vr->base + dxvram_dev_off(buf, head);
		vec[1].len = DEVMEMX_VRAM_TAIL;
		n = 2;
	}
	return dma_buf_phys_vec_to_sgt(at, vr->p2p, vec, n, buf->size, dir);
}

static struct sg_table *dxvram_map(struct dma_buf_attachment *at,
				   enum dma_data_direction dir)
{
	struct dxvram_buf *buf = at->dmabuf->priv;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	u64 done = 0;
	int err;

	dma_resv_assert_held(at->dmabuf->resv);
	if (buf->revoked)
		return ERR_PTR(-ENODEV);
	if (buf->flags & DEVMEMX_VRAM_P2PDMA) {
		sgt = dxvram_map_p2pdma(at, dir);
		if (!IS_ERR(sgt))
			atomic_inc(&buf->mappings);
		return sgt;
	}
	sgt = kzalloc_obj(*sgt, GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, DIV_ROUND_UP_ULL(buf->size, seg_size),
			     GFP_KERNEL);
	if (err)
		goto err_free;
	for_each_sgtable_sg(sgt, sg, i) {
		unsigned int len = min_t(u64, seg_size, buf->size - done);
		/* Whole GiBs: no entry spans the two pieces (seg_size <= 1G). */
		phys_addr_t phys = buf->vr->base + dxvram_dev_off(buf, done);
		dma_addr_t dma;

		/* An address for the importer's device, never a page. */
		sg_set_page(sg, NULL, len, 0);
		dma = dma_map_resource(at->dev, phys, len, dir,
				       DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(at->dev, dma)) {
			err = -EIO;
			goto err_unmap;
		}
		sg_dma_address(sg) = dma;
		sg_dma_len(sg) = len;
		done += len;
	}
	atomic_inc(&buf->mappings);
	return sgt;

err_unmap:
	sgt->nents = i;
	for_each_sgtable_dma_sg(sgt, sg, i)
		dma_unmap_resource(at->dev, sg_dma_address(sg), sg_dma_len(sg),
				   dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(err);
}

static void dxvram_unmap(struct dma_buf_attachment *at, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	struct dxvram_buf *buf = at->dmabuf->priv;
	struct scatterlist *sg;
	unsigned int i;

	if (buf->flags & DEVMEMX_VRAM_P2PDMA) {
		dma_buf_free_sgt(at, sgt, dir);
	} else {
		for_each_sgtable_dma_sg(sgt, sg, i)
			dma_unmap_resource(at->dev, sg_dma_address(sg),
					   sg_dma_len(sg), dir,
					   DMA_ATTR_SKIP_CPU_SYNC);
		sg_free_table(sgt);
		kfree(sgt);
	}
	if (atomic_dec_and_test(&buf->mappings))
		wake_up(&buf->unmapped);
}

static void dxvram_release(struct dma_buf *dmabuf)
{
	struct dxvram_buf *buf = dmabuf->priv;

	gen_pool_free(buf->vr->ranges, buf->vr->base + buf->offset, buf->size);
	kfree(buf);
}

/* No mmap, vmap or CPU access: device memory is reached through the device. */
static const struct dma_buf_ops dxvram_dmabuf_ops = {
	.attach		= dxvram_attach,
	.map_dma_buf	= dxvram_map,
	.unmap_dma_buf	= dxvram_unmap,
	.release	= dxvram_release,
};

static long dxvram_export(struct dxvram *vr,
			  struct devmemx_vram_export __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct devmemx_vram_export req;
	struct genpool_data_align align;
	struct dxvram_buf *buf;
	struct dma_buf *dmabuf;
	unsigned long addr;
	int fd, err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags & ~(DEVMEMX_VRAM_REVOCABLE | DEVMEMX_VRAM_TAIL_FIRST |
			  DEVMEMX_VRAM_P2PDMA) ||
	    !req.size || !PAGE_ALIGNED(req.size))
		return -EINVAL;
	if (req.flags & DEVMEMX_VRAM_P2PDMA && !vr->p2p)
		return -EOPNOTSUPP;
	if (req.flags & DEVMEMX_VRAM_TAIL_FIRST &&
	    (req.size % DEVMEMX_VRAM_TAIL || req.size < 2 * DEVMEMX_VRAM_TAIL))
		return -EINVAL;
	if (req.size > vr->size)
		return -ENOSPC;
	buf = kzalloc_obj(*buf, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* Aligned as a GPU allocator aligns: to its size, up to 2M. */
	align.align = min_t(u64, rounddown_pow_of_two(req.size), SZ_2M);
	addr = gen_pool_alloc_algo(vr->ranges, req.size,
				   gen_pool_first_fit_align, &align);
	if (!addr) {
		kfree(buf);
		return -ENOSPC;
	}
	buf->vr = vr;
	buf->offset = addr - vr->base;
	buf->size = req.size;
	buf->flags = req.flags;
	atomic_set(&buf->mappings, 0);
	init_waitqueue_head(&buf->unmapped);
	if (buf->size <= DXVRAM_POISON_MAX)
		memset(vr->va + buf->offset, DXVRAM_POISON, buf->size);

	exp.ops = &dxvram_dmabuf_ops;
	exp.size = buf->size;
	exp.flags = O_RDWR;
	exp.priv = buf;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		gen_pool_free(vr->ranges, addr, buf->size);
		kfree(buf);
		return PTR_ERR(dmabuf);
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_put;
	}
	req.offset = buf->offset;
	req.fd = fd;
	if (copy_to_user(uarg, &req, sizeof(req))) {
		put_unused_fd(fd);
		err = -EFAULT;
		goto err_put;
	}
	fd_install(fd, dmabuf->file);
	return 0;

err_put:
	dma_buf_put(dmabuf);	/* its release frees the range */
	return err;
}

static long dxvram_revoke(struct devmemx_vram_revoke __user *uarg)
{
	struct devmemx_vram_revoke req;
	struct dxvram_buf *buf;
	struct dma_buf *dmabuf;
	long left;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.pad)
		return -EINVAL;
	dmabuf = dma_buf_get(req.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (dmabuf->ops != &dxvram_dmabuf_ops) {
		dma_buf_put(dmabuf);
		return -EINVAL;
	}
	buf = dmabuf->priv;
	/* As vfio_pci_dma_buf_move() revokes. */
	dma_resv_lock(dmabuf->resv, NULL);
	buf->revoked = true;
	dma_buf_invalidate_mappings(dmabuf);
	dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	dma_resv_unlock(dmabuf->resv);
	left = wait_event_interruptible_timeout(buf->unmapped,
						!atomic_read(&buf->mappings),
						msecs_to_jiffies(req.timeout_ms));
	dma_buf_put(dmabuf);
	if (left < 0)
		return left;
	req.mappings = left ? 0 : atomic_read(&buf->mappings);
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

static struct dxvram *dxvram_of(struct file *file)
{
	return container_of(file->private_data, struct dxvram, misc);
}

static long dxvram_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	switch (cmd) {
	case DEVMEMX_VRAM_EXPORT:
		return dxvram_export(dxvram_of(file), (void __user *)arg);
	case DEVMEMX_VRAM_REVOKE:
		return dxvram_revoke((void __user *)arg);
	}
	return -ENOTTY;
}

/* The part of [*pos, *pos + len) inside the device memory. */
static size_t dxvram_span(struct dxvram *vr, loff_t pos, size_t len)
{
	if (pos < 0 || pos >= vr->size)
		return 0;
	return min_t(u64, len, vr->size - pos);
}

static ssize_t dxvram_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *pos)
{
	struct dxvram *vr = dxvram_of(file);

	len = dxvram_span(vr, *pos, len);
	if (copy_to_user(ubuf, vr->va + *pos, len))
		return -EFAULT;
	*pos += len;
	return len;
}

static ssize_t dxvram_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *pos)
{
	struct dxvram *vr = dxvram_of(file);

	len = dxvram_span(vr, *pos, len);
	if (!len && *pos >= vr->size)
		return -ENOSPC;
	if (copy_from_user(vr->va + *pos, ubuf, len))
		return -EFAULT;
	*pos += len;
	return len;
}

static const struct file_operations dxvram_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dxvram_ioctl,
	.read		= dxvram_read,
	.write		= dxvram_write,
	.llseek		= default_llseek,
};

/* A GPU's memory has no struct page: neither may this stand-in. */
static bool dxvram_has_pages(phys_addr_t start, resource_size_t size)
{
	unsigned long pfn, last = PHYS_PFN(start + size - 1);

	for (pfn = PHYS_PFN(start); pfn < last; pfn += PAGES_PER_SECTION)
		if (pfn_valid(pfn))
			return true;
	return pfn_valid(last);
}

static int dxvram_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct resource *res = pci_resource_n(pdev, DXVRAM_BAR);
	struct dxvram *vr;
	int err;

	if (!(res->flags & IORESOURCE_MEM) || !resource_size(res))
		return -ENODEV;
	if (dxvram_has_pages(res->start, resource_size(res))) {
		pci_err(pdev, "BAR %d %pR has struct pages: not device memory\n",
			DXVRAM_BAR, res);
		return -EINVAL;
	}
	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = pci_request_region(pdev, DXVRAM_BAR, KBUILD_MODNAME);
	if (err)
		goto err_disable;
	err = -ENOMEM;
	vr = kzalloc_obj(*vr, GFP_KERNEL);
	if (!vr)
		goto err_release;
	vr->id = ida_alloc(&dxvram_ida, GFP_KERNEL);
	if (vr->id < 0) {
		err = vr->id;
		goto err_free_vr;
	}
	if (vr->id)
		snprintf(vr->name, sizeof(vr->name), KBUILD_MODNAME "%d", vr->id);
	else
		strscpy(vr->name, KBUILD_MODNAME);
	/*
	 * The kernel's p2pdma, for exports mapped as vfio-pci maps them; a
	 * kernel without it (EOPNOTSUPP) only refuses those exports.
	 */
	err = pcim_p2pdma_init(pdev);
	if (err && err != -EOPNOTSUPP)
		goto err_free;
	if (!err)
		vr->p2p = pcim_p2pdma_provider(pdev, DXVRAM_BAR);
	err = -ENOMEM;
	vr->pdev = pdev;
	vr->base = res->start;
	vr->size = resource_size(res);
	vr->va = memremap(vr->base, vr->size, MEMREMAP_WB);
	if (!vr->va)
		goto err_free;
	vr->ranges = gen_pool_create(PAGE_SHIFT, dev_to_node(&pdev->dev));
	if (!vr->ranges)
		goto err_unmap;
	err = gen_pool_add(vr->ranges, vr->base, vr->size,
			   dev_to_node(&pdev->dev));
	if (err)
		goto err_pool;
	vr->misc.minor = MISC_DYNAMIC_MINOR;
	vr->misc.name = vr->name;
	vr->misc.fops = &dxvram_fops;
	vr->misc.mode = 0600;
	vr->misc.parent = &pdev->dev;
	err = misc_register(&vr->misc);
	if (err)
		goto err_pool;
	pci_set_drvdata(pdev, vr);
	pci_info(pdev, "/dev/%s: %llu MiB of device memory at %pR, no struct page\n",
		 vr->name, (u64)vr->size >> 20, res);
	return 0;

err_pool:
	gen_pool_destroy(vr->ranges);
err_unmap:
	memunmap(vr->va);
err_free:
	ida_free(&dxvram_ida, vr->id);
err_free_vr:
	kfree(vr);
err_release:
	pci_release_region(pdev, DXVRAM_BAR);
err_disable:
	pci_disable_device(pdev);
	return err;
}

/*
 * At unload (no unbind through sysfs), when no dma-buf of ours is left. A
 * test exporter: removing the PCI function itself (sysfs remove, hot
 * unplug) while dma-bufs live is not handled (their ranges, and a
 * DEVMEMX_VRAM_P2PDMA mapping's provider, would go from under them).
 */
static void dxvram_remove(struct pci_dev *pdev)
{
	struct dxvram *vr = pci_get_drvdata(pdev);

	misc_deregister(&vr->misc);
	gen_pool_destroy(vr->ranges);
	memunmap(vr->va);
	ida_free(&dxvram_ida, vr->id);
	kfree(vr);
	pci_release_region(pdev, DXVRAM_BAR);
	pci_disable_device(pdev);
}

static const struct pci_device_id dxvram_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, dxvram_ids);

static struct pci_driver dxvram_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= dxvram_ids,
	.probe		= dxvram_probe,
	.remove		= dxvram_remove,
	.driver.suppress_bind_attrs = true,
};

static int __init dxvram_init(void)
{
	if (!is_power_of_2(seg_size) || seg_size < SZ_4K || seg_size > SZ_1G) {
		pr_err("seg_size=%u: must be a power of two from 4096 to %u\n",
		       seg_size, SZ_1G);
		return -EINVAL;
	}
	return pci_register_driver(&dxvram_driver);
}

static void __exit dxvram_exit(void)
{
	pci_unregister_driver(&dxvram_driver);
}

module_init(dxvram_init);
module_exit(dxvram_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Device memory without struct pages, exported as GPU drivers export theirs, for devmemx tests");
MODULE_IMPORT_NS("DMA_BUF");
