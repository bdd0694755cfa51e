// SPDX-License-Identifier: GPL-2.0
/* A dma-buf to bind: see dmabuf.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/memfd.h>
#include <linux/udmabuf.h>
#include <linux/devmemx_vram.h>

#include "dmabuf.h"
#include "util.h"

#define SIZE_LIMIT_PARAM "/sys/module/udmabuf/parameters/size_limit_mb"

static int sys_err(const char *what)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s\n", dx_prog, what, strerror(err));
	return -err;
}

/* A device node we could not open: say what would help. */
static int open_err(const char *path, const char *missing_hint)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s (%s)\n", dx_prog, path, strerror(err),
		err == EACCES || err == EPERM ?
		"run as root, or give this user access to it" : missing_hint);
	return -err;
}

/* Why UDMABUF_CREATE said EINVAL: most often the module's size limit. */
static void udmabuf_explain(size_t size)
{
	unsigned long mb = 0;
	FILE *f = fopen(SIZE_LIMIT_PARAM, "r");

	if (f) {
		if (fscanf(f, "%lu", &mb) != 1)
			mb = 0;
		fclose(f);
	}
	if (mb && size > (size_t)mb << 20)
		fprintf(stderr, "%s: a udmabuf of %zu MiB is over udmabuf.size_limit_mb=%lu: raise it (udmabuf.size_limit_mb= on the kernel command line, or %s) or use a smaller --udmabuf\n",
			dx_prog, size >> 20, mb, SIZE_LIMIT_PARAM);
	else
		fprintf(stderr, "%s: UDMABUF_CREATE refused the memfd: Invalid argument\n",
			dx_prog);
}

static int udmabuf_memfd(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	unsigned int flags = MFD_ALLOW_SEALING | MFD_CLOEXEC;

	if (s->hugetlb)
		flags |= MFD_HUGETLB | MFD_HUGE_2MB;
	b->memfd = memfd_create(dx_prog, flags);
	if (b->memfd < 0)
		return sys_err(s->hugetlb ? "memfd_create(MFD_HUGETLB)" :
			       "memfd_create");
	if (ftruncate(b->memfd, b->size)) {
		if (!s->hugetlb)
			return sys_err("ftruncate of the memfd");
		fprintf(stderr, "%s: cannot size a %zu MiB hugetlb memfd: %s (reserve 2M huge pages: echo N > /proc/sys/vm/nr_hugepages)\n",
			dx_prog, b->size >> 20, strerror(errno));
		return -EINVAL;
	}
	if (fcntl(b->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		return sys_err("sealing the memfd (F_SEAL_SHRINK)");
	return 0;
}

static int udmabuf_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	struct udmabuf_create req = { 0 };
	int dev, ret, err;

	ret = udmabuf_memfd(b, s);
	if (ret)
		return ret;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return open_err("/dev/udmabuf",
				"is CONFIG_UDMABUF on? try --dma-heap system SIZE");
	req.memfd = b->memfd;
	req.flags = UDMABUF_FLAGS_CLOEXEC;
	req.offset = 0;
	req.size = b->size;
	b->fd = ioctl(dev, UDMABUF_CREATE, &req);
	err = errno;
	close(dev);
	if (b->fd < 0) {
		if (err == EINVAL) {
			udmabuf_explain(b->size);
		} else if (s->hugetlb && err == ENOMEM) {
			fprintf(stderr, "%s: UDMABUF_CREATE: %s (not enough free 2M huge pages for %zu MiB: echo N > /proc/sys/vm/nr_hugepages)\n",
				dx_prog, strerror(err), b->size >> 20);
		} else {
			fprintf(stderr, "%s: UDMABUF_CREATE: %s\n", dx_prog,
				strerror(err));
		}
		return -err;
	}
	b->map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, b->memfd, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return sys_err("mmap of the memfd");
	}
	return 0;
}

static int heap_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	struct dma_heap_allocation_data req = { 0 };
	char path[256];
	int heap, err;

	snprintf(path, sizeof(path), "/dev/dma_heap/%s", s->heap);
	heap = open(path, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return open_err(path, "see: ls /dev/dma_heap");
	req.len = b->size;
	req.fd_flags = O_RDWR | O_CLOEXEC;
	err = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &req) ? errno : 0;
	close(heap);
	if (err) {
		fprintf(stderr, "%s: DMA_HEAP_IOCTL_ALLOC of %zu bytes from %s: %s\n",
			dx_prog, b->size, path, strerror(err));
		return -err;
	}
	b->fd = req.fd;
	b->sync = true;
	b->map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, b->fd, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return sys_err("mmap of the dma-heap buffer");
	}
	return 0;
}

/*
 * Device memory, as a GPU driver hands it out: a dma-buf that cannot be
 * mapped, read back through the device that exported it.
 */
