// SPDX-License-Identifier: GPL-2.0
/*
 * How devmemx-rx stops: SIGINT and SIGTERM end a wait, never a system call
 * in the middle of cleanup.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>

#include "rx.h"

volatile int rx_stop_sig;
static sigset_t rx_waitmask;	/* the mask while waiting: signals open */

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

/* Wait for @events on @fd: 1 ready, 0 timed out, -EINTR stopped, -errno. */
int rx_wait(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000L,
	};
	int ret;

	do {
		ret = ppoll(&p, 1, timeout_ms < 0 ? NULL : &ts, &rx_waitmask);
		if (rx_stop_sig)
			return -EINTR;
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}
