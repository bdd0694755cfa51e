// SPDX-License-Identifier: GPL-2.0
/*
 * The counters devmemx-rx ab reads around each run, changing nothing:
 * whole-machine CPU (/proc/stat, /proc/schedstat), tasks' run time,
 * per-queue qstats and page-pool stats (netdev family), and the simulated
 * NIC's device time (ethtool -S). What changes the system to read them
 * (ab_kick) is in rx-ab-env.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/netdev.h>
#include <linux/sockios.h>

#include "rx-ab.h"


double ab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

long ab_clk_tck(void)
{
	return sysconf(_SC_CLK_TCK);
}

int ab_cpu_read(uint64_t cpu[AB_NCPU])
{
	unsigned long long v[AB_NCPU] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n, i;

	if (!f) {
		fprintf(stderr, "devmemx-rx: /proc/stat: %s\n", strerror(errno));
		return -errno;
	}
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7) {
		fprintf(stderr, "devmemx-rx: /proc/stat: no cpu line\n");
		return -EPROTO;
	}
	for (i = 0; i < AB_NCPU; i++)
		cpu[i] = v[i];
	return 0;
}

/*
 * Field 7 of each cpu line: the time tasks other than idle ran there, from
 * sched_clock (ns), not sampled by the tick as /proc/stat's fields are. A
 * task's slice is added when it is switched out (ab_kick()).
 */
bool ab_sched_read(const cpu_set_t *set, uint64_t *ns)
{
	unsigned long long v[7];
	unsigned int cpu;
	char line[512];
	bool any = false;
	FILE *f;

	*ns = 0;
	f = fopen("/proc/schedstat", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu", 3) ||
		    sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 8)
			continue;
		if (set && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, set)))
			continue;
		*ns += v[6];
		any = true;
	}
	fclose(f);
	return any;
}

static bool ab_comm_matches(const char *comm, const char *prefixes)
{
	const char *p = prefixes, *end;

	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		if (end > p && !strncmp(comm, p, end - p))
			return true;
	}
	return false;
}

int ab_tasks_ns(const char *prefixes, uint64_t *ns)
{
	char path[sizeof("/proc//schedstat") + NAME_MAX], comm[64];
	unsigned long long run;
	unsigned int found = 0;
	struct dirent *d;
	FILE *f;
	DIR *dir;

	*ns = 0;
	dir = opendir("/proc");
	if (!dir) {
		fprintf(stderr, "devmemx-rx: /proc: %s\n", strerror(errno));
		return -errno;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* gone since readdir */
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (!ab_comm_matches(comm, prefixes))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/schedstat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &run) == 1) {
			*ns += run;
			found++;
		}
		fclose(f);
	}
	closedir(dir);
	if (!found) {
		fprintf(stderr, "devmemx-rx: --sender-tasks %s: no task's name starts with any of these (see /proc/*/comm)\n",
			prefixes);
		return -ESRCH;
	}
	return 0;
}

/* ---- netdev family dumps ---------------------------------------------- */

struct ab_qarg {
	unsigned int ifindex;
	const uint32_t *queues;
	unsigned int nqueues;
	struct ab_qstats *q;
};

static int ab_qstats_one(const struct dx_reply *r, void *arg)
{
	struct ab_qarg *a = arg;
	unsigned int i;
	uint32_t id;

	if (dx_reply_uint(r, NETDEV_A_QSTATS_IFINDEX) != a->ifindex ||
	    !r->tb[NETDEV_A_QSTATS_QUEUE_ID] ||
	    dx_reply_uint(r, NETDEV_A_QSTATS_QUEUE_TYPE) != NETDEV_QUEUE_TYPE_RX)
		return 0;
	id = dx_reply_uint(r, NETDEV_A_QSTATS_QUEUE_ID);
	for (i = 0; i < a->nqueues && a->queues[i] != id; i++)
		;
	if (i == a->nqueues)
		return 0;
	a->q->packets += dx_reply_uint(r, NETDEV_A_QSTATS_RX_PACKETS);
	a->q->bytes += dx_reply_uint(r, NETDEV_A_QSTATS_RX_BYTES);
	a->q->gro_packets += dx_reply_uint(r, NETDEV_A_QSTATS_RX_HW_GRO_PACKETS);
	a->q->gro_bytes += dx_reply_uint(r, NETDEV_A_QSTATS_RX_HW_GRO_BYTES);
	a->q->gro_wire_packets += dx_reply_uint(r, NETDEV_A_QSTATS_RX_HW_GRO_WIRE_PACKETS);
	return 0;
}

