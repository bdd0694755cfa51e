// SPDX-License-Identifier: GPL-2.0
/*
 * Every way a binding ends: UNBIND, the close of the netlink socket that
 * made it (unless persistent), its network namespace's exit, its device's
 * unregister or move to another namespace, a failed bind, and the
 * exporter's revoke (import.c). Each marks the binding, then undoes its
 * queues and drops the user's reference; the binding is freed once its
 * last niov is back (binding.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/string_choices.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "devmemx.h"

/*
 * Ending a binding takes two steps: marking it, under devmemx_mutex (false
 * if someone else already did), then, without the mutex, undoing its
 * queues and dropping the user's reference. Until that drop nothing frees
 * the binding.
 */
bool devmemx_end_mark(struct devmemx_binding *b)
{
	lockdep_assert_held(&devmemx_mutex);
	if (b->unbound)
		return false;
	b->unbound = true;
	return true;
}

void devmemx_end_finish(struct devmemx_binding *b)
{
	devmemx_queues_release(b);
	percpu_ref_kill(&b->ref);
}

/*
 * End every binding @match picks (a closed socket's, a dying namespace's),
 * one at a time: marked under devmemx_mutex, finished without it. Returns
 * how many this call ended.
 */
unsigned int devmemx_end_all(bool (*match)(struct devmemx_binding *b,
					   const void *arg),
			     const void *arg)
{
	struct devmemx_binding *b, *hit;
	unsigned int n = 0;

	do {
		hit = NULL;
		mutex_lock(&devmemx_mutex);
		list_for_each_entry(b, &devmemx_bindings, node) {
			if (match(b, arg) && devmemx_end_mark(b)) {
				hit = b;
				break;
			}
		}
		mutex_unlock(&devmemx_mutex);
		if (hit) {
			devmemx_end_finish(hit);
			n++;
		}
	} while (hit);
	return n;
}

/*
 * A bind that failed after publishing its binding (its queues rolled
 * back; the devices still locked by the caller): the binding leaves the
 * devices and ends, unless an UNBIND meanwhile took it upon itself to end
 * it.
 */
void devmemx_end_failed_bind(struct devmemx_binding *b)
{
	mutex_lock(&b->lock);
	devmemx_queue_drop_dev(b);
	mutex_unlock(&b->lock);
	mutex_lock(&devmemx_mutex);
	if (devmemx_end_mark(b))
		percpu_ref_kill(&b->ref);
	mutex_unlock(&devmemx_mutex);
}

static bool devmemx_end_by_socket(struct devmemx_binding *b, const void *arg)
{
	const struct netlink_notify *n = arg;

	return b->portid == n->portid && devmemx_binding_made_in(b, n->net) &&
	       !(b->flags & DEVMEMX_BINDING_FLAGS_PERSISTENT);
}

/* A genl socket closed: the bindings it made end, unless persistent. */
static int devmemx_netlink_event(struct notifier_block *nb, unsigned long event,
				 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC)
		devmemx_end_all(devmemx_end_by_socket, n);
	return NOTIFY_DONE;
}

static struct notifier_block devmemx_netlink_nb = {
	.notifier_call = devmemx_netlink_event,
};

/*
 * A network namespace goes: the bindings made in it end, persistent ones
 * too (no one can reach them any more; in-tree bindings cannot outlive
 * theirs, as their socket holds it). Before its devices leave it, so a
 * device that returns to the initial namespace comes back unbound.
 */
static void __net_exit devmemx_net_pre_exit(struct net *net)
{
	unsigned int n;

	devmemx_policy_net_gone(net);
	n = devmemx_end_all(devmemx_binding_made_in, net);

	if (n)
		pr_info("%u binding%s ended with the network namespace %s made in\n",
			n, str_plural(n), n == 1 ? "it was" : "they were");
}

static struct pernet_operations devmemx_net_ops = {
	.pre_exit = devmemx_net_pre_exit,
};

/*
 * On @dev: named by it or on its queues; with @lease, only a binding whose
 * queues @dev leases from another device.
 */
static bool devmemx_end_on_dev(struct devmemx_binding *b,
			       const struct net_device *dev, bool lease)
{
	bool on;

	mutex_lock(&b->lock);
	on = lease ? b->dev == dev && b->qdev != dev :
		     b->dev == dev || b->qdev == dev;
	mutex_unlock(&b->lock);
	return on;
}

