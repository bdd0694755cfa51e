// SPDX-License-Identifier: GPL-2.0
/*
 * Print reply attributes as "name: value" lines or as one JSON object (on
 * the emitter of lib/json.c), all from the spec's tables: multi-attr
 * attributes as lists ("queues: 0 2 3", "queues":[0,2,3]), a nest of a
 * one-attribute set as that attribute's value, other nests as "a=1,b=2" or
 * a JSON object. Enums and flags print by name, in JSON too unless the
 * caller asks for raw numbers. JSON keys are the spec's names.
 */
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum dx_style {
	DX_LINES,	/* top level text: "name: value" per line */
	DX_INLINE,	/* nested text: "name=value,name=value" */
};

static void dx_print_attrs(struct nlattr *attrs, int len, struct nlattr **tb,
			   const struct dx_attr *desc, int maxattr,
			   enum dx_style style);
static void dx_print_value(struct nlattr *a, const struct dx_attr *d);
static void dx_json_attrs(struct dx_json *j, struct nlattr *attrs, int len,
			  struct nlattr **tb, const struct dx_attr *desc,
			  int maxattr, bool raw);
static void dx_json_value(struct dx_json *j, struct nlattr *a,
			  const struct dx_attr *d, bool raw);

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

/* Bit @i's name, "bitN" for bits the spec does not name. */
static const char *dx_bit_name(const struct dx_attr *d, unsigned int i,
			       char *buf, size_t len)
{
	const char *name = dx_name(d, i);

	if (name)
		return name;
	snprintf(buf, len, "bit%u", i);
	return buf;
}

/* ---- text ---------------------------------------------------------------- */

/* Set bits by name; "-" for none. */
static void dx_print_bits(uint64_t v, const struct dx_attr *d)
{
	bool first = true;
	char unnamed[8];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (!(v & (1ULL << i)))
			continue;
		if (!first)
			fputs(" ", stdout);
		first = false;
		fputs(dx_bit_name(d, i, unnamed, sizeof(unnamed)), stdout);
	}
	if (first)
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

static void dx_print_num(const struct nlattr *a, const struct dx_attr *d)
{
	uint64_t v = dx_uint(a, d->type);

	if (d->kind == DX_BITS)
		dx_print_bits(v, d);
	else if (d->kind == DX_ENUM && dx_name(d, v))
		fputs(dx_name(d, v), stdout);
	else
		dx_print_text_num(v, d);
}

static void dx_print_nest(struct nlattr *a, const struct dx_attr *d)
{
	struct nlattr *tb[d->nest_max + 1];

	if (nla_parse_nested(tb, d->nest_max, a, NULL) < 0) {
		fputs("?", stdout);
		return;
	}
	if (d->nest_max != 1 || d->nest[1].multi) {
		dx_print_attrs(nla_data(a), nla_len(a), tb, d->nest, d->nest_max,
			       DX_INLINE);
		return;
	}
	/* A set of one attribute (a queue's id): that value stands for it. */
	if (tb[1])
		dx_print_value(tb[1], &d->nest[1]);
	else
		fputs("-", stdout);
}

static void dx_print_value(struct nlattr *a, const struct dx_attr *d)
{
	if (d->type == DX_NEST && d->nest) {
		dx_print_nest(a, d);
		return;
	}
	switch (d->type) {
	case DX_STRING:
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
		printf("(%d bytes)", nla_len(a));
		return;
	default:
		dx_print_num(a, d);
	}
}

/* Every occurrence of attribute @type, as "v v v". */
static void dx_print_multi(struct nlattr *attrs, int len, int type,
			   const struct dx_attr *d)
{
	bool first = true;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != type)
			continue;
		if (!first)
			putchar(' ');
		first = false;
		dx_print_value(a, d);
	}
}

static void dx_print_attrs(struct nlattr *attrs, int len, struct nlattr **tb,
			   const struct dx_attr *desc, int maxattr,
			   enum dx_style style)
{
	bool first = true;
	const char *name;
	char dev[32];
	size_t n;
	int i;

