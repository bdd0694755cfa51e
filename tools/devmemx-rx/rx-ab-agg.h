/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemx-rx ab's figures: what each run's counters come to per GiB (the
 * metrics), and their medians, extremes, means and 95% intervals over a
 * configuration's timed runs, which the tables (rx-ab-report.c) and the
 * CSV files (rx-ab-csv.c) print. Only those two include it.
 */
#ifndef DX_RX_AB_AGG_H
#define DX_RX_AB_AGG_H

#include "rx-ab.h"

#define GIB	1073741824.0

enum { M_MBPS, M_CPU, M_CPU_NODEV, M_HOST, M_SOFTIRQ, M_RXCPU, M_TXCPU,
       M_RECVMSG, M_CMSGS, M_TOKENS, M_DONTNEED, M_PPALLOC, M_GRO, M_BIND,
       M_META, M_UNBIND, M_KMEM, M_KLEFT, AB_NM };

enum ab_fmt { F_RATE, F_SEC, F_COUNT, F_MIB };

struct ab_metric {
	const char *csv;	/* summary CSV column stem */
	const char *head;	/* table heading */
	enum ab_fmt fmt;
};

extern const struct ab_metric ab_metrics[AB_NM];

/*
 * The CPU figure the bars apply to is the receiving host's: the machine's
 * busy time less what is not the host's work, the device's time (where
 * the driver reports it) and the sender's when it runs on this machine.
 */
#define AB_BAR_CPU	M_HOST

struct ab_agg {
	double med[AB_NM], min[AB_NM], max[AB_NM];
	double mean[AB_NM], sd[AB_NM];	/* sd: NAN below two runs */
	unsigned int n[AB_NM];		/* runs with a value */
	unsigned int runs;
};

/* The running kernel's release (uname -r), for the CSV. */
const char *ab_kernel(void);
/*
 * The measured CPUs' busy time (s): /proc/schedstat's run time of every
 * task, or /proc/stat's ticks where that could not be had.
 */
double ab_busy(const struct ab_result *r);
/* Two-sided 95% quantile of Student's t with @df degrees of freedom. */
double ab_t95(unsigned int df);
/* Half the width of the 95% confidence interval of @g's mean of @k. */
double ab_ci95(const struct ab_agg *g, int k);
/* Medians, minima and maxima over the timed runs of @cfg. */
void ab_aggregate(const struct ab_cfg *cfg, const struct ab_result *r,
		  unsigned int n, struct ab_agg *g);
/* The run of @cfg that measured held tokens (its first), or NULL. */
const struct ab_result *ab_held_of(const struct ab_cfg *cfg,
				   const struct ab_result *r, unsigned int n);
/* The kernel's memory for held tokens: sk_user_frags nodes (BTF size). */
double ab_token_mem(const struct ab_result *x);
/* radix_tree_node's growth over the run, bytes; NAN when not read. */
double ab_slab_delta(const struct ab_result *x);

#endif