int ab_qstats_read(unsigned int ifindex, const uint32_t *queues,
		   unsigned int nqueues, struct ab_qstats *q)
{
	struct ab_qarg a = { ifindex, queues, nqueues, q };

	memset(q, 0, sizeof(*q));
	return dx_nl_dump("netdev", NETDEV_CMD_QSTATS_GET, NETDEV_A_QSTATS_MAX,
			  NETDEV_A_QSTATS_SCOPE, NETDEV_QSTATS_SCOPE_QUEUE,
			  ab_qstats_one, &a, "qstats-get", 0);
}

#define AB_MAX_POOLS	64

struct ab_pools {
	uint32_t id;			/* the binding; 0: zcrx's pools */
	uint64_t pools[AB_MAX_POOLS];
	unsigned int n;
	uint64_t *pp;
};

static int ab_pool_one(const struct dx_reply *r, void *arg)
{
	struct ab_pools *p = arg;

	if (!r->tb[NETDEV_A_PAGE_POOL_ID] || p->n == AB_MAX_POOLS)
		return 0;
	if (p->id ? !r->tb[NETDEV_A_PAGE_POOL_DMABUF] ||
		    nla_get_u32(r->tb[NETDEV_A_PAGE_POOL_DMABUF]) != p->id :
		    !r->tb[NETDEV_A_PAGE_POOL_IO_URING])
		return 0;
	p->pools[p->n++] = dx_nla_uint(r->tb[NETDEV_A_PAGE_POOL_ID]);
	return 0;
}

static int ab_pools_of(uint32_t id, struct ab_pools *p)
{
	p->id = id;
	p->n = 0;
	return dx_nl_dump("netdev", NETDEV_CMD_PAGE_POOL_GET,
			  NETDEV_A_PAGE_POOL_MAX, 0, 0, ab_pool_one, p,
			  "page-pool-get", 0);
}

int ab_pp_count(uint32_t id)
{
	struct ab_pools p;
	int ret = ab_pools_of(id, &p);

	return ret ? ret : (int)p.n;
}

static const int ab_pp_attrs[AB_NPP] = {
	[PP_FAST] = NETDEV_A_PAGE_POOL_STATS_ALLOC_FAST,
	[PP_SLOW] = NETDEV_A_PAGE_POOL_STATS_ALLOC_SLOW,
	[PP_SLOW_HO] = NETDEV_A_PAGE_POOL_STATS_ALLOC_SLOW_HIGH_ORDER,
	[PP_EMPTY] = NETDEV_A_PAGE_POOL_STATS_ALLOC_EMPTY,
	[PP_REFILL] = NETDEV_A_PAGE_POOL_STATS_ALLOC_REFILL,
	[PP_WAIVE] = NETDEV_A_PAGE_POOL_STATS_ALLOC_WAIVE,
	[PP_REC_CACHED] = NETDEV_A_PAGE_POOL_STATS_RECYCLE_CACHED,
	[PP_REC_CACHE_FULL] = NETDEV_A_PAGE_POOL_STATS_RECYCLE_CACHE_FULL,
	[PP_REC_RING] = NETDEV_A_PAGE_POOL_STATS_RECYCLE_RING,
	[PP_REC_RING_FULL] = NETDEV_A_PAGE_POOL_STATS_RECYCLE_RING_FULL,
	[PP_REC_RELEASED] = NETDEV_A_PAGE_POOL_STATS_RECYCLE_RELEASED_REFCNT,
};

