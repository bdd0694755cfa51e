/* SPDX-License-Identifier: GPL-2.0 */
/* Requests of the devmemx family that both tools make. */
#ifndef DX_FAMILY_H
#define DX_FAMILY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/devmemx.h>

#include "nl.h"

struct dx_bind_req {
	unsigned int ifindex;
	int fd;				/* the dma-buf, in this process */
	const uint32_t *queues;
	unsigned int nqueues;
	uint32_t rx_buf_size;		/* sent only when has_rx_buf_size */
	bool has_rx_buf_size;		/* else the kernel's default, PAGE_SIZE */
	uint32_t flags;			/* DEVMEMX_BINDING_FLAGS_* */
	uint8_t autorelease;		/* sent only when has_autorelease */
	bool has_autorelease;		/* else the kernel's default, xarray */
};

/*
 * autorelease's value on a command line (@opt names it): 0 (token array)
 * or 1 (xarray). 0, or -EINVAL after a usage message.
 */
int dx_parse_autorelease(const char *s, const char *opt, uint8_t *out);

/*
 * A BIND-RX request for dx_nl_call() on @nl, which then holds a binding that
 * is not persistent; NULL (after a message) when out of memory.
 */
struct nl_msg *dx_bind_rx_msg(struct dx_nl *nl, const struct dx_bind_req *r);
/*
 * A BIND-CHECK request (bind-rx's dry run) with @r's device, dma-buf,
 * queues and autorelease; NULL (after a message) when out of memory.
 */
struct nl_msg *dx_bind_check_msg(struct dx_nl *nl, const struct dx_bind_req *r);

/*
 * A POLICY-SET request: devmemx serves netdev's bind-rx on @ifindex (those
 * of @nqueues @queues; none: every queue) at @size; NULL (after a message)
 * when out of memory.
 */
struct nl_msg *dx_policy_set_msg(struct dx_nl *nl, unsigned int ifindex,
				 uint32_t size, const uint32_t *queues,
				 unsigned int nqueues);
/* A POLICY-DEL request for @ifindex; NULL (after a message) when out of memory. */
struct nl_msg *dx_policy_del_msg(struct dx_nl *nl, unsigned int ifindex);

/*
 * The dx_hint_fn for BIND-RX and UNBIND, when the kernel said no more than
 * EPERM: @arg is what needs CAP_NET_ADMIN ("binding", "unbinding").
 */
const char *dx_perm_hint(int err, const char *extack, void *arg);

#endif
