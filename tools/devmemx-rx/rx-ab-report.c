// SPDX-License-Identifier: GPL-2.0
/*
 * What devmemx-rx ab prints for people: a markdown table of medians per
 * GiB received, the ratios the A/B is about, each against its bar, and
 * with --hold-bytes what the held tokens cost (the CSV files are
 * rx-ab-csv.c's).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rx-ab-agg.h"

/* @k's mean, s/GiB, as ns per byte with its 95% interval's half-width. */
static void ab_put_demand(FILE *f, const struct ab_agg *g, int k)
{
	double ns = 1e9 / GIB, h = ab_ci95(g, k);

	if (!g->n[k])
		fputs(" - |", f);
	else if (isnan(h))
		fprintf(f, " %.4g |", g->mean[k] * ns);
	else
		fprintf(f, " %.4g \u00b1 %.2g |", g->mean[k] * ns, h * ns);
}

static void ab_put(FILE *f, double v, enum ab_fmt fmt)
{
	if (isnan(v))
		fputs(" - |", f);
	else if (fmt == F_RATE)
		fprintf(f, " %.1f |", v);
	else if (fmt == F_SEC)
		fprintf(f, " %.3f |", v);
	else if (v >= 1e6)
		fprintf(f, " %.2fM |", v / 1e6);
	else if (v >= 1e4)
		fprintf(f, " %.1fK |", v / 1e3);
	else
		fprintf(f, " %.0f |", v);
}

static const struct ab_agg *ab_find(const struct ab_cfg *cfgs,
				    const struct ab_agg *g, unsigned int ncfgs,
				    enum ab_prov p, uint32_t size)
{
	unsigned int i;

	for (i = 0; i < ncfgs; i++)
		if (cfgs[i].prov == p && cfgs[i].size == size && g[i].runs)
			return &g[i];
	return NULL;
}

/*
 * Is @v @bar, but for floating-point rounding? Two bind times of the same
 * clock ticks (a jiffies clock) give a ratio of 1 + 1e-16, not 1.
 */
static bool ab_at_bar(double v, double bar)
{
	return fabs(v - bar) <= 1e-9 * fabs(bar);
}

/*
 * Decimals to print @v with: 3, or more when @v differs from @bar but
 * would print as it (1.0004 against 1.000 is "1.0004", not a "1.000"
 * that misses "<= 1.000").
 */
static int ab_ratio_digits(double v, double bar)
{
	char a[32], b[32];
	int d;

	for (d = 3; d < 9 && !ab_at_bar(v, bar); d++) {
		snprintf(a, sizeof(a), "%.*f", d, v);
		snprintf(b, sizeof(b), "%.*f", d, bar);
		if (strcmp(a, b))
			break;
	}
	return d;
}

/*
 * Digits for an interval's bound: the ratio's @d, or more for a small
 * positive bound, so that it shows two significant digits (two runs a
 * side can give [0.000179, 2538]; "0.000" would say the bound is zero).
 */
static int ab_bound_digits(double x, int d)
{
	while (x > 0 && x * pow(10, d) < 10 && d < 9)
		d++;
	return d;
}

/*
 * One row of the ratio table: @v of @metric, its 95% interval [@lo, @hi]
 * (NAN: none, fewer than two runs a side), against its bar. The verdict
 * is the interval's: meets when all of it is on the bar's side, MISSES
 * when none of it is, and otherwise the runs cannot tell.
 */
static void ab_bar_row(FILE *f, const char *what, const char *metric,
		       double v, double lo, double hi, double bar, bool at_most)
{
	int d = ab_ratio_digits(v, bar);
	const char *verdict;

	if (isnan(lo))
		verdict = "cannot tell (one run)";
	else if (at_most ? hi <= bar || ab_at_bar(hi, bar) : lo >= bar || ab_at_bar(lo, bar))
		verdict = "meets";
	else if (at_most ? lo > bar : hi < bar)
		verdict = "MISSES";
	else
		verdict = "cannot tell";
	fprintf(f, "| %s | %s | %.*f |", what, metric, d, v);
	if (isnan(lo))
		fputs(" - |", f);
	else
		fprintf(f, " [%.*f, %.*f] |", ab_bound_digits(lo, d), lo,
			ab_bound_digits(hi, d), hi);
	fprintf(f, " %s %.3f | %s |\n", at_most ? "<=" : ">=", bar, verdict);
}

