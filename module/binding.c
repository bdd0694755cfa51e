// SPDX-License-Identifier: GPL-2.0
/*
 * Bindings: a dma-buf attached and mapped for the device, cut into aligned
 * niovs of one size, handed out through a gen_pool; their ids, their
 * lifetime, and what they count.
 *
 * Lifetime: the binding's reference (the percpu_ref the stack also takes
 * for every skb fragment in one of its niovs) starts with one held by the
 * binding's user. Each page pool using the binding holds one until it is
 * destroyed, which is after its last niov came back. Unbinding drops the
 * user's; the last put frees the binding, from a work item, and releases
 * the module reference the binding held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/dma-mapping.h>
#include <linux/genalloc.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swiotlb.h>
#include <linux/xarray.h>

#include "devmemx.h"

/* Above what in-tree devmem hands out in practice (it counts up from 1). */
#define DEVMEMX_ID_MIN	0xf0000000U

struct devmemx_counters devmemx_counters;
/* Guards the binding list, the ids and unbinding. */
DEFINE_MUTEX(devmemx_mutex);
LIST_HEAD(devmemx_bindings);
static DEFINE_XARRAY_ALLOC(devmemx_ids);
static u32 devmemx_id_next;
static struct workqueue_struct *devmemx_wq;

/* Under devmemx_mutex: a binding stays findable until it is freed. */
struct devmemx_binding *devmemx_binding_lookup(u32 id)
{
	lockdep_assert_held(&devmemx_mutex);
	return xa_load(&devmemx_ids, id);
}

/* Called for every call of the in-tree provider: is this binding ours? */
bool notrace devmemx_binding_is_ours(const void *mp_priv)
{
	const struct devmemx_binding *b = mp_priv;
	u32 id;

	if (!b)
		return false;
	/*
	 * In-tree bindings have an id at the same offset, counted up from 1:
	 * below devmemx's range they are not ours without a lookup.
	 */
	id = READ_ONCE(b->id);
	return id >= DEVMEMX_ID_MIN && xa_load(&devmemx_ids, id) == b;
}

/*
 * The gen_pool allocates niov indices, not DMA addresses: niov i is at
 * DEVMEMX_POOL_ADDR(b, i) (0 is gen_pool's failure), in chunks of
 * DEVMEMX_CHUNK_NIOVS. In-tree devmem adds a chunk per DMA-contiguous run
 * of the dma-buf, each a vzalloc'd page at least (128 of them for 256M of
 * scattered huge pages), and every alloc and free walks them; here a
 * chunk's bitmap fills a page.
 */
#define DEVMEMX_CHUNK_NIOVS	(8 * (PAGE_SIZE - 128))
#define DEVMEMX_POOL_ADDR(b, i)	(((unsigned long)(i) + 1) << (b)->niov_shift)
#define DEVMEMX_POOL_INDEX(b, a) (((a) >> (b)->niov_shift) - 1)

/* Up to @want niovs into @out: how many. */
unsigned int devmemx_niovs_alloc(struct devmemx_binding *b, netmem_ref *out,
				 unsigned int want)
{
	unsigned long addr;
	unsigned int n;
	int used, high;

	for (n = 0; n < want; n++) {
		addr = gen_pool_alloc(b->pool, 1UL << b->niov_shift);
		if (!addr)
			break;
		out[n] = net_iov_to_netmem(&b->niovs[DEVMEMX_POOL_INDEX(b, addr)]);
	}
	if (!n) {
		atomic64_inc(&b->alloc_failures);
		return 0;
	}
	used = atomic_add_return(n, &b->in_use);
	high = atomic_read(&b->high_water);
	while (used > high && !atomic_try_cmpxchg(&b->high_water, &high, used))
		;
	return n;
}

void devmemx_niov_free(struct devmemx_binding *b, struct net_iov *niov)
{
	gen_pool_free(b->pool, DEVMEMX_POOL_ADDR(b, niov - b->niovs),
		      1UL << b->niov_shift);
	atomic_dec(&b->in_use);
}

/*
 * The stack finds a niov's offset in the dma-buf as its index in its
 * owner's area shifted by the binding's niov_shift where the kernel's
 * binding has one (7.3; devmemx sets it), by PAGE_SHIFT before. Niovs can
 * share one owner per run, as in-tree devmem's do, where that shift is
 * theirs; otherwise each needs an owner of its own, so that the index is
 * always 0.
 */
