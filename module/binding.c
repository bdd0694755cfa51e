// SPDX-License-Identifier: GPL-2.0
/*
 * Bindings: their ids and lookup, their making (a dma-buf imported and
 * carved into niovs, then published) and their freeing.
 *
 * Lifetime: the binding's reference (the percpu_ref the stack also takes
 * for every skb fragment in one of its niovs) starts with one held by the
 * binding's user. Each page pool using the binding holds one until it is
 * destroyed, which is after its last niov came back. Unbinding (end.c)
 * drops the user's; the last put frees the binding, from a work item, and
 * releases the module reference the binding held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pid.h>
#include <linux/slab.h>
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
struct workqueue_struct *devmemx_wq;

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

static void devmemx_binding_free(struct devmemx_binding *b)
{
	devmemx_niov_destroy(b);
	devmemx_import_release(b);
	devmemx_queue_destroy(b);
	devmemx_resize_free(b);
	kfree(b->pool_shift);
	kvfree(b->vq);
	bitmap_free(b->queues);
	bitmap_free(b->pooled);
	percpu_ref_exit(&b->ref);
	put_pid(b->creator);
	if (b->tok_user)
		devmemx_tokhook_put();
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
	cancel_delayed_work_sync(&b->resize.work);
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
 * Import and, unless @niov_size is 0 (a dry run: see devmemx_niov_count()),
 * carve; the binding is not visible to anyone yet.
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
	b->niov_shift = ilog2(niov_size ?: PAGE_SIZE);
	b->autorelease = DEVMEMX_AUTORELEASE_XARRAY;
	b->creator = get_task_pid(current, PIDTYPE_TGID);
	b->nqueues = dev->real_num_rx_queues;
	b->queues = bitmap_zalloc(b->nqueues, GFP_KERNEL);
	b->pooled = bitmap_zalloc(b->nqueues, GFP_KERNEL);
	b->pool_shift = kcalloc(b->nqueues, sizeof(*b->pool_shift), GFP_KERNEL);
	err = percpu_ref_init(&b->ref, devmemx_binding_release, 0, GFP_KERNEL) ?:
	      devmemx_resize_init(b) ?: devmemx_queue_init(b);
	if (err || !b->queues || !b->pooled || !b->pool_shift) {
		err = err ?: -ENOMEM;
		goto err_free;
	}
#if DEVMEMX_BTF_BINDING_NIOV_SHIFT >= 0
	/* 7.3's stack knows the niov size of a binding: tell it ours. */
	*(unsigned int *)&b->intree[DEVMEMX_BTF_BINDING_NIOV_SHIFT] = b->niov_shift;
#endif
	err = devmemx_import(b, dma_dev, fd, niov_size, extack) ?:
	      (niov_size ? devmemx_niov_carve(b, extack) : 0);
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
