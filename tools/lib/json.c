// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON emitter (json.h). It keeps, per depth, whether something has
 * been printed there (so that the next member or element is preceded by a
 * comma), and whether a key waits for its value; it checks nothing else:
 * the caller opens and closes in order.
 */
#include <inttypes.h>

#include "json.h"

void dx_json_init(struct dx_json *j, FILE *f, bool pretty)
{
	*j = (struct dx_json){ .f = f, .pretty = pretty };
}

/* Pretty: a new line, indented two spaces a level. */
static void dx_json_newline(struct dx_json *j)
{
	unsigned int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before a member's key or an element: the comma, the pretty line. */
static void dx_json_next(struct dx_json *j)
{
	if (j->any[j->depth])
		fputc(',', j->f);
	j->any[j->depth] = true;
	if (j->depth)
		dx_json_newline(j);
}

/* Before any value: unless its key came just before, it is an element. */
static void dx_json_value(struct dx_json *j)
{
	if (j->keyed)
		j->keyed = false;
	else
		dx_json_next(j);
}

/* After a value: one at the top level ends its line. */
static void dx_json_done(struct dx_json *j)
{
	if (!j->depth)
		fputc('\n', j->f);
}

static void dx_json_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void dx_json_key(struct dx_json *j, const char *key)
{
	dx_json_next(j);
	dx_json_quoted(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->keyed = true;
}

static void dx_json_open(struct dx_json *j, char c)
{
	dx_json_value(j);
	fputc(c, j->f);
	if (j->depth < DX_JSON_DEPTH)
		j->depth++;
	j->any[j->depth] = false;
}

static void dx_json_close(struct dx_json *j, char c)
{
	bool any = j->any[j->depth];

	if (j->depth)
		j->depth--;
	if (any)
		dx_json_newline(j);
	fputc(c, j->f);
	dx_json_done(j);
}

void dx_json_open_object(struct dx_json *j)
{
	dx_json_open(j, '{');
}

void dx_json_close_object(struct dx_json *j)
{
	dx_json_close(j, '}');
}

void dx_json_open_array(struct dx_json *j)
{
	dx_json_open(j, '[');
}

void dx_json_close_array(struct dx_json *j)
{
	dx_json_close(j, ']');
}

void dx_json_u64(struct dx_json *j, uint64_t v)
{
	dx_json_value(j);
	fprintf(j->f, "%" PRIu64, v);
	dx_json_done(j);
}

void dx_json_s64(struct dx_json *j, int64_t v)
{
	dx_json_value(j);
	fprintf(j->f, "%" PRId64, v);
	dx_json_done(j);
}

void dx_json_float(struct dx_json *j, const char *fmt, double v)
{
	dx_json_value(j);
	fprintf(j->f, fmt, v);
	dx_json_done(j);
}

void dx_json_string(struct dx_json *j, const char *s)
{
	dx_json_value(j);
	dx_json_quoted(j->f, s);
	dx_json_done(j);
}

void dx_json_bool(struct dx_json *j, bool v)
{
	dx_json_value(j);
	fputs(v ? "true" : "false", j->f);
	dx_json_done(j);
}

void dx_json_null(struct dx_json *j)
{
	dx_json_value(j);
	fputs("null", j->f);
	dx_json_done(j);
}

void dx_json_u64_field(struct dx_json *j, const char *key, uint64_t v)
{
	dx_json_key(j, key);
	dx_json_u64(j, v);
}

void dx_json_s64_field(struct dx_json *j, const char *key, int64_t v)
{
	dx_json_key(j, key);
	dx_json_s64(j, v);
}

void dx_json_float_field(struct dx_json *j, const char *key, const char *fmt,
			 double v)
{
	dx_json_key(j, key);
	dx_json_float(j, fmt, v);
}

void dx_json_string_field(struct dx_json *j, const char *key, const char *s)
{
	dx_json_key(j, key);
	dx_json_string(j, s);
}

void dx_json_bool_field(struct dx_json *j, const char *key, bool v)
{
	dx_json_key(j, key);
	dx_json_bool(j, v);
}
