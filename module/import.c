// SPDX-License-Identifier: GPL-2.0
/*
 * The dma-buf of a binding: attached dynamically and peer-to-peer (device
 * memory without struct pages is what devmemx is for), pinned and mapped
 * under the reservation lock, refused where the mapping would bounce; and
 * the exporter's revoke, which ends the binding.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>

#include "devmemx.h"

/*
 * devmem never syncs payload for the CPU: a mapping that bounces (swiotlb,
 * devmemx_check_bounces()) or needs cache maintenance would receive into
 * memory nobody reads.
 */
static bool devmemx_import_needs_sync(struct device *dma_dev,
				      struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		if (dma_need_sync(dma_dev, sg_dma_address(sg)))
			return true;
	return false;
}

/* The mapping and the pin go, once: at a revoke or when the binding goes. */
static void devmemx_import_unmap(struct devmemx_import *im)
{
	dma_resv_lock(im->dmabuf->resv, NULL);
	if (im->sgt)
		dma_buf_unmap_attachment(im->attach, im->sgt, DMA_FROM_DEVICE);
	im->sgt = NULL;
	if (im->pinned)
		dma_buf_unpin(im->attach);
	im->pinned = false;
	dma_resv_unlock(im->dmabuf->resv);
}

/* What devmemx_import() took, given back; as much as it took. */
void devmemx_import_release(struct devmemx_binding *b)
{
	struct devmemx_import *im = &b->import;

	if (im->attach) {
		devmemx_import_unmap(im);
		/* From here the exporter calls devmemx_invalidate() no more. */
		dma_buf_detach(im->dmabuf, im->attach);
		/* Only a published binding's revoke queued it: no lock held. */
		if (im->live)
			cancel_delayed_work_sync(&im->revoke_work);
	}
	if (im->dmabuf)
		dma_buf_put(im->dmabuf);
	/* The unmap above needed it: the driver may have gone since. */
	put_device(im->dma_dev);
}

/*
 * The exporter revokes its memory: vfio-pci on a reset, with memory decode
 * turned off or its device closed; a GPU driver when its device goes. This
 * runs under the dma-buf's reservation lock, where the device's lock may
 * not be taken (a bind maps under the device's lock), so revoke_work ends
 * the binding: its queues undone under the device's lock (the NIC writes
 * no more), then the mapping dropped under the reservation lock, never
 * holding both. Exporters that take the memory away wait for that unmap
 * (vfio_pci_dma_buf_move() waits until its mappings are gone).
 */
static void devmemx_invalidate(struct dma_buf_attachment *attach)
{
	struct devmemx_binding *b = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	/*
	 * Not mapped yet: nothing to revoke. Exporters move a buffer while
	 * pinning it for us (amdgpu's, xe's pin), and tell every attachment;
	 * one that revokes refuses the map that follows.
	 */
	if (!b->import.sgt || b->import.revoked)
		return;
	b->import.revoked = true;
	if (b->import.live)
		queue_delayed_work(devmemx_wq, &b->import.revoke_work, 0);
}

static const struct dma_buf_attach_ops devmemx_importer_ops = {
	/* Device memory without struct pages is what devmemx is for. */
	.allow_peer2peer	= true,
	.invalidate_mappings	= devmemx_invalidate,
};

static void devmemx_import_revoke_work(struct work_struct *w)
{
	struct devmemx_binding *b = container_of(to_delayed_work(w),
						 struct devmemx_binding,
						 import.revoke_work);
	bool first;

	mutex_lock(&devmemx_mutex);
	first = devmemx_end_mark(b);
	mutex_unlock(&devmemx_mutex);
	/* Whoever else ends it may not have undone its queues yet: do it. */
	devmemx_queues_release(b);
	/* Said only when the revoke ends it (not when unbound already). */
	if (first) {
		percpu_ref_kill(&b->ref);
		pr_info("binding %u ended: its dma-buf's exporter (%s) revoked the memory\n",
			b->id, b->import.dmabuf->exp_name);
	}
	/*
	 * A queue whose restart failed still receives into the memory (it is
	 * retried every second): the mapping stays until it stops, and the
	 * exporter waits for it.
	 */
	if (atomic_read(&b->import.stuck_queues)) {
		/* Once, whoever ended the binding: the exporter waits. */
		if (!b->import.waited)
			pr_warn("binding %u: its dma-buf was revoked, but a queue whose restart failed still receives into it; unmapped once that queue restarts\n",
				b->id);
		b->import.waited = true;
		queue_delayed_work(devmemx_wq, &b->import.revoke_work, HZ);
		return;
	}
	devmemx_import_unmap(&b->import);
}

