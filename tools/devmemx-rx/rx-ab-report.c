// SPDX-License-Identifier: GPL-2.0
/*
 * What devmemx-rx ab writes: a CSV row per run (raw counters), a CSV row of
 * medians per configuration, and for people a markdown table of medians per
 * GiB received with the ratios the A/B is about, each against its bar.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rx-ab.h"

#define GIB	1073741824.0

enum { M_MBPS, M_CPU, M_CPU_NODEV, M_HOST, M_SOFTIRQ, M_RXCPU, M_TXCPU,
       M_RECVMSG, M_CMSGS, M_TOKENS, M_DONTNEED, M_PPALLOC, M_GRO, M_BIND,
       M_META, AB_NM };

enum ab_fmt { F_RATE, F_SEC, F_COUNT, F_MIB };

struct ab_metric {
	const char *csv;	/* summary CSV column stem */
	const char *head;	/* table heading */
	enum ab_fmt fmt;
};

static const struct ab_metric ab_metrics[AB_NM] = {
	[M_MBPS] = { "mb_per_s", "MB/s", F_RATE },
	[M_CPU] = { "cpu_s_per_gib", "CPU s/GiB", F_SEC },
	[M_CPU_NODEV] = { "cpu_nodev_s_per_gib", "w/o device", F_SEC },
	[M_HOST] = { "host_cpu_s_per_gib", "receiving host s/GiB", F_SEC },
	[M_SOFTIRQ] = { "softirq_s_per_gib", "softirq s/GiB", F_SEC },
	[M_RXCPU] = { "rx_cpu_s_per_gib", "receiver s/GiB", F_SEC },
	[M_TXCPU] = { "tx_cpu_s_per_gib", "sender s/GiB", F_SEC },
	[M_RECVMSG] = { "recvmsg_per_gib", "recvmsg/GiB", F_COUNT },
	[M_CMSGS] = { "cmsgs_per_gib", "cmsgs/GiB", F_COUNT },
	[M_TOKENS] = { "tokens_per_gib", "tokens/GiB", F_COUNT },
	[M_DONTNEED] = { "dontneed_per_gib", "DONTNEED/GiB", F_COUNT },
	[M_PPALLOC] = { "pp_allocs_per_gib", "pp allocs/GiB", F_COUNT },
	[M_GRO] = { "hw_gro_skbs_per_gib", "HW-GRO skbs/GiB", F_COUNT },
	[M_BIND] = { "bind_ms_per_gib", "bind ms/GiB", F_RATE },
	[M_META] = { "meta_mib_per_gib", "metadata MiB/GiB", F_SEC },
};

void ab_fmt_size(char *out, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 30)))
		snprintf(out, len, "%" PRIu64 "G", v >> 30);
	else if (v && !(v % (1ULL << 20)))
		snprintf(out, len, "%" PRIu64 "M", v >> 20);
	else if (v && !(v % 1024))
		snprintf(out, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(out, len, "%" PRIu64, v);
}

static const char *ab_kernel(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}

/* "64M" or "10 s": how long each run is. */
void ab_run_length(const struct ab_opts *o, char *out, size_t len)
{
	if (o->seconds)
		snprintf(out, len, "%u s", o->seconds);
	else
		ab_fmt_size(out, len, o->bytes);
}

/*
 * The measured CPUs' busy time (s): /proc/schedstat's run time of every
 * task, in ns, read when every measured CPU's task had just been switched
 * out and accounted (see ab_snap()); /proc/stat's ticks where that could
 * not be had.
 */
static double ab_busy(const struct ab_result *r)
{
	uint64_t busy = 0;
	int i;

	if (r->src == AB_SRC_SCHED)
		return r->sched_ns / 1e9;
	for (i = 0; i < AB_NCPU; i++)
		if (i != AB_IDLE && i != AB_IOWAIT)
			busy += r->cpu[i];
	return busy / (double)ab_clk_tck();
}

/* The sender's CPU on this machine: its processes and --sender-tasks. */
static double ab_sender_cpu(const struct ab_result *r)
{
	return (r->have_tx ? r->tx_user + r->tx_sys : 0) + r->tx_tasks_ns / 1e9;
}

/* With --cpus, the device's time is not known to be on the measured CPUs. */
double ab_host_cpu(const struct ab_result *r)
{
	return ab_busy(r) - (r->have_device && !r->cpus_given ?
			     r->device_ns / 1e9 : 0) - ab_sender_cpu(r);
}

