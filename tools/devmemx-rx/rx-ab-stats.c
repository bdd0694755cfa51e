// SPDX-License-Identifier: GPL-2.0
/*
 * The counters devmemx-rx ab reads around each run: whole-machine CPU
 * (/proc/stat), per-queue qstats and page-pool stats (netdev family), the
 * simulated NIC's device time (ethtool -S), and struct sizes from the
 * running kernel's BTF.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/btf.h>
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

/*
 * Switch out the task running on each CPU of @set (NULL: every CPU), so
 * that /proc/schedstat holds its run time up to now: this thread visits
 * each CPU as a SCHED_FIFO task of the highest priority, which preempts
 * it there. 0, or -errno (-EPERM without CAP_SYS_NICE).
 */
int ab_kick(const cpu_set_t *set)
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
	sched_setaffinity(0, sizeof(old), &old);
	sched_setscheduler(0, SCHED_OTHER, &other);
	return ret;
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

static uint64_t nla_u(const struct dx_reply *r, int attr)
{
	return r->tb[attr] ? dx_nla_uint(r->tb[attr]) : 0;
}

static int ab_qstats_one(const struct dx_reply *r, void *arg)
{
	struct ab_qarg *a = arg;
	unsigned int i;
	uint32_t id;

	if (nla_u(r, NETDEV_A_QSTATS_IFINDEX) != a->ifindex ||
	    !r->tb[NETDEV_A_QSTATS_QUEUE_ID] ||
	    nla_u(r, NETDEV_A_QSTATS_QUEUE_TYPE) != NETDEV_QUEUE_TYPE_RX)
		return 0;
	id = nla_u(r, NETDEV_A_QSTATS_QUEUE_ID);
	for (i = 0; i < a->nqueues && a->queues[i] != id; i++)
		;
	if (i == a->nqueues)
		return 0;
	a->q->packets += nla_u(r, NETDEV_A_QSTATS_RX_PACKETS);
	a->q->bytes += nla_u(r, NETDEV_A_QSTATS_RX_BYTES);
	a->q->gro_packets += nla_u(r, NETDEV_A_QSTATS_RX_HW_GRO_PACKETS);
	a->q->gro_bytes += nla_u(r, NETDEV_A_QSTATS_RX_HW_GRO_BYTES);
	a->q->gro_wire_packets += nla_u(r, NETDEV_A_QSTATS_RX_HW_GRO_WIRE_PACKETS);
	return 0;
}

int ab_qstats_read(unsigned int ifindex, const uint32_t *queues,
		   unsigned int nqueues, struct ab_qstats *q)
{
	struct ab_qarg a = { ifindex, queues, nqueues, q };

	memset(q, 0, sizeof(*q));
	return rx_netdev_dump(NETDEV_CMD_QSTATS_GET, NETDEV_A_QSTATS_MAX,
			      NETDEV_QSTATS_SCOPE_QUEUE, ab_qstats_one, &a,
			      "qstats-get", 0);
}

/* ---- NAPI threads and IRQs (--napi-cpus) ------------------------------ */

struct ab_napi_arg {
	unsigned int ifindex;
	uint32_t queue, napi;		/* in: the queue; out: its NAPI's id */
	int64_t pid, irq;		/* out: -1 when it has none */
};

static int ab_queue_napi(const struct dx_reply *r, void *arg)
{
	struct ab_napi_arg *a = arg;

	if (nla_u(r, NETDEV_A_QUEUE_IFINDEX) == a->ifindex &&
	    nla_u(r, NETDEV_A_QUEUE_TYPE) == NETDEV_QUEUE_TYPE_RX &&
	    r->tb[NETDEV_A_QUEUE_ID] &&
	    nla_u(r, NETDEV_A_QUEUE_ID) == a->queue)
		a->napi = nla_u(r, NETDEV_A_QUEUE_NAPI_ID);
	return 0;
}

