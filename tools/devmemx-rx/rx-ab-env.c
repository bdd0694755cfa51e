// SPDX-License-Identifier: GPL-2.0
/*
 * What devmemx-rx ab changes in the system around its runs: devmemx
 * unloaded and loaded again (netdev-nodx), how busy time is read (the
 * kick that switches out each CPU's task: SCHED_FIFO), whether the NAPI
 * runs in threads, where and how (--napi-cpus, --napi-fifo, IRQ affinity),
 * and the deferred skbs flushed so that a binding's page pools go once it
 * is closed.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netdev.h>

#include "rx-ab-run.h"

/*
 * Switch out the task running on each CPU of @set (NULL: every CPU), so
 * that /proc/schedstat holds its run time up to now: this thread visits
 * each CPU as a SCHED_FIFO task of the highest priority, which preempts
 * it there. With @t, the time (ab_now()) read on the last CPU visited,
 * while this thread still holds it: the instant up to which that CPU's
 * run time is accounted. Read later, after the thread has gone back to
 * SCHED_OTHER, it could lag by whatever delayed the thread meanwhile (a
 * slice behind the CPU's busy task). 0, or -errno (-EPERM without
 * CAP_SYS_NICE).
 */
int ab_kick(const cpu_set_t *set, double *t)
{
	struct sched_param fifo = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO),
	}, other = { 0 };
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t old, one;
	int ret = 0;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		return -errno;
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		if (set && !CPU_ISSET(cpu, set))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* EINVAL: an offline CPU, which runs nothing. */
		if (sched_setaffinity(0, sizeof(one), &one) && errno != EINVAL) {
			ret = -errno;
			break;
		}
	}
	if (t)
		*t = ab_now();
	sched_setaffinity(0, sizeof(old), &old);
	sched_setscheduler(0, SCHED_OTHER, &other);
	return ret;
}

/* ---- deferred skbs ----------------------------------------------------- */

/*
 * Freed skbs wait on the per-CPU defer list of the CPU that received them
 * until that CPU next runs NET_RX, holding their page pool (and binding)
 * until then. A loopback datagram sent from each CPU runs it there.
 */
static void ab_flush_deferred(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cpu_set_t old, one;
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sched_getaffinity(0, sizeof(old), &old)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Every CPU, also outside the mask we run under (taskset). */
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			sendto(fd, "", 1, 0, (struct sockaddr *)&to, sizeof(to));
	}
	sched_setaffinity(0, sizeof(old), &old);
	close(fd);
}

/*
 * Run a shell command (--load-cmd, --unload-cmd), with its stderr to
 * /dev/null if @quiet; 0 when it exited 0.
 */