static int vram_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	struct devmemx_vram_export req = {
		.size = b->size,
		.flags = (s->revocable ? DEVMEMX_VRAM_REVOCABLE : 0) |
			 (s->tail_first ? DEVMEMX_VRAM_TAIL_FIRST : 0) |
			 (s->p2pdma ? DEVMEMX_VRAM_P2PDMA : 0),
	};
	const char *path = s->vram_dev ?: "/dev/devmemx_vram";

	b->dev_fd = open(path, O_RDWR | O_CLOEXEC);
	if (b->dev_fd < 0)
		return open_err(path, "load devmemx_vram: it needs a QEMU ivshmem-plain device");
	if (ioctl(b->dev_fd, DEVMEMX_VRAM_EXPORT, &req)) {
		int err = errno;

		fprintf(stderr, "%s: DEVMEMX_VRAM_EXPORT of %zu bytes: %s%s\n",
			dx_prog, b->size, strerror(err),
			err == ENOSPC ? " (the device memory is full: a smaller --vram)" :
			err == EOPNOTSUPP && s->p2pdma ? " (the kernel has no p2pdma: CONFIG_PCI_P2PDMA)" : "");
		return -err;
	}
	b->fd = req.fd;
	b->dev_off = req.offset;
	b->dev_rot = s->tail_first ? DEVMEMX_VRAM_TAIL : 0;
	return 0;
}

/* Whether @fd is a dma-buf ("/dmabuf:NAME"); true when /proc cannot tell. */
static bool is_dmabuf(int fd, char *what, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, what, size - 1);
	if (n < 0)
		return true;
	what[n] = '\0';
	return !strncmp(what, "/dmabuf:", 8);
}

int dx_dmabuf_take(int pid, int fd)
{
	const char *why = NULL;
	char what[256];
	int pidfd, ours, err;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		err = errno;
		fprintf(stderr, "%s: pidfd_open of process %d: %s\n", dx_prog,
			pid, strerror(err));
		return -err;
	}
	ours = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	err = errno;
	close(pidfd);
	if (ours < 0) {
		if (err == EBADF)
			why = "no such fd in that process";
		else if (err == EPERM)
			why = "taking another process's fd needs ptrace access to it: run as its user or with CAP_SYS_PTRACE (see kernel.yama.ptrace_scope)";
		fprintf(stderr, "%s: pidfd_getfd of fd %d of process %d: %s%s%s%s\n",
			dx_prog, fd, pid, strerror(err), why ? " (" : "",
			why ? why : "", why ? ")" : "");
		return -err;
	}
	if (!is_dmabuf(ours, what, sizeof(what))) {
		fprintf(stderr, "%s: fd %d of process %d is not a dma-buf (it is %s)\n",
			dx_prog, fd, pid, what);
		close(ours);
		return -EBADF;
	}
	return ours;
}

void dx_dmabuf_exporter(int fd, char *name, size_t size)
{
	char path[64], line[256], exp[256];
	FILE *f;

	snprintf(name, size, "?");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "exp_name: %255s", exp) == 1) {
			snprintf(name, size, "%s", exp);
			break;
		}
	fclose(f);
}