/*
 * A move of @dev to another network namespace: each binding on it ends,
 * and its queues are undone here, before the device joins the other
 * namespace. With @lease, the bindings of a netkit's leased queues, whose
 * physical queues the netkit's unregister would leave to the kernel.
 * That holds for a binding someone else (UNBIND, the socket's release, a
 * revoke) marked already too: that path may not have undone its queues
 * yet, and a device that came up in the other namespace first
 * would fill the binding with that namespace's traffic. Whichever of the
 * two undoes the queues first does it (devmemx_queues_release() drops
 * the device); the other finds nothing left to do. Returns how many
 * bindings this call ended.
 */
static unsigned int devmemx_end_move(struct net_device *dev, bool lease)
{
	struct devmemx_binding *b, *hit;
	unsigned int n = 0;
	bool mine;

	do {
		hit = NULL;
		mine = false;
		mutex_lock(&devmemx_mutex);
		list_for_each_entry(b, &devmemx_bindings, node) {
			if (!devmemx_end_on_dev(b, dev, lease))
				continue;
			mine = devmemx_end_mark(b);
			/*
			 * Marked by another path: a reference of our own
			 * while the count is not zero. If that path has
			 * undone the queues already, b->dev is NULL and
			 * the release below does nothing.
			 */
			if (mine || percpu_ref_tryget(&b->ref)) {
				hit = b;
				break;
			}
		}
		mutex_unlock(&devmemx_mutex);
		if (!hit)
			break;
		if (mine) {
			devmemx_end_finish(hit);
			n++;
		} else {
			devmemx_queues_release(hit);
			percpu_ref_put(&hit->ref);
		}
	} while (true);
	return n;
}

/*
 * A device going away ends its bindings: the core already told the
 * provider (uninstall) and will destroy the queues' pools; drop the device
 * and the user's reference, so each binding goes once its niovs are back.
 *
 * A move to another network namespace says NETDEV_UNREGISTER too, with
 * the device still registered, closed, its instance lock free and rtnl
 * held: it ends the device's bindings here, their queues undone before
 * the device joins the other namespace, whose traffic must not land in
 * memory the first one can read (in-tree devmem keeps its bindings on a
 * moved device). So does the move of a physical device whose queues a
 * netkit leases: the lease stays, its bindings end.
 */
static int devmemx_netdev_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct devmemx_binding *b;
	unsigned int n;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	devmemx_policy_dev_gone(dev);
	if (READ_ONCE(dev->reg_state) == NETREG_REGISTERED) {
		n = devmemx_end_move(dev, false);
		if (n)
			netdev_info(dev, "devmemx: %u binding%s ended: %s moves to another network namespace\n",
				    n, str_plural(n), dev->name);
		return NOTIFY_DONE;
	}
	if (READ_ONCE(dev->reg_state) != NETREG_UNREGISTERING)
		return NOTIFY_DONE;
	/*
	 * A netkit going ends its lease: its bindings' physical queues are
	 * undone here (netkit, then physical device, as the kernel locks
	 * them), before netkit_uninit() ends the lease and finds no provider.
	 */
	n = devmemx_end_move(dev, true);
	if (n)
		netdev_info(dev, "devmemx: %u binding%s of leased queues ended: %s is unregistered\n",
			    n, str_plural(n), dev->name);
	mutex_lock(&devmemx_mutex);
	list_for_each_entry(b, &devmemx_bindings, node) {
		mutex_lock(&b->lock);
		if (b->dev != dev && b->qdev != dev) {
			mutex_unlock(&b->lock);
			continue;
		}
		devmemx_queue_drop_dev(b);
		mutex_unlock(&b->lock);
		if (devmemx_end_mark(b))
			percpu_ref_kill(&b->ref);
	}
	mutex_unlock(&devmemx_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block devmemx_netdev_nb = {
	.notifier_call = devmemx_netdev_event,
};

int devmemx_end_init(void)
{
	int err;

	err = register_netdevice_notifier(&devmemx_netdev_nb);
	if (err)
		return err;
	err = netlink_register_notifier(&devmemx_netlink_nb);
	if (err)
		goto err_netdev;
	err = register_pernet_subsys(&devmemx_net_ops);
	if (err)
		goto err_netlink;
	return 0;

err_netlink:
	netlink_unregister_notifier(&devmemx_netlink_nb);
err_netdev:
	unregister_netdevice_notifier(&devmemx_netdev_nb);
	return err;
}

void devmemx_end_exit(void)
{
	unregister_pernet_subsys(&devmemx_net_ops);
	netlink_unregister_notifier(&devmemx_netlink_nb);
	unregister_netdevice_notifier(&devmemx_netdev_nb);
}