static int ab_pp_one(const struct dx_reply *r, void *arg)
{
	struct nlattr *info[NETDEV_A_PAGE_POOL_MAX + 1];
	struct ab_pools *p = arg;
	uint64_t id;
	unsigned int i;

	if (!r->tb[NETDEV_A_PAGE_POOL_STATS_INFO] ||
	    nla_parse_nested(info, NETDEV_A_PAGE_POOL_MAX,
			     r->tb[NETDEV_A_PAGE_POOL_STATS_INFO], NULL) ||
	    !info[NETDEV_A_PAGE_POOL_ID])
		return 0;
	id = dx_nla_uint(info[NETDEV_A_PAGE_POOL_ID]);
	for (i = 0; i < p->n && p->pools[i] != id; i++)
		;
	if (i == p->n)
		return 0;
	for (i = 0; i < AB_NPP; i++)
		p->pp[i] += dx_reply_uint(r, ab_pp_attrs[i]);
	return 0;
}

int ab_pp_read(uint32_t id, uint64_t pp[AB_NPP], bool *have)
{
	struct ab_pools p = { .pp = pp };
	int ret;

	memset(pp, 0, AB_NPP * sizeof(*pp));
	*have = false;
	ret = ab_pools_of(id, &p);
	if (ret || !p.n)
		return ret;
	/* Kernels without CONFIG_PAGE_POOL_STATS lack the command. */
	ret = dx_nl_dump("netdev", NETDEV_CMD_PAGE_POOL_STATS_GET,
			 NETDEV_A_PAGE_POOL_STATS_MAX, 0, 0, ab_pp_one, &p,
			 "page-pool-stats-get", EOPNOTSUPP);
	if (ret == -EOPNOTSUPP)
		return 0;
	*have = !ret;
	return ret;
}

/* ---- ethtool -S -------------------------------------------------------- */

static int ab_ethtool(int fd, const char *dev, void *data)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static int ab_nstats(int fd, const char *dev)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_STATS } };
	int ret = ab_ethtool(fd, dev, &info);

	if (ret)
		return ret;
	return info.hdr.sset_mask ? (int)info.len : 0;
}

/* Is @name "rx<N>_device_ns"? */
static bool ab_device_stat(const char *name)
{
	char tail[ETH_GSTRING_LEN];
	unsigned int q;

	return sscanf(name, "rx%u_%31s", &q, tail) == 2 &&
	       !strcmp(tail, "device_ns");
}

int ab_device_ns(const char *dev, uint64_t *ns, bool *have)
{
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *val = NULL;
	int fd, n, i, ret;

	*ns = 0;
	*have = false;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = ab_nstats(fd, dev);
	ret = n < 0 ? n : 0;
	if (n <= 0)
		goto out;
	str = calloc(1, sizeof(*str) + (size_t)n * ETH_GSTRING_LEN);
	val = calloc(1, sizeof(*val) + (size_t)n * sizeof(uint64_t));
	if (!str || !val) {
		ret = dx_nomem();
		goto out;
	}
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_STATS;
	str->len = n;
	val->cmd = ETHTOOL_GSTATS;
	val->n_stats = n;
	ret = ab_ethtool(fd, dev, str);
	if (!ret)
		ret = ab_ethtool(fd, dev, val);
	for (i = 0; !ret && i < n && i < (int)val->n_stats; i++) {
		char name[ETH_GSTRING_LEN + 1] = { 0 };

		memcpy(name, str->data + (size_t)i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		if (ab_device_stat(name)) {
			*ns += val->data[i];
			*have = true;
		}
	}
out:
	if (ret)
		fprintf(stderr, "devmemx-rx: ethtool -S %s: %s\n", dev,
			strerror(-ret));
	free(str);
	free(val);
	close(fd);
	return ret;
}
