/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemx-rx ab: the A/B benchmark of in-tree devmem, devmemx and io_uring
 * zcrx. rx-ab.c plans the runs and their rounds (its state, shared with
 * rx-ab-flows.c and rx-ab-env.c, is in rx-ab-run.h), rx-ab-flows.c runs one
 * run's flows, rx-ab-env.c changes the system around them, rx-ab-app.c
 * runs --app and the policy configurations, rx-ab-opts.c
 * parses the options, rx-ab-stats.c reads the counters, rx-ab-agg.c makes the figures,
 * rx-ab-report.c prints the tables and rx-ab-csv.c writes the CSV files.
 */
#ifndef DX_RX_AB_H
#define DX_RX_AB_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rx.h"

#define AB_MAX_SIZES	8
#define AB_MAX_CFGS	24
#define AB_MAX_FLOWS	64	/* the sim's ntuple rules, a rule per flow */
#define AB_MAX_RUNS	1000
#define AB_VERIFY_BYTES	(64ULL << 20)	/* at most, per verified pass run */
#define AB_MAX_SECONDS	3600

/* --cpus, --rx-cpus: a CPU list. */
struct ab_cpus {
	const char *list;		/* as given; NULL: not given */
	cpu_set_t set;
	uint32_t cpu[DX_MAX_QUEUES];	/* in the order given */
	unsigned int n;
};

/*
 * Who provides the buffers: in-tree devmem (netdev, with devmemx loaded or
 * not), devmemx, io_uring zcrx (an interface queue per RX queue), or
 * devmemx serving netdev's own bind-rx under a policy (policy).
 */
enum ab_prov { AB_NETDEV, AB_DEVMEMX, AB_NETDEV_NODX, AB_ZCRX, AB_DEVMEMX_TOK,
	       AB_POLICY, AB_NPROV };

/* devmemx's, with the xarray (devmemx) or the token array (devmemx-tok). */
static inline bool ab_prov_devmemx(enum ab_prov p)
{
	return p == AB_DEVMEMX || p == AB_DEVMEMX_TOK;
}

struct ab_opts {
	const char *dev;
	uint32_t queues[DX_MAX_QUEUES];
	unsigned int nqueues;
	uint32_t sizes[AB_MAX_SIZES];
	unsigned int nsizes;
	enum ab_prov provs[AB_NPROV];
	unsigned int nprovs;
	struct { enum ab_prov prov; uint32_t size; } configs[AB_MAX_CFGS];
	unsigned int nconfigs;		/* --configs, instead of the product */
	uint64_t bytes;			/* per run, over all flows */
	bool bytes_set;
	unsigned int seconds;		/* --seconds: per run, instead of bytes */
	struct ab_cpus cpus;		/* the CPUs measured (n 0: all) */
	struct ab_cpus rx_cpus;		/* flow i's thread on rx_cpus.cpu[i % n] */
	struct ab_cpus napi_cpus;	/* queue i's NAPI on napi_cpus.cpu[i % n] */
	unsigned int napi_fifo;		/* bound queues' NAPI at SCHED_FIFO this (0: as is) */
	unsigned int runs;		/* timed runs per configuration */
	unsigned int flows;
	uint64_t seed;
	bool seed_set;
	bool verify;			/* verify the timed runs too */
	uint32_t verify_every;		/* one dma-buf fragment in N (0: all) */
	uint64_t hold_bytes;		/* each flow's token batches, 0: none */
	uint16_t port;			/* flow i on port + i */
	struct dx_dmabuf_spec buf;
	bool zcrx_host;			/* --zcrx-area host: not a dma-buf */
	const char *listen;
	const char *sender;		/* run "SENDER --port P --bytes N" */
	const char *load_cmd, *unload_cmd;
	const char *profile_cmd;	/* during each timed run's window */
	const char *bound_cmd;		/* after each bind */
	bool no_flow_rule;		/* the flows are steered already */
	/* --app: an application receives instead of ab (rx-ab-app.c). */
	const char *app, *app_verify, *app_frags, *app_bad, *app_bytes;
	const char *sender_tasks;	/* comm prefixes, comma-separated */
	const char *csv, *summary, *md, *tag;
	int timeout;
};

struct ab_cfg {
	enum ab_prov prov;
	uint32_t size;			/* niov size */
	char name[32];			/* e.g. devmemx-64K */
};

/* /proc/stat's first line, in clock ticks. */
enum { AB_USER, AB_NICE, AB_SYSTEM, AB_IDLE, AB_IOWAIT, AB_IRQ, AB_SOFTIRQ,
       AB_STEAL, AB_NCPU };

struct ab_qstats {
	uint64_t packets, bytes, gro_packets, gro_bytes, gro_wire_packets;
};

/* page-pool-stats-get, summed over the binding's pools. */
enum { PP_FAST, PP_SLOW, PP_SLOW_HO, PP_EMPTY, PP_REFILL, PP_WAIVE,
       PP_REC_CACHED, PP_REC_CACHE_FULL, PP_REC_RING, PP_REC_RING_FULL,
       PP_REC_RELEASED, AB_NPP };

struct ab_snap {
	double t;			/* CLOCK_MONOTONIC, s */
	uint64_t cpu[AB_NCPU];
	double rx_user, rx_sys;		/* this process, s */
	struct ab_qstats q;
	uint64_t device_ns;
	bool have_device;
	uint64_t sched_ns;		/* /proc/schedstat: tasks' run time */
	bool have_sched;
	uint64_t tx_tasks_ns;		/* --sender-tasks' run time */
};