/*
 * The ratio of @x's and @y's means of @k, with a 95% interval: on the log
 * scale the ratio's variance is about the sum of the squared coefficients
 * of variation of the two means (the delta method), with the smaller
 * side's degrees of freedom.
 */
static void ab_ratio(FILE *f, const char *what, const char *metric,
		     const struct ab_agg *x, const struct ab_agg *y, int k,
		     double bar, bool at_most)
{
	double r, lo = NAN, hi = NAN;

	if (!x || !y || !x->n[k] || !y->n[k] || !(y->mean[k] > 0) ||
	    !(x->mean[k] > 0))
		return;
	r = x->mean[k] / y->mean[k];
	if (x->n[k] > 1 && y->n[k] > 1) {
		double cx = x->sd[k] / x->mean[k], cy = y->sd[k] / y->mean[k];
		double se = sqrt(cx * cx / x->n[k] + cy * cy / y->n[k]);
		double t = ab_t95((x->n[k] < y->n[k] ? x->n[k] : y->n[k]) - 1);

		lo = r * exp(-t * se);
		hi = r * exp(t * se);
	}
	ab_bar_row(f, what, metric, r, lo, hi, bar, at_most);
}

static void ab_ratios(FILE *f, const struct ab_cfg *cfgs,
		      const struct ab_agg *g, unsigned int ncfgs)
{
	uint32_t page = sysconf(_SC_PAGESIZE), sizes[AB_MAX_CFGS];
	const struct ab_agg *d4 = ab_find(cfgs, g, ncfgs, AB_DEVMEMX, page);
	const struct ab_agg *d64 = ab_find(cfgs, g, ncfgs, AB_DEVMEMX, 65536);
	const struct ab_agg *n4 = ab_find(cfgs, g, ncfgs, AB_NETDEV, page);
	const char *cm = ab_metrics[AB_BAR_CPU].head;
	unsigned int i, n = 0;
	char what[96], sz[16];

	fprintf(f, "\n| ratio (means) | of | value | 95%% interval | bar | verdict |\n|---|---|---|---|---|---|\n");
	ab_ratio(f, "devmemx-4K / netdev-4K", cm, d4, n4, AB_BAR_CPU, 1.03, true);
	ab_ratio(f, "devmemx-64K / devmemx-4K", cm, d64, d4, AB_BAR_CPU, 0.70,
		 true);
	ab_ratio(f, "devmemx-64K / devmemx-4K", "cmsgs/GiB", d64, d4, M_CMSGS,
		 0.125, true);
	for (i = 0; i < ncfgs; i++)
		if (cfgs[i].prov == AB_DEVMEMX && cfgs[i].size != page)
			sizes[n++] = cfgs[i].size;
	for (i = 0; i < n; i++) {
		const struct ab_agg *x = ab_find(cfgs, g, ncfgs, AB_DEVMEMX, sizes[i]);
		const struct ab_agg *y = ab_find(cfgs, g, ncfgs, AB_NETDEV, sizes[i]);

		ab_fmt_size(sz, sizeof(sz), sizes[i]);
		snprintf(what, sizeof(what), "devmemx-%s / netdev-%s", sz, sz);
		ab_ratio(f, what, cm, x, y, AB_BAR_CPU, 1.00, true);
		/* What a user gains over in-tree at a 7.2 kernel's only size. */
		snprintf(what, sizeof(what), "devmemx-%s / netdev-4K", sz);
		ab_ratio(f, what, cm, x, n4, AB_BAR_CPU, 1.00, true);
		ab_ratio(f, what, "cmsgs/GiB", x, n4, M_CMSGS,
			 2.0 * page / sizes[i], true);
	}
	/* Ahead of io_uring zcrx at every size both ran. */
	for (i = 0; i < ncfgs; i++) {
		const struct ab_agg *y;

		if (cfgs[i].prov != AB_DEVMEMX)
			continue;
		y = ab_find(cfgs, g, ncfgs, AB_ZCRX, cfgs[i].size);
		if (!y)
			continue;
		ab_fmt_size(sz, sizeof(sz), cfgs[i].size);
		snprintf(what, sizeof(what), "devmemx-%s / zcrx-%s", sz, sz);
		ab_ratio(f, what, cm, &g[i], y, AB_BAR_CPU, 1.00, true);
	}
	/* The token array against the xarray, zcrx and in-tree at its size. */
	for (i = 0; i < ncfgs; i++) {
		static const struct { enum ab_prov p; const char *name; double bar; } vs[] = {
			{ AB_DEVMEMX, "devmemx", 0.95 }, { AB_ZCRX, "zcrx", 1.00 },
			{ AB_NETDEV, "netdev", 1.00 },
		};
		unsigned int k;

		if (cfgs[i].prov != AB_DEVMEMX_TOK)
			continue;
		ab_fmt_size(sz, sizeof(sz), cfgs[i].size);
		for (k = 0; k < sizeof(vs) / sizeof(vs[0]); k++) {
			const struct ab_agg *y = ab_find(cfgs, g, ncfgs, vs[k].p,
							 cfgs[i].size);

			if (!y)
				continue;
			snprintf(what, sizeof(what), "devmemx-tok-%s / %s-%s", sz,
				 vs[k].name, sz);
			ab_ratio(f, what, cm, &g[i], y, AB_BAR_CPU, vs[k].bar, true);
		}
	}
	/*
	 * A policy: netdev's bind-rx (ab's own, or --app's) served by devmemx,
	 * against the same request served by the kernel and devmemx's own
	 * bind at that size.
	 */
	for (i = 0; i < ncfgs; i++) {
		const struct ab_agg *y = ab_find(cfgs, g, ncfgs, AB_NETDEV, page);

		if (cfgs[i].prov != AB_POLICY)
			continue;
		ab_fmt_size(sz, sizeof(sz), cfgs[i].size);
		snprintf(what, sizeof(what), "policy-%s / netdev-4K", sz);
		ab_ratio(f, what, cm, &g[i], y, AB_BAR_CPU, 1.00, true);
		ab_ratio(f, what, "cmsgs/GiB", &g[i], y, M_CMSGS,
			 2.0 * page / cfgs[i].size, true);
		snprintf(what, sizeof(what), "policy-%s / devmemx-%s", sz, sz);
		ab_ratio(f, what, cm, &g[i],
			 ab_find(cfgs, g, ncfgs, AB_DEVMEMX, cfgs[i].size),
			 AB_BAR_CPU, 1.03, true);
	}
	ab_ratio(f, "netdev-4K / netdev-nodx-4K", cm,
		 ab_find(cfgs, g, ncfgs, AB_NETDEV, page),
		 ab_find(cfgs, g, ncfgs, AB_NETDEV_NODX, page), AB_BAR_CPU, 1.01,
		 true);
	for (i = 0; i < ncfgs; i++) {
		const struct ab_agg *y;

		if (cfgs[i].prov != AB_DEVMEMX)
			continue;
		y = ab_find(cfgs, g, ncfgs, AB_NETDEV, cfgs[i].size);
		ab_fmt_size(sz, sizeof(sz), cfgs[i].size);
		snprintf(what, sizeof(what), "devmemx-%s / netdev-%s", sz, sz);
		ab_ratio(f, what, "bind ms/GiB", &g[i], y, M_BIND, 1.00, true);
	}
	if (d64 && d64->n[M_META]) {
		double h = ab_ci95(d64, M_META);

		ab_bar_row(f, "devmemx-64K metadata", "MiB/GiB bound",
			   d64->mean[M_META], d64->mean[M_META] - h,
			   d64->mean[M_META] + h, 2, true);
	}
}

