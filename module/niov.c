// SPDX-License-Identifier: GPL-2.0
/*
 * Niovs: the mapped dma-buf's DMA-contiguous runs cut into aligned niovs of
 * the binding's size, held in segments of bounded size with their owners,
 * what a cut would give at another size (the dry run), and the gen_pool
 * that hands them out.
 */
#include <linux/dma-buf.h>
#include <linux/genalloc.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "devmemx.h"

/*
 * The niovs live in segments, in dma-buf order, of at most 2^15 niovs: a
 * segment's array is at most 2 MiB, one order-9 block of the page
 * allocator, however large the binding. One array for all of them would
 * be 2 GiB at 2^25 niovs (128G at 4K), and kvmalloc() refuses anything
 * above INT_MAX bytes (mm/slub.c __kvmalloc_node_noprof()). A segment may
 * hold niovs of several runs (a plain udmabuf's are a page or a few): each
 * run's piece of it has an owner whose area points into the segment's
 * array, where the stack's net_iov_idx() counts from.
 *
 * The gen_pool hands out the niovs themselves: its addresses are their
 * kernel addresses, a unit per struct net_iov, a chunk per segment (2^15
 * bits: its bitmap and header take two pages). Alloc and free need no
 * lookup of their own. It serves the chunk added last first, lowest
 * address first: a segment also holds at most 1 GiB of niovs, so that
 * the first niovs out lie near the dma-buf's end, as in-tree devmem's
 * lie in its last entry.
 */
#define DEVMEMX_SEG_SHIFT	15
#define DEVMEMX_SEG_SPAN_SHIFT	30

/* log2 of a segment's niovs at 2^@shift bytes each. */
static unsigned int devmemx_niov_seg_shift(unsigned int shift)
{
	if (shift >= DEVMEMX_SEG_SPAN_SHIFT)
		return 0;
	return min(DEVMEMX_SEG_SHIFT, DEVMEMX_SEG_SPAN_SHIFT - shift);
}

static_assert(!(sizeof(struct net_iov) & (sizeof(struct net_iov) - 1)),
	      "the gen_pool's unit is one struct net_iov: a power of two");

/*
 * What the kernel takes for an array of @bytes as devmemx allocates it
 * (devmemx_niov_array(): kvmalloc of this size): a kmalloc size class up
 * to a page, whole pages of a power of two beyond, which is also what
 * vmalloc takes when kvmalloc falls back to it (vmalloc's own bookkeeping,
 * a few bytes a page, aside).
 */
static u64 devmemx_niov_bytes(u64 bytes)
{
	if (bytes > KMALLOC_MAX_SIZE)
		return PAGE_ALIGN(bytes);
	return kmalloc_size_roundup(bytes);
}

/* No warning for a size the user chose. */
static void *devmemx_niov_array(u64 bytes, gfp_t gfp)
{
	return kvmalloc(devmemx_niov_bytes(bytes), gfp | __GFP_NOWARN);
}

/* A gen_pool chunk of @count niovs: vzalloc'd, whole pages. */
static u64 devmemx_niov_chunk_bytes(u32 count)
{
	return PAGE_ALIGN(struct_size_t(struct gen_pool_chunk, bits,
					BITS_TO_LONGS(count)));
}

