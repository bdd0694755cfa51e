// SPDX-License-Identifier: GPL-2.0
/*
 * Fault knobs, per device, in debugfs: devmemx_sim/<ifname>/
 *   fail_queue_start  fail this many ndo_queue_start calls (-EIO)
 *   fail_alloc        fail this many RX buffer allocations (packet dropped)
 *   drop              drop this many received packets
 * Each counts down as it fires; ethtool -S counts what fired.
 */
#include <linux/debugfs.h>

#include "sim.h"

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
	priv->debugfs = d;
}