/* Per GiB received (bind and metadata: per GiB of dma-buf bound). */
static void ab_values(const struct ab_result *r, double m[AB_NM])
{
	double g = r->bytes / GIB, tck = ab_clk_tck(), busy = ab_busy(r);
	double bound = r->dmabuf_bytes / GIB;
	const uint64_t *pp = r->pp;

	if (g <= 0)
		g = NAN;
	m[M_MBPS] = r->wall > 0 ? r->bytes / r->wall / 1e6 : NAN;
	m[M_CPU] = busy / g;
	m[M_CPU_NODEV] = r->have_device && !r->cpus_given ?
			 (busy - r->device_ns / 1e9) / g : NAN;
	m[M_HOST] = ab_host_cpu(r) / g;
	m[M_SOFTIRQ] = r->cpu[AB_SOFTIRQ] / tck / g;
	m[M_RXCPU] = (r->rx_user + r->rx_sys) / g;
	m[M_TXCPU] = r->have_tx || r->tx_tasks_ns ? ab_sender_cpu(r) / g : NAN;
	m[M_RECVMSG] = r->st.recvmsg_calls / g;
	m[M_CMSGS] = r->st.cmsgs_dmabuf / g;
	m[M_TOKENS] = r->st.tokens / g;
	m[M_DONTNEED] = r->st.dontneed_calls / g;
	/* Each allocation is one of fast, refill, empty or waive. */
	m[M_PPALLOC] = r->have_pp ? (pp[PP_FAST] + pp[PP_REFILL] + pp[PP_EMPTY] +
				     pp[PP_WAIVE]) / g : NAN;
	m[M_GRO] = r->q.gro_packets / g;
	m[M_BIND] = bound > 0 ? r->bind_sec * 1e3 / bound : NAN;
	m[M_META] = bound > 0 && r->meta_bytes ?
		    r->meta_bytes / 1048576.0 / bound : NAN;
}

static int ab_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

struct ab_agg {
	double med[AB_NM], min[AB_NM], max[AB_NM];
	double mean[AB_NM], sd[AB_NM];	/* sd: NAN below two runs */
	unsigned int n[AB_NM];		/* runs with a value */
	unsigned int runs;
};

/* Two-sided 95% quantile of Student's t with @df degrees of freedom. */
static double ab_t95(unsigned int df)
{
	static const double t[] = {
		NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	/* Beyond the table, within 0.001 of the exact quantile. */
	return df < sizeof(t) / sizeof(t[0]) ? t[df] : 1.96 + 2.37 / df;
}

/* Half the width of the 95% confidence interval of @g's mean of @k. */
static double ab_ci95(const struct ab_agg *g, int k)
{
	return g->n[k] < 2 ? NAN : ab_t95(g->n[k] - 1) * g->sd[k] / sqrt(g->n[k]);
}

/* Medians, minima and maxima over the timed runs of @cfg. */
static void ab_aggregate(const struct ab_cfg *cfg, const struct ab_result *r,
			 unsigned int n, struct ab_agg *g)
{
	double v[AB_NM], *col;
	unsigned int i, k, j;

	memset(g, 0, sizeof(*g));
	col = calloc(n ? n : 1, sizeof(*col));
	for (k = 0; k < AB_NM; k++) {
		g->med[k] = g->min[k] = g->max[k] = g->mean[k] = g->sd[k] = NAN;
		for (i = 0, j = 0; col && i < n; i++) {
			if (r[i].cfg != cfg || strcmp(r[i].phase, "timed"))
				continue;
			ab_values(&r[i], v);
			if (!isnan(v[k]))
				col[j++] = v[k];
		}
		if (!j)
			continue;
		g->n[k] = j;
		g->mean[k] = 0;
		for (i = 0; i < j; i++)
			g->mean[k] += col[i] / j;
		g->sd[k] = NAN;
		if (j > 1) {
			double ss = 0;

			for (i = 0; i < j; i++)
				ss += (col[i] - g->mean[k]) * (col[i] - g->mean[k]);
			g->sd[k] = sqrt(ss / (j - 1));
		}
		qsort(col, j, sizeof(*col), ab_cmp);
		g->min[k] = col[0];
		g->max[k] = col[j - 1];
		g->med[k] = j % 2 ? col[j / 2] : (col[j / 2 - 1] + col[j / 2]) / 2;
	}
	for (i = 0; i < n; i++)
		g->runs += r[i].cfg == cfg && !strcmp(r[i].phase, "timed");
	free(col);
}

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

/*
 * The CPU figure the bars apply to is the receiving host's: the machine's
 * busy time less what is not the host's work, the device's time (where
 * the driver reports it) and the sender's when it runs on this machine.
 */
#define AB_BAR_CPU	M_HOST

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
		fprintf(f, " [%.*f, %.*f] |", d, lo, d, hi);
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
	const char *cm = ab_metrics[AB_BAR_CPU].head;
	unsigned int i, n = 0;
	char what[96], sz[16];

	fprintf(f, "\n| ratio (means) | of | value | 95%% interval | bar | verdict |\n|---|---|---|---|---|---|\n");
	ab_ratio(f, "devmemx-4K / netdev-4K", cm, d4,
		 ab_find(cfgs, g, ncfgs, AB_NETDEV, page), AB_BAR_CPU, 1.03, true);
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

/* The run of @cfg that measured held tokens (its first), or NULL. */
static const struct ab_result *ab_held_of(const struct ab_cfg *cfg,
					  const struct ab_result *r,
					  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].cfg == cfg && r[i].have_held)
			return &r[i];
	return NULL;
}