	for (i = 1; i <= maxattr; i++) {
		if (!tb[i] || !desc[i].name)
			continue;
		/*
		 * Text names a device "dev", as the commands take it
		 * ("lease-dev" for "lease-ifindex").
		 */
		name = desc[i].name;
		if (desc[i].kind == DX_IFINDEX) {
			n = strlen(name) - strlen("ifindex");
			snprintf(dev, sizeof(dev), "%.*sdev", (int)n, name);
			name = dev;
		}
		if (style == DX_LINES)
			printf("%s: ", name);
		else
			printf("%s%s=", first ? "" : ",", name);
		first = false;
		if (desc[i].multi)
			dx_print_multi(attrs, len, i, &desc[i]);
		else
			dx_print_value(tb[i], &desc[i]);
		if (style == DX_LINES)
			putchar('\n');
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static void dx_json_bits(struct dx_json *j, uint64_t v, const struct dx_attr *d)
{
	char unnamed[8];
	unsigned int i;

	dx_json_open_array(j);
	for (i = 0; i < 64; i++)
		if (v & (1ULL << i))
			dx_json_string(j, dx_bit_name(d, i, unnamed,
						      sizeof(unnamed)));
	dx_json_close_array(j);
}

static void dx_json_num(struct dx_json *j, const struct nlattr *a,
			const struct dx_attr *d, bool raw)
{
	uint64_t v = dx_uint(a, d->type);

	if (raw)
		dx_json_u64(j, v);
	else if (d->kind == DX_BITS)
		dx_json_bits(j, v, d);
	else if (d->kind == DX_ENUM && dx_name(d, v))
		dx_json_string(j, dx_name(d, v));
	else
		dx_json_u64(j, v);
}

static void dx_json_nest(struct dx_json *j, struct nlattr *a,
			 const struct dx_attr *d, bool raw)
{
	struct nlattr *tb[d->nest_max + 1];

	if (nla_parse_nested(tb, d->nest_max, a, NULL) < 0) {
		dx_json_null(j);
		return;
	}
	if (d->nest_max != 1 || d->nest[1].multi) {
		dx_json_open_object(j);
		dx_json_attrs(j, nla_data(a), nla_len(a), tb, d->nest,
			      d->nest_max, raw);
		dx_json_close_object(j);
		return;
	}
	/* A set of one attribute (a queue's id): that value stands for it. */
	if (tb[1])
		dx_json_value(j, tb[1], &d->nest[1], raw);
	else
		dx_json_null(j);
}

static void dx_json_value(struct dx_json *j, struct nlattr *a,
			  const struct dx_attr *d, bool raw)
{
	if (d->type == DX_NEST && d->nest) {
		dx_json_nest(j, a, d, raw);
		return;
	}
	switch (d->type) {
	case DX_STRING:
		dx_json_string(j, nla_get_string(a));
		return;
	case DX_FLAG:
		dx_json_bool(j, true);
		return;
	case DX_S32:
		dx_json_s64(j, (int32_t)nla_get_u32(a));
		return;
	case DX_NEST:
	case DX_BINARY:
		dx_json_null(j);
		return;
	default:
		dx_json_num(j, a, d, raw);
	}
}

/* Every occurrence of attribute @type, as [v,v,v]. */
static void dx_json_multi(struct dx_json *j, struct nlattr *attrs, int len,
			  int type, const struct dx_attr *d, bool raw)
{
	struct nlattr *a;
	int rem;

	dx_json_open_array(j);
	nla_for_each_attr(a, attrs, len, rem)
		if (nla_type(a) == type)
			dx_json_value(j, a, d, raw);
	dx_json_close_array(j);
}

static void dx_json_attrs(struct dx_json *j, struct nlattr *attrs, int len,
			  struct nlattr **tb, const struct dx_attr *desc,
			  int maxattr, bool raw)
{
	int i;

	for (i = 1; i <= maxattr; i++) {
		if (!tb[i] || !desc[i].name)
			continue;
		dx_json_key(j, desc[i].name);
		if (desc[i].multi)
			dx_json_multi(j, attrs, len, i, &desc[i], raw);
		else
			dx_json_value(j, tb[i], &desc[i], raw);
	}
}

void dx_json_reply(struct dx_json *j, const struct dx_reply *r,
		   const struct dx_attr *desc, int maxattr, bool raw)
{
	dx_json_attrs(j, r->attrs, r->len, r->tb, desc, maxattr, raw);
}

void dx_print_flags(const struct dx_reply *r, const struct dx_attr *desc,
		    int maxattr, unsigned int flags)
{
	struct dx_json j;

	if (!(flags & DX_PRINT_JSON)) {
		dx_print_attrs(r->attrs, r->len, r->tb, desc, maxattr, DX_LINES);
		return;
	}
	dx_json_init(&j, stdout, false);
	dx_json_open_object(&j);
	dx_json_reply(&j, r, desc, maxattr, flags & DX_PRINT_RAW);
	dx_json_close_object(&j);
}

void dx_print(const struct dx_reply *r, const struct dx_attr *desc,
	      int maxattr, bool json)
{
	dx_print_flags(r, desc, maxattr, json ? DX_PRINT_JSON : 0);
}
