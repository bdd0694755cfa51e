// SPDX-License-Identifier: GPL-2.0
/*
 * Fault knobs, per device, in debugfs: devmemx_sim/<ifname>/
 *   fail_queue_start  fail this many ndo_queue_start calls of new memory
 *                     (-EIO); the start of the old memory that follows
 *                     (the core's fallback) is never failed
 *   fail_alloc        fail this many RX buffer allocations (packet dropped)
 *   drop              drop this many received packets
 *   fail_reopen       fail this many full reopens of the channels (-ENOMEM)
 *                     once every queue's new memory is built, as
 *                     mlx5e_safe_switch_params() fails when its preactivate
 *                     does: the new pools go, the old queues stay
 *   bad_ref           a planted driver bug, for the provider's side: when
 *                     this many channels that ran are freed, their pools
 *                     having a memory provider, take one more net_iov from
 *                     the pool and give it back holding a page pool
 *                     reference too many, so that the pool's destroy hands
 *                     the provider a net_iov it must refuse (the kernel's
 *                     own providers WARN)
 * Each counts down as it fires; ethtool -S counts what fired.
 *   recover           (write-only) reopen every channel now, as mlx5's
 *                     TX-timeout and health recovery do
 *                     (mlx5e_safe_reopen_channels)
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/rtnetlink.h>
#include <net/netdev_lock.h>

#include "sim.h"

static ssize_t dxsim_recover_write(struct file *file, const char __user *buf,
				   size_t len, loff_t *ppos)
{
	struct dxsim_priv *priv = file->private_data;
	int err;

	/* mlx5's recovery holds both (en/health.c, en/reporter_tx.c). */
	rtnl_lock();
	netdev_lock(priv->dev);
	err = dxsim_queues_reopen(priv->dev);
	netdev_unlock(priv->dev);
	rtnl_unlock();
	return err ?: len;
}

static const struct file_operations dxsim_recover_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= dxsim_recover_write,
	.llseek	= noop_llseek,
};

static struct dentry *dxsim_debugfs_root;

void dxsim_debugfs_init(void)
{
	dxsim_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

void dxsim_debugfs_exit(void)
{
	debugfs_remove_recursive(dxsim_debugfs_root);
}

void dxsim_debugfs_add(struct dxsim_priv *priv)
{
	struct dxsim_faults *f = &priv->faults;
	struct dentry *d;

	d = debugfs_create_dir(netdev_name(priv->dev), dxsim_debugfs_root);
	debugfs_create_atomic_t("fail_queue_start", 0600, d, &f->fail_queue_start);
	debugfs_create_atomic_t("fail_alloc", 0600, d, &f->fail_alloc);
	debugfs_create_atomic_t("drop", 0600, d, &f->drop);
	debugfs_create_atomic_t("fail_reopen", 0600, d, &f->fail_reopen);
	debugfs_create_atomic_t("bad_ref", 0600, d, &f->bad_ref);
	debugfs_create_file("recover", 0200, d, priv, &dxsim_recover_fops);
	priv->debugfs = d;
}
