/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the test helpers (dx-fuzz, dx-failnth): messages
 * built by hand, so that they can also be wrong; no libnl.
 */
#ifndef DXNL_H
#define DXNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSG_MAX		65536

struct msg {
	char buf[MSG_MAX] __attribute__((aligned(4)));
	size_t len;
};

struct outcome {
	int err;		/* 0 or a positive errno */
	uint32_t id;		/* a binding id the reply carried */
	char text[160];		/* the extack message, if any */
};

/* Set: call() says nothing of a request that got no answer (dx-failnth). */
extern bool dxnl_quiet;

void msg_init(struct msg *m, uint16_t family, uint8_t cmd, bool dump);
bool put(struct msg *m, uint16_t type, const void *data, size_t len);
bool put_u32(struct msg *m, uint16_t type, uint32_t v);
size_t nest_start(struct msg *m, uint16_t type);
void nest_end(struct msg *m, size_t at);
int nl_open(void);
int call(int fd, struct msg *m, uint32_t seq, struct outcome *o);
uint16_t family_id(int fd, const char *name);
int memfd_sealed(size_t size, bool huge);
int udmabuf_ioctl(unsigned long cmd, void *req);
int udmabuf(size_t size, bool huge);
/* An INFO attribute of the devmemx family (DEVMEMX_A_INFO_*), or -1. */
long long devmemx_info(int fd, uint16_t family, uint16_t attr);

#endif
