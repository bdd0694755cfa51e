// SPDX-License-Identifier: GPL-2.0
/*
 * page_pool only accepts memory provider ops from kernel rodata, so devmemx
 * installs the kernel's own dmabuf_devmem_ops on its queues and redirects
 * that provider's functions to devmemx's when the binding is devmemx's.
 * In-tree bindings pass through untouched.
 *
 * The ops' address comes from /proc/kallsyms, read by the loader (root) and
 * passed as a module parameter: the kernel offers modules no lookup of it,
 * and /proc/kallsyms cannot be read from inside the kernel. It is trusted
 * only after the kernel's own symbol table agrees on what it and each of
 * its members are. Nothing found this way is ever called: the ops are only
 * stored, and the functions only traced.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/ftrace.h>
#include <linux/slab.h>
#include <net/page_pool/memory_provider.h>

#include "devmemx.h"
#include "gate.h"

const struct memory_provider_ops *devmemx_intree_ops;
unsigned int devmemx_hooks;

static unsigned long devmemx_ops_addr;
module_param_named(dmabuf_devmem_ops, devmemx_ops_addr, ulong, 0400);
MODULE_PARM_DESC(dmabuf_devmem_ops,
		 "address of dmabuf_devmem_ops, from /proc/kallsyms (see modprobe.conf)");

struct devmemx_hook {
	const char *name;
	unsigned long target;		/* the in-tree function */
	unsigned long redirect;		/* devmemx's */
	bool arg_is_pool;		/* arg 0: page_pool, else mp_priv */
	struct ftrace_ops ops;
};

/*
 * devmemx redirects every op there is: an op a later kernel adds would be
 * called with a devmemx binding and find no gen_pool there.
 */
static_assert(sizeof(struct memory_provider_ops) == 6 * sizeof(void *),
	      "struct memory_provider_ops has other than the six ops devmemx redirects");

#define DX_HOOK(fn, member, pool) \
	{ .name = #fn, .redirect = (unsigned long)devmemx_mp_##member, \
	  .arg_is_pool = pool }

static struct devmemx_hook devmemx_hooks_tab[] = {
	DX_HOOK(mp_dmabuf_devmem_init, init, true),
	DX_HOOK(mp_dmabuf_devmem_alloc_netmems, alloc_netmems, true),
	DX_HOOK(mp_dmabuf_devmem_release_page, release_netmem, true),
	DX_HOOK(mp_dmabuf_devmem_destroy, destroy, true),
	DX_HOOK(mp_dmabuf_devmem_nl_fill, nl_fill, false),
	DX_HOOK(mp_dmabuf_devmem_uninstall, uninstall, false),
};

static void notrace devmemx_thunk(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct devmemx_hook *h = container_of(op, struct devmemx_hook, ops);
	unsigned long arg = ftrace_regs_get_argument(fregs, 0);
	const void *priv = (const void *)arg;

	if (h->arg_is_pool)
		priv = arg ? READ_ONCE(((struct page_pool *)arg)->mp_priv) : NULL;
	if (devmemx_binding_is_ours(priv))
		ftrace_regs_set_instruction_pointer(fregs, h->redirect);
}

static bool devmemx_sym_is(unsigned long addr, const char *name)
{
	return devmemx_sym_size(addr, name) != 0;
}

static int devmemx_resolve(void)
{
	const struct memory_provider_ops *ops;
	unsigned long members[ARRAY_SIZE(devmemx_hooks_tab)];
	unsigned long addr;
	unsigned int i;

	addr = devmemx_ops_addr;
	if (!addr) {
		pr_err("load with dmabuf_devmem_ops=0x<address from /proc/kallsyms>: modprobe does this with devmemx's modprobe.conf\n");
		return -EINVAL;
	}
	if (!devmemx_sym_is(addr, "dmabuf_devmem_ops")) {
		pr_err("dmabuf_devmem_ops=0x%lx is not the address of dmabuf_devmem_ops\n",
		       addr);
		return -EINVAL;
	}
	ops = (const struct memory_provider_ops *)addr;
	members[0] = (unsigned long)ops->init;
	members[1] = (unsigned long)ops->alloc_netmems;
	members[2] = (unsigned long)ops->release_netmem;
	members[3] = (unsigned long)ops->destroy;
	members[4] = (unsigned long)ops->nl_fill;
	members[5] = (unsigned long)ops->uninstall;
	for (i = 0; i < ARRAY_SIZE(devmemx_hooks_tab); i++) {
		if (!devmemx_sym_is(members[i], devmemx_hooks_tab[i].name)) {
			pr_err("dmabuf_devmem_ops member %u is not %s: this kernel's devmem provider differs from what devmemx knows\n",
			       i, devmemx_hooks_tab[i].name);
			return -EINVAL;
		}
		devmemx_hooks_tab[i].target = members[i];
	}
	devmemx_intree_ops = ops;
	return 0;
}

/* @ops on the function at @ip alone, registered; undone on failure. */
int devmemx_ftrace_on(struct ftrace_ops *ops, unsigned long ip)
{
	int err;

	err = ftrace_set_filter_ip(ops, ip, 0, 0);
	if (err)
		return err;
	err = register_ftrace_function(ops);
	if (err)
		ftrace_set_filter_ip(ops, ip, 1, 0);
	return err;
}

void devmemx_ftrace_off(struct ftrace_ops *ops, unsigned long ip)
{
	unregister_ftrace_function(ops);
	ftrace_set_filter_ip(ops, ip, 1, 0);
}

static void devmemx_unhook(unsigned int n)
{
	while (n--)
		devmemx_ftrace_off(&devmemx_hooks_tab[n].ops,
				   devmemx_hooks_tab[n].target);
	devmemx_hooks = 0;
}

int devmemx_dispatch_init(void)
{
	unsigned int i;
	int err;

	err = devmemx_resolve();
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(devmemx_hooks_tab); i++) {
		struct devmemx_hook *h = &devmemx_hooks_tab[i];

		h->ops.func = devmemx_thunk;
		/*
		 * PERMANENT: without the redirect the in-tree provider would
		 * run on devmemx bindings, so the kernel must refuse
		 * kernel.ftrace_enabled=0 while the hooks live (and refuses to
		 * register them while it is 0).
		 */
		h->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
			       FTRACE_OPS_FL_PERMANENT;
		err = devmemx_ftrace_on(&h->ops, h->target);
		if (err == -EBUSY && !i)
			pr_err("cannot redirect %s (-EBUSY): kernel.ftrace_enabled is 0 (devmemx needs it: sysctl kernel.ftrace_enabled=1), or a live patch holds it\n",
			       h->name);
		else if (err)
			pr_err("cannot redirect %s (%d): is it live-patched or traced with IPMODIFY by someone else?\n",
			       h->name, err);
		if (err) {
			devmemx_unhook(i);
			return err;
		}
	}
	devmemx_hooks = i;
	return 0;
}

void devmemx_dispatch_exit(void)
{
	devmemx_unhook(ARRAY_SIZE(devmemx_hooks_tab));
}
