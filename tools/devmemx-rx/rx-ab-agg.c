// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx ab's figures (rx-ab-agg.h): each run's counters per GiB, and
 * their statistics over a configuration's timed runs; sizes and run
 * lengths as people read them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rx-ab-agg.h"

const struct ab_metric ab_metrics[AB_NM] = {
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
	[M_UNBIND] = { "unbind_ms_per_gib", "unbind ms/GiB", F_RATE },
	[M_KMEM] = { "kmem_mib_per_gib", "kernel memory MiB/GiB", F_SEC },
	[M_KLEFT] = { "kmem_left_mib", "left after unbind MiB", F_RATE },
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

const char *ab_kernel(void)
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
double ab_busy(const struct ab_result *r)
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
	m[M_UNBIND] = bound > 0 ? r->unbind_sec * 1e3 / bound : NAN;
	/* MemAvailable's fall over the bind; what it still lacked after. */
	m[M_KMEM] = bound > 0 && r->avail_kb[0] >= 0 && r->avail_kb[1] >= 0 ?
		    (r->avail_kb[0] - r->avail_kb[1]) / 1024.0 / bound : NAN;
	m[M_KLEFT] = r->avail_kb[0] >= 0 && r->avail_kb[2] >= 0 ?
		     (r->avail_kb[0] - r->avail_kb[2]) / 1024.0 : NAN;
}

static int ab_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Two-sided 95% quantile of Student's t with @df degrees of freedom. */
double ab_t95(unsigned int df)
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
double ab_ci95(const struct ab_agg *g, int k)
{
	return g->n[k] < 2 ? NAN : ab_t95(g->n[k] - 1) * g->sd[k] / sqrt(g->n[k]);
}

/* Medians, minima and maxima over the timed runs of @cfg. */
void ab_aggregate(const struct ab_cfg *cfg, const struct ab_result *r,
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

/* The run of @cfg that measured held tokens (its first), or NULL. */
const struct ab_result *ab_held_of(const struct ab_cfg *cfg,
					  const struct ab_result *r,
					  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].cfg == cfg && r[i].have_held)
			return &r[i];
	return NULL;
}

/*
 * The kernel's memory for held tokens: sk_user_frags nodes (BTF size); for
 * the token array, its sockets' arrays (devmemx's INFO token-bytes).
 */
double ab_token_mem(const struct ab_result *x)
{
	if (x->cfg->prov == AB_DEVMEMX_TOK)
		return x->have_tok ? (double)x->tok_bytes : NAN;
	return x->xa_node_size > 0 ? (double)x->xa_nodes * x->xa_node_size : NAN;
}

double ab_slab_delta(const struct ab_result *x)
{
	return x->have_slab ? (double)x->slab_objs * x->slab_obj_size : NAN;
}
