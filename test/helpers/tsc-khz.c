// SPDX-License-Identifier: GPL-2.0
/*
 * dx-tsc-khz: the host's TSC rate in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms. Under QEMU's TCG a guest's TSC counts
 * at the host's rate, so the debug kernel (no ACPI, nothing to calibrate
 * against) is told it: tsc_early_khz= (test/hostlib.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

struct sample {
	uint64_t tsc;
	uint64_t ns;
};

/* The clock read between two TSC reads; the tightest of a few tries. */
static int sample(struct sample *s)
{
	uint64_t best = UINT64_MAX, t0, t1;
	struct timespec ts;
	int i;

	for (i = 0; i < 16; i++) {
		t0 = __rdtsc();
		if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
			return -1;
		t1 = __rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			s->tsc = t0 + (t1 - t0) / 2;
			s->ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	}
	return 0;
}

int main(void)
{
	struct timespec nap = { .tv_nsec = 200 * 1000 * 1000 };
	struct sample a, b;

	if (sample(&a) || nanosleep(&nap, NULL) || sample(&b) ||
	    b.ns <= a.ns || b.tsc <= a.tsc) {
		fprintf(stderr, "dx-tsc-khz: cannot time the TSC\n");
		return 1;
	}
	printf("%llu\n", (unsigned long long)((b.tsc - a.tsc) * 1000000 / (b.ns - a.ns)));
	return 0;
}