static int ab_sh(const char *cmd, bool quiet)
{
	char *q = NULL;
	int st;

	if (quiet && asprintf(&q, "{ %s\n} 2>/dev/null", cmd) < 0)
		return -1;
	st = system(q ?: cmd);
	free(q);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

void ab_exec_sh(const char *cmd)
{
	sigset_t none;

	/* ab blocks SIGINT and SIGTERM outside its waits: a child must not */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/*
 * --profile-cmd says it is ready by a line on its standard output (perf
 * record takes seconds of a TCG guest's time to start): 0, or -1 when it
 * closed it or AB_PROFILE_WAIT passed first.
 */
#define AB_PROFILE_WAIT 120
static int ab_profile_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double end = ab_now() + AB_PROFILE_WAIT;
	char c;

	for (;;) {
		int ms = (end - ab_now()) * 1000;

		if (ms <= 0 || poll(&p, 1, ms) <= 0 || read(fd, &c, 1) != 1)
			return -1;
		if (c == '\n')
			return 0;
	}
}

int ab_profile_start(const struct ab *a, const char *cfg)
{
	const char *c = a->o->profile_cmd, *p;
	size_t n = strlen(cfg);
	char *cmd, *o;
	int pid, out[2];

	cmd = malloc(strlen(c) * (n + 1) + 1);
	if (!cmd)
		return dx_nomem();
	for (o = cmd, p = c; *p; p++) {
		if (p[0] == '%' && p[1] == 'c') {
			memcpy(o, cfg, n);
			o += n;
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	if (pipe(out)) {
		free(cmd);
		return -errno;
	}
	pid = fork();
	if (!pid) {
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		signal(SIGINT, SIG_DFL);
		setpgid(0, 0);		/* its own group: SIGINT reaches all */
		ab_exec_sh(cmd);
	}
	if (pid < 0)
		pid = -errno;	/* before close() and free() may change it */
	close(out[1]);
	free(cmd);
	if (pid < 0) {
		fprintf(stderr, "devmemx-rx: --profile-cmd: fork: %s\n",
			strerror(-pid));
	} else if (ab_profile_ready(out[0]) < 0) {
		fprintf(stderr, "devmemx-rx: --profile-cmd printed no line within %d s\n",
			AB_PROFILE_WAIT);
		ab_profile_stop(pid);
		pid = -ETIMEDOUT;
	}
	close(out[0]);
	return pid;
}

int ab_profile_stop(int pid)
{
	int st, i, w = 0;

	kill(-pid, SIGINT);
	for (i = 0; i < 600 && !(w = waitpid(pid, &st, WNOHANG)); i++)
		usleep(100000);
	if (w < 0)
		return -errno;
	if (!w) {
		fprintf(stderr, "devmemx-rx: --profile-cmd still runs 60 s after SIGINT: killed\n");
		kill(-pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -ETIMEDOUT;
	}
	/* perf record, ended by SIGINT, raises it again once it is done */
	if ((WIFEXITED(st) && !WEXITSTATUS(st)) ||
	    (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT))
		return 0;
	fprintf(stderr, "devmemx-rx: --profile-cmd failed (%s %d)\n",
		WIFEXITED(st) ? "exit" : "signal",
		WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return -EIO;
}

/* devmemx out for a netdev-nodx run; its last bindings may still drain. */
int ab_dx_unload(struct ab *a)
{
	int i;

	/* Quiet while the last bindings drain; the last try says why. */
	for (i = 0; i < 50; i++) {
		if (!ab_sh(a->o->unload_cmd, i < 49)) {
			a->dx_unloaded = true;
			return 0;
		}
		ab_flush_deferred();
		usleep(200000);
	}
	fprintf(stderr, "devmemx-rx: \"%s\" failed (devmemx must be unloaded for netdev-nodx runs)\n",
		a->o->unload_cmd);
	return -EBUSY;
}

int ab_dx_load(struct ab *a)
{
	if (!a->dx_unloaded)
		return 0;
	if (ab_sh(a->o->load_cmd, false)) {
		fprintf(stderr, "devmemx-rx: \"%s\" failed: devmemx is not loaded again\n",
			a->o->load_cmd);
		return -EIO;
	}
	a->dx_unloaded = false;
	return 0;
}

/* /proc/meminfo's MemAvailable in KiB, or -1. */
int64_t ab_mem_avail(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The unbind's end: no page pool carries binding @id and MemAvailable is
 * back within 16 MiB of @before (KiB; -1: pools only). Both providers may
 * free the binding's memory after its last pool went (in-tree: a worker
 * after an RCU grace period), and that is part of the unbind: the next
 * bind's figures would otherwise count the memory coming back. Polled
 * every 2 ms for a second, then every 10 ms, for up to 60 s: the time
 * from @t0 (ab_now()) until both held, or until the pools went if the
 * memory never came back (said); *@after the MemAvailable read last.
 */
double ab_wait_unbind(uint32_t id, double t0, int64_t before, int64_t *after)
{
	double pools = -1, now = t0;
	int64_t avail = -1;
	bool back = false;
	int i;

	for (i = 0; now - t0 < 60; i++) {
		ab_flush_deferred();
		now = ab_now();
		if (pools < 0 && ab_pp_count(id) <= 0)
			pools = now - t0;
		avail = ab_mem_avail();
		back = before < 0 || avail >= before - 16384;
		if (pools >= 0 && back) {
			*after = avail;
			return ab_now() - t0;
		}
		usleep(i < 500 ? 2000 : 10000);
	}
	*after = avail;
	if (pools < 0) {
		fprintf(stderr, "devmemx-rx: page pools of binding %u still live after 60 s\n",
			id);
		return now - t0;
	}
	fprintf(stderr, "devmemx-rx: binding %u: MemAvailable %" PRId64 " KiB below what it was before the bind 60 s after the unbind\n",
		id, before - avail);
	return pools;
}

/*
 * Wait (up to 10 s) until no page pool of io_uring zcrx is left (a binding's
 * unbind waits in ab_wait_unbind()).
 */
void ab_wait_zcrx_pools(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		ab_flush_deferred();
		if (ab_pp_count(0) <= 0)
			return;
		usleep(100000);
	}
	fprintf(stderr, "devmemx-rx: page pools of io_uring zcrx still live after 10 s\n");
}

/*
 * How to read busy time: on one CPU, /proc/schedstat after a sleep (every
 * other task has been switched out by then); on more, /proc/schedstat
 * after switching out each measured CPU's task (ab_kick(), which needs
 * SCHED_FIFO); else /proc/stat's ticks, and only for every CPU.
 */
int ab_cpu_setup(struct ab *a)
{
	const struct ab_opts *o = a->o;
	uint64_t ns;
	int ret;

	a->meas = o->cpus.n ? &o->cpus.set : NULL;
	a->ncpus = o->cpus.n ? o->cpus.n : sysconf(_SC_NPROCESSORS_ONLN);
	a->src = AB_SRC_TICKS;
	if (!ab_sched_read(a->meas, &ns)) {
		if (o->cpus.n) {
			fprintf(stderr, "devmemx-rx: --cpus needs /proc/schedstat (a kernel with CONFIG_SCHEDSTATS)\n");
			return -EOPNOTSUPP;
		}
		fprintf(stderr, "devmemx-rx: no /proc/schedstat: CPU time from /proc/stat's ticks, too coarse for runs shorter than minutes\n");
		return 0;
	}
	a->src = AB_SRC_SCHED;
	if (sysconf(_SC_NPROCESSORS_ONLN) == 1)
		return 0;
	ret = ab_kick(a->meas, NULL);
	if (!ret) {
		a->kick = true;
		return 0;
	}
	if (o->cpus.n) {
		fprintf(stderr, "devmemx-rx: --cpus: reading CPU time needs SCHED_FIFO: %s (run as root)\n",
			strerror(-ret));
		return ret;
	}
	a->src = AB_SRC_TICKS;
	fprintf(stderr, "devmemx-rx: cannot run as SCHED_FIFO (%s): CPU time from /proc/stat's ticks, too coarse for runs shorter than minutes\n",
		strerror(-ret));
	return 0;
}

/*
 * Whether @dev's NAPI runs in threads: a receive softirq that runs on an
 * otherwise idle CPU is no task's time, and where the kernel does not
 * account IRQ time (Debian's) /proc/stat counts it as idle.
 */
int ab_napi_check(const char *dev, bool pin)
{
	char path[64 + IF_NAMESIZE], v[16] = "";
	FILE *f;

	/*
	 * No parent device: a virtual one, e.g. a pod's netkit, whose leased
	 * queues are served by the physical device's NAPI, out of its sight.
	 */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", dev);
	if (access(path, F_OK)) {
		if (!pin)
			return -1;
		fprintf(stderr, "devmemx-rx: --napi-cpus, --napi-fifo: %s is a virtual device, its queues served by another's NAPI: place that device's NAPI threads with --bound-cmd\n",
			dev);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(v, sizeof(v), f))
		v[0] = 0;
	fclose(f);
	if (v[0] != '0')
		return 1;
	if (pin) {
		fprintf(stderr, "devmemx-rx: --napi-cpus: %s's NAPI is not threaded: echo 1 > /sys/class/net/%s/threaded\n",
			dev, dev);
		return -EINVAL;
	}
	fprintf(stderr, "devmemx-rx: %s's NAPI is not threaded: its receive softirqs on otherwise idle CPUs are no task's time and, without IRQ time accounting (Debian's kernels), count as idle; for CPU figures that include them: echo 1 > /sys/class/net/%s/threaded\n",
		dev, dev);
	return 0;
}

/* ---- NAPI threads and IRQs (--napi-cpus, --napi-fifo) ----------------- */

struct ab_napi_arg {
	unsigned int ifindex;
	uint32_t queue, napi;		/* in: the queue; out: its NAPI's id */
	int64_t pid, irq;		/* out: -1 when it has none */
};

static int ab_queue_napi(const struct dx_reply *r, void *arg)
{
	struct ab_napi_arg *a = arg;

	if (dx_reply_uint(r, NETDEV_A_QUEUE_IFINDEX) == a->ifindex &&
	    dx_reply_uint(r, NETDEV_A_QUEUE_TYPE) == NETDEV_QUEUE_TYPE_RX &&
	    r->tb[NETDEV_A_QUEUE_ID] &&
	    dx_reply_uint(r, NETDEV_A_QUEUE_ID) == a->queue)
		a->napi = dx_reply_uint(r, NETDEV_A_QUEUE_NAPI_ID);
	return 0;
}

static int ab_napi_one(const struct dx_reply *r, void *arg)
{
	struct ab_napi_arg *a = arg;

	if (!a->napi || dx_reply_uint(r, NETDEV_A_NAPI_ID) != a->napi)
		return 0;
	if (r->tb[NETDEV_A_NAPI_PID])
		a->pid = dx_reply_uint(r, NETDEV_A_NAPI_PID);
	if (r->tb[NETDEV_A_NAPI_IRQ])
		a->irq = dx_reply_uint(r, NETDEV_A_NAPI_IRQ);
	return 0;
}

/* Write @cpu as IRQ @irq's affinity: 0 or -errno. */
static int ab_irq_pin(int64_t irq, unsigned int cpu)
{
	char path[64];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/irq/%lld/smp_affinity_list",
		 (long long)irq);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%u\n", cpu) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* What --napi-fifo says of where the thread runs, after --napi-cpus's words. */
static void ab_napi_say(const char *dev, uint32_t queue, const struct ab_napi_arg *a,
			int cpu, bool irq, unsigned int fifo)
{
	fprintf(stderr, "devmemx-rx: %s's RX queue %u: NAPI thread %lld", dev,
		queue, (long long)a->pid);
	if (irq)
		fprintf(stderr, " and IRQ %lld", (long long)a->irq);
	if (cpu >= 0)
		fprintf(stderr, " on CPU %d", cpu);
	if (fifo)
		fprintf(stderr, " at SCHED_FIFO %u", fifo);
	fputc('\n', stderr);
}

int ab_napi_pin(unsigned int ifindex, const char *dev, uint32_t queue,
		int cpu, unsigned int fifo, bool say)
{
	struct ab_napi_arg a = { ifindex, queue, 0, -1, -1 };
	const char *opt = cpu >= 0 ? "--napi-cpus" : "--napi-fifo";
	struct sched_param sp = { .sched_priority = (int)fifo };
	cpu_set_t one;
	int ret;

	ret = dx_nl_dump("netdev", NETDEV_CMD_QUEUE_GET, NETDEV_A_QUEUE_MAX, 0,
			 0, ab_queue_napi, &a, "queue-get", 0);
	if (!ret && a.napi)
		ret = dx_nl_dump("netdev", NETDEV_CMD_NAPI_GET, NETDEV_A_NAPI_MAX,
				 0, 0, ab_napi_one, &a, "napi-get", 0);
	if (ret)
		return ret;
	if (!a.napi) {
		fprintf(stderr, "devmemx-rx: %s: %s's RX queue %u has no NAPI (is the device up?)\n",
			opt, dev, queue);
		return -ENOENT;
	}
	if (a.pid < 0) {
		fprintf(stderr, "devmemx-rx: %s: the NAPI of %s's RX queue %u (id %u) is not threaded: echo 1 > /sys/class/net/%s/threaded\n",
			opt, dev, queue, a.napi, dev);
		return -EINVAL;
	}
	if (fifo && sched_setscheduler(a.pid, SCHED_FIFO, &sp)) {
		ret = -errno;
		fprintf(stderr, "devmemx-rx: --napi-fifo: cannot run the NAPI thread of %s's RX queue %u (pid %lld) at SCHED_FIFO %u: %s\n",
			dev, queue, (long long)a.pid, fifo, strerror(-ret));
		return ret;
	}
	if (cpu < 0) {
		if (say)
			ab_napi_say(dev, queue, &a, cpu, false, fifo);
		return 0;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(a.pid, sizeof(one), &one)) {
		ret = -errno;
		fprintf(stderr, "devmemx-rx: --napi-cpus: cannot move the NAPI thread of %s's RX queue %u (pid %lld) to CPU %d: %s\n",
			dev, queue, (long long)a.pid, cpu, strerror(-ret));
		return ret;
	}
	/* A managed IRQ refuses (EIO): the kernel places it, and that is all. */
	ret = a.irq >= 0 ? ab_irq_pin(a.irq, cpu) : 0;
	if (ret && say)
		fprintf(stderr, "devmemx-rx: --napi-cpus: IRQ %lld of %s's RX queue %u stays where it is: %s\n",
			(long long)a.irq, dev, queue, strerror(-ret));
	if (say)
		ab_napi_say(dev, queue, &a, cpu, a.irq >= 0 && !ret, fifo);
	return 0;
}

/*
 * --bound-cmd by /bin/sh, without the signals ab blocks (Ctrl-C reaches
 * it): 0 when it exited 0.
 */
static int ab_bound_cmd(const char *cmd)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid)
		ab_exec_sh(cmd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

int ab_napi_queues(struct ab *a, bool say)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < a->ro.nqueues &&
		    (a->o->napi_cpus.n || a->o->napi_fifo); i++)
		ret = ab_napi_pin(a->ro.ifindex, a->o->dev, a->ro.queues[i],
				  a->o->napi_cpus.n ?
				  (int)a->o->napi_cpus.cpu[i % a->o->napi_cpus.n] : -1,
				  a->o->napi_fifo, say);
	if (!ret && a->o->bound_cmd && ab_bound_cmd(a->o->bound_cmd)) {
		fprintf(stderr, "devmemx-rx: --bound-cmd \"%s\" failed\n",
			a->o->bound_cmd);
		ret = -EIO;
	}
	return ret;
}
