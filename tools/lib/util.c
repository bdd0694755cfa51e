// SPDX-License-Identifier: GPL-2.0
/* Command-line helpers shared by devmemx and devmemx-rx. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

const char *dx_prog = "devmemx";

int dx_bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", dx_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int dx_nomem(void)
{
	fprintf(stderr, "%s: out of memory\n", dx_prog);
	return -ENOMEM;
}

static unsigned int size_shift(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K':
		return 10;
	case 'M':
		return 20;
	case 'G':
		return 30;
	default:
		return 0;
	}
}

int dx_parse_size(const char *s, const char *opt, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	shift = size_shift(*end);
	if (*end && (!shift || end[1]))
		goto bad;
	if (v > UINT64_MAX >> shift)
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	return dx_bad_usage("bad size \"%s\" for %s: use a number with an optional K, M or G suffix",
			    s, opt);
}

int dx_parse_buf_size(const char *s, const char *opt, uint32_t *out)
{
	uint64_t v;

	if (dx_parse_size(s, opt, &v))
		return -EINVAL;
	/* Powers of two and the driver's limits are the kernel's to check. */
	if (v > UINT32_MAX)
		return dx_bad_usage("bad %s \"%s\": must be below 4G", opt, s);
	*out = v;
	return 0;
}

/* Numbers are decimal, or hex with 0x; a leading 0 is not octal. */
int dx_num_base(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

int dx_parse_uint(const char *s, const char *opt, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		goto bad;
	v = strtoull(s, &end, dx_num_base(s));
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return dx_bad_usage("bad number \"%s\" for %s (%" PRIu64 " to %" PRIu64 ")",
			    s, opt, min, max);
}

static int add_item(uint64_t q, const char *what, const char *list,
		    const char *opt, uint32_t *items, unsigned int max,
		    unsigned int *n)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (items[i] == q)
			return dx_bad_usage("%s %" PRIu64 " listed twice in %s \"%s\"",
					    what, q, opt, list);
	if (*n == max)
		return dx_bad_usage("too many %ss in %s \"%s\" (at most %u)",
				    what, opt, list, max);
	items[(*n)++] = q;
	return 0;
}

int dx_parse_list(const char *list, const char *opt, const char *what,
		  uint32_t *items, unsigned int max, unsigned int *n)
{
	uint64_t lo, hi, q;
	const char *p = list;
	char *end;

	do {
		errno = 0;
		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = hi = strtoull(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			hi = strtoull(end + 1, &end, 10);
		}
		if (errno || lo > hi || hi >= UINT32_MAX || (*end && *end != ','))
			goto bad;
		for (q = lo; q <= hi; q++)
			if (add_item(q, what, list, opt, items, max, n))
				return -EINVAL;
		p = end + 1;
	} while (*end);
	return 0;
bad:
	return dx_bad_usage("bad %s list \"%s\" for %s: use e.g. 2, 2,3 or 2-5",
			    what, list, opt);
}

int dx_parse_queues(const char *list, const char *opt, uint32_t *queues,
		    unsigned int max, unsigned int *n)
{
	return dx_parse_list(list, opt, "queue", queues, max, n);
}

void dx_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t u = 1ULL << (10 * (i + 1));

		if (v >= u && !(v % u)) {
			snprintf(buf, len, "%" PRIu64 "%c", v / u, unit[i]);
			return;
		}
	}
	for (i = 3; i >= 0; i--) {
		uint64_t u = 1ULL << (10 * (i + 1));

		/* What rounds to 1024.0 of a unit is 1.0 of the next. */
		if (v >= u || (i < 3 && (double)v / (u >> 10) >= 1023.95)) {
			if (v < u)
				snprintf(buf, len, "1.0%c", unit[i]);
			else
				snprintf(buf, len, "%.1f%c", (double)v / u, unit[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}
