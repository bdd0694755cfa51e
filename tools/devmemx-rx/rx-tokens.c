// SPDX-License-Identifier: GPL-2.0
/*
 * The tokens a receiver holds, as a set: sorted, the sk_user_frags nodes
 * the kernel needs for them (rx_xa_nodes), and recv --probe-dontneed.
 *
 * --probe-dontneed (for tests): with every token of the stream held,
 * ask SO_DEVMEM_DONTNEED what the kernel's own answers are for its limits
 * and for tokens the socket does not hold, and report each answer; what is
 * still held goes back when the socket closes. The same probe on in-tree
 * devmem, devmemx's xarray mode and its token array must read alike.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
/* <linux/uio.h> redefines glibc's struct iovec: take only its devmem types. */
#define iovec dx_linux_iovec
#include <linux/uio.h>
#undef iovec

#include "rx.h"

static int rx_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t *rx_tokens_sorted(const struct dmabuf_token *runs, size_t nruns,
			   size_t *count)
{
	size_t i, n = 0;
	uint32_t *ids, k;

	for (i = 0; i < nruns; i++)
		n += runs[i].token_count;
	*count = n;
	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	n = 0;
	for (i = 0; i < nruns; i++)
		for (k = 0; k < runs[i].token_count; k++)
			ids[n++] = runs[i].token_start + k;
	qsort(ids, n, sizeof(*ids), rx_cmp_u32);
	return ids;
}

uint64_t rx_xa_nodes(const struct dmabuf_token *runs, size_t nruns)
{
	uint64_t nodes = 0, distinct;
	unsigned int shift;
	uint32_t *ids;
	size_t i, n;

	ids = rx_tokens_sorted(runs, nruns, &n);
	if (!ids || !n) {
		free(ids);
		return 0;
	}
	for (shift = 6; ; shift += 6) {
		distinct = 1;
		for (i = 1; i < n; i++)
			distinct += (uint64_t)ids[i] >> shift !=
				    (uint64_t)ids[i - 1] >> shift;
		nodes += distinct;
		if (!((uint64_t)ids[n - 1] >> shift))
			break;
	}
	free(ids);
	return nodes;
}

#define PROBE_ENTRIES 128	/* the kernel's most per call */
#define PROBE_FRAGS 1024	/* and fragments */

/* One DONTNEED: what it returned, or -errno. */
static int probe_call(int fd, const struct dmabuf_token *t, size_t n,
		      size_t bytes)
{
	int ret = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t,
			     bytes ? bytes : n * sizeof(*t));

	return ret < 0 ? -errno : ret;
}

/* The answer as the report gives it: a count, or the errno's name. */
static const char *probe_str(int ret, char *buf, size_t len)
{
	if (ret >= 0)
		snprintf(buf, len, "%d", ret);
	else if (ret == -EINVAL)
		snprintf(buf, len, "EINVAL");
	else if (ret == -EBADF)
		snprintf(buf, len, "EBADF");
	else
		snprintf(buf, len, "errno%d", -ret);
	return buf;
}

/* Entries covering @n tokens of @flat, consecutive ones merged: how many. */
static size_t probe_runs(const uint32_t *flat, size_t n,
			 struct dmabuf_token *t, size_t max)
{
	size_t k = 0, i;

	for (i = 0; i < n; i++) {
		if (k && t[k - 1].token_start + t[k - 1].token_count == flat[i]) {
			t[k - 1].token_count++;
			continue;
		}
		if (k == max)
			return max + 1;
		t[k].token_start = flat[i];
		t[k].token_count = 1;
		k++;
	}
	return k;
}

/*
 * @flat: the token of each held fragment (@n, sorted: rx_tokens_sorted()).
 * Writes the report into @out: "limit=1024 more=M/H again=0 unheld=0
 * past=0 entries=EINVAL odd=EINVAL udp=EBADF".
 */
int rx_probe_dontneed(int fd, const uint32_t *flat, size_t n, char *out,
		      size_t len)
{
	struct dmabuf_token t[PROBE_ENTRIES + 1];
	char a[7][16];
	uint32_t h, unheld;
	size_t k, i, m = 0;
	int limit, more = 0, again, none, past, udp, entries, odd, u;

	if (n <= PROBE_FRAGS) {
		fprintf(stderr, "devmemx-rx: --probe-dontneed: %zu fragments held, more than %d needed\n",
			n, PROBE_FRAGS);
		return -EINVAL;
	}
	/*
	 * 1025 fragments: the kernel gives back 1024. The lowest tokens held,
	 * in the fewest entries.
	 */
	k = probe_runs(flat, PROBE_FRAGS + 1, t, PROBE_ENTRIES);
	if (k > PROBE_ENTRIES) {
		fprintf(stderr, "devmemx-rx: --probe-dontneed: the lowest %d tokens held take more than %d entries\n",
			PROBE_FRAGS + 1, PROBE_ENTRIES);
		return -EINVAL;
	}
	limit = probe_call(fd, t, k, 0);
	/*
	 * The 1025th, still held, as often as it is: one fragment's worth a
	 * call, then nothing.
	 */
	h = flat[PROBE_FRAGS];
	for (i = PROBE_FRAGS; i < n && flat[i] == h; i++)
		m++;
	t[0].token_start = h;
	t[0].token_count = 1;
	for (k = 0; k < m; k++) {
		u = probe_call(fd, t, 1, 0);
		more += u > 0 ? u : 0;
	}
	again = probe_call(fd, t, 1, 0);
	/* The lowest token not held now (0 where that is free). */
	unheld = 0;
	for (; i < n && flat[i] <= unheld; i++)
		if (flat[i] == unheld)
			unheld++;
	t[0].token_start = unheld;
	none = probe_call(fd, t, 1, 0);
	/* Past any binding. */
	t[0].token_start = UINT32_MAX - 1;
	past = probe_call(fd, t, 1, 0);
	/* The kernel's refusals: too many entries, a length not of entries, UDP. */
	memset(t, 0, sizeof(t));
	entries = probe_call(fd, t, PROBE_ENTRIES + 1, 0);
	odd = probe_call(fd, t, 1, sizeof(t[0]) - 1);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	udp = u < 0 ? -errno : probe_call(u, t, 1, 0);
	if (u >= 0)
		close(u);
	snprintf(out, len,
		 "limit=%s more=%d/%zu again=%s unheld=%s past=%s entries=%s odd=%s udp=%s",
		 probe_str(limit, a[0], sizeof(a[0])), more, m,
		 probe_str(again, a[1], sizeof(a[1])),
		 probe_str(none, a[2], sizeof(a[2])),
		 probe_str(past, a[3], sizeof(a[3])),
		 probe_str(entries, a[4], sizeof(a[4])),
		 probe_str(odd, a[5], sizeof(a[5])),
		 probe_str(udp, a[6], sizeof(a[6])));
	return 0;
}