/* Up to @want niovs into @out: how many. */
unsigned int devmemx_niov_alloc(struct devmemx_binding *b, netmem_ref *out,
				unsigned int want)
{
	unsigned long addr;
	unsigned int n;
	int used, high;

	for (n = 0; n < want; n++) {
		addr = gen_pool_alloc(b->pool, sizeof(struct net_iov));
		if (!addr)
			break;
		out[n] = net_iov_to_netmem((struct net_iov *)addr);
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
	gen_pool_free(b->pool, (unsigned long)niov, sizeof(*niov));
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

/* One run's niovs within one segment. */
struct devmemx_piece {
	u64 seg;		/* the segment's index */
	u32 first;		/* index in the segment of the piece's first niov */
	u32 count;
	u64 virt;		/* offset in the dma-buf of its first niov */
	dma_addr_t dma;
};

typedef void (*devmemx_piece_fn)(void *arg, const struct devmemx_piece *p);

/*
 * The aligned niovs of 2^@shift bytes of one run (@len bytes at @dma,
 * offset @virt in the dma-buf), numbered from *@n on, cut at segment
 * boundaries.
 */
static void devmemx_niov_walk_run(dma_addr_t dma, u64 virt, u64 len,
				  unsigned int shift, u64 *n,
				  devmemx_piece_fn fn, void *arg)
{
	unsigned int seg_shift = devmemx_niov_seg_shift(shift);
	u64 skip = ALIGN(dma, 1ULL << shift) - dma;
	u64 count = len > skip ? (len - skip) >> shift : 0;
	struct devmemx_piece p;

	dma += skip;
	virt += skip;
	while (count) {
		p.seg = *n >> seg_shift;
		p.first = *n & ((1U << seg_shift) - 1);
		p.count = min_t(u64, count, (1U << seg_shift) - p.first);
		p.virt = virt;
		p.dma = dma;
		fn(arg, &p);
		*n += p.count;
		count -= p.count;
		virt += (u64)p.count << shift;
		dma += (u64)p.count << shift;
	}
}

/*
 * Call @fn for each piece of the mapping in dma-buf order: DMA-contiguous
 * entries merged into runs, each run aligned to 2^@shift bytes and cut
 * into whole niovs, split where a segment ends.
 */
static void devmemx_niov_walk(struct sg_table *sgt, unsigned int shift,
			      devmemx_piece_fn fn, void *arg)
{
	u64 virt = 0, run_virt = 0, run_len = 0, n = 0;
	dma_addr_t run_dma = 0;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t dma = sg_dma_address(sg);
		u64 len = sg_dma_len(sg);

		if (run_len && run_dma + run_len == dma) {
			run_len += len;
		} else {
			devmemx_niov_walk_run(run_dma, run_virt, run_len,
					      shift, &n, fn, arg);
			run_dma = dma;
			run_virt = virt;
			run_len = len;
		}
		virt += len;
	}
	devmemx_niov_walk_run(run_dma, run_virt, run_len, shift, &n, fn, arg);
}

/* What a segment takes: its niovs, their owners, its gen_pool chunk. */
static u64 devmemx_niov_seg_bytes(u32 count, u32 nowners)
{
	return devmemx_niov_bytes((u64)count * sizeof(struct net_iov)) +
	       devmemx_niov_bytes((u64)nowners * sizeof(struct devmemx_owner)) +
	       devmemx_niov_chunk_bytes(count);
}

struct devmemx_tally {
	struct devmemx_carve *c;
	bool owner_each;
	u64 seg;		/* the segment being counted */
	u32 count;		/* its niovs so far */
	u32 nowners;		/* its owners so far */
};

static void devmemx_niov_tally_piece(void *arg, const struct devmemx_piece *p)
{
	struct devmemx_tally *t = arg;

	if (p->seg != t->seg) {
		t->c->metadata += devmemx_niov_seg_bytes(t->count, t->nowners);
		t->seg = p->seg;
		t->count = 0;
		t->nowners = 0;
	}
	t->count += p->count;
	t->nowners += t->owner_each ? p->count : 1;
	t->c->niovs += p->count;
}

/*
 * What carving the mapping into niovs of 2^@shift bytes gives, and every
 * byte of metadata devmemx_niov_carve() allocates for it, as the page and
 * slab allocators take them (vmalloc's own bookkeeping aside): the
 * binding and its dry run (bind-check) both count with this, so they
 * agree.
 */
static void devmemx_niov_tally(struct sg_table *sgt, unsigned int shift,
			       struct devmemx_carve *c)
{
	struct devmemx_tally t = {
		.c = c,
		.owner_each = devmemx_niov_owner_each(shift),
	};
	memset(c, 0, sizeof(*c));
	devmemx_niov_walk(sgt, shift, devmemx_niov_tally_piece, &t);
	if (!c->niovs) {
		/* Nothing to allocate; bind refuses it for its own reason. */
		c->fits = true;
		return;
	}
	c->metadata += devmemx_niov_seg_bytes(t.count, t.nowners);
	c->nsegs = DIV_ROUND_UP_ULL(c->niovs, 1U << devmemx_niov_seg_shift(shift));
	c->carved = c->niovs << shift;
	/* The segments' table, the gen_pool and the binding. */
	c->metadata += devmemx_niov_bytes(c->nsegs * sizeof(struct devmemx_seg)) +
		       (c->nsegs > 1 ?
			devmemx_niov_bytes(c->nsegs * sizeof(u32)) : 0) +
		       kmalloc_size_roundup(sizeof(struct gen_pool)) +
		       kmalloc_size_roundup(sizeof(struct devmemx_binding));
	/*
	 * The user sizes these: a GPU's memory at 4K is millions of niovs.
	 * What would not leave a sixteenth of the machine's memory free is
	 * refused before it drains memory (the OOM killer would pick some
	 * other task). in_use and high_water count niovs in an atomic_t:
	 * INT_MAX niovs (8 TiB at 4K) is the most a binding holds.
	 */
	c->fits = c->niovs <= INT_MAX &&
		  (long)(c->metadata >> PAGE_SHIFT) +
		  (long)(totalram_pages() / 16) < si_mem_available();
}

/* Count each segment's niovs and owners, to size its arrays. */
static void devmemx_niov_size_piece(void *arg, const struct devmemx_piece *p)
{
	struct devmemx_binding *b = arg;
	struct devmemx_seg *s = &b->segs[p->seg];

	s->count += p->count;
	s->nowners += devmemx_niov_owner_each(b->niov_shift) ? p->count : 1;
}

static void devmemx_niov_owner_init(struct devmemx_owner *o,
				    struct devmemx_binding *b,
				    struct net_iov *niovs, u32 n, u64 virt)
{
	o->area.niovs = niovs;
	o->area.num_niovs = n;
	o->area.base_virtual = virt;
	o->binding = b;
}

struct devmemx_fill {
	struct devmemx_binding *b;
	bool owner_each;
	u64 seg;		/* the segment being filled */
	u32 owner;		/* its next owner */
};

/*
 * Give each niov of a piece its owner (the piece's, or its own), its type
 * and its DMA address: the rest stays as the allocator zeroed it.
 */
static void devmemx_niov_fill_piece(void *arg, const struct devmemx_piece *p)
{
	struct devmemx_fill *f = arg;
	struct devmemx_binding *b = f->b;
	struct devmemx_seg *s = &b->segs[p->seg];
	struct net_iov *niov = &s->niovs[p->first];
	struct devmemx_owner *o = NULL;
	u64 size = 1ULL << b->niov_shift;
	u32 i;

	if (p->seg != f->seg) {
		f->seg = p->seg;
		f->owner = 0;
	}
	if (!f->owner_each) {
		o = &s->owners[f->owner++];
		devmemx_niov_owner_init(o, b, niov, p->count, p->virt);
	}
	for (i = 0; i < p->count; i++, niov++) {
		if (f->owner_each) {
			o = &s->owners[f->owner++];
			devmemx_niov_owner_init(o, b, niov, 1, p->virt + i * size);
		}
		niov->type = NET_IOV_DMABUF;
		niov->owner = &o->area;
		niov->desc.dma_addr = p->dma + i * size;
	}
}

/* Each segment's arrays, and its chunk of the gen_pool. */
static int devmemx_niov_segs_alloc(struct devmemx_binding *b)
{
	struct devmemx_seg *s;
	u32 i;

	for (i = 0; i < b->nsegs; i++) {
		s = &b->segs[i];
		/*
		 * Zeroed by the allocator's own clearing, which Debian's
		 * kernels (init_on_alloc) do anyway, so not twice: a niov's
		 * other five words must be 0, and the fill then writes
		 * three, as in-tree devmem's does. Owners are written whole.
		 */
		s->niovs = devmemx_niov_array((u64)s->count * sizeof(*s->niovs),
					      GFP_KERNEL | __GFP_ZERO);
		s->owners = devmemx_niov_array((u64)s->nowners * sizeof(*s->owners),
					       GFP_KERNEL);
		if (!s->niovs || !s->owners)
			return -ENOMEM;
		/*
		 * In dma-buf order: gen_pool serves the chunk added last
		 * first, so the dma-buf's last piece goes out first, as
		 * in-tree devmem's does.
		 */
		if (gen_pool_add(b->pool, (unsigned long)s->niovs,
				 (size_t)s->count * sizeof(*s->niovs),
				 NUMA_NO_NODE))
			return -ENOMEM;
	}
	return 0;
}

static int devmemx_niov_seg_cmp(const void *x, const void *y, const void *priv)
{
	const struct devmemx_seg *segs = priv;
	const struct net_iov *a = segs[*(const u32 *)x].niovs;
	const struct net_iov *b = segs[*(const u32 *)y].niovs;

	return a < b ? -1 : a > b;
}

/*
 * Tokens (the token array, tokens.c): a niov's token is its index in the
 * carving, so segment i holds tokens i << seg_shift on. A token finds its
 * niov by that shift; a niov finds its segment among the segments sorted
 * by address (seg_order: their indices in that order, when there are
 * several).
 */
static int devmemx_niov_seg_order(struct devmemx_binding *b)
{
	u32 i;

	if (b->nsegs < 2)
		return 0;
	b->seg_order = devmemx_niov_array((u64)b->nsegs * sizeof(u32), GFP_KERNEL);
	if (!b->seg_order)
		return -ENOMEM;
	for (i = 0; i < b->nsegs; i++)
		b->seg_order[i] = i;
	sort_r(b->seg_order, b->nsegs, sizeof(u32), devmemx_niov_seg_cmp, NULL,
	       b->segs);
	return 0;
}

u32 devmemx_niov_token(const struct devmemx_binding *b,
		       const struct net_iov *niov)
{
	unsigned int seg_shift = devmemx_niov_seg_shift(b->niov_shift);
	u32 lo = 0, hi = b->nsegs, mid, i = 0;

	if (b->seg_order) {
		/* The last segment that starts at or below @niov. */
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (b->segs[b->seg_order[mid]].niovs <= niov)
				lo = mid;
			else
				hi = mid;
		}
		i = b->seg_order[lo];
	}
	return (i << seg_shift) + (u32)(niov - b->segs[i].niovs);
}

