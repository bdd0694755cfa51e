/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line helpers shared by devmemx and devmemx-rx. */
#ifndef DX_UTIL_H
#define DX_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define DX_MAX_QUEUES	256

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The program name messages start with ("devmemx" unless main sets it). */
extern const char *dx_prog;

/* Print "<dx_prog>: <message>" on stderr; return -EINVAL (bad usage). */
__attribute__((format(printf, 1, 2)))
int dx_bad_usage(const char *fmt, ...);

/* Print "<dx_prog>: out of memory"; return -ENOMEM. */
int dx_nomem(void);

/*
 * Each parser checks @s, stores the value and returns 0, or prints what is
 * wrong with @s for @opt (the option or keyword that took it) and returns
 * -EINVAL.
 */
/* A byte count with an optional K, M or G suffix (powers of 1024). */
int dx_parse_size(const char *s, const char *opt, uint64_t *out);
/* A niov (RX buffer) size: a power of two from 4K that fits in 32 bits. */
int dx_parse_buf_size(const char *s, const char *opt, uint32_t *out);
/* The base of a number: 16 after 0x, else 10 (a leading 0 is not octal). */
int dx_num_base(const char *s);
/* A number from @min to @max, decimal or 0x hex. */
int dx_parse_uint(const char *s, const char *opt, uint64_t min, uint64_t max,
		  uint64_t *out);
/*
 * "2", "2,3", "2-5,8": queue ids appended to @queues (holding *@n already) in
 * the order given, none twice, at most @max in all.
 */
int dx_parse_queues(const char *list, const char *opt, uint32_t *queues,
		    unsigned int max, unsigned int *n);
/* The same for other numbers: @what names them ("CPU") in messages. */
int dx_parse_list(const char *list, const char *opt, const char *what,
		  uint32_t *items, unsigned int max, unsigned int *n);

/*
 * A byte count for people: exact in the largest unit that divides it
 * (64K, 256M), else to a tenth of the largest below it (1.5M), else bytes.
 */
void dx_fmt_size(uint64_t v, char *buf, size_t len);

#endif
