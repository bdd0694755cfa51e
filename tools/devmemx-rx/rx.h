/* SPDX-License-Identifier: GPL-2.0 */
/* devmemx-rx: a devmem TCP receiver and a matching sender. */
#ifndef DX_RX_H
#define DX_RX_H

#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmabuf.h"
#include "nl.h"

struct dmabuf_token;

struct rx_opts {
	const char *dev;
	unsigned int ifindex;
	uint32_t queues[DX_MAX_QUEUES];
	unsigned int nqueues;
	uint16_t port;
	uint64_t expect;
	struct dx_dmabuf_spec buf;
	const struct rx_provider *provider;
	uint32_t rx_page_size;	/* 0: not asked for */
	uint8_t autorelease;	/* devmemx's autorelease, when has_autorelease */
	bool has_autorelease;
	uint64_t seed;
	bool no_flow_rule;
	int timeout;		/* seconds, 0: wait forever */
	const char *listen;	/* NULL: IPv6 + IPv4 any */
	bool no_verify;		/* count only: no pattern check, no dma-buf sync */
	/*
	 * Check the payload of one dma-buf fragment in this many (0 or 1:
	 * all), where checking every byte would be the bottleneck.
	 */
	uint32_t verify_every;
	int hold;		/* seconds to keep every token before returning it */
	bool probe_dontneed;	/* at the end of the hold: rx-tokens.c */
	/*
	 * Keep tokens until they cover this many payload bytes, then give
	 * the batch back at once (0: after every recvmsg). With @expect known
	 * the last batch is the last @hold_bytes of the stream, and @held
	 * (when set) is called with it still held at the end of the stream:
	 * the tokens go back once it returns.
	 */
	uint64_t hold_bytes;
	void (*held)(void *arg, const struct dmabuf_token *runs, size_t nruns,
		     uint64_t tokens, uint64_t bytes);
	void *held_arg;
	/*
	 * CLOCK_MONOTONIC seconds at which to stop reading (ab --seconds), 0:
	 * read to the end; with it @expect is 0 and any length is right.
	 */
	double deadline;
};

struct tx_opts {
	const char *addr;
	uint16_t port;
	uint64_t bytes;
	uint64_t seed;
	uint64_t chunk;
	int timeout;
	enum { TX_FILL_PATTERN, TX_FILL_ZERO, TX_FILL_NCDEVMEM } fill;	/* --fill */
	bool until_closed;	/* send until the receiver closes (no --bytes) */
};

/*
 * Each subcommand's parser sits with its usage: a synopsis (its first line
 * without the "usage: " or blank lead main puts there, the others
 * indented in full) and its help paragraphs; main prints them all for
 * --help. A parser returns 0, < 0 on bad usage (said), > 0 for --help.
 */
/* rx-opts.c: recv and send. */
extern const char rx_recv_synopsis[], rx_recv_help[];
extern const char rx_send_synopsis[], rx_send_help[];
int rx_parse_recv(int argc, char **argv, struct rx_opts *o);
int rx_parse_send(int argc, char **argv, struct tx_opts *o);

/* rx-bind.c: who binds the dma-buf to the queues. */
struct rx_bind {
	const struct rx_provider *ops;
	struct dx_nl nl;	/* the binding lives as long as this socket */
	bool nl_open;
	uint32_t id;		/* binding id, as dmabuf_cmsg.dmabuf_id reports */
	/* From devmemx's reply (0 from in-tree netdev, which says nothing). */
	uint32_t niov_size;
	uint32_t niov_count;
	uint64_t meta_bytes;
};

struct rx_provider {
	const char *name;
	int (*open)(struct rx_bind *b);
	int (*bind)(struct rx_bind *b, const struct rx_opts *o, int dmabuf_fd);
	void (*close)(struct rx_bind *b);
};

const struct rx_provider *rx_provider_find(const char *name);
/* What devmemx's token arrays take now, all sockets' (INFO token-bytes). */
int rx_token_bytes(uint64_t *bytes);

/*
 * The metadata of binding @b of @dmabuf_bytes at niovs of @niov_size:
 * devmemx's own count from its reply; for in-tree devmem one struct
 * net_iov (@net_iov_size, from BTF; <= 0: unknown) per niov.
 */
struct rx_meta {
	uint64_t niov_count;
	uint64_t bytes;
	const char *source;	/* "devmemx", "btf" or "none" */
};
void rx_bind_meta(const struct rx_bind *b, bool devmemx, uint64_t dmabuf_bytes,
		  uint64_t niov_size, long net_iov_size, struct rx_meta *m);
/*
 * sizeof struct @name in the running kernel, from its BTF; < 0 (after a
 * message) when unknown.
 */
long rx_btf_struct_size(const char *name);

/* rx-flow.c: the rule steering a flow to the first bound queue; its socket. */
struct rx_flow {
	int fd;			/* ioctl socket, -1 when no rule */
	const char *dev;
	uint32_t loc;		/* the rule's location */
};

