// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx ab's flows within one run: each flow's listener, steering rule
 * and sender (started with --sender, else the loop to run is printed), the
 * receiving threads (a thread per flow with devmem, per queue with zcrx,
 * on --rx-cpus), and the gate where, with --hold-bytes, every flow holds
 * its last batch while the kernel's memory for those tokens is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rx-ab-run.h"
#include "slab.h"

/* How much a sender sends: @bytes, or until ab closes (--seconds). */
static void ab_send_len(const struct ab_opts *o, uint64_t bytes, char *out,
			size_t len)
{
	if (o->seconds)
		snprintf(out, len, "--until-closed");
	else
		snprintf(out, len, "--bytes %" PRIu64, bytes);
}

pid_t ab_sender_start(const struct ab *a, const struct ab_flow *f)
{
	char cmd[1024], len[64];
	pid_t pid;

	ab_send_len(a->o, f->o.expect, len, sizeof(len));
	snprintf(cmd, sizeof(cmd), "exec %s --port %u %s%s >/dev/null",
		 a->o->sender, f->o.port, len,
		 f->o.no_verify ? " --fill zero" : "");
	pid = fork();
	if (pid == 0)
		ab_exec_sh(cmd);
	if (pid < 0)
		fprintf(stderr, "devmemx-rx: fork for the sender: %s\n",
			strerror(errno));
	return pid;
}

/* Reap the sender of @f; add its CPU time to @r. */
int ab_sender_wait(struct ab_flow *f, struct ab_result *r)
{
	struct rusage ru;
	int st;

	if (f->sender <= 0)
		return 0;
	if (wait4(f->sender, &st, 0, &ru) < 0)
		return -errno;
	f->sender = 0;
	r->tx_user += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->tx_sys += ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r->have_tx = true;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "devmemx-rx: the sender for port %u failed\n",
			f->o.port);
		return -EIO;
	}
	return 0;
}

static int ab_pin_self(int cpu)
{
	cpu_set_t one;
	int err;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (err)
		fprintf(stderr, "devmemx-rx: --rx-cpus: cannot run on CPU %d: %s\n",
			cpu, strerror(err));
	return -err;
}

static void *ab_zq_thread(void *arg)
{
	struct ab_zq *q = arg;

	q->ret = ab_pin_self(q->cpu);
	if (!q->ret)
		q->ret = rx_zcrx_receive(&q->z, q->s, q->n);
	return NULL;
}

/* Flow @f has come to its gate, under the gate's lock. */
static void ab_gate_arrive(struct ab_flow *f)
{
	f->gate->arrived++;
	f->arrived = true;
	pthread_cond_broadcast(&f->gate->cond);
}

