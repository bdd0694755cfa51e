// SPDX-License-Identifier: GPL-2.0
/*
 * Niovs: the mapped dma-buf's DMA-contiguous runs cut into aligned niovs of
 * the binding's size, their arrays (a net_iov and an owner each, or an
 * owner per run), what a cut would give at another size (the dry run), and
 * the gen_pool that hands them out.
 */
#include <linux/dma-buf.h>
#include <linux/genalloc.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "devmemx.h"

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
unsigned int devmemx_niov_alloc(struct devmemx_binding *b, netmem_ref *out,
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
static bool devmemx_niov_owner_each(unsigned int niov_shift)
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
static struct devmemx_run *devmemx_niov_runs(struct sg_table *sgt,
					     unsigned int *nr)
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
static u32 devmemx_niov_in_run(const struct devmemx_run *r, unsigned int shift,
			       u64 *skip)
{
	*skip = ALIGN(r->dma, 1ULL << shift) - r->dma;
	return r->len > *skip ? (r->len - *skip) >> shift : 0;
}

/*
 * What carving @runs into niovs of 2^@shift bytes gives: the binding and
 * its dry run (bind-check) both count with this, so they agree.
 */
static void devmemx_niov_tally(const struct devmemx_run *runs,
			       unsigned int nr, unsigned int shift,
			       struct devmemx_carve *c)
{
	u64 n = 0, chunks = 0, nowners, skip, done, count;
	unsigned int r;

	for (r = 0; r < nr; r++)
		n += devmemx_niov_in_run(&runs[r], shift, &skip);
	/* gen_pool's chunks, vzalloc'd: whole pages. */
	for (done = 0; done < n; done += count) {
		count = min_t(u64, n - done, DEVMEMX_CHUNK_NIOVS);
		chunks += PAGE_ALIGN(sizeof(struct gen_pool_chunk) +
				     BITS_TO_LONGS(count) * sizeof(long));
	}
	nowners = devmemx_niov_owner_each(shift) ? n : nr;
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

static void devmemx_niov_owner_init(struct devmemx_owner *o,
				    struct devmemx_binding *b,
				    struct net_iov *niovs, u32 n, u64 virt,
				    dma_addr_t dma)
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
static void devmemx_niov_fill_run(struct devmemx_binding *b,
				  struct devmemx_run *run, unsigned int r,
				  u32 first)
{
	u64 size = 1ULL << b->niov_shift;
	u32 i, n = run->len >> b->niov_shift;
	bool per_niov = devmemx_niov_owner_each(b->niov_shift);
	struct devmemx_owner *o = NULL;

	if (!per_niov) {
		o = &b->owners[r];
		devmemx_niov_owner_init(o, b, &b->niovs[first], n, run->virt,
					run->dma);
	}
	for (i = 0; i < n; i++) {
		struct net_iov *niov = &b->niovs[first + i];

		if (per_niov) {
			o = &b->owners[first + i];
			devmemx_niov_owner_init(o, b, niov, 1, run->virt + i * size,
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
int devmemx_niov_carve(struct devmemx_binding *b, struct netlink_ext_ack *extack)
{
	unsigned int nr, r, used = 0, nowners;
	struct devmemx_run *runs;
	struct devmemx_carve c;
	u64 skip;
	u32 n, count;
	int err = 0;

	runs = devmemx_niov_runs(b->import.sgt, &nr);
	if (!runs)
		return -ENOMEM;
	devmemx_niov_tally(runs, nr, b->niov_shift, &c);
	if (!c.niovs) {
		NL_SET_ERR_MSG_FMT(extack,
				   "no DMA-contiguous %lu-byte run in the dma-buf: use hugetlb memory",
				   1UL << b->niov_shift);
		err = -EINVAL;
		goto out;
	}
	nowners = devmemx_niov_owner_each(b->niov_shift) ? c.niovs : nr;
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
	b->wasted = b->import.dmabuf->size - c.carved;
	b->metadata = c.metadata;
	for (r = 0, n = 0; r < nr; r++) {
		u32 count = devmemx_niov_in_run(&runs[r], b->niov_shift, &skip);

		if (!count)
			continue;
		runs[r].dma += skip;
		runs[r].virt += skip;
		runs[r].len = (u64)count << b->niov_shift;
		devmemx_niov_fill_run(b, &runs[r], used++, n);
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
int devmemx_niov_count(struct devmemx_binding *b, unsigned int shift,
		       struct devmemx_carve *c)
{
	struct sg_table *sgt = b->import.sgt;
	u64 size = 1ULL << shift;
	struct devmemx_run *runs;
	struct scatterlist *sg;
	unsigned int nr, i;

	runs = devmemx_niov_runs(sgt, &nr);
	if (!runs)
		return -ENOMEM;
	devmemx_niov_tally(runs, nr, shift, c);
	kvfree(runs);
	c->wasted = b->import.dmabuf->size - c->carved;
	c->aligned = true;
	for_each_sgtable_dma_sg(sgt, sg, i)
		c->aligned &= IS_ALIGNED(sg_dma_address(sg), size) &&
			      IS_ALIGNED(sg_dma_len(sg), size);
	return 0;
}

/*
 * The arrays and the gen_pool, once the pools are gone. A niov the
 * provider refused to take back (it warned then) still has its bit set,
 * which gen_pool_destroy() answers with a BUG: warn and leak the gen_pool
 * instead, as in-tree devmem does.
 */
void devmemx_niov_destroy(struct devmemx_binding *b)
{
	size_t size, avail;

	if (b->pool) {
		size = gen_pool_size(b->pool);
		avail = gen_pool_avail(b->pool);
		if (!WARN(size != avail,
			  "devmemx: binding %u: %zu of %zu bytes of niovs never came back; its gen_pool is leaked\n",
			  b->id, size - avail, size))
			gen_pool_destroy(b->pool);
	}
	kvfree(b->owners);
	kvfree(b->niovs);
}
