/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's slab caches, as /proc/slabinfo shows them (root only). */
#ifndef DX_SLAB_H
#define DX_SLAB_H

#include <stdint.h>

/*
 * In-use objects and object size of slab cache @name: 0, or -errno
 * (-ENOENT: no such cache). Objects in per-CPU sheaves and slabs count as
 * in use, so a delta is exact only for a cache with a debug flag
 * (slub_debug=F,CACHE), which has neither.
 */
int dx_slab_read(const char *name, uint64_t *objs, uint64_t *size);
/* The same, once RCU-deferred frees have landed and the count stays put. */
int dx_slab_read_settled(const char *name, uint64_t *objs, uint64_t *size);

#endif
