// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx ab: in-tree devmem against devmemx on the same kernel, device,
 * queues and workload. Each configuration (provider x niov size) binds,
 * receives and unbinds per run; a verified pass proves every configuration
 * first, then rounds of timed runs follow, each round in an order shuffled
 * from a printed seed so that drift hits all configurations alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <linux/netdev.h>

#include "pattern.h"
#include "rx-ab-run.h"

static uint64_t ab_rand(struct ab *a)
{
	a->rng += 0x9e3779b97f4a7c15ULL;
	return dx_pat_mix(a->rng);
}

static void ab_shuffle(struct ab *a, unsigned int *ord, unsigned int n)
{
	unsigned int i, j, t;

	for (i = 0; i < n; i++)
		ord[i] = i;
	for (i = n; i > 1; i--) {
		j = ab_rand(a) % i;
		t = ord[i - 1];
		ord[i - 1] = ord[j];
		ord[j] = t;
	}
}

/*
 * Whether in-tree devmem binds with niovs other than PAGE_SIZE here: the
 * kernel's netdev bind-rx takes NETDEV_A_DMABUF_RX_PAGE_SIZE (Linux 7.3 on).
 * 1 or 0, or a negative errno after a message.
 */
static int ab_intree_large(void)
{
	static int known = -1;

	if (known < 0)
		known = dx_op_takes_attr("netdev", NETDEV_CMD_BIND_RX,
					 NETDEV_A_DMABUF_RX_PAGE_SIZE);
	return known;
}

static int ab_add(struct ab *a, enum ab_prov prov, uint32_t size,
		  bool explicit)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ab_cfg *c = &a->cfgs[a->ncfgs];
	char sz[16];
	unsigned int i;

	ab_fmt_size(sz, sizeof(sz), size);
	if ((prov == AB_NETDEV || prov == AB_NETDEV_NODX) && size != page) {
		int large = ab_intree_large();

		if (large < 0)
			return 1;	/* the request failed, said so */
		if (!large && explicit)
			return dx_bad_usage("%s-%s: this kernel's in-tree devmem takes no niov size (netdev bind-rx has no rx-page-size; Linux 7.3 has it)",
					    ab_prov_name(prov), sz);
		if (!large) {
			printf("skip %s-%s: this kernel's in-tree devmem takes no niov size (netdev bind-rx has no rx-page-size; Linux 7.3 has it)\n",
			       ab_prov_name(prov), sz);
			return 0;
		}
	}
	for (i = 0; i < a->ncfgs; i++)
		if (a->cfgs[i].prov == prov && a->cfgs[i].size == size)
			return dx_bad_usage("%s-%s given twice", ab_prov_name(prov), sz);
	if (a->ncfgs == AB_MAX_CFGS)
		return dx_bad_usage("more than %d configurations", AB_MAX_CFGS);
	c->prov = prov;
	c->size = size;
	snprintf(c->name, sizeof(c->name), "%s-%s", ab_prov_name(prov), sz);
	a->ncfgs++;
	return 0;
}

static int ab_plan(struct ab *a)
{
	const struct ab_opts *o = a->o;
	unsigned int p, s;
	int ret = 0;

	for (p = 0; p < o->nconfigs && !ret; p++)
		ret = ab_add(a, o->configs[p].prov, o->configs[p].size, true);
	for (p = 0; p < o->nprovs && !o->nconfigs && !ret; p++)
		for (s = 0; s < o->nsizes && !ret; s++)
			ret = ab_add(a, o->provs[p], o->sizes[s], false);
	if (!ret && !a->ncfgs)
		return dx_bad_usage("no configuration left to run");
	return ret;
}

int ab_snap(struct ab *a, struct ab_snap *s)
{
	struct rusage ru;
	int ret;

	/*
	 * Sleep first: on one CPU every other task is then switched out, its
	 * run time accounted in /proc/schedstat, and ab's own slice is
	 * fresh. On more, ab_kick() switches out each CPU's task.
	 */
	usleep(2000);
	if (a->kick) {
		ret = ab_kick(a->meas, &s->t);
		if (ret) {
			fprintf(stderr, "devmemx-rx: switching out the CPUs' tasks: %s\n",
				strerror(-ret));
			return ret;
		}
	} else {
		s->t = ab_now();
	}
	getrusage(RUSAGE_SELF, &ru);
	s->rx_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	s->rx_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	s->have_sched = ab_sched_read(a->meas, &s->sched_ns);
	ret = ab_cpu_read(s->cpu);
	if (!ret)
		ret = ab_qstats_read(a->ro.ifindex, a->ro.queues, a->ro.nqueues,
				     &s->q);
	if (!ret)
		ret = ab_device_ns(a->o->dev, &s->device_ns, &s->have_device);
	if (!ret && a->o->sender_tasks)
		ret = ab_tasks_ns(a->o->sender_tasks, &s->tx_tasks_ns);
	return ret;
}