/* Process @pid's name (/proc/PID/comm) into @comm, "?" when gone. */
static void proc_comm(int pid, char *comm, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(comm, size, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, size, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

int dx_dmabuf_holders(uint64_t ino, dx_holder_fn fn, void *arg)
{
	char path[64], link[64], comm[32];
	struct dirent *p, *d;
	DIR *procs, *fds;
	struct stat st;
	int found = 0, pid, fd;
	ssize_t n;

	procs = opendir("/proc");
	if (!procs)
		return -errno;
	while ((p = readdir(procs))) {
		pid = atoi(p->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;	/* gone, or not ours to see */
		comm[0] = '\0';
		while ((d = readdir(fds))) {
			fd = atoi(d->d_name);
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
			n = readlink(path, link, sizeof(link) - 1);
			if (n < 8 || strncmp(link, "/dmabuf:", 8) ||
			    stat(path, &st) || (uint64_t)st.st_ino != ino)
				continue;
			if (!comm[0])
				proc_comm(pid, comm, sizeof(comm));
			fn(pid, comm, fd, arg);
			found++;
		}
		closedir(fds);
	}
	closedir(procs);
	return found;
}

/*
 * Another process's dma-buf (a GPU buffer its application exported): read
 * back through a CPU mapping where the exporter allows one; GPU exporters
 * refuse mmap, and then only the owner can read it.
 */
static int held_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	off_t end;

	b->fd = dx_dmabuf_take(s->pid, s->fd);
	if (b->fd < 0)
		return b->fd;
	end = lseek(b->fd, 0, SEEK_END);
	if (end <= 0)
		return sys_err("the size of the dma-buf (lseek)");
	b->size = end;
	b->map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, b->fd, 0);
	if (b->map == MAP_FAILED)
		b->map = NULL;
	b->sync = b->map;
	return 0;
}

bool dx_dmabuf_readable(const struct dx_dmabuf *b)
{
	return b->map || b->dev_fd >= 0;
}

int dx_dmabuf_check(const struct dx_dmabuf_spec *s)
{
	if (s->hugetlb && s->kind != DX_UDMABUF)
		return dx_bad_usage("--hugetlb goes with --udmabuf, not %s",
				    s->kind == DX_VRAM ? "--vram" :
				    s->kind == DX_VFIO ? "--vfio" :
				    s->kind == DX_HELD ? "--pid/--fd" : "--dma-heap");
	if (s->revocable && s->kind != DX_VRAM)
		return dx_bad_usage("--revocable goes with --vram");
	if (s->tail_first && s->kind != DX_VRAM)
		return dx_bad_usage("--tail-first goes with --vram");
	if (s->p2pdma && s->kind != DX_VRAM)
		return dx_bad_usage("--p2pdma goes with --vram");
	if (s->vram_dev && s->kind != DX_VRAM)
		return dx_bad_usage("--vram-dev goes with --vram");
	if (s->kind == DX_HELD)
		return s->held_set == 3 ? 0 :
		       dx_bad_usage("--pid PID and --fd FD go together");
	if (s->tail_first && (s->size % DEVMEMX_VRAM_TAIL ||
			      s->size < 2 * DEVMEMX_VRAM_TAIL))
		return dx_bad_usage("--tail-first needs a --vram size of whole GiBs, 2G or more");
	if (!s->size)
		return dx_bad_usage("the dma-buf size must not be 0");
	if (s->hugetlb && s->size % (2 << 20))
		return dx_bad_usage("--udmabuf size must be a multiple of 2M with --hugetlb");
	if (s->size % getpagesize())
		return dx_bad_usage("the dma-buf size must be a multiple of the page size (4K)");
	return 0;
}

int dx_dmabuf_create(struct dx_dmabuf *b, const struct dx_dmabuf_spec *s)
{
	int ret;

	b->fd = -1;
	b->memfd = -1;
	b->map = NULL;
	b->sync = false;
	b->size = s->size;
	b->dev_fd = -1;
	b->dev_off = 0;
	b->dev_rot = 0;
	b->scratch = NULL;
	b->scratch_len = 0;
	b->vfio_group = -1;
	b->vfio_container = -1;
	if (s->kind == DX_DMA_HEAP)
		ret = heap_create(b, s);
	else if (s->kind == DX_VRAM)
		ret = vram_create(b, s);
	else if (s->kind == DX_VFIO)
		ret = dx_vfio_create(b, s->vfio);
	else if (s->kind == DX_HELD)
		ret = held_create(b, s);
	else
		ret = udmabuf_create(b, s);
	if (ret)
		dx_dmabuf_destroy(b);
	return ret;
}

static int dmabuf_sync(struct dx_dmabuf *b, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags | DMA_BUF_SYNC_READ };

	if (!b->sync)
		return 0;
	while (ioctl(b->fd, DMA_BUF_IOCTL_SYNC, &s)) {
		if (errno == EINTR || errno == EAGAIN)
			continue;
		return sys_err("DMA_BUF_IOCTL_SYNC");
	}
	return 0;
}

int dx_dmabuf_begin_read(struct dx_dmabuf *b)
{
	return dmabuf_sync(b, DMA_BUF_SYNC_START);
}

const uint8_t *dx_dmabuf_read(struct dx_dmabuf *b, uint64_t off, size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (b->map)
		return b->map + off;
	if (len > b->scratch_len) {
		uint8_t *p = realloc(b->scratch, len);

		if (!p) {
			fprintf(stderr, "%s: out of memory for a %zu byte read\n",
				dx_prog, len);
			return NULL;
		}
		b->scratch = p;
		b->scratch_len = len;
	}
	while (done < len) {
		/* Device offsets run on, but wrap once with dev_rot. */
		uint64_t at = (off + done + b->dev_rot) % b->size;
		size_t want = len - done;

		if (want > b->size - at)
			want = b->size - at;
		n = pread(b->dev_fd, b->scratch + done, want, b->dev_off + at);
		if (n <= 0) {
			fprintf(stderr, "%s: reading device memory at %" PRIu64 ": %s\n",
				dx_prog, b->dev_off + at,
				n ? strerror(errno) : "end of the device");
			return NULL;
		}
		done += n;
	}
	return b->scratch;
}

int dx_dmabuf_end_read(struct dx_dmabuf *b)
{
	return dmabuf_sync(b, DMA_BUF_SYNC_END);
}

void dx_dmabuf_destroy(struct dx_dmabuf *b)
{
	if (b->map)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	if (b->memfd >= 0)
		close(b->memfd);
	if (b->dev_fd >= 0)
		close(b->dev_fd);
	if (b->vfio_group >= 0)
		close(b->vfio_group);
	if (b->vfio_container >= 0)
		close(b->vfio_container);
	b->vfio_group = -1;
	b->vfio_container = -1;
	free(b->scratch);
	b->scratch = NULL;
	b->scratch_len = 0;
	b->dev_fd = -1;
	b->map = NULL;
	b->fd = -1;
	b->memfd = -1;
}