/* --hold-bytes: what every flow's last batch, held at once, cost. */
static void ab_held_table(FILE *f, const struct ab_opts *o,
			  const struct ab_cfg *cfgs, unsigned int ncfgs,
			  const struct ab_result *r, unsigned int n)
{
	const struct ab_result *x = ncfgs ? ab_held_of(&cfgs[0], r, n) : NULL;
	char hb[32];
	unsigned int i;
	double mem;

	ab_fmt_size(hb, sizeof(hb), o->hold_bytes);
	fprintf(f, "\nToken memory, from each configuration's first run: each of the %u flows returned its tokens in batches of %s and held its last batch (the stream's last %s) until every flow held one; the kernel then kept a token per fragment in each socket's sk_user_frags xarray. Nodes: the xarray nodes those token ids need (64 ids a node, %ld B each from BTF). (The CSV's slab_objs is radix_tree_node's growth over the run from /proc/slabinfo: exact only where that cache has a debug flag, e.g. slub_debug=F,radix_tree_node; otherwise per-CPU sheaves and slabs hide it.) devmemx-tok keeps no xarray: its token memory is the sockets' token arrays, 4 B per niov of the binding each, as devmemx's info token-bytes counts them at the gate.\n\n",
		o->flows, hb, hb, x ? x->xa_node_size : -1L);
	fprintf(f, "| configuration | flows holding | tokens held | KiB held | xarray nodes | token memory KiB | per flow B | MiB per GiB held |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < ncfgs; i++) {
		x = ab_held_of(&cfgs[i], r, n);
		if (!x)
			continue;
		mem = ab_token_mem(x);
		fprintf(f, "| %s | %u | %" PRIu64 " | %.0f | %" PRIu64 " |",
			cfgs[i].name, x->held_flows, x->held_tokens,
			x->held_bytes / 1024.0, x->xa_nodes);
		if (isnan(mem))
			fputs(" - | - | - |\n", f);
		else
			fprintf(f, " %.1f | %.0f | %.2f |\n", mem / 1024,
				x->held_flows ? mem / x->held_flows : NAN,
				x->held_bytes ? mem / 1048576 /
						(x->held_bytes / GIB) : NAN);
	}
}

