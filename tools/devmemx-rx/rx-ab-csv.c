// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx ab's CSV files: --csv, a row per run of raw counters;
 * --summary, a row per configuration of medians, minima and maxima per GiB.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rx-ab-agg.h"

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
	fprintf(f, "tag,kernel,flows,config,provider,niov_size,phase,round,order,bytes,wall_s,busy_s,clk_tck,cpu_user,cpu_nice,cpu_system,cpu_idle,cpu_iowait,cpu_irq,cpu_softirq,cpu_steal,rx_user_s,rx_sys_s,tx_user_s,tx_sys_s,tx_tasks_ns,recvmsg_calls,cmsgs_dmabuf,cmsgs_linear,tokens,dontneed_calls,frag_max,mismatches,verified,pp_alloc_fast,pp_alloc_slow,pp_alloc_slow_high_order,pp_alloc_empty,pp_alloc_refill,pp_alloc_waive,pp_recycle_cached,pp_recycle_cache_full,pp_recycle_ring,pp_recycle_ring_full,pp_recycle_released_refcnt,q_rx_packets,q_rx_bytes,q_hw_gro_packets,q_hw_gro_bytes,q_hw_gro_wire_packets,device_ns,sched_ns,bind_s,dmabuf_bytes,niov_count,meta_bytes,meta_source,cpu_source,cpus_measured,seconds,verified_bytes,hold_bytes,held_flows,held_tokens,held_bytes,xa_nodes,xa_node_size,slab_objs,slab_obj_size,unbind_s,mem_avail_kb_before,mem_avail_kb_bound,mem_avail_kb_after\n");
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
			fprintf(f, ",%" PRId64 ",%" PRIu64, x->slab_objs,
				x->slab_obj_size);
		else
			fputs(",,", f);
		fputc(',', f);
		if (!isnan(x->unbind_sec))
			fprintf(f, "%.6f", x->unbind_sec);
		for (k = 0; k < 3; k++) {
			if (x->avail_kb[k] >= 0)
				fprintf(f, ",%" PRId64, x->avail_kb[k]);
			else
				fputc(',', f);
		}
		fputc('\n', f);
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