void ab_delta(const struct ab *a, struct ab_result *r,
	      const struct ab_snap *s0, const struct ab_snap *s1)
{
	int i;

	r->wall = s1->t - s0->t;
	for (i = 0; i < AB_NCPU; i++)
		r->cpu[i] = s1->cpu[i] - s0->cpu[i];
	r->rx_user = s1->rx_user - s0->rx_user;
	r->rx_sys = s1->rx_sys - s0->rx_sys;
	r->q.packets = s1->q.packets - s0->q.packets;
	r->q.bytes = s1->q.bytes - s0->q.bytes;
	r->q.gro_packets = s1->q.gro_packets - s0->q.gro_packets;
	r->q.gro_bytes = s1->q.gro_bytes - s0->q.gro_bytes;
	r->q.gro_wire_packets = s1->q.gro_wire_packets - s0->q.gro_wire_packets;
	r->device_ns = s1->device_ns - s0->device_ns;
	r->sched_ns = s1->sched_ns - s0->sched_ns;
	r->tx_tasks_ns = s1->tx_tasks_ns - s0->tx_tasks_ns;
	r->have_sched = s0->have_sched && s1->have_sched;
	r->src = r->have_sched ? a->src : AB_SRC_TICKS;
	r->ncpus = a->ncpus;
	r->cpus_given = a->meas;
	r->napi_threaded = a->napi_threaded;
}

/*
 * Metadata: devmemx says; in-tree is one struct net_iov per niov (BTF). A
 * policy's binding is devmemx's, and netdev's reply does not say.
 */
static void ab_meta(struct ab *a, const struct rx_bind *b, struct ab_result *r)
{
	struct rx_meta m;

	rx_bind_meta(b, ab_prov_devmemx(r->cfg->prov) || r->cfg->prov == AB_POLICY,
		     a->buf.size, r->cfg->size,
		     a->net_iov_size, &m);
	r->dmabuf_bytes = a->buf.size;
	r->niov_count = m.niov_count;
	r->meta_bytes = m.bytes;
	r->meta_source = m.source;
}

/*
 * The memory zcrx's areas cover: the dma-buf, split between the queues,
 * or as much host memory (2M pieces with --hugetlb).
 */
static uint64_t ab_zcrx_area(const struct ab *a)
{
	uint64_t unit = a->o->buf.hugetlb ? 2ULL << 20 :
				(uint64_t)sysconf(_SC_PAGESIZE);

	if (a->ro.nqueues == 1)
		return a->buf.size;
	return a->buf.size / a->ro.nqueues / unit * unit;
}

/*
 * zcrx's metadata per buffer (7.2 and 7.3 io_uring/zcrx.c): a struct
 * net_iov, its freelist slot (u32) and its user reference count (atomic_t).
 */
static void ab_zcrx_meta(struct ab *a, struct ab_result *r)
{
	uint64_t area = ab_zcrx_area(a);

	r->dmabuf_bytes = area * a->ro.nqueues;
	r->niov_count = area / r->cfg->size * a->ro.nqueues;
	r->meta_bytes = a->net_iov_size > 0 ?
			r->niov_count * (a->net_iov_size + 8) : 0;
	r->meta_source = a->net_iov_size > 0 ? "btf" : "none";
}

/* An interface queue on each RX queue, each with its own area. */
static int ab_zcrx_open(struct ab *a, struct ab_zq *zq, uint32_t size)
{
	unsigned int j;
	int ret = 0;

	for (j = 0; j < a->ro.nqueues && !ret; j++) {
		struct dx_dmabuf *d = NULL;

		if (!a->o->zcrx_host)
			d = a->ro.nqueues == 1 ? &a->buf : &a->zbuf[j];
		ret = rx_zcrx_open(&zq[j].z, a->o->dev, a->ro.ifindex,
				   a->ro.queues[j], size, d, ab_zcrx_area(a),
				   a->o->buf.hugetlb);
	}
	return ret;
}

