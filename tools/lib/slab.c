// SPDX-License-Identifier: GPL-2.0
/* /proc/slabinfo (version 2.1): "name active_objs num_objs objsize ...". */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