int rx_flow_add(struct rx_flow *f, const struct rx_opts *o);
/* Listen on --listen (default any) port @o->port: the fd or -errno (said). */
int rx_listen(const struct rx_opts *o);
/* One connection on @lfd within --timeout: the fd or -errno (said). */
int rx_accept(int lfd, const struct rx_opts *o);
void rx_flow_del(struct rx_flow *f);

/*
 * rx-devmem.c: receive with devmem: accept one connection, recvmsg with
 * MSG_SOCK_DEVMEM, verify, return tokens (rx-zcrx.c: receive with zcrx).
 */
struct rx_stats {
	uint64_t bytes;
	uint64_t recvmsg_calls;
	uint64_t cmsgs_dmabuf;
	uint64_t cmsgs_linear;
	uint64_t tokens;
	uint64_t dontneed_calls;
	uint64_t frag_max;
	uint64_t mismatches;
	uint64_t verified_bytes;	/* of them, compared with the pattern */
	uint64_t held_max;	/* most tokens held at once (--hold) */
	uint64_t tokens_at_index;	/* a frag's token: its offset / buffer size */
	uint64_t token_repeats;	/* a frag's token: the previous frag's */
	char probe[160];	/* --probe-dontneed's answers */
	uint64_t off_min;	/* the dma-buf offsets the frags covered */
	uint64_t off_end;
	double bind_sec;	/* the bind request, at its caller */
	double cpu_sec;
	double wall_sec;
};

int rx_receive(int fd, const struct rx_opts *o, struct dx_dmabuf *buf,
	       uint32_t binding_id, struct rx_stats *st);

/*
 * rx-tokens.c: held tokens as a set. The token of each fragment @runs
 * cover, sorted (malloc'd; *@count of them).
 */
uint32_t *rx_tokens_sorted(const struct dmabuf_token *runs, size_t nruns,
			   size_t *count);
/*
 * The xarray nodes a socket's sk_user_frags needs for the token ids of
 * @runs (7.2, 7.3: 64 slots a node; ids from 1): a node per distinct id >> 6,
 * per distinct id >> 12 above them, and so on up to the top node.
 */
uint64_t rx_xa_nodes(const struct dmabuf_token *runs, size_t nruns);
/* SO_DEVMEM_DONTNEED's answers, @flat the held tokens, sorted. */
int rx_probe_dontneed(int fd, const uint32_t *flat, size_t n, char *out,
		      size_t len);

/* rx-signal.c: SIGINT/SIGTERM, delivered only while waiting; the device. */
extern volatile int rx_stop_sig;
extern bool rx_link_lost;
void rx_signals_setup(void);
int rx_watch_link(const char *dev, unsigned int ifindex);
void rx_unwatch_link(void);
int rx_wait(int fd, short events, int timeout_ms);
/* The signal mask to wait with elsewhere (io_uring_enter): SIGINT, SIGTERM open. */
const sigset_t *rx_wait_mask(void);

/* rx-netdev.c: netdev family dumps, one line per object. */
enum rx_list {
	RX_LIST_POOLS, RX_LIST_QUEUES, RX_LIST_QSTATS_DEV, RX_LIST_QSTATS
};
extern const char rx_pools_synopsis[], rx_queues_synopsis[];
extern const char rx_qstats_synopsis[], rx_netdev_help[];
struct rx_netdev_opts {
	enum rx_list list;	/* RX_LIST_QSTATS: per device, then per queue */
	unsigned int ifindex;	/* --dev, 0: every device's */
	bool json;
};
/*
 * pools | queues | qstats [--dev IFNAME] [-j]: argv[0] is the command;
 * -ENODEV (said) when --dev names no device.
 */
int rx_parse_netdev(int argc, char **argv, struct rx_netdev_opts *o);
int rx_netdev_run(const struct rx_netdev_opts *o);

/* rx-pod.c: the host's half of a pod's leased queue. */
extern const char rx_lease_synopsis[], rx_lease_help[];
extern const char rx_redirect_synopsis[], rx_redirect_help[];
struct rx_lease_opts {
	const char *netkit, *dev;
	uint32_t queue;
	bool has_queue;
	bool json;
};
int rx_parse_lease(int argc, char **argv, struct rx_lease_opts *o);
/* The queue made, printed: 0, or -errno after a message. */
int rx_lease_run(const struct rx_lease_opts *o);
struct rx_redirect_opts {
	const char *dev, *netkit, *addr;
	struct in_addr in;	/* @addr */
};
int rx_parse_redirect(int argc, char **argv, struct rx_redirect_opts *o);
/* Until SIGINT or SIGTERM: 0, or -errno after a message. */
int rx_redirect_run(const struct rx_redirect_opts *o);

/* rx-recv.c: recv, as @o asks; 0 or -errno after a message. */
int rx_recv(struct rx_opts *o);

/* rx-send.c */
int tx_send(const struct tx_opts *o);

#endif
