// SPDX-License-Identifier: GPL-2.0
/*
 * Print reply attributes as "name: value" lines or as one JSON object, all
 * from the spec's tables: multi-attr attributes as lists ("queues: 0 2 3",
 * "queues":[0,2,3]), a nest of a one-attribute set as that attribute's
 * value, other nests as "a=1,b=2" or a JSON object. Enums and flags print by
 * name, in JSON too unless the caller asks for raw numbers.
 */
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "nl.h"

enum dx_style {
	DX_LINES,	/* top level text: "name: value" per line */
	DX_INLINE,	/* nested text: "name=value,name=value" */
	DX_JSON,
};

static void dx_print_attrs(struct nlattr *attrs, int len, struct nlattr **tb,
			   const struct dx_attr *desc, int maxattr,
			   enum dx_style style, bool raw);
static void dx_print_value(struct nlattr *a, const struct dx_attr *d,
			   bool json, bool raw);

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

static void dx_print_str(const char *s, bool json)
{
	if (json)
		dx_json_str(s);
	else
		fputs(s, stdout);
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

/* How many names a NULL-terminated table holds. */
static unsigned int dx_nnames(const char * const *names)
{
	unsigned int n = 0;

	while (names && names[n])
		n++;
	return n;
}

/* @d's name for value (or bit) @v, or NULL when the spec names none. */
static const char *dx_name(const struct dx_attr *d, uint64_t v)
{
	if (v < d->first || v - d->first >= dx_nnames(d->names))
		return NULL;
	return d->names[v - d->first];
}

/* Set bits by name, "bitN" for bits the spec does not name; "-" for none. */
static void dx_print_bits(uint64_t v, const struct dx_attr *d, bool json)
{
	bool first = true;
	char unnamed[8];
	const char *name;
	unsigned int i;

	if (json)
		putchar('[');
	for (i = 0; i < 64; i++) {
		if (!(v & (1ULL << i)))
			continue;
		if (!first)
			fputs(json ? "," : " ", stdout);
		first = false;
		snprintf(unnamed, sizeof(unnamed), "bit%u", i);
		name = dx_name(d, i);
		dx_print_str(name ? name : unnamed, json);
	}
	if (json)
		putchar(']');
	else if (first)
		fputs("-", stdout);
}

/* A number as text, decoded as its kind says. */
static void dx_print_text_num(uint64_t v, const struct dx_attr *d)
{
	char buf[IF_NAMESIZE + 16];

	switch (d->kind) {
	case DX_HEX:
		printf("0x%" PRIx64, v);
		return;
	case DX_BOOL:
		fputs(v ? "yes" : "no", stdout);
		return;
	case DX_SIZE:
		dx_fmt_size(v, buf, sizeof(buf));
		/* Rounded (1.5M): the exact count too. */
		if (strchr(buf, '.'))
			printf("%s (%" PRIu64 ")", buf, v);
		else
			fputs(buf, stdout);
		return;
	case DX_NS:
		printf("%.3f s", v / 1e9);
		return;
	case DX_IFINDEX:
		/* Not in this network namespace (or gone): its index. */
		if (v > UINT32_MAX || !if_indextoname(v, buf))
			snprintf(buf, sizeof(buf), "ifindex %" PRIu64, v);
		fputs(buf, stdout);
		return;
	default:
		printf("%" PRIu64, v);
	}
}

static void dx_print_num(const struct nlattr *a, const struct dx_attr *d,
			 bool json, bool raw)
{
	uint64_t v = dx_uint(a, d->type);

	if (json && raw)
		printf("%" PRIu64, v);
	else if (d->kind == DX_BITS)
		dx_print_bits(v, d, json);
	else if (d->kind == DX_ENUM && dx_name(d, v))
		dx_print_str(dx_name(d, v), json);
	else if (!json)
		dx_print_text_num(v, d);
	else
		printf("%" PRIu64, v);
}

static void dx_print_nest(struct nlattr *a, const struct dx_attr *d, bool json,
			  bool raw)
{
	struct nlattr *tb[d->nest_max + 1];

	if (nla_parse_nested(tb, d->nest_max, a, NULL) < 0) {
		fputs(json ? "null" : "?", stdout);
		return;
	}
	if (d->nest_max != 1 || d->nest[1].multi) {
		if (json)
			putchar('{');
		dx_print_attrs(nla_data(a), nla_len(a), tb, d->nest, d->nest_max,
			       json ? DX_JSON : DX_INLINE, raw);
		if (json)
			putchar('}');
		return;
	}
	/* A set of one attribute (a queue's id): that value stands for it. */
	if (tb[1])
		dx_print_value(tb[1], &d->nest[1], json, raw);
	else
		fputs(json ? "null" : "-", stdout);
}

static void dx_print_value(struct nlattr *a, const struct dx_attr *d, bool json,
			   bool raw)
{
	if (d->type == DX_NEST && d->nest) {
		dx_print_nest(a, d, json, raw);
		return;
	}
	switch (d->type) {
	case DX_STRING:
		dx_print_str(nla_get_string(a), json);
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
		dx_print_num(a, d, json, raw);
	}
}

/* Every occurrence of attribute @type, as "v v v" or [v,v,v]. */
static void dx_print_multi(struct nlattr *attrs, int len, int type,
			   const struct dx_attr *d, bool json, bool raw)
{
	bool first = true;
	struct nlattr *a;
	int rem;

	if (json)
		putchar('[');
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != type)
			continue;
		if (!first)
			putchar(json ? ',' : ' ');
		first = false;
		dx_print_value(a, d, json, raw);
	}
	if (json)
		putchar(']');
}

static void dx_print_key(const char *name, enum dx_style style, bool first)
{
	switch (style) {
	case DX_LINES:
		printf("%s: ", name);
		break;
	case DX_INLINE:
		printf("%s%s=", first ? "" : ",", name);
		break;
	case DX_JSON:
		fputs(first ? "" : ",", stdout);
		dx_json_str(name);
		putchar(':');
		break;
	}
}

static void dx_print_attrs(struct nlattr *attrs, int len, struct nlattr **tb,
			   const struct dx_attr *desc, int maxattr,
			   enum dx_style style, bool raw)
{
	bool json = style == DX_JSON, first = true;
	int i;

	for (i = 1; i <= maxattr; i++) {
		if (!tb[i] || !desc[i].name)
			continue;
		/* Text names a device "dev", as the commands take it. */
		dx_print_key(desc[i].kind == DX_IFINDEX && style != DX_JSON ?
			     "dev" : desc[i].name, style, first);
		first = false;
		if (desc[i].multi)
			dx_print_multi(attrs, len, i, &desc[i], json, raw);
		else
			dx_print_value(tb[i], &desc[i], json, raw);
		if (style == DX_LINES)
			putchar('\n');
	}
}

void dx_print_flags(const struct dx_reply *r, const struct dx_attr *desc,
		    int maxattr, unsigned int flags)
{
	bool json = flags & DX_PRINT_JSON;

	if (json)
		putchar('{');
	dx_print_attrs(r->attrs, r->len, r->tb, desc, maxattr,
		       json ? DX_JSON : DX_LINES, flags & DX_PRINT_RAW);
	if (json && !(flags & DX_PRINT_OPEN))
		puts("}");
}

void dx_print(const struct dx_reply *r, const struct dx_attr *desc,
	      int maxattr, bool json)
{
	dx_print_flags(r, desc, maxattr, json ? DX_PRINT_JSON : 0);
}

void dx_print_json_str(const char *s)
{
	dx_json_str(s);
}