void ab_report(FILE *f, const struct ab_opts *o, const struct ab_cfg *cfgs,
	       unsigned int ncfgs, const struct ab_result *r, unsigned int n)
{
	struct ab_agg g[AB_MAX_CFGS];
	unsigned int i, k;
	char sz[32], cpus[64 + 32];

	ab_run_length(o, sz, sizeof(sz));
	fprintf(f, "\n### %s%skernel %s, %s, %u flow%s, %s per run, seed %" PRIu64 "\n\n",
		o->tag ? o->tag : "", o->tag ? ": " : "", ab_kernel(), o->dev,
		o->flows, o->flows > 1 ? "s" : "", sz, o->seed);
	if (o->cpus.n)
		snprintf(cpus, sizeof(cpus), "CPUs %s", o->cpus.list);
	else
		snprintf(cpus, sizeof(cpus), "every CPU (%u)", n ? r->ncpus : 0);
	fprintf(f, "Medians over the timed runs, per GiB received (bind time and metadata per GiB bound). CPU is the busy time of %s, %s%s; w/o device, less the device's time (rx<N>_device_ns) where the driver reports it and every CPU is measured; %s, less also the sender's where it runs on this machine (its processes%s): the figure the ratios use; spread = its (max - min) / median; host ns/B = its mean in ns per byte received (service demand) with the half-width of its 95%% confidence interval. The ratios are of means, with 95%% intervals: a verdict is meets or MISSES only when the whole interval is on one side of the bar.\n\n",
		cpus, n && r->src == AB_SRC_SCHED ?
		"the tasks' run time from /proc/schedstat, read with each CPU's running task switched out (ns)" :
		"from /proc/stat (tick samples)",
		n && !r->napi_threaded ?
		" (NAPI not threaded: its softirq time on idle CPUs is not in it)" : "",
		ab_metrics[AB_BAR_CPU].head,
		o->sender_tasks ? " and --sender-tasks" : "");
	fprintf(f, "| configuration | runs |");
	for (k = 0; k < AB_NM; k++) {
		fprintf(f, " %s |", ab_metrics[k].head);
		if (k == AB_BAR_CPU)
			fprintf(f, " spread | host ns/B (95%%) |");
	}
	fprintf(f, "\n|---|---:|");
	for (k = 0; k <= AB_NM + 1; k++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (i = 0; i < ncfgs; i++) {
		ab_aggregate(&cfgs[i], r, n, &g[i]);
		fprintf(f, "| %s | %u |", cfgs[i].name, g[i].runs);
		for (k = 0; k < AB_NM; k++) {
			ab_put(f, g[i].med[k], ab_metrics[k].fmt);
			if (k == AB_BAR_CPU) {
				double s = (g[i].max[k] - g[i].min[k]) /
					   g[i].med[k];

				if (isnan(s))
					fputs(" - |", f);
				else
					fprintf(f, " %.1f%% |", s * 100);
				ab_put_demand(f, &g[i], k);
			}
		}
		fputc('\n', f);
	}
	ab_ratios(f, cfgs, g, ncfgs);
	if (o->hold_bytes)
		ab_held_table(f, o, cfgs, ncfgs, r, n);
	fflush(f);
}
