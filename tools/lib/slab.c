// SPDX-License-Identifier: GPL-2.0
/* /proc/slabinfo (version 2.1): "name active_objs num_objs objsize ...". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include "slab.h"

int dx_slab_read(const char *name, uint64_t *objs, uint64_t *size)
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

/*
 * dx_slab_read() once the count has settled. An xarray frees a node after
 * an RCU grace period (xa_node_free(): call_rcu()): right after nodes were
 * emptied (SO_DEVMEM_DONTNEED erasing a socket's tokens), the slab still
 * counts nodes no xarray holds any more. Each round waits for a grace
 * period (membarrier's GLOBAL command is synchronize_rcu(); without it, a
 * few jiffies) and 10 ms more for the callbacks to run; settled when three
 * reads in a row agree, or after DX_SLAB_SETTLE_ROUNDS rounds with the
 * last read.
 */
#define DX_SLAB_SETTLE_ROUNDS 100

int dx_slab_read_settled(const char *name, uint64_t *objs, uint64_t *size)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	uint64_t last = 0;
	int i, same = 0, ret;

	for (i = 0; i < DX_SLAB_SETTLE_ROUNDS && same < 2; i++) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			tick.tv_nsec = 50 * 1000 * 1000;
		nanosleep(&tick, NULL);
		ret = dx_slab_read(name, objs, size);
		if (ret)
			return ret;
		same = i && *objs == last ? same + 1 : 0;
		last = *objs;
	}
	return 0;
}
