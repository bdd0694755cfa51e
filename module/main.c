// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx: large-buffer devmem TCP receive for stock kernels.
 *
 * Subsystems come up in dependency order and go down in reverse. Module
 * exit finds no binding: every binding holds a module reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "devmemx.h"
#include "gate.h"

static int __init devmemx_init(void)
{
	int ret;

	ret = devmemx_binding_init();
	if (ret)
		return ret;
	ret = devmemx_dispatch_init();
	if (ret)
		goto err_binding;
	/*
	 * They cannot fail: a kernel the gate rules out loads without the
	 * token array, or without policies, or both.
	 */
	devmemx_gate_init();
	devmemx_tokhook_init();
	devmemx_polhook_init();	/* the same: only policies become unavailable */
	ret = devmemx_end_init();
	if (ret)
		goto err_dispatch;
	ret = devmemx_nl_init();
	if (ret)
		goto err_end;

	pr_info("version %s loaded\n", DEVMEMX_VERSION);
	return 0;

err_end:
	devmemx_end_exit();
err_dispatch:
	devmemx_dispatch_exit();
err_binding:
	devmemx_binding_exit();
	return ret;
}

static void __exit devmemx_exit(void)
{
	devmemx_nl_exit();
	devmemx_end_exit();
	devmemx_queue_exit();
	devmemx_polhook_exit();
	devmemx_tokhook_exit();
	devmemx_dispatch_exit();
	devmemx_binding_exit();
}

module_init(devmemx_init);
module_exit(devmemx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Large-buffer devmem TCP receive for stock kernels");
MODULE_VERSION(DEVMEMX_VERSION);
MODULE_IMPORT_NS("DMA_BUF");
MODULE_IMPORT_NS("NETDEV_INTERNAL");
