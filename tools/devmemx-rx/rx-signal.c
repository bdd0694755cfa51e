// SPDX-License-Identifier: GPL-2.0
/*
 * How devmemx-rx stops: SIGINT and SIGTERM end a wait, never a system call
 * in the middle of cleanup; so does the receiving device going away.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rx.h"

volatile int rx_stop_sig;
bool rx_link_lost;
static sigset_t rx_waitmask;	/* the mask while waiting: signals open */
static int rx_link_fd = -1;	/* rtnetlink, link events; -1: no watch */
static unsigned int rx_link_ifindex;

static void rx_on_signal(int sig)
{
	rx_stop_sig = sig;
}

/*
 * SIGINT and SIGTERM stay blocked and are taken only in rx_wait(), so every
 * exit goes through the cleanup that deletes the flow rule.
 */
void rx_signals_setup(void)
{
	struct sigaction sa = { .sa_handler = rx_on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &rx_waitmask);
	sigdelset(&rx_waitmask, SIGINT);
	sigdelset(&rx_waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

const sigset_t *rx_wait_mask(void)
{
	return &rx_waitmask;
}

/*
 * Read what link events arrived (their content does not matter; an overrun
 * neither), then ask whether the device is still here by its index.
 */
static bool rx_link_gone(void)
{
	char buf[8192], name[IF_NAMESIZE];

	for (;;) {
		if (recv(rx_link_fd, buf, sizeof(buf), 0) >= 0)
			continue;
		if (errno != EINTR && errno != ENOBUFS)
			break;
	}
	if (if_indextoname(rx_link_ifindex, name))
		return false;
	return errno == ENXIO || errno == ENODEV;
}

/*
 * Nothing on a listening or devmem socket says that the device under the
 * binding was unregistered or moved to another namespace: without this, a
 * receiver waits out its --timeout, or forever. From here on every wait ends
 * with -ENODEV once @ifindex is gone.
 */
int rx_watch_link(const char *dev, unsigned int ifindex)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK,
	};
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno;
		fprintf(stderr, "devmemx-rx: cannot watch %s for removal (rtnetlink): %s\n",
			dev, strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	rx_link_fd = fd;
	rx_link_ifindex = ifindex;
	rx_link_lost = rx_link_gone();
	return rx_link_lost ? -ENODEV : 0;
}

void rx_unwatch_link(void)
{
	if (rx_link_fd >= 0)
		close(rx_link_fd);
	rx_link_fd = -1;
}

/*
 * In ns: a clock cut to milliseconds could end a wait up to a millisecond
 * early, before a deadline its caller computed to the nanosecond.
 */
static int64_t rx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Wait for @events on @fd (-1: none, just sleep): 1 ready, 0 timed out,
 * -EINTR stopped, -ENODEV the watched device went away, -errno.
 */
int rx_wait(int fd, short events, int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = fd, .events = events },
		{ .fd = rx_link_fd, .events = POLLIN },
	};
	int64_t end = rx_now_ns() + timeout_ms * 1000000LL;
	struct timespec ts;
	int ret;

	for (;;) {
		int64_t left = timeout_ms < 0 ? 0 : end - rx_now_ns();

		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		ret = ppoll(p, 2, timeout_ms < 0 ? NULL : &ts, &rx_waitmask);
		if (rx_stop_sig)
			return -EINTR;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (p[1].revents && rx_link_gone()) {
			rx_link_lost = true;
			return -ENODEV;
		}
		if (p[0].revents)
			return 1;
		if (!ret || (timeout_ms >= 0 && left == 0))
			return 0;
	}
}
