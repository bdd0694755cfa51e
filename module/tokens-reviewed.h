/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels whose token path was reviewed for the token array
 * (doc/token-array.md): each by its utsname release and Debian version,
 * with the sizes the kernel's symbol table gives the three functions the
 * hooks redirect. A kernel not listed here, or whose functions differ in
 * size, gets no token array. Add an entry only after reading that
 * kernel's tcp_recvmsg_dmabuf (net/ipv4/tcp.c), sock_devmem_dontneed
 * (net/core/sock.c) and tcp_v4_destroy_sock (net/ipv4/tcp_ipv4.c).
 */
#ifndef _DEVMEMX_TOKENS_REVIEWED_H
#define _DEVMEMX_TOKENS_REVIEWED_H

struct devmemx_tok_reviewed {
	const char *release;		/* utsname()->release */
	const char *debian;		/* "Debian VERSION" in utsname()->version */
	unsigned long recvmsg_size;	/* tcp_recvmsg_dmabuf */
	unsigned long dontneed_size;	/* sock_devmem_dontneed */
	unsigned long destroy_size;	/* tcp_v4_destroy_sock */
};

static const struct devmemx_tok_reviewed devmemx_tok_reviewed[] = {
	{ "7.2.12+deb13-amd64", "7.2.12-1~bpo13+1", 0x5e0, 0x340, 0x220 },
	{ "7.3.4+deb13-amd64", "7.3.4-1~bpo13+1", 0x5f0, 0x340, 0x220 },
};

#endif