static int ab_napi_one(const struct dx_reply *r, void *arg)
{
	struct ab_napi_arg *a = arg;

	if (!a->napi || nla_u(r, NETDEV_A_NAPI_ID) != a->napi)
		return 0;
	if (r->tb[NETDEV_A_NAPI_PID])
		a->pid = nla_u(r, NETDEV_A_NAPI_PID);
	if (r->tb[NETDEV_A_NAPI_IRQ])
		a->irq = nla_u(r, NETDEV_A_NAPI_IRQ);
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

int ab_napi_pin(unsigned int ifindex, const char *dev, uint32_t queue,
		unsigned int cpu, bool say)
{
	struct ab_napi_arg a = { ifindex, queue, 0, -1, -1 };
	cpu_set_t one;
	int ret;

	ret = rx_netdev_dump(NETDEV_CMD_QUEUE_GET, NETDEV_A_QUEUE_MAX, 0,
			     ab_queue_napi, &a, "queue-get", 0);
	if (!ret && a.napi)
		ret = rx_netdev_dump(NETDEV_CMD_NAPI_GET, NETDEV_A_NAPI_MAX, 0,
				     ab_napi_one, &a, "napi-get", 0);
	if (ret)
		return ret;
	if (!a.napi) {
		fprintf(stderr, "devmemx-rx: --napi-cpus: %s's RX queue %u has no NAPI (is the device up?)\n",
			dev, queue);
		return -ENOENT;
	}
	if (a.pid < 0) {
		fprintf(stderr, "devmemx-rx: --napi-cpus: the NAPI of %s's RX queue %u (id %u) is not threaded: echo 1 > /sys/class/net/%s/threaded\n",
			dev, queue, a.napi, dev);
		return -EINVAL;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(a.pid, sizeof(one), &one)) {
		ret = -errno;
		fprintf(stderr, "devmemx-rx: --napi-cpus: cannot move the NAPI thread of %s's RX queue %u (pid %lld) to CPU %u: %s\n",
			dev, queue, (long long)a.pid, cpu, strerror(-ret));
		return ret;
	}
	/* A managed IRQ refuses (EIO): the kernel places it, and that is all. */
	ret = a.irq >= 0 ? ab_irq_pin(a.irq, cpu) : 0;
	if (ret && say)
		fprintf(stderr, "devmemx-rx: --napi-cpus: IRQ %lld of %s's RX queue %u stays where it is: %s\n",
			(long long)a.irq, dev, queue, strerror(-ret));
	if (say && a.irq >= 0 && !ret)
		fprintf(stderr, "devmemx-rx: %s's RX queue %u: NAPI thread %lld and IRQ %lld on CPU %u\n",
			dev, queue, (long long)a.pid, (long long)a.irq, cpu);
	else if (say)
		fprintf(stderr, "devmemx-rx: %s's RX queue %u: NAPI thread %lld on CPU %u\n",
			dev, queue, (long long)a.pid, cpu);
	return 0;
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
	return rx_netdev_dump(NETDEV_CMD_PAGE_POOL_GET, NETDEV_A_PAGE_POOL_MAX,
			      0, ab_pool_one, p, "page-pool-get", 0);
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
		p->pp[i] += nla_u(r, ab_pp_attrs[i]);
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
	ret = rx_netdev_dump(NETDEV_CMD_PAGE_POOL_STATS_GET,
			     NETDEV_A_PAGE_POOL_STATS_MAX, 0, ab_pp_one, &p,
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

/* ---- BTF --------------------------------------------------------------- */

/* Bytes of type data that follow a btf_type of @kind with @vlen members. */
static long ab_btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

static char *ab_read_file(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf)
		goto fail;
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
	}
	if (r < 0)
		goto fail;
	close(fd);
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Walk the type section for a struct named @name; its size or -errno. */
static long ab_btf_find(const char *b, size_t len, const char *name)
{
	const struct btf_header *h = (const void *)b;
	const char *types, *strs, *p, *end;
	const struct btf_type *t;
	long extra;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len)
		return -EPROTO;
	types = b + h->hdr_len + h->type_off;
	strs = b + h->hdr_len + h->str_off;
	end = types + h->type_len;
	for (p = types; p + sizeof(*t) <= end; p += sizeof(*t) + extra) {
		t = (const void *)p;
		extra = ab_btf_extra(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
		if (extra < 0)
			return -EPROTO;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
		    t->name_off < h->str_len && !strcmp(strs + t->name_off, name))
			return t->size;
	}
	return -ENOENT;
}

long ab_btf_struct_size(const char *name)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	size_t len = 0;
	char *b;
	long ret;

	b = ab_read_file(path, &len);
	if (!b) {
		fprintf(stderr, "devmemx-rx: cannot read %s: %s (in-tree metadata is not computed)\n",
			path, strerror(errno));
		return -errno;
	}
	ret = ab_btf_find(b, len, name);
	free(b);
	if (ret < 0)
		fprintf(stderr, "devmemx-rx: no struct %s in %s\n", name, path);
	return ret;
}

/* ---- slabs ------------------------------------------------------------- */

/*
 * /proc/slabinfo (version 2.1): "name active_objs num_objs objsize ...".
 * Objects in per-CPU sheaves and slabs count as in use, so a delta is
 * exact only for a cache with a debug flag (slub_debug=F,CACHE), which
 * has neither.
 */
int ab_slab_read(const char *name, uint64_t *objs, uint64_t *size)
{
	char line[512], n[128];
	unsigned long long active, total, osz;
	FILE *f = fopen("/proc/slabinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu %llu %llu", n, &active, &total,
			   &osz) != 4 || strcmp(n, name))
			continue;
		*objs = active;
		*size = osz;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* ---- deferred skbs ----------------------------------------------------- */

/*
 * Freed skbs wait on the per-CPU defer list of the CPU that received them
 * until that CPU next runs NET_RX, holding their page pool (and binding)
 * until then. A loopback datagram sent from each CPU runs it there.
 */
void ab_flush_deferred(void)
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
