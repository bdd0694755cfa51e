/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels devmemx builds for. The facts
 * come from probe.sh, run by Kbuild against the target kernel's headers; the
 * build stops there, with a message, on a kernel devmemx cannot serve.
 */
#ifndef _DEVMEMX_COMPAT_H
#define _DEVMEMX_COMPAT_H

#include <uapi/linux/devmemx.h>

#include "generated/probed.h"

static inline u32 devmemx_features(void)
{
	u32 features = 0;

	if (DEVMEMX_HAVE_RX_PAGE_SIZE)
		features |= DEVMEMX_FEATURE_RX_PAGE_SIZE;
	if (DEVMEMX_HAVE_INTREE_LARGE_NIOV)
		features |= DEVMEMX_FEATURE_INTREE_LARGE_NIOV;
	return features;
}

#endif