/* The niov of token @t, or NULL when @b has none. */
struct net_iov *devmemx_niov_of_token(const struct devmemx_binding *b, u32 t)
{
	unsigned int seg_shift = devmemx_niov_seg_shift(b->niov_shift);
	u32 i = t >> seg_shift, k = t & ((1U << seg_shift) - 1);

	if (i >= b->nsegs || k >= b->segs[i].count)
		return NULL;
	return &b->segs[i].niovs[k];
}

/*
 * Cut the mapped dma-buf into niovs: merge DMA-contiguous entries, align
 * each run to the niov size, count what could not be used. What is
 * allocated here is what devmemx_niov_tally() counts.
 */
int devmemx_niov_carve(struct devmemx_binding *b, struct netlink_ext_ack *extack)
{
	struct sg_table *sgt = b->import.sgt;
	struct devmemx_fill f = {
		.b = b,
		.owner_each = devmemx_niov_owner_each(b->niov_shift),
	};
	struct devmemx_carve c;

	devmemx_niov_tally(sgt, b->niov_shift, &c);
	if (!c.niovs) {
		NL_SET_ERR_MSG_FMT(extack,
				   "no DMA-contiguous %lu-byte run in the dma-buf: use hugetlb memory",
				   1UL << b->niov_shift);
		return -EINVAL;
	}
	if (!c.fits)
		goto nomem;
	/* Counted up by devmemx_niov_size_piece(): zeroed. */
	b->segs = kvzalloc(devmemx_niov_bytes(c.nsegs * sizeof(*b->segs)),
			   GFP_KERNEL | __GFP_NOWARN);
	b->pool = gen_pool_create(ilog2(sizeof(struct net_iov)), NUMA_NO_NODE);
	if (!b->segs || !b->pool)
		goto nomem;
	b->nsegs = c.nsegs;
	devmemx_niov_walk(sgt, b->niov_shift, devmemx_niov_size_piece, b);
	if (devmemx_niov_segs_alloc(b) || devmemx_niov_seg_order(b))
		goto nomem;
	devmemx_niov_walk(sgt, b->niov_shift, devmemx_niov_fill_piece, &f);
	b->niov_count = c.niovs;
	b->carved = c.carved;
	b->wasted = b->import.dmabuf->size - c.carved;
	b->metadata = c.metadata;
	return 0;

nomem:
	/* At most 79 characters: extack's formatted messages stop at 80. */
	NL_SET_ERR_MSG_FMT(extack,
			   "no memory for %llu MiB of metadata (%llu niovs): use a larger niov size",
			   DIV_ROUND_UP_ULL(c.metadata, SZ_1M), c.niovs);
	return -ENOMEM;
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
	struct scatterlist *sg;
	unsigned int i;

	devmemx_niov_tally(sgt, shift, c);
	c->wasted = b->import.dmabuf->size - c->carved;
	c->aligned = true;
	for_each_sgtable_dma_sg(sgt, sg, i)
		c->aligned &= IS_ALIGNED(sg_dma_address(sg), size) &&
			      IS_ALIGNED(sg_dma_len(sg), size);
	return 0;
}

