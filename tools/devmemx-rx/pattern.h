/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test stream devmemx-rx sends and verifies. Byte i of the stream is
 * byte (i & 7), little-endian, of mix(seed ^ (i >> 3)), where mix is the
 * splitmix64 finalizer: deterministic from any offset, and not periodic at
 * any small power of two, so data landing at the wrong offset is caught.
 * Word w = seed is the one all-zero word; the default seed puts it out of reach.
 */
#ifndef DX_PATTERN_H
#define DX_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DX_PAT_SEED	0x9e3779b97f4a7c15ULL

static inline uint64_t dx_pat_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint8_t dx_pat_byte(uint64_t seed, uint64_t i)
{
	return dx_pat_mix(seed ^ (i >> 3)) >> ((i & 7) * 8);
}

/* The 8 stream bytes from word @w (offset w * 8), in memory order. */
static inline void dx_pat_word(uint64_t seed, uint64_t w, uint8_t out[8])
{
	uint64_t v = dx_pat_mix(seed ^ w);
	int k;

	for (k = 0; k < 8; k++)
		out[k] = v >> (k * 8);
}

/* Fill @buf with @len stream bytes starting at stream offset @off. */
static inline void dx_pat_fill(uint8_t *buf, size_t len, uint64_t off,
			       uint64_t seed)
{
	uint8_t w[8];
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		buf[i] = dx_pat_byte(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		dx_pat_word(seed, (off + i) >> 3, w);
		memcpy(buf + i, w, 8);
	}
	for (; i < len; i++)
		buf[i] = dx_pat_byte(seed, off + i);
}

/*
 * Compare @len bytes at @buf with the stream from offset @off. Return the
 * number of wrong bytes; *@first is the index of the first (if any).
 */
static inline size_t dx_pat_check(const uint8_t *buf, size_t len,
				  uint64_t off, uint64_t seed, size_t *first)
{
	size_t i = 0, bad = 0;
	uint8_t w[8];

	for (; i < len && ((off + i) & 7); i++)
		if (buf[i] != dx_pat_byte(seed, off + i) && !bad++)
			*first = i;
	for (; i + 8 <= len; i += 8) {
		dx_pat_word(seed, (off + i) >> 3, w);
		if (!memcmp(buf + i, w, 8))
			continue;
		for (int k = 0; k < 8; k++)
			if (buf[i + k] != w[k] && !bad++)
				*first = i + k;
	}
	for (; i < len; i++)
		if (buf[i] != dx_pat_byte(seed, off + i) && !bad++)
			*first = i;
	return bad;
}

#endif