static bool devmemx_owner_per_niov(unsigned int niov_shift)
{
	return DEVMEMX_BTF_BINDING_NIOV_SHIFT < 0 && niov_shift != PAGE_SHIFT;
}

/* No warning for a size the user chose (kvmalloc WARNs above INT_MAX). */
#define DEVMEMX_GFP_BIG	(GFP_KERNEL | __GFP_NOWARN)

struct devmemx_run {
	dma_addr_t dma;
	u64 len;
	u64 virt;		/* offset in the dma-buf */
};

/* The mapping's DMA-contiguous runs, in dma-buf order; kvfree() them. */
static struct devmemx_run *devmemx_runs(struct sg_table *sgt, unsigned int *nr)
{
	struct devmemx_run *runs;
	struct scatterlist *sg;
	unsigned int i;
	u64 virt = 0;

	runs = kvcalloc(sgt->nents ?: 1, sizeof(*runs), GFP_KERNEL);
	if (!runs)
		return NULL;
	*nr = 0;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t dma = sg_dma_address(sg);
		u64 len = sg_dma_len(sg);
		struct devmemx_run *last = *nr ? &runs[*nr - 1] : NULL;

		if (last && last->dma + last->len == dma)
			last->len += len;
		else
			runs[(*nr)++] = (struct devmemx_run){ dma, len, virt };
		virt += len;
	}
	return runs;
}

/* How many aligned niovs of 2^@shift bytes run @r holds, from @skip on. */
static u32 devmemx_run_niovs(const struct devmemx_run *r, unsigned int shift,
			     u64 *skip)
{
	*skip = ALIGN(r->dma, 1ULL << shift) - r->dma;
	return r->len > *skip ? (r->len - *skip) >> shift : 0;
}

/*
 * What carving @runs into niovs of 2^@shift bytes gives: the binding and
 * its dry run (bind-check) both count with this, so they agree.
 */
static void devmemx_carve_count(const struct devmemx_run *runs,
				unsigned int nr, unsigned int shift,
				struct devmemx_carve *c)
{
	u64 n = 0, chunks = 0, nowners, skip, done, count;
	unsigned int r;

	for (r = 0; r < nr; r++)
		n += devmemx_run_niovs(&runs[r], shift, &skip);
	/* gen_pool's chunks, vzalloc'd: whole pages. */
	for (done = 0; done < n; done += count) {
		count = min_t(u64, n - done, DEVMEMX_CHUNK_NIOVS);
		chunks += PAGE_ALIGN(sizeof(struct gen_pool_chunk) +
				     BITS_TO_LONGS(count) * sizeof(long));
	}
	nowners = devmemx_owner_per_niov(shift) ? n : nr;
	c->niovs = n;
	c->carved = n << shift;
	/* The arrays, the chunks and the binding. */
	c->metadata = n * sizeof(struct net_iov) +
		      nowners * sizeof(struct devmemx_owner) + chunks +
		      sizeof(struct devmemx_binding);
	/*
	 * The user sizes these: a GPU's memory at 4K is millions of niovs.
	 * What would not leave a sixteenth of the machine's memory free is
	 * refused before it drains memory (the OOM killer would pick some
	 * other task).
	 */
	c->need = n * sizeof(struct net_iov) +
		  nowners * sizeof(struct devmemx_owner) +
		  BITS_TO_LONGS(n) * sizeof(long);
	c->fits = n <= U32_MAX &&
		  (long)(c->need >> PAGE_SHIFT) + (long)(totalram_pages() / 16) <
		  si_mem_available();
}

static void devmemx_owner_init(struct devmemx_owner *o,
			       struct devmemx_binding *b, struct net_iov *niovs,
			       u32 n, u64 virt, dma_addr_t dma)
{
	o->area.niovs = niovs;
	o->area.num_niovs = n;
	o->area.base_virtual = virt;
	o->binding = b;
	o->dma = dma;
}

/*
 * Give every niov of run @r (index @first of its first niov; aligned and
 * cut to whole niovs) its owner area, DMA address and offset.
 */
