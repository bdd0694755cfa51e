/* SPDX-License-Identifier: GPL-2.0 */
/* How the CLI names and decodes attributes; tables come from the spec. */
#ifndef DX_NAMES_H
#define DX_NAMES_H

#include <stdbool.h>

enum dx_type {
	DX_U8, DX_U16, DX_U32, DX_U64, DX_UINT, DX_S32,
	DX_STRING, DX_FLAG, DX_NEST, DX_BINARY,
};

enum dx_kind {
	DX_PLAIN,
	DX_ENUM,	/* value v is names[v - first] */
	DX_BITS,	/* bit i set means names[i - first] */
	DX_HEX,		/* display-hint: hex (text only; JSON stays a number) */
	/* By the attribute's name and type (tools/gen-names.py); text only. */
	DX_IFINDEX,	/* "ifindex": printed as "dev: NAME" */
	DX_BOOL,	/* a u8 without an enum: yes or no */
	DX_SIZE,	/* byte counts and sizes: as 64K */
	DX_NS,		/* "*-ns": nanoseconds, as seconds */
};

struct dx_attr {
	const char *name;
	enum dx_type type;
	enum dx_kind kind;
	const char * const *names;	/* NULL-terminated */
	unsigned int first;		/* value (bit) of names[0] */
	const struct dx_attr *nest;	/* DX_NEST: the nested set */
	int nest_max;			/* its highest attribute type */
	bool multi;			/* multi-attr: one value per occurrence */
};

#endif
