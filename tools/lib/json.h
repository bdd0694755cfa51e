/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON emitter of the tools: objects and arrays opened and closed
 * in order, a member's key then its value, each value printed by its type.
 * Compact (one line, no spaces: what -j prints and the tests read) or
 * pretty (a member or element per line, indented). A top-level value ends
 * its line. Keys are printed as given: the caller picks the key style.
 *
 *	struct dx_json j;
 *
 *	dx_json_init(&j, stdout, false);
 *	dx_json_open_object(&j);
 *	dx_json_u64_field(&j, "bytes", 4096);
 *	dx_json_key(&j, "queues");
 *	dx_json_open_array(&j);
 *	dx_json_u64(&j, 2);
 *	dx_json_close_array(&j);
 *	dx_json_close_object(&j);		{"bytes":4096,"queues":[2]}
 */
#ifndef DX_JSON_H
#define DX_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DX_JSON_DEPTH	16	/* objects and arrays open at once, at most */

struct dx_json {
	FILE *f;
	bool pretty;
	unsigned int depth;		/* objects and arrays open */
	bool any[DX_JSON_DEPTH + 1];	/* something already at that depth */
	bool keyed;			/* a key printed: its value comes next */
};

void dx_json_init(struct dx_json *j, FILE *f, bool pretty);

/* The next value is the member @key of the object open. */
void dx_json_key(struct dx_json *j, const char *key);

/* Values: an array's next element, or the member whose key came last. */
void dx_json_open_object(struct dx_json *j);
void dx_json_close_object(struct dx_json *j);
void dx_json_open_array(struct dx_json *j);
void dx_json_close_array(struct dx_json *j);
void dx_json_u64(struct dx_json *j, uint64_t v);
void dx_json_s64(struct dx_json *j, int64_t v);
/* @fmt: a printf conversion for a double that prints a JSON number ("%.3f"). */
void dx_json_float(struct dx_json *j, const char *fmt, double v);
/* Escaped: '"' and '\' by a backslash, control characters as \u00XX. */
void dx_json_string(struct dx_json *j, const char *s);
void dx_json_bool(struct dx_json *j, bool v);
void dx_json_null(struct dx_json *j);

/* A member: key and value in one call. */
void dx_json_u64_field(struct dx_json *j, const char *key, uint64_t v);
void dx_json_s64_field(struct dx_json *j, const char *key, int64_t v);
void dx_json_float_field(struct dx_json *j, const char *key, const char *fmt,
			 double v);
void dx_json_string_field(struct dx_json *j, const char *key, const char *s);
void dx_json_bool_field(struct dx_json *j, const char *key, bool v);

#endif
