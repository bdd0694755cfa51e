// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx: large-buffer devmem TCP receive for stock kernels.
 *
 * Subsystems come up in dependency order and go down in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "devmemx.h"

static int __init devmemx_init(void)
{
	int ret;

	ret = devmemx_nl_init();
	if (ret)
		return ret;

	pr_info("version %s loaded\n", DEVMEMX_VERSION);
	return 0;
}

static void __exit devmemx_exit(void)
{
	devmemx_nl_exit();
}

module_init(devmemx_init);
module_exit(devmemx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Large-buffer devmem TCP receive for stock kernels");
MODULE_VERSION(DEVMEMX_VERSION);
