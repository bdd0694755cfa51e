// SPDX-License-Identifier: GPL-2.0
/*
 * Struct sizes from BTF: the type section walked until a struct of the name
 * asked for, each type's trailing data skipped by its kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>

#include "btf.h"

/* Bytes of type data that follow a btf_type of @kind with @vlen members. */
static long dx_btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

char *dx_btf_load(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf)
		goto fail;
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
	}
	if (r < 0)
		goto fail;
	close(fd);
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Walk the type section for a struct named @name; its size or -errno. */
long dx_btf_struct_size(const char *b, size_t len, const char *name)
{
	const struct btf_header *h = (const void *)b;
	const char *types, *strs, *p, *end;
	const struct btf_type *t;
	long extra;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len)
		return -EPROTO;
	types = b + h->hdr_len + h->type_off;
	strs = b + h->hdr_len + h->str_off;
	end = types + h->type_len;
	for (p = types; p + sizeof(*t) <= end; p += sizeof(*t) + extra) {
		t = (const void *)p;
		extra = dx_btf_extra(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
		if (extra < 0)
			return -EPROTO;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
		    t->name_off < h->str_len && !strcmp(strs + t->name_off, name))
			return t->size;
	}
	return -ENOENT;
}
