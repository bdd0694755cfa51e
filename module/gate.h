/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate (gate.c): which kernel functions devmemx may redirect or hook
 * on the running kernel, decided at load from the kernels whose review
 * passed. At the bottom of the module: it calls nothing of devmemx's.
 */
#ifndef _DEVMEMX_GATE_H
#define _DEVMEMX_GATE_H

#include <linux/types.h>

/* The kernel functions devmemx replaces or hooks, each gated. */
enum devmemx_gate_fn {
	DEVMEMX_GATE_RECVMSG,	/* tcp_recvmsg_dmabuf: token array */
	DEVMEMX_GATE_DONTNEED,	/* sock_devmem_dontneed: token array */
	DEVMEMX_GATE_DESTROY,	/* tcp_v4_destroy_sock: token array */
	DEVMEMX_GATE_BIND_RX,	/* netdev_nl_bind_rx_doit: policies */
	DEVMEMX_GATE_NFN,
};

void devmemx_gate_init(void);
unsigned long devmemx_gate_addr(enum devmemx_gate_fn fn, char *why,
				size_t len);
const char *devmemx_gate_release(void);

/* What the in-tree ops' check (dispatch.c) shares with the gate. */
unsigned long devmemx_sym_size(unsigned long addr, const char *name);

#endif
