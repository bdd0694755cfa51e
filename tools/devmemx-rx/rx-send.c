// SPDX-License-Identifier: GPL-2.0
/* The send side: connect (the receiver may come up later), send the pattern. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"
#include "tx-report.h"
#include "rx.h"

#define TX_RETRY_MS	100

static socklen_t tx_addr(const struct tx_opts *o, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, o->addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(o->port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, o->addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(o->port);
		return sizeof(*a6);
	}
	return 0;
}

/* --fill ncdevmem: 1, 2, ... 6, '\n', again, from stream offset @off. */
static void tx_fill_lines(uint8_t *buf, size_t len, uint64_t off)
{
	unsigned int k = off % 7;
	size_t i;

	for (i = 0; i < len; i++, k = k == 6 ? 0 : k + 1)
		buf[i] = k == 6 ? '\n' : k + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Worth another try: nobody listens yet, or the path is not up yet. */
static bool tx_retry(int err)
{
	return err == ECONNREFUSED || err == ETIMEDOUT || err == EINPROGRESS ||
	       err == ENETUNREACH || err == EHOSTUNREACH || err == ECONNRESET;
}

static int tx_socket(int family, int timeout)
{
	struct timeval tv = { .tv_sec = timeout };
	int fd;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && timeout)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

static int tx_connect(const struct tx_opts *o)
{
	const struct timespec pause = { .tv_nsec = TX_RETRY_MS * 1000000L };
	double end = now() + o->timeout;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, err;

	len = tx_addr(o, &ss);
	if (!len) {
		fprintf(stderr, "devmemx-rx: bad --addr \"%s\": use an IPv4 or IPv6 address\n",
			o->addr);
		return -EINVAL;
	}
	for (;;) {
		fd = tx_socket(ss.ss_family, o->timeout);
		if (fd < 0) {
			err = errno;
			break;
		}
		if (!connect(fd, (struct sockaddr *)&ss, len))
			return fd;
		err = errno;
		close(fd);
		if (!tx_retry(err) || (o->timeout && now() >= end))
			break;
		nanosleep(&pause, NULL);
	}
	if (tx_retry(err))
		fprintf(stderr, "devmemx-rx: cannot connect to %s port %u: %s (gave up after %d s: is the receiver running?)\n",
			o->addr, o->port, strerror(err), o->timeout);
	else
		fprintf(stderr, "devmemx-rx: cannot connect to %s port %u: %s\n",
			o->addr, o->port, strerror(err));
	return -err;
}

/*
 * Send @len bytes, advancing *@off by what was sent: 0, 1 when the
 * receiver closed (--until-closed), -EIO after a message.
 */
static int tx_write(int fd, const uint8_t *p, size_t len, uint64_t *off,
		    const struct tx_opts *o)
{
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && o->until_closed &&
		    (errno == EPIPE || errno == ECONNRESET))
			return 1;
		if (n < 0) {
			int err = errno;
			char of[32] = "";

			if (!o->until_closed)
				snprintf(of, sizeof(of), " of %" PRIu64, o->bytes);
			if (err == EAGAIN)
				fprintf(stderr, "devmemx-rx: send stalled for %d s at byte %" PRIu64 "%s (is the receiver reading?)\n",
					o->timeout, *off, of);
			else
				fprintf(stderr, "devmemx-rx: send at byte %" PRIu64 "%s: %s\n",
					*off, of, strerror(err));
			return -EIO;
		}
		p += n;
		len -= n;
		*off += n;
	}
	return 0;
}

int tx_send(const struct tx_opts *o)
{
	uint64_t off = 0;
	uint8_t *buf;
	size_t n;
	int fd, ret = 0;

	buf = calloc(1, o->chunk);
	if (!buf) {
		fprintf(stderr, "devmemx-rx: out of memory\n");
		return -ENOMEM;
	}
	fd = tx_connect(o);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	while ((o->until_closed || off < o->bytes) && !ret) {
		n = o->until_closed || o->bytes - off >= o->chunk ? o->chunk :
		    o->bytes - off;
		if (o->fill == TX_FILL_PATTERN)
			dx_pat_fill(buf, n, off, o->seed);
		else if (o->fill == TX_FILL_NCDEVMEM)
			tx_fill_lines(buf, n, off);
		ret = tx_write(fd, buf, n, &off, o);
	}
	if (ret == 1) {
		tx_report(fd, off);
		ret = 0;
	} else if (!ret && shutdown(fd, SHUT_WR)) {
		fprintf(stderr, "devmemx-rx: shutdown: %s\n", strerror(errno));
		ret = -EIO;
	} else if (!ret) {
		tx_report(fd, o->bytes);
	}
	close(fd);
	free(buf);
	return ret;
}