static int ab_run(struct ab *a, struct ab_result *r, bool verify)
{
	r->verified = verify;
	struct rx_bind bind = { .ops = rx_provider_find(ab_prov_devmemx(r->cfg->prov) ?
							"devmemx" : "netdev") };
	bool zcrx = r->cfg->prov == AB_ZCRX;
	struct ab_flow fl[AB_MAX_FLOWS];
	struct ab_zq *zq = NULL;
	struct ab_snap s0, s1;
	unsigned int i;
	double t;
	int ret, err, prof = 0;

	memset(fl, 0, sizeof(fl));
	for (i = 0; i < AB_MAX_FLOWS; i++) {
		fl[i].lfd = fl[i].fd = -1;
		fl[i].rule.fd = -1;
	}
	a->ro.rx_page_size = r->cfg->size;
	/* devmemx-tok: the token array (autorelease 0); else not sent. */
	a->ro.has_autorelease = r->cfg->prov == AB_DEVMEMX_TOK;
	a->ro.autorelease = 0;
	if (!ab_prov_devmemx(r->cfg->prov) && r->cfg->size == sysconf(_SC_PAGESIZE))
		a->ro.rx_page_size = 0;	/* what a 7.2 kernel takes */
	/* A policy's size is the policy's: the request carries none. */
	if (r->cfg->prov == AB_POLICY)
		a->ro.rx_page_size = 0;
	ret = r->cfg->prov == AB_NETDEV_NODX ? ab_dx_unload(a) : 0;
	if (!ret && r->cfg->prov == AB_POLICY)
		ret = ab_policy_set(a, r->cfg->size);
	if (!ret && zcrx) {
		zq = calloc(a->ro.nqueues, sizeof(*zq));
		if (!zq)
			ret = dx_nomem();
		for (i = 0; zq && i < a->ro.nqueues; i++)
			zq[i].z = (struct rx_zcrx)RX_ZCRX_INIT;
	} else if (!ret) {
		ret = bind.ops->open(&bind);
	}
	r->unbind_sec = NAN;
	r->avail_kb[0] = r->avail_kb[1] = r->avail_kb[2] = -1;
	if (ret)
		goto out;
	if (!zcrx)
		r->avail_kb[0] = ab_mem_avail();
	t = ab_now();
	if (zcrx)
		ret = ab_zcrx_open(a, zq, r->cfg->size);
	else
		ret = bind.ops->bind(&bind, &a->ro, a->buf.fd);
	r->bind_sec = ab_now() - t;
	if (!zcrx)
		r->avail_kb[1] = ab_mem_avail();
	/* A driver may have made the queue a new NAPI thread (mlx5 does). */
	if (!ret)
		ret = ab_napi_queues(a, !a->nres);
	if (!ret)
		ret = ab_flows_open(a, fl, zcrx ? 0 : bind.id, verify,
				    !r->round);
	if (!ret && r->round && a->o->profile_cmd) {
		prof = ab_profile_start(a, r->cfg->name);
		ret = prof < 0 ? prof : 0;
	}
	if (!ret && !a->o->sender) {
		ret = ab_flows_accept(a, fl);
		if (!ret)
			ret = ab_snap(a, &s0);
	} else if (!ret) {
		ret = ab_snap(a, &s0);
		if (!ret)
			ret = ab_flows_accept(a, fl);
	}
	/*
	 * --seconds: every flow stops reading that long after the last accept,
	 * when data can flow. (A sender starts after the snapshot; on a slow
	 * kernel its start alone can take seconds.)
	 */
	t = ab_now();
	for (i = 0; !ret && i < a->o->flows && a->o->seconds; i++)
		fl[i].o.deadline = t + a->o->seconds;
	if (!ret)
		ret = zcrx ? ab_zcrx_receive(a, fl, zq, r) :
			     ab_flows_receive(a, fl, r);
	if (!ret)
		ret = ab_snap(a, &s1);
	if (prof > 0) {
		err = ab_profile_stop(prof);
		ret = ret ?: err;
	}
	if (!ret) {
		ab_delta(a, r, &s0, &s1);
		r->bytes = r->st.bytes;
		if (zcrx)
			ab_zcrx_meta(a, r);
		else
			ab_meta(a, &bind, r);
		r->have_device = s1.have_device;
		r->xa_node_size = a->xa_node_size;
		ret = ab_pp_read(zcrx ? 0 : bind.id, r->pp, &r->have_pp);
	}
	err = ab_flows_close(fl, a->o->flows, r);
	ret = ret ?: err;
	if (zcrx) {
		for (i = 0; i < a->ro.nqueues; i++)
			rx_zcrx_close(&zq[i].z);
		free(zq);
		/* The ring's end frees the queues later, in a kernel worker. */
		ab_wait_zcrx_pools();
	} else {
		/* The unbind: until its pools and its memory are gone. */
		t = ab_now();
		bind.ops->close(&bind);
		if (bind.id)
			r->unbind_sec = ab_wait_unbind(bind.id, t, r->avail_kb[0],
						       &r->avail_kb[2]);
	}
out:
	if (r->cfg->prov == AB_POLICY) {
		err = ab_policy_del(a);
		ret = ret ?: err;
	}
	err = ab_dx_load(a);
	return ret ?: err;
}