/*
 * The segments and the gen_pool, once the pools are gone. A niov the
 * provider refused to take back (it warned then) still has its bit set,
 * which gen_pool_destroy() answers with a BUG: warn and leak the
 * gen_pool and the niovs instead, as in-tree devmem leaks its gen_pool.
 * That spares the BUG only: the binding itself is still freed, so a niov
 * the stack still held would name freed memory (in-tree's is alike).
 */
void devmemx_niov_destroy(struct devmemx_binding *b)
{
	size_t size, avail;
	u32 i;

	if (b->pool) {
		size = gen_pool_size(b->pool);
		avail = gen_pool_avail(b->pool);
		if (WARN(size != avail,
			 "devmemx: binding %u: %zu of %zu niovs never came back; its gen_pool and niovs are leaked\n",
			 b->id, (size - avail) / sizeof(struct net_iov),
			 size / sizeof(struct net_iov))) {
			/* Leaked on purpose: not kmemleak's to report. */
			kmemleak_not_leak(b->pool);
			kmemleak_not_leak(b->segs);
			kmemleak_not_leak(b->seg_order);
			return;
		}
		gen_pool_destroy(b->pool);
	}
	for (i = 0; i < b->nsegs; i++) {
		kvfree(b->segs[i].owners);
		kvfree(b->segs[i].niovs);
	}
	kvfree(b->segs);
	kvfree(b->seg_order);
}
