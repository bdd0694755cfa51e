// SPDX-License-Identifier: GPL-2.0
/*
 * dx-vram [-r] SIZE: a dma-buf of SIZE bytes of device memory from the test
 * exporter (/dev/devmemx_vram; -r: revocable importers only), held as an
 * application holds its GPU buffer. Prints one line, "pid P fd F offset O
 * exp_name N mmap ERRNO-NAME", then waits until its standard input closes
 * (or it is killed) and exits, which drops its reference to the dma-buf.
 *
 * dx-vram revoke PID FD MS: revoke the dma-buf that process PID holds as fd
 * FD (taken with pidfd_getfd) and wait up to MS ms for its importers to
 * unmap it; prints "mappings left N" and how long that took.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux/devmemx_vram.h"
#include "dmabuf.h"
#include "util.h"

static int vram_revoke(char **argv)
{
	struct devmemx_vram_revoke req = { 0 };
	struct timespec t0, t1;
	int pidfd, fd, dev;

	pidfd = syscall(SYS_pidfd_open, atoi(argv[0]), 0);
	fd = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, atoi(argv[1]), 0);
	if (fd < 0) {
		fprintf(stderr, "dx-vram: fd %s of process %s: %s\n", argv[1],
			argv[0], strerror(errno));
		return 1;
	}
	req.fd = fd;
	req.timeout_ms = atoi(argv[2]);
	dev = open("/dev/devmemx_vram", O_RDWR | O_CLOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (dev < 0 || ioctl(dev, DEVMEMX_VRAM_REVOKE, &req)) {
		fprintf(stderr, "dx-vram: revoke: %s\n", strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("mappings left %u after %ld ms\n", req.mappings,
	       (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	return 0;
}

int main(int argc, char **argv)
{
	struct devmemx_vram_export req = { 0 };
	char name[64], c;
	void *map;
	int dev;

	dx_prog = "dx-vram";
	if (argc == 5 && !strcmp(argv[1], "revoke"))
		return vram_revoke(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "-r")) {
		req.flags = DEVMEMX_VRAM_REVOCABLE;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: dx-vram [-r] SIZE-IN-BYTES | dx-vram revoke PID FD MS\n");
		return 2;
	}
	req.size = strtoull(argv[1], NULL, 0);
	dev = open("/dev/devmemx_vram", O_RDWR | O_CLOEXEC);
	if (dev < 0 || ioctl(dev, DEVMEMX_VRAM_EXPORT, &req)) {
		fprintf(stderr, "dx-vram: export of %llu bytes: %s\n",
			(unsigned long long)req.size, strerror(errno));
		return 1;
	}
	dx_dmabuf_exporter(req.fd, name, sizeof(name));
	map = mmap(NULL, req.size, PROT_READ, MAP_SHARED, req.fd, 0);
	printf("pid %d fd %d offset %llu exp_name %s mmap %s\n", getpid(),
	       req.fd, (unsigned long long)req.offset, name,
	       map == MAP_FAILED ? strerrorname_np(errno) : "ok");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
