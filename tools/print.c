// SPDX-License-Identifier: GPL-2.0
/* Print reply attributes as "name: value" lines or as one JSON object. */
#include <inttypes.h>
#include <stdio.h>

#include "nl.h"

static void dx_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static uint64_t dx_uint(const struct nlattr *a, enum dx_type t)
{
	switch (t) {
	case DX_U8:
		return nla_get_u8((struct nlattr *)a);
	case DX_U16:
		return nla_get_u16((struct nlattr *)a);
	case DX_U32:
		return nla_get_u32((struct nlattr *)a);
	case DX_UINT:
		return dx_nla_uint(a);
	default:
		return nla_get_u64((struct nlattr *)a);
	}
}

static void dx_print_bits(uint64_t v, const char * const *names, bool json)
{
	bool first = true;
	int i;

	if (json)
		putchar('[');
	for (i = 0; i < 64; i++) {
		if (!(v & (1ULL << i)))
			continue;
		if (!first)
			fputs(json ? "," : " ", stdout);
		first = false;
		if (json)
			dx_json_str(names[i]);
		else
			fputs(names[i], stdout);
	}
	if (json)
		putchar(']');
	else if (first)
		fputs("-", stdout);
}

static void dx_print_value(struct nlattr *a, const struct dx_attr *d, bool json)
{
	uint64_t v;

	switch (d->type) {
	case DX_STRING:
		if (json)
			dx_json_str(nla_get_string(a));
		else
			fputs(nla_get_string(a), stdout);
		return;
	case DX_FLAG:
		fputs("true", stdout);
		return;
	case DX_S32:
		printf("%" PRId32, (int32_t)nla_get_u32(a));
		return;
	case DX_NEST:
	case DX_BINARY:
		printf(json ? "null" : "(%d bytes)", nla_len(a));
		return;
	default:
		break;
	}
	v = dx_uint(a, d->type);
	if (d->kind == DX_BITS)
		dx_print_bits(v, d->names, json);
	else if (d->kind == DX_ENUM && json)
		dx_json_str(d->names[v]);
	else if (d->kind == DX_ENUM)
		fputs(d->names[v], stdout);
	else
		printf("%" PRIu64, v);
}

void dx_print(struct nlattr **tb, const struct dx_attr *desc, int maxattr,
	      bool json)
{
	bool first = true;
	int i;

	if (json)
		putchar('{');
	for (i = 1; i <= maxattr; i++) {
		if (!tb[i] || !desc[i].name)
			continue;
		if (json) {
			printf("%s", first ? "" : ",");
			dx_json_str(desc[i].name);
			putchar(':');
		} else {
			printf("%s: ", desc[i].name);
		}
		first = false;
		dx_print_value(tb[i], &desc[i], json);
		if (!json)
			putchar('\n');
	}
	if (json)
		puts("}");
}