/* Where a run's busy time comes from. */
enum ab_src {
	AB_SRC_TICKS,		/* /proc/stat: the tick's samples */
	AB_SRC_SCHED,		/* /proc/schedstat, every slice accounted */
};

/* One run: everything the CSV row holds. */
struct ab_result {
	const struct ab_cfg *cfg;
	const char *phase;		/* "verify" or "timed" */
	bool verified;			/* its payload was read back */
	unsigned int round, order;
	uint64_t bytes;
	double wall;
	uint64_t cpu[AB_NCPU];		/* ticks over the run */
	double rx_user, rx_sys, tx_user, tx_sys;
	bool have_tx;
	uint64_t tx_tasks_ns;		/* with --sender-tasks */
	struct rx_stats st;		/* summed over the flows */
	uint64_t pp[AB_NPP];
	bool have_pp;
	struct ab_qstats q;
	uint64_t device_ns;
	bool have_device;
	uint64_t sched_ns;
	bool have_sched;
	enum ab_src src;
	unsigned int ncpus;		/* CPUs measured */
	bool cpus_given;		/* --cpus: only some */
	int napi_threaded;		/* the device's NAPI: 1, 0, -1 unknown */
	double bind_sec;
	/*
	 * The unbind (close until its pools and memory are gone) and
	 * MemAvailable (KiB) before the bind, after it, after the unbind;
	 * zcrx: unbind_sec NAN, avail_kb -1.
	 */
	double unbind_sec;
	int64_t avail_kb[3];
	/*
	 * --hold-bytes, the first run (phase verify): every flow's last batch, held at
	 * once; the sk_user_frags nodes their token ids need, and how much
	 * the radix_tree_node slab grew meanwhile.
	 */
	bool have_held;
	unsigned int held_flows;
	uint64_t held_tokens, held_bytes, xa_nodes;
	bool have_tok;			/* devmemx-tok: the token arrays' bytes */
	uint64_t tok_bytes;
	long xa_node_size;		/* BTF; <= 0: unknown */
	bool have_slab;
	int64_t slab_objs;
	uint64_t slab_obj_size;
	uint64_t dmabuf_bytes;
	uint64_t niov_count;
	uint64_t meta_bytes;
	const char *meta_source;
};

/* rx-ab.c: run the benchmark @o asks for; the exit status (0, 1, 2). */
int rx_ab_run(struct ab_opts *o);

/* rx-ab-opts.c: ab's command line and usage (see rx.h). */
extern const char rx_ab_synopsis[], rx_ab_help[];
int rx_parse_ab(int argc, char **argv, struct ab_opts *o);
/* A provider's name in options, configurations and the CSV. */
const char *ab_prov_name(enum ab_prov p);

/* rx-ab-stats.c: the counters, read only; each returns 0 or -errno (after a message). */
double ab_now(void);
int ab_cpu_read(uint64_t cpu[AB_NCPU]);
/*
 * Sum over the CPUs of @set (NULL: all) of the time tasks ran there (ns,
 * /proc/schedstat); false if none.
 */
bool ab_sched_read(const cpu_set_t *set, uint64_t *ns);
long ab_clk_tck(void);
int ab_qstats_read(unsigned int ifindex, const uint32_t *queues,
		   unsigned int nqueues, struct ab_qstats *q);
/*
 * Pools carrying binding @id (0: io_uring zcrx's pools): their stats
 * (*@have false without them).
 */
int ab_pp_read(uint32_t id, uint64_t pp[AB_NPP], bool *have);
/* How many pools carry binding @id (0: io_uring zcrx's). */
int ab_pp_count(uint32_t id);
/* Sum of the device's rx<N>_device_ns (ethtool -S); *@have false if none. */
int ab_device_ns(const char *dev, uint64_t *ns, bool *have);
/*
 * Run time (ns, /proc/PID/schedstat) of the tasks whose name starts with
 * one of @prefixes (comma-separated), summed; -errno, or -ESRCH (after a
 * message) when none does.
 */
int ab_tasks_ns(const char *prefixes, uint64_t *ns);

/* rx-ab-agg.c: the figures (more in rx-ab-agg.h). */
/* A size as 64K, 2M or 1G where it is a whole number of them. */
void ab_fmt_size(char *out, size_t len, uint64_t v);
/* "64M" or "10 s": how long each run is. */
void ab_run_length(const struct ab_opts *o, char *out, size_t len);
/* The receiving host's CPU of a run (s): what the bars are judged on. */
double ab_host_cpu(const struct ab_result *r);

/* rx-ab-report.c: the tables, for people. */
void ab_report(FILE *f, const struct ab_opts *o, const struct ab_cfg *cfgs,
	       unsigned int ncfgs, const struct ab_result *r, unsigned int n);

/* rx-ab-csv.c: the CSV files; 0 or -errno after a message. */
int ab_csv_write(const char *path, const struct ab_opts *o,
		 const struct ab_result *r, unsigned int n);
int ab_summary_write(const char *path, const struct ab_opts *o,
		     const struct ab_cfg *cfgs, unsigned int ncfgs,
		     const struct ab_result *r, unsigned int n);

#endif
