/* SPDX-License-Identifier: GPL-2.0 */
/* The running kernel's BTF (/sys/kernel/btf/vmlinux): sizes of its types. */
#ifndef DX_BTF_H
#define DX_BTF_H

#include <stddef.h>

#define DX_BTF_VMLINUX	"/sys/kernel/btf/vmlinux"

/*
 * The whole of file @path (malloc'd, *@len bytes), or NULL with errno set.
 * Free it with free().
 */
char *dx_btf_load(const char *path, size_t *len);
/*
 * The size of the struct named @name in BTF blob @btf of @len bytes: > 0,
 * or -EPROTO (not BTF, or a kind this reader does not know), -ENOENT (no
 * such struct).
 */
long dx_btf_struct_size(const char *btf, size_t len, const char *name);

#endif
