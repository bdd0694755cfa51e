/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemx-rx ab inside: the state of one invocation, which rx-ab.c (the
 * plan and its rounds) shares with rx-ab-flows.c (one run's flows) and
 * rx-ab-env.c (what ab changes in the system). Nothing else includes it.
 */
#ifndef DX_RX_AB_RUN_H
#define DX_RX_AB_RUN_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rx-ab.h"
#include "rx-zcrx.h"

struct ab {
	const struct ab_opts *o;
	struct rx_opts ro;		/* what every run shares */
	struct dx_dmabuf buf;		/* one dma-buf, bound anew per run */
	/*
	 * zcrx over more than one queue: a dma-buf each (an area starts at
	 * the dma-buf's offset 0), @buf's size split between them.
	 */
	struct dx_dmabuf *zbuf;
	unsigned int nzbuf;
	struct ab_cfg cfgs[AB_MAX_CFGS];
	unsigned int ncfgs;
	struct ab_result *res;
	unsigned int nres;
	long net_iov_size;		/* from BTF, or < 0 */
	long xa_node_size;		/* --hold-bytes: from BTF, or < 0 */
	bool readable;			/* the CPU can read the dma-buf back */
	uint64_t rng;
	bool dx_unloaded;
	enum ab_src src;		/* how busy time is read */
	const cpu_set_t *meas;		/* the CPUs measured, NULL: all */
	unsigned int ncpus;
	bool kick;			/* switch out running tasks to read */
	int napi_threaded;
};

/*
 * --hold-bytes in the first run (phase verify): each flow ends holding its
 * last batch and waits here; once every flow has come (holding, or done
 * another way), ab reads the kernel's memory for those tokens and opens
 * the gate.
 */
struct ab_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int arrived;
	bool open;
	unsigned int holding;		/* flows that came holding a batch */
	uint64_t tokens, bytes, nodes;
};

struct ab_flow {
	struct rx_opts o;
	struct ab_gate *gate;		/* NULL: no gate this run */
	bool arrived;
	struct dx_dmabuf *buf;
	uint32_t id;
	int lfd, fd;
	struct rx_flow rule;
	pid_t sender;
	struct rx_stats st;
	int ret;
	int cpu;			/* --rx-cpus: run there; -1 anywhere */
	pthread_t th;
};

/* zcrx: the interface queue of one RX queue and the flows steered there. */
struct ab_zq {
	struct rx_zcrx z;
	struct rx_zcrx_sock s[AB_MAX_FLOWS];
	unsigned int n;
	int cpu;			/* its first flow's --rx-cpus, or -1 */
	int ret;
	pthread_t th;
};

/* rx-ab.c: a run's snapshots of the counters, and what changed between. */
int ab_snap(struct ab *a, struct ab_snap *s);
void ab_delta(const struct ab *a, struct ab_result *r,
	      const struct ab_snap *s0, const struct ab_snap *s1);

/* rx-ab-app.c: --app and the policy configurations. */
/* The devmemx policy at @size on --dev's --queues, or off: 0 or -errno (said). */
int ab_policy_set(struct ab *a, uint32_t size);
int ab_policy_del(struct ab *a);
/* One run of --app (@verify: the verified pass): 0 or -errno (said). */
int ab_app_run(struct ab *a, struct ab_result *r, bool verify);

/* rx-ab-flows.c: one run's flows, each 0 or -errno (after a message). */
/*
 * Listen, steer, and (with --sender) start the sender of every flow; @first:
 * the configuration's first run, the one that measures held tokens.
 */
int ab_flows_open(struct ab *a, struct ab_flow *fl, uint32_t id,
		  bool verify, bool first);
int ab_flows_accept(struct ab *a, struct ab_flow *fl);
/* devmem: a thread per flow, the --hold-bytes gate in the first run. */
int ab_flows_receive(struct ab *a, struct ab_flow *fl, struct ab_result *r);
/* zcrx: flow i is on queue i % nqueues; a thread per queue reaps its ring. */
int ab_zcrx_receive(struct ab *a, struct ab_flow *fl, struct ab_zq *zq,
		    struct ab_result *r);
/* Close the flows, reap their senders (their CPU time into @r). */
int ab_flows_close(struct ab_flow *fl, unsigned int n, struct ab_result *r);
/* What the user runs on the sender machine when no --sender is given. */
void ab_sender_hint(const struct ab *a, unsigned int total);
/* Start @f's --sender (its pid, or -1), and reap it (its CPU into @r). */
pid_t ab_sender_start(const struct ab *a, const struct ab_flow *f);
int ab_sender_wait(struct ab_flow *f, struct ab_result *r);

/* rx-ab-env.c: what ab changes in the system. */
/* devmemx out for a netdev-nodx run (--unload-cmd), and in again after. */
int ab_dx_unload(struct ab *a);
int ab_dx_load(struct ab *a);
/* How busy time is read (a->src, a->kick): 0 or -errno after a message. */
int ab_cpu_setup(struct ab *a);
/*
 * Whether @dev's NAPI runs in threads: 1, 0 (said why that matters), -1
 * unknown (or a virtual device, whose queues another's NAPI serves);
 * -EINVAL (said) when not and @pin (--napi-cpus, --napi-fifo) needs it.
 */
int ab_napi_check(const char *dev, bool pin);
/*
 * Switch out what runs on the CPUs of @set (NULL: all), reading the time
 * into @t (if not NULL) on the last of them: 0 or -errno.
 */
int ab_kick(const cpu_set_t *set, double *t);
/*
 * Run the NAPI thread of @dev's RX queue @queue, and its IRQ where it has
 * one and the IRQ may move, on CPU @cpu (-1: where they are), at
 * SCHED_FIFO @fifo (0: as it is), saying so if @say: 0 or -errno after a
 * message (the NAPI must be threaded). The thread is looked up anew each
 * call: a driver may make a new one whenever the queue restarts.
 */
int ab_napi_pin(unsigned int ifindex, const char *dev, uint32_t queue,
		int cpu, unsigned int fifo, bool say);
/*
 * After a bind: the bound queues' NAPI threads placed as the options ask,
 * then --bound-cmd run.
 */
int ab_napi_queues(struct ab *a, bool say);
/* In a forked child: run @cmd by /bin/sh with no signal blocked; no return. */
void ab_exec_sh(const char *cmd) __attribute__((noreturn));
/*
 * --profile-cmd for configuration @cfg: started (its pid, or -errno after a
 * message), then ended by SIGINT and reaped (0, or -EIO after a message
 * when it did not exit 0).
 */
int ab_profile_start(const struct ab *a, const char *cfg);
int ab_profile_stop(int pid);
/* Wait (up to 10 s) until no page pool of io_uring zcrx is left. */
void ab_wait_zcrx_pools(void);
/* /proc/meminfo's MemAvailable in KiB, or -1. */
int64_t ab_mem_avail(void);
/*
 * Wait (up to 60 s) until no page pool carries binding @id and MemAvailable
 * is back within 16 MiB of @before (KiB, -1: pools only): the time from @t0
 * (s), the MemAvailable last read in *@after.
 */
double ab_wait_unbind(uint32_t id, double t0, int64_t before, int64_t *after);

#endif