/* The kernel's memory for held tokens: sk_user_frags nodes (BTF size). */
static double ab_token_mem(const struct ab_result *x)
{
	return x->xa_node_size > 0 ? (double)x->xa_nodes * x->xa_node_size : NAN;
}

static double ab_slab_delta(const struct ab_result *x)
{
	return x->have_slab ? (double)x->slab_objs * x->slab_obj_size : NAN;
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
	fprintf(f, "\nToken memory, from each configuration's first run: each of the %u flows returned its tokens in batches of %s and held its last batch (the stream's last %s) until every flow held one; the kernel then kept a token per fragment in each socket's sk_user_frags xarray. Nodes: the xarray nodes those token ids need (64 ids a node, %ld B each from BTF). (The CSV's slab_objs is radix_tree_node's growth over the run from /proc/slabinfo: exact only where that cache has a debug flag, e.g. slub_debug=F,radix_tree_node; otherwise per-CPU sheaves and slabs hide it.)\n\n",
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

static FILE *ab_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "devmemx-rx: %s: %s\n", path, strerror(errno));
	return f;
}

static int ab_close(FILE *f, const char *path)
{
	if (fclose(f)) {
		fprintf(stderr, "devmemx-rx: writing %s: %s\n", path,
			strerror(errno));
		return -EIO;
	}
	return 0;
}

int ab_csv_write(const char *path, const struct ab_opts *o,
		 const struct ab_result *r, unsigned int n)
{
	FILE *f = ab_open(path);
	unsigned int i;
	int k;

	if (!f)
		return -errno;
	fprintf(f, "tag,kernel,flows,config,provider,niov_size,phase,round,order,bytes,wall_s,busy_s,clk_tck,cpu_user,cpu_nice,cpu_system,cpu_idle,cpu_iowait,cpu_irq,cpu_softirq,cpu_steal,rx_user_s,rx_sys_s,tx_user_s,tx_sys_s,tx_tasks_ns,recvmsg_calls,cmsgs_dmabuf,cmsgs_linear,tokens,dontneed_calls,frag_max,mismatches,verified,pp_alloc_fast,pp_alloc_slow,pp_alloc_slow_high_order,pp_alloc_empty,pp_alloc_refill,pp_alloc_waive,pp_recycle_cached,pp_recycle_cache_full,pp_recycle_ring,pp_recycle_ring_full,pp_recycle_released_refcnt,q_rx_packets,q_rx_bytes,q_hw_gro_packets,q_hw_gro_bytes,q_hw_gro_wire_packets,device_ns,sched_ns,bind_s,dmabuf_bytes,niov_count,meta_bytes,meta_source,cpu_source,cpus_measured,seconds,verified_bytes,hold_bytes,held_flows,held_tokens,held_bytes,xa_nodes,xa_node_size,slab_objs,slab_obj_size\n");
	for (i = 0; i < n; i++) {
		const struct ab_result *x = &r[i];

		fprintf(f, "%s,%s,%u,%s,%s,%u,%s,%u,%u,%" PRIu64 ",%.6f,%.6f,%ld",
			o->tag ? o->tag : "", ab_kernel(), o->flows, x->cfg->name,
			ab_prov_name(x->cfg->prov), x->cfg->size, x->phase,
			x->round, x->order, x->bytes, x->wall, ab_busy(x),
			ab_clk_tck());
		for (k = 0; k < AB_NCPU; k++)
			fprintf(f, ",%" PRIu64, x->cpu[k]);
		fprintf(f, ",%.6f,%.6f,", x->rx_user, x->rx_sys);
		if (x->have_tx)
			fprintf(f, "%.6f,%.6f", x->tx_user, x->tx_sys);
		else
			fputc(',', f);
		fputc(',', f);
		if (o->sender_tasks)
			fprintf(f, "%" PRIu64, x->tx_tasks_ns);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d",
			x->st.recvmsg_calls, x->st.cmsgs_dmabuf,
			x->st.cmsgs_linear, x->st.tokens, x->st.dontneed_calls,
			x->st.frag_max, x->st.mismatches,
			x->verified);
		for (k = 0; k < AB_NPP; k++) {
			if (x->have_pp)
				fprintf(f, ",%" PRIu64, x->pp[k]);
			else
				fputc(',', f);
		}
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			x->q.packets, x->q.bytes, x->q.gro_packets,
			x->q.gro_bytes, x->q.gro_wire_packets);
		if (x->have_device)
			fprintf(f, "%" PRIu64, x->device_ns);
		fputc(',', f);
		if (x->have_sched)
			fprintf(f, "%" PRIu64, x->sched_ns);
		fprintf(f, ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%s,%u,%u,%" PRIu64,
			x->bind_sec, x->dmabuf_bytes, x->niov_count,
			x->meta_bytes, x->meta_source ? x->meta_source : "none",
			x->src == AB_SRC_SCHED ? "schedstat" : "ticks",
			x->ncpus, o->seconds, x->st.verified_bytes);
		fprintf(f, ",%" PRIu64 ",", o->hold_bytes);
		if (x->have_held)
			fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%ld",
				x->held_flows, x->held_tokens, x->held_bytes,
				x->xa_nodes, x->xa_node_size);
		else
			fputs(",,,,", f);
		if (x->have_slab)
			fprintf(f, ",%" PRId64 ",%" PRIu64 "\n", x->slab_objs,
				x->slab_obj_size);
		else
			fputs(",,\n", f);
	}
	return ab_close(f, path);
}