/* rx_opts.held: flow @arg holds its last batch until the gate opens. */
static void ab_held(void *arg, const struct dmabuf_token *runs, size_t nruns,
		    uint64_t tokens, uint64_t bytes)
{
	struct ab_flow *f = arg;
	struct ab_gate *g = f->gate;
	uint64_t nodes = rx_xa_nodes(runs, nruns);

	pthread_mutex_lock(&g->lock);
	g->holding++;
	g->tokens += tokens;
	g->bytes += bytes;
	g->nodes += nodes;
	ab_gate_arrive(f);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void *ab_flow_thread(void *arg)
{
	struct ab_flow *f = arg;

	f->ret = ab_pin_self(f->cpu);
	if (!f->ret)
		f->ret = rx_receive(f->fd, &f->o, f->buf, f->id, &f->st);
	/* Ended without holding a batch (an error): the gate counts it. */
	if (f->gate && !f->arrived) {
		pthread_mutex_lock(&f->gate->lock);
		ab_gate_arrive(f);
		pthread_mutex_unlock(&f->gate->lock);
	}
	return NULL;
}

static void ab_stats_add(struct rx_stats *d, const struct rx_stats *s)
{
	d->bytes += s->bytes;
	d->recvmsg_calls += s->recvmsg_calls;
	d->cmsgs_dmabuf += s->cmsgs_dmabuf;
	d->cmsgs_linear += s->cmsgs_linear;
	d->tokens += s->tokens;
	d->dontneed_calls += s->dontneed_calls;
	d->mismatches += s->mismatches;
	d->verified_bytes += s->verified_bytes;
	if (s->frag_max > d->frag_max)
		d->frag_max = s->frag_max;
}

/*
 * Listen, steer, and (with --sender) start the sender of every flow; @first:
 * the configuration's first run, the one that measures held tokens.
 */
int ab_flows_open(struct ab *a, struct ab_flow *fl, uint32_t id,
			 bool verify, bool first)
{
	unsigned int i;
	int ret;

	for (i = 0; i < a->o->flows; i++) {
		struct ab_flow *f = &fl[i];

		f->o = a->ro;
		f->o.port = a->o->port + i;
		f->o.queues[0] = a->ro.queues[i % a->ro.nqueues];
		f->o.expect = a->o->seconds ? 0 : a->o->bytes / a->o->flows;
		/*
		 * The verified pass proves the configuration; timing is later.
		 * (A sender of the user's sends --bytes every time.)
		 */
		if (verify && !a->o->verify && a->o->sender && !a->o->seconds &&
		    a->o->bytes > AB_VERIFY_BYTES)
			f->o.expect = AB_VERIFY_BYTES / a->o->flows;
		f->cpu = a->o->rx_cpus.n ?
			 (int)a->o->rx_cpus.cpu[i % a->o->rx_cpus.n] : -1;
		f->o.no_verify = !verify;
		f->o.hold_bytes = a->o->hold_bytes;
		/* The first run measures the token memory (ab_gate). */
		f->o.held = first && a->o->hold_bytes && f->o.expect ?
			    ab_held : NULL;
		f->buf = &a->buf;
		f->id = id;
		ret = a->o->no_flow_rule ? 0 : rx_flow_add(&f->rule, &f->o);
		if (ret)
			return ret;
		f->lfd = rx_listen(&f->o);
		if (f->lfd < 0)
			return f->lfd;
	}
	return 0;
}

int ab_flows_accept(struct ab *a, struct ab_flow *fl)
{
	unsigned int i;

	for (i = 0; i < a->o->flows; i++) {
		if (a->o->sender) {
			fl[i].sender = ab_sender_start(a, &fl[i]);
			if (fl[i].sender < 0)
				return -errno;
		}
	}
	/*
	 * Stop listening once a flow is accepted: a sender the user runs in a
	 * loop connects again as soon as its run ends, and would otherwise be
	 * queued on this listener and reset when it closes; refused, it
	 * retries until the next run listens.
	 */
	for (i = 0; i < a->o->flows; i++) {
		fl[i].fd = rx_accept(fl[i].lfd, &fl[i].o);
		if (fl[i].fd < 0)
			return fl[i].fd;
		close(fl[i].lfd);
		fl[i].lfd = -1;
	}
	return 0;
}

/* zcrx: flow i is on queue i % nqueues; a thread per queue reaps its ring. */
int ab_zcrx_receive(struct ab *a, struct ab_flow *fl, struct ab_zq *zq,
			   struct ab_result *r)
{
	unsigned int i, j, nq = a->ro.nqueues, started = 0;
	int ret = 0;

	for (j = 0; j < nq; j++) {
		zq[j].n = 0;
		zq[j].cpu = -1;
	}
	for (i = 0; i < a->o->flows; i++) {
		struct ab_zq *q = &zq[i % nq];

		if (!q->n)
			q->cpu = fl[i].cpu;
		q->s[q->n].fd = fl[i].fd;
		q->s[q->n].o = &fl[i].o;
		q->s[q->n].st = &fl[i].st;
		q->n++;
	}
	for (j = 0; j < nq && !ret; j++) {
		if (!zq[j].n)
			continue;
		ret = -pthread_create(&zq[j].th, NULL, ab_zq_thread, &zq[j]);
		if (!ret)
			started = j + 1;
	}
	for (j = 0; j < started; j++) {
		if (!zq[j].n)
			continue;
		pthread_join(zq[j].th, NULL);
		if (!ret && zq[j].ret)
			ret = zq[j].ret;
	}
	for (i = 0; i < a->o->flows; i++)
		ab_stats_add(&r->st, &fl[i].st);
	return ret;
}

/*
 * Every started flow has come to the gate: what their held tokens cost the
 * kernel, then open it.
 */
static void ab_gate_measure(struct ab_gate *g, unsigned int started,
			    bool have_slab0, uint64_t slab0, struct ab_result *r)
{
	uint64_t objs, size;

	pthread_mutex_lock(&g->lock);
	while (g->arrived < started)
		pthread_cond_wait(&g->cond, &g->lock);
	r->have_slab = have_slab0 &&
		       !dx_slab_read_settled("radix_tree_node", &objs, &size);
	if (r->have_slab) {
		r->slab_objs = (int64_t)objs - (int64_t)slab0;
		r->slab_obj_size = size;
	}
	r->have_held = true;
	r->held_flows = g->holding;
	r->held_tokens = g->tokens;
	r->held_bytes = g->bytes;
	r->xa_nodes = g->nodes;
	/* The token array keeps no xarray: its sockets' arrays, as INFO says. */
	if (r->cfg->prov == AB_DEVMEMX_TOK) {
		r->xa_nodes = 0;
		r->have_tok = !rx_token_bytes(&r->tok_bytes);
	}
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

int ab_flows_receive(struct ab *a, struct ab_flow *fl,
			    struct ab_result *r)
{
	struct ab_gate g = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER };
	bool gate = fl[0].o.held, have_slab0 = false;
	unsigned int i, started = 0;
	uint64_t slab0 = 0, size;
	int ret = 0;

	if (gate)
		have_slab0 = !dx_slab_read_settled("radix_tree_node", &slab0, &size);
	for (i = 0; i < a->o->flows && !ret; i++) {
		fl[i].gate = gate ? &g : NULL;
		fl[i].o.held_arg = &fl[i];
		ret = -pthread_create(&fl[i].th, NULL, ab_flow_thread, &fl[i]);
		if (!ret)
			started++;
	}
	if (gate)
		ab_gate_measure(&g, started, have_slab0, slab0, r);
	for (i = 0; i < started; i++) {
		pthread_join(fl[i].th, NULL);
		ab_stats_add(&r->st, &fl[i].st);
		if (!ret && fl[i].ret)
			ret = fl[i].ret;
	}
	return ret;
}

int ab_flows_close(struct ab_flow *fl, unsigned int n,
			  struct ab_result *r)
{
	unsigned int i;
	int ret = 0, err;

	for (i = 0; i < n; i++) {
		if (fl[i].fd >= 0)
			close(fl[i].fd);
		if (fl[i].lfd >= 0)
			close(fl[i].lfd);
		if (fl[i].sender > 0 && ret)
			kill(fl[i].sender, SIGTERM);
		err = ab_sender_wait(&fl[i], r);
		ret = ret ?: err;
		rx_flow_del(&fl[i].rule);
	}
	return ret;
}

/* What the user runs on the sender machine when no --sender is given. */
void ab_sender_hint(const struct ab *a, unsigned int total)
{
	const struct ab_opts *o = a->o;
	unsigned int i;
	char len[64];

	printf("no --sender: on the sender machine run, for each flow (%u connections each):\n",
	       total);
	ab_send_len(o, o->bytes / o->flows, len, sizeof(len));
	for (i = 0; i < o->flows; i++)
		printf("  for i in $(seq %u); do devmemx-rx send --addr %s --port %u %s --timeout %d || break; done%s\n",
		       total, o->listen ? o->listen : "RECEIVER-IP", o->port + i,
		       len, o->timeout, o->flows > 1 ? " &" : "");
	fflush(stdout);
}
