/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/devmemx.yaml */
/* YNL-GEN uapi header */
/* To regenerate run: tools/net/ynl/ynl-regen.sh */

#ifndef _UAPI_LINUX_DEVMEMX_H
#define _UAPI_LINUX_DEVMEMX_H

#define DEVMEMX_FAMILY_NAME	"devmemx"
#define DEVMEMX_FAMILY_VERSION	1

/**
 * enum devmemx_feature - Kernel features devmemx detected when it was built.
 * @DEVMEMX_FEATURE_RX_PAGE_SIZE: Drivers can be asked for RX buffers larger
 *   than PAGE_SIZE (QCFG_RX_PAGE_SIZE).
 * @DEVMEMX_FEATURE_INTREE_LARGE_NIOV: The kernel's own devmem binds with niovs
 *   larger than PAGE_SIZE.
 */
enum devmemx_feature {
	DEVMEMX_FEATURE_RX_PAGE_SIZE = 1,
	DEVMEMX_FEATURE_INTREE_LARGE_NIOV = 2,
};

enum {
	DEVMEMX_A_INFO_VERSION = 1,
	DEVMEMX_A_INFO_KERNEL,
	DEVMEMX_A_INFO_FEATURES,

	__DEVMEMX_A_INFO_MAX,
	DEVMEMX_A_INFO_MAX = (__DEVMEMX_A_INFO_MAX - 1)
};

enum {
	DEVMEMX_CMD_INFO = 1,

	__DEVMEMX_CMD_MAX,
	DEVMEMX_CMD_MAX = (__DEVMEMX_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_DEVMEMX_H */