static void ab_put_csv(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.0f", v);
}

int ab_summary_write(const char *path, const struct ab_opts *o,
		     const struct ab_cfg *cfgs, unsigned int ncfgs,
		     const struct ab_result *r, unsigned int n)
{
	FILE *f = ab_open(path);
	struct ab_agg g;
	unsigned int i, k;
	double h;

	if (!f)
		return -errno;
	fprintf(f, "tag,kernel,flows,config,provider,niov_size,runs");
	for (k = 0; k < AB_NM; k++)
		fprintf(f, ",%s_median,%s_min,%s_max", ab_metrics[k].csv,
			ab_metrics[k].csv, ab_metrics[k].csv);
	fputs(",host_cpu_ns_per_byte_mean,host_cpu_ns_per_byte_ci95,hold_bytes,held_flows,held_tokens,held_bytes,token_mem_bytes,slab_delta_bytes\n",
	      f);
	for (i = 0; i < ncfgs; i++) {
		const struct ab_result *x = ab_held_of(&cfgs[i], r, n);

		ab_aggregate(&cfgs[i], r, n, &g);
		fprintf(f, "%s,%s,%u,%s,%s,%u,%u", o->tag ? o->tag : "",
			ab_kernel(), o->flows, cfgs[i].name,
			ab_prov_name(cfgs[i].prov), cfgs[i].size, g.runs);
		for (k = 0; k < AB_NM; k++) {
			if (isnan(g.med[k]))
				fprintf(f, ",,,");
			else
				fprintf(f, ",%.6g,%.6g,%.6g", g.med[k], g.min[k],
					g.max[k]);
		}
		h = ab_ci95(&g, AB_BAR_CPU);
		if (g.n[AB_BAR_CPU])
			fprintf(f, ",%.6g", g.mean[AB_BAR_CPU] * 1e9 / GIB);
		else
			fputc(',', f);
		if (!isnan(h))
			fprintf(f, ",%.6g", h * 1e9 / GIB);
		else
			fputc(',', f);
		fprintf(f, ",%" PRIu64 ",", o->hold_bytes);
		if (x)
			fprintf(f, "%u,%" PRIu64 ",%" PRIu64, x->held_flows,
				x->held_tokens, x->held_bytes);
		else
			fputs(",,", f);
		ab_put_csv(f, x ? ab_token_mem(x) : NAN);
		ab_put_csv(f, x ? ab_slab_delta(x) : NAN);
		fputc('\n', f);
	}
	return ab_close(f, path);
}