static void devmemx_fill_run(struct devmemx_binding *b, struct devmemx_run *run,
			     unsigned int r, u32 first)
{
	u64 size = 1ULL << b->niov_shift;
	u32 i, n = run->len >> b->niov_shift;
	bool per_niov = devmemx_owner_per_niov(b->niov_shift);
	struct devmemx_owner *o = NULL;

	if (!per_niov) {
		o = &b->owners[r];
		devmemx_owner_init(o, b, &b->niovs[first], n, run->virt, run->dma);
	}
	for (i = 0; i < n; i++) {
		struct net_iov *niov = &b->niovs[first + i];

		if (per_niov) {
			o = &b->owners[first + i];
			devmemx_owner_init(o, b, niov, 1, run->virt + i * size,
					   run->dma + i * size);
		}
		niov->type = NET_IOV_DMABUF;
		niov->owner = &o->area;
		niov->desc.dma_addr = run->dma + i * size;
	}
}

/*
 * Cut the mapped dma-buf into niovs: merge DMA-contiguous entries, align
 * each run to the niov size, count what could not be used.
 */
static int devmemx_carve(struct devmemx_binding *b, struct netlink_ext_ack *extack)
{
	unsigned int nr, r, used = 0, nowners;
	struct devmemx_run *runs;
	struct devmemx_carve c;
	u64 skip;
	u32 n, count;
	int err = 0;

	runs = devmemx_runs(b->sgt, &nr);
	if (!runs)
		return -ENOMEM;
	devmemx_carve_count(runs, nr, b->niov_shift, &c);
	if (!c.niovs) {
		NL_SET_ERR_MSG_FMT(extack,
				   "no DMA-contiguous %lu-byte run in the dma-buf: use hugetlb memory",
				   1UL << b->niov_shift);
		err = -EINVAL;
		goto out;
	}
	nowners = devmemx_owner_per_niov(b->niov_shift) ? c.niovs : nr;
	if (c.fits) {
		b->niovs = kvcalloc(c.niovs, sizeof(*b->niovs), DEVMEMX_GFP_BIG);
		b->owners = kvcalloc(nowners, sizeof(*b->owners),
				     DEVMEMX_GFP_BIG);
		b->pool = gen_pool_create(b->niov_shift, NUMA_NO_NODE);
	}
	if (!b->niovs || !b->owners || !b->pool) {
		/* At most 79 characters: extack's formatted messages stop at 80. */
		NL_SET_ERR_MSG_FMT(extack,
				   "no memory for %llu MiB of metadata (%llu niovs): use a larger niov size",
				   DIV_ROUND_UP_ULL(c.need, SZ_1M), c.niovs);
		err = -ENOMEM;
		goto out;
	}
	b->niov_count = c.niovs;
	b->carved = c.carved;
	b->wasted = b->dmabuf->size - c.carved;
	b->metadata = c.metadata;
	for (r = 0, n = 0; r < nr; r++) {
		u32 count = devmemx_run_niovs(&runs[r], b->niov_shift, &skip);

		if (!count)
			continue;
		runs[r].dma += skip;
		runs[r].virt += skip;
		runs[r].len = (u64)count << b->niov_shift;
		devmemx_fill_run(b, &runs[r], used++, n);
		n += count;
	}
	for (n = 0; n < b->niov_count && !err; n += count) {
		count = min_t(u32, b->niov_count - n, DEVMEMX_CHUNK_NIOVS);
		err = gen_pool_add(b->pool, DEVMEMX_POOL_ADDR(b, n),
				   (size_t)count << b->niov_shift, NUMA_NO_NODE);
	}
out:
	kvfree(runs);
	return err;
}

/*
 * A dry run: what carving the mapped dma-buf into niovs of 2^@shift bytes
 * would give, and whether every entry of this mapping is aligned to that
 * size (the kernel's own devmem, from 7.3, refuses a mapping otherwise; it
 * attaches without peer-to-peer, so an exporter may map it elsewhere or
 * refuse it).
 */
int devmemx_binding_count(struct devmemx_binding *b, unsigned int shift,
			  struct devmemx_carve *c)
{
	u64 size = 1ULL << shift;
	struct devmemx_run *runs;
	struct scatterlist *sg;
	unsigned int nr, i;