static void ab_progress(const struct ab *a, const struct ab_result *r,
			unsigned int k, unsigned int total)
{
	double g = r->bytes / 1073741824.0;

	fprintf(stderr, "[%u/%u] %-6s %-18s %7.1f MB/s %7.3f host s/GiB %8.0f cmsgs/GiB%s\n",
		k, total, r->phase, r->cfg->name,
		r->wall > 0 ? r->bytes / r->wall / 1e6 : 0,
		g > 0 ? ab_host_cpu(r) / g : 0,
		g > 0 ? r->st.cmsgs_dmabuf / g : 0,
		r->st.mismatches ? " MISMATCH" : "");
	(void)a;
}

static int ab_all(struct ab *a)
{
	unsigned int ord[AB_MAX_CFGS], round, i, k = 0, total;
	int ret = 0;

	total = a->ncfgs * (1 + a->o->runs);
	a->res = calloc(total, sizeof(*a->res));
	if (!a->res)
		return dx_nomem();
	if (!a->o->sender)
		ab_sender_hint(a, total);
	for (round = 0; round <= a->o->runs && !ret; round++) {
		ab_shuffle(a, ord, a->ncfgs);
		for (i = 0; i < a->ncfgs && !ret; i++) {
			struct ab_result *r = &a->res[a->nres];

			r->cfg = &a->cfgs[ord[i]];
			r->phase = round ? "timed" : "verify";
			r->round = round;
			r->order = i;
			if (a->o->app)
				ret = ab_app_run(a, r, !round);
			else
				ret = ab_run(a, r, (!round || a->o->verify) &&
					     a->readable);
			if (ret) {
				fprintf(stderr, "devmemx-rx: %s run of %s failed\n",
					r->phase, r->cfg->name);
				break;
			}
			a->nres++;
			ab_progress(a, r, ++k, total);
		}
	}
	return ret;
}

/* zcrx on more than one queue with dma-buf areas: a dma-buf per queue. */
static int ab_zcrx_bufs(struct ab *a)
{
	struct dx_dmabuf_spec spec = a->o->buf;
	unsigned int i, nq = a->ro.nqueues;
	int ret;

	for (i = 0; i < a->ncfgs && a->cfgs[i].prov != AB_ZCRX; i++)
		;
	if (i == a->ncfgs || a->o->zcrx_host || nq == 1)
		return 0;
	if (spec.kind == DX_HELD || spec.kind == DX_VFIO) {
		fprintf(stderr, "devmemx-rx: zcrx on %u queues takes a dma-buf for each (an area starts at its dma-buf's offset 0), and %s gives one: use one queue, or --zcrx-area host\n",
			nq, spec.kind == DX_HELD ? "--pid/--fd" : "--vfio");
		return -EINVAL;
	}
	spec.size = ab_zcrx_area(a);
	a->zbuf = calloc(nq, sizeof(*a->zbuf));
	if (!a->zbuf)
		return dx_nomem();
	for (i = 0; i < nq; i++) {
		a->zbuf[i] = (struct dx_dmabuf)DX_DMABUF_INIT;
		ret = dx_dmabuf_create(&a->zbuf[i], &spec);
		if (ret)
			return ret;
		a->nzbuf++;
	}
	return 0;
}