/* Under the device's lock, once published: from now on a revoke ends it. */
int devmemx_import_go_live(struct devmemx_binding *b,
			   struct netlink_ext_ack *extack)
{
	struct devmemx_import *im = &b->import;
	bool revoked;

	dma_resv_lock(im->dmabuf->resv, NULL);
	im->live = true;
	revoked = im->revoked;
	dma_resv_unlock(im->dmabuf->resv);
	if (!revoked)
		return 0;
	NL_SET_ERR_MSG(extack, "the dma-buf's exporter revoked the memory during the bind");
	return -ENODEV;
}

/* Pin and map under the reservation lock, as a dynamic importer must. */
static int devmemx_import_map(struct devmemx_import *im,
			      struct netlink_ext_ack *extack)
{
	struct dma_resv *resv = im->dmabuf->resv;
	long ret;
	int err;

	dma_resv_lock(resv, NULL);
	err = dma_buf_pin(im->attach);
	if (err) {
		NL_SET_ERR_MSG(extack, "the dma-buf's exporter cannot pin it");
		goto out;
	}
	im->pinned = true;
	im->sgt = dma_buf_map_attachment(im->attach, DMA_FROM_DEVICE);
	if (IS_ERR(im->sgt)) {
		err = PTR_ERR(im->sgt);
		im->sgt = NULL;
		NL_SET_ERR_MSG(extack, "cannot map the dma-buf for the device");
		goto out;
	}
	/* What the exporter still writes into it must land first. */
	ret = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_KERNEL, true,
				    MAX_SCHEDULE_TIMEOUT);
	if (ret < 0) {
		err = ret == -ERESTARTSYS ? -EINTR : ret;
		NL_SET_ERR_MSG(extack, "interrupted waiting for the dma-buf's exporter");
	}
out:
	dma_resv_unlock(resv);
	return err;
}

/*
 * Take dma-buf @fd for @dma_dev: attach, pin and map it. On failure the
 * binding's free (devmemx_import_release()) gives back what was taken.
 */
int devmemx_import(struct devmemx_binding *b, struct device *dma_dev,
		   unsigned int fd, u32 niov_size,
		   struct netlink_ext_ack *extack)
{
	struct devmemx_import *im = &b->import;
	int err;

	INIT_DELAYED_WORK(&im->revoke_work, devmemx_import_revoke_work);
	/*
	 * Held until the dma-buf is unmapped, which can be long after the
	 * device's driver went (the last niov may come back much later).
	 */
	im->dma_dev = get_device(dma_dev);
	im->dmabuf = dma_buf_get(fd);
	if (IS_ERR(im->dmabuf)) {
		err = PTR_ERR(im->dmabuf);
		im->dmabuf = NULL;
		NL_SET_ERR_MSG_FMT(extack, "fd %u is not a dma-buf", fd);
		return err;
	}
	if (niov_size > im->dmabuf->size) {
		NL_SET_ERR_MSG_FMT(extack,
				   "rx-buf-size %u is larger than the dma-buf (%zu bytes)",
				   niov_size, im->dmabuf->size);
		return -EINVAL;
	}
	if (devmemx_check_bounces(dma_dev)) {
		NL_SET_ERR_MSG(extack,
			       "DMA to the NIC bounces via swiotlb (swiotlb=force): payload would be lost");
		return -EOPNOTSUPP;
	}
	im->attach = dma_buf_dynamic_attach(im->dmabuf, dma_dev,
					    &devmemx_importer_ops, b);
	if (IS_ERR(im->attach)) {
		err = PTR_ERR(im->attach);
		im->attach = NULL;
		NL_SET_ERR_MSG(extack, "cannot attach the dma-buf to the device");
		return err;
	}
	err = devmemx_import_map(im, extack);
	if (err)
		return err;
	if (devmemx_import_needs_sync(dma_dev, im->sgt)) {
		NL_SET_ERR_MSG(extack,
			       "the dma-buf's DMA mapping bounces or needs CPU syncs: payload would be lost");
		return -EOPNOTSUPP;
	}
	return 0;
}