	runs = devmemx_runs(b->sgt, &nr);
	if (!runs)
		return -ENOMEM;
	devmemx_carve_count(runs, nr, shift, c);
	kvfree(runs);
	c->wasted = b->dmabuf->size - c->carved;
	c->aligned = true;
	for_each_sgtable_dma_sg(b->sgt, sg, i)
		c->aligned &= IS_ALIGNED(sg_dma_address(sg), size) &&
			      IS_ALIGNED(sg_dma_len(sg), size);
	return 0;
}

/*
 * devmem never syncs payload for the CPU: a mapping that bounces (swiotlb)
 * or needs cache maintenance would receive into memory nobody reads.
 */
bool devmemx_dma_bounces(struct device *dma_dev)
{
	return is_swiotlb_force_bounce(dma_dev);
}

static bool devmemx_mapping_needs_sync(struct device *dma_dev,
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
static void devmemx_unmap(struct devmemx_binding *b)
{
	dma_resv_lock(b->dmabuf->resv, NULL);
	if (b->sgt)
		dma_buf_unmap_attachment(b->attach, b->sgt, DMA_FROM_DEVICE);
	b->sgt = NULL;
	if (b->pinned)
		dma_buf_unpin(b->attach);
	b->pinned = false;
	dma_resv_unlock(b->dmabuf->resv);
}

static void devmemx_binding_free(struct devmemx_binding *b)
{
	if (b->pool)
		gen_pool_destroy(b->pool);
	kvfree(b->owners);
	kvfree(b->niovs);
	if (b->attach) {
		devmemx_unmap(b);
		/* From here the exporter calls devmemx_invalidate() no more. */
		dma_buf_detach(b->dmabuf, b->attach);
		/* Only a published binding's revoke queued it: no lock held. */
		if (b->live)
			cancel_delayed_work_sync(&b->revoke_work);
	}
	if (b->dmabuf)
		dma_buf_put(b->dmabuf);
	/* The unmap above needed it: the driver may have gone since. */
	put_device(b->dma_dev);
	kfree(b->other_since);
	kfree(b->pool_shift);
	bitmap_free(b->queues);
	bitmap_free(b->pooled);
	percpu_ref_exit(&b->ref);
	put_pid(b->creator);
	kfree(b);
}

static void devmemx_binding_free_work(struct work_struct *w)
{
	struct devmemx_binding *b = container_of(w, struct devmemx_binding,
						 free_work);

	/*
	 * Its queue restarts need the binding. Only a published binding's
	 * pools can have queued one, and this is where such a binding is
	 * freed, without the device's lock (which the work takes).
	 */
	cancel_delayed_work_sync(&b->resize_work);
	mutex_lock(&devmemx_mutex);
	list_del(&b->node);
	xa_erase(&devmemx_ids, b->id);
	mutex_unlock(&devmemx_mutex);
	atomic_dec(&devmemx_counters.bindings);
	atomic64_sub(b->niov_count, &devmemx_counters.niovs);
	devmemx_binding_free(b);
	/* destroy_workqueue() at module exit waits for this work to return */
	module_put(THIS_MODULE);
}

static void devmemx_binding_release(struct percpu_ref *ref)
{
	struct devmemx_binding *b = container_of(ref, struct devmemx_binding, ref);

	queue_work(devmemx_wq, &b->free_work);
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
	if (!b->sgt || b->revoked)
		return;
	b->revoked = true;
	if (b->live)
		queue_delayed_work(devmemx_wq, &b->revoke_work, 0);
}

static const struct dma_buf_attach_ops devmemx_importer_ops = {
	/* Device memory without struct pages is what devmemx is for. */
	.allow_peer2peer	= true,
	.invalidate_mappings	= devmemx_invalidate,
};

static void devmemx_revoke_work(struct work_struct *w)
{
	struct devmemx_binding *b = container_of(to_delayed_work(w),
						 struct devmemx_binding,
						 revoke_work);
	bool first;

	mutex_lock(&devmemx_mutex);
	first = devmemx_binding_mark_unbound(b);
	mutex_unlock(&devmemx_mutex);
	/* Whoever else ends it may not have undone its queues yet: do it. */
	devmemx_queues_release(b);
	/* Said only when the revoke ends it (not when unbound already). */
	if (first) {
		percpu_ref_kill(&b->ref);
		pr_info("binding %u ended: its dma-buf's exporter (%s) revoked the memory\n",
			b->id, b->dmabuf->exp_name);
	}
	/*
	 * A queue whose restart failed still receives into the memory (it is
	 * retried every second): the mapping stays until it stops, and the
	 * exporter waits for it.
	 */
	if (atomic_read(&b->stuck_queues)) {
		if (first)
			pr_warn("binding %u: its dma-buf was revoked, but a queue whose restart failed still receives into it; unmapped once that queue restarts\n",
				b->id);
		queue_delayed_work(devmemx_wq, &b->revoke_work, HZ);
		return;
	}
	devmemx_unmap(b);
}

/* Under the device's lock, once published: from now on a revoke ends it. */
int devmemx_binding_go_live(struct devmemx_binding *b,
			    struct netlink_ext_ack *extack)
{
	bool revoked;

	dma_resv_lock(b->dmabuf->resv, NULL);
	b->live = true;
	revoked = b->revoked;
	dma_resv_unlock(b->dmabuf->resv);
	if (!revoked)
		return 0;
	NL_SET_ERR_MSG(extack, "the dma-buf's exporter revoked the memory during the bind");
	return -ENODEV;
}

/* Pin and map under the reservation lock, as a dynamic importer must. */
static int devmemx_map(struct devmemx_binding *b,
		       struct netlink_ext_ack *extack)
{
	struct dma_resv *resv = b->dmabuf->resv;
	long ret;
	int err;

	dma_resv_lock(resv, NULL);
	err = dma_buf_pin(b->attach);
	if (err) {
		NL_SET_ERR_MSG(extack, "the dma-buf's exporter cannot pin it");
		goto out;
	}
	b->pinned = true;
	b->sgt = dma_buf_map_attachment(b->attach, DMA_FROM_DEVICE);
	if (IS_ERR(b->sgt)) {
		err = PTR_ERR(b->sgt);
		b->sgt = NULL;
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
 * Attach, map and, unless @niov_size is 0 (a dry run: see
 * devmemx_binding_count()), carve; the binding is not visible to anyone
 * yet.
 */
struct devmemx_binding *devmemx_binding_create(struct net_device *dev,
					       struct device *dma_dev,
					       unsigned int fd, u32 niov_size,
					       struct netlink_ext_ack *extack)
{
	struct devmemx_binding *b;
	int err;

	b = kzalloc_obj(*b, GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	mutex_init(&b->lock);
	INIT_LIST_HEAD(&b->node);
	INIT_WORK(&b->free_work, devmemx_binding_free_work);
	INIT_DELAYED_WORK(&b->resize_work, devmemx_queue_resize_work);
	INIT_DELAYED_WORK(&b->revoke_work, devmemx_revoke_work);
	/*
	 * Held until the dma-buf is unmapped, which can be long after the
	 * device's driver went (the last niov may come back much later).
	 */
	b->dma_dev = get_device(dma_dev);
	b->niov_shift = ilog2(niov_size ?: PAGE_SIZE);
	b->creator = get_task_pid(current, PIDTYPE_TGID);
	b->nqueues = dev->real_num_rx_queues;
	b->queues = bitmap_zalloc(b->nqueues, GFP_KERNEL);
	b->pooled = bitmap_zalloc(b->nqueues, GFP_KERNEL);
	b->other_since = kcalloc(b->nqueues, sizeof(*b->other_since), GFP_KERNEL);
	b->pool_shift = kcalloc(b->nqueues, sizeof(*b->pool_shift), GFP_KERNEL);
	err = percpu_ref_init(&b->ref, devmemx_binding_release, 0, GFP_KERNEL);
	if (err || !b->queues || !b->pooled || !b->other_since || !b->pool_shift) {
		err = err ?: -ENOMEM;
		goto err_free;
	}
#if DEVMEMX_BTF_BINDING_NIOV_SHIFT >= 0
	/* 7.3's stack knows the niov size of a binding: tell it ours. */
	*(unsigned int *)&b->intree[DEVMEMX_BTF_BINDING_NIOV_SHIFT] = b->niov_shift;
#endif

	b->dmabuf = dma_buf_get(fd);
	if (IS_ERR(b->dmabuf)) {
		err = PTR_ERR(b->dmabuf);
		b->dmabuf = NULL;
		NL_SET_ERR_MSG_FMT(extack, "fd %u is not a dma-buf", fd);
		goto err_free;
	}
	if (niov_size > b->dmabuf->size) {
		NL_SET_ERR_MSG_FMT(extack,
				   "rx-buf-size %u is larger than the dma-buf (%zu bytes)",
				   niov_size, b->dmabuf->size);
		err = -EINVAL;
		goto err_free;
	}
	if (devmemx_dma_bounces(dma_dev)) {
		NL_SET_ERR_MSG(extack,
			       "DMA to the NIC bounces via swiotlb (swiotlb=force): payload would be lost");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	b->attach = dma_buf_dynamic_attach(b->dmabuf, dma_dev,
					   &devmemx_importer_ops, b);
	if (IS_ERR(b->attach)) {
		err = PTR_ERR(b->attach);
		b->attach = NULL;
		NL_SET_ERR_MSG(extack, "cannot attach the dma-buf to the device");
		goto err_free;
	}
	err = devmemx_map(b, extack);
	if (err)
		goto err_free;
	if (devmemx_mapping_needs_sync(dma_dev, b->sgt)) {
		NL_SET_ERR_MSG(extack,
			       "the dma-buf's DMA mapping bounces or needs CPU syncs: payload would be lost");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	err = niov_size ? devmemx_carve(b, extack) : 0;
	if (err)
		goto err_free;
	return b;

err_free:
	devmemx_binding_free(b);
	return ERR_PTR(err);
}

/*
 * Give the binding its id and make it findable; from here it is counted.
 * The caller holds a module reference (a request may run while rmmod
 * waits for it to end; see devmemx_nl_bind_rx_doit()).
 */
int devmemx_binding_publish(struct devmemx_binding *b)
{
	int err;

	err = xa_alloc_cyclic(&devmemx_ids, &b->id, b,
			      XA_LIMIT(DEVMEMX_ID_MIN, U32_MAX - 1),
			      &devmemx_id_next, GFP_KERNEL);
	if (err < 0)
		return err;
	__module_get(THIS_MODULE);
	atomic_inc(&devmemx_counters.bindings);
	atomic64_add(b->niov_count, &devmemx_counters.niovs);
	mutex_lock(&devmemx_mutex);
	list_add_tail(&b->node, &devmemx_bindings);
	mutex_unlock(&devmemx_mutex);
	return 0;
}

/* A binding that never got published: nothing else can hold it. */
void devmemx_binding_abort(struct devmemx_binding *b)
{
	devmemx_binding_free(b);
}

/*
 * Ending a binding takes two steps: marking it, under devmemx_mutex (false
 * if someone else already did), then, without the mutex, undoing its
 * queues and dropping the user's reference. Until that drop nothing frees
 * the binding.
 */
bool devmemx_binding_mark_unbound(struct devmemx_binding *b)
{
	lockdep_assert_held(&devmemx_mutex);
	if (b->unbound)
		return false;
	b->unbound = true;
	return true;
}

void devmemx_binding_finish_unbind(struct devmemx_binding *b)
{
	devmemx_queues_release(b);
	percpu_ref_kill(&b->ref);
}

/*
 * End every binding @match picks (a closed socket's, a dying namespace's),
 * one at a time: marked under devmemx_mutex, finished without it. Returns
 * how many this call ended.
 */
unsigned int devmemx_bindings_end(bool (*match)(struct devmemx_binding *b,
						const void *arg),
				  const void *arg)
{
	struct devmemx_binding *b, *hit;
	unsigned int n = 0;

	do {
		hit = NULL;
		mutex_lock(&devmemx_mutex);
		list_for_each_entry(b, &devmemx_bindings, node) {
			if (match(b, arg) && devmemx_binding_mark_unbound(b)) {
				hit = b;
				break;
			}
		}
		mutex_unlock(&devmemx_mutex);
		if (hit) {
			devmemx_binding_finish_unbind(hit);
			n++;
		}
	} while (hit);
	return n;
}

int devmemx_binding_init(void)
{
	devmemx_id_next = DEVMEMX_ID_MIN;
	devmemx_wq = alloc_workqueue("devmemx", WQ_UNBOUND, 0);
	return devmemx_wq ? 0 : -ENOMEM;
}

void devmemx_binding_exit(void)
{
	destroy_workqueue(devmemx_wq);
}