static int ab_setup(struct ab *a)
{
	const struct ab_opts *o = a->o;
	unsigned int i;
	uint64_t ns;
	int ret;

	/* The sender's tasks must be there before anything is bound. */
	if (o->sender_tasks && ab_tasks_ns(o->sender_tasks, &ns))
		return -ESRCH;
	a->ro.dev = o->dev;
	a->ro.ifindex = if_nametoindex(o->dev);
	if (!a->ro.ifindex) {
		fprintf(stderr, "devmemx-rx: no network device \"%s\" (see: ip link)\n",
			o->dev);
		return -ENODEV;
	}
	for (i = 0; i < o->nqueues; i++)
		a->ro.queues[i] = o->queues[i];
	a->ro.nqueues = o->nqueues;
	a->ro.seed = DX_PAT_SEED;
	a->ro.timeout = o->timeout;
	a->ro.listen = o->listen;
	a->ro.buf = o->buf;
	a->ro.verify_every = o->verify_every;
	ret = ab_cpu_setup(a);
	if (ret)
		return ret;
	a->napi_threaded = ab_napi_check(o->dev, o->napi_cpus.n || o->napi_fifo);
	if (a->napi_threaded == -EINVAL)
		return -EINVAL;
	a->net_iov_size = rx_btf_struct_size("net_iov");
	if (o->app)	/* it brings its own dma-buf */
		return 0;
	ret = dx_dmabuf_create(&a->buf, &o->buf);
	if (ret)
		return ret;
	if (o->hold_bytes && o->hold_bytes > a->buf.size / 4 / o->flows) {
		char h[32], b[32];

		ab_fmt_size(h, sizeof(h), o->hold_bytes);
		ab_fmt_size(b, sizeof(b), a->buf.size);
		fprintf(stderr, "devmemx-rx: %u flow%s holding --hold-bytes %s each would hold more than a quarter of the %s dma-buf (a held fragment keeps its whole buffer, which other flows' fragments share), and the queues could run dry: lower --hold-bytes or --flows, or give a larger dma-buf\n",
			o->flows, o->flows > 1 ? "s" : "", h, b);
		return -EINVAL;
	}
	if (o->hold_bytes)
		a->xa_node_size = rx_btf_struct_size("xa_node");
	ret = ab_zcrx_bufs(a);
	if (ret)
		return ret;
	a->readable = dx_dmabuf_readable(&a->buf);
	if (!a->readable) {
		char exp[64];

		dx_dmabuf_exporter(a->buf.fd, exp, sizeof(exp));
		if (o->verify) {
			fprintf(stderr, "devmemx-rx: --verify: the dma-buf cannot be read back here (its exporter, %s, refuses mmap)\n",
				exp);
			return -EOPNOTSUPP;
		}
		fprintf(stderr, "devmemx-rx: the dma-buf cannot be read back here (its exporter, %s, refuses mmap): no run verifies its payload; runs count bytes and cmsgs\n",
			exp);
	}
	return 0;
}

static int ab_outputs(struct ab *a)
{
	FILE *md;
	int ret = 0;

	ab_report(stdout, a->o, a->cfgs, a->ncfgs, a->res, a->nres);
	if (a->o->md) {
		md = fopen(a->o->md, "w");
		if (!md) {
			fprintf(stderr, "devmemx-rx: %s: %s\n", a->o->md,
				strerror(errno));
			return -errno;
		}
		ab_report(md, a->o, a->cfgs, a->ncfgs, a->res, a->nres);
		if (fclose(md))
			ret = -EIO;
	}
	if (a->o->summary && !ret)
		ret = ab_summary_write(a->o->summary, a->o, a->cfgs, a->ncfgs,
				       a->res, a->nres);
	return ret;
}

int rx_ab_run(struct ab_opts *o)
{
	struct ab a = { .o = o, .buf = DX_DMABUF_INIT };
	char sz[32];
	int ret;

	if (!o->seed_set)
		o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	a.rng = o->seed;
	ret = ab_plan(&a);
	if (ret)
		return ret > 0 ? 1 : 2;	/* 1: a request failed, 2: usage */
	rx_signals_setup();
	ab_run_length(o, sz, sizeof(sz));
	printf("devmemx-rx ab on %s: %u configurations, %s per run in %u flow%s, %u timed run%s each; order seed %" PRIu64 " (repeat with --seed %" PRIu64 ")\n",
	       o->dev, a.ncfgs, sz, o->flows, o->flows > 1 ? "s" : "", o->runs,
	       o->runs > 1 ? "s" : "", o->seed, o->seed);
	fflush(stdout);
	ret = ab_setup(&a);
	if (!ret)
		ret = ab_all(&a);
	dx_dmabuf_destroy(&a.buf);
	while (a.nzbuf)
		dx_dmabuf_destroy(&a.zbuf[--a.nzbuf]);
	free(a.zbuf);
	if (a.nres && o->csv) {
		int err = ab_csv_write(o->csv, o, a.res, a.nres);

		ret = ret ?: err;
	}
	if (!ret)
		ret = ab_outputs(&a);
	free(a.res);
	if (ret == -EINTR && rx_stop_sig)
		fprintf(stderr, "devmemx-rx: stopped by %s\n",
			rx_stop_sig == SIGINT ? "SIGINT" : "SIGTERM");
	return ret ? 1 : 0;
}
