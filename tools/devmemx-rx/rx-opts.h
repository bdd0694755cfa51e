/* SPDX-License-Identifier: GPL-2.0 */
/* The option codes and parsing helpers devmemx-rx's subcommands share. */
#ifndef DX_RX_OPTS_H
#define DX_RX_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "dmabuf.h"

enum {
	O_DEV = 256, O_QUEUES, O_PORT, O_EXPECT, O_UDMABUF, O_HUGETLB,
	O_DMA_HEAP, O_VRAM, O_REVOCABLE, O_TAIL_FIRST, O_VFIO, O_PROVIDER,
	O_RX_PAGE_SIZE, O_P2PDMA, O_VRAM_DEV, O_PID, O_FD, O_NO_VERIFY,
	O_SEED, O_NO_FLOW_RULE,
	O_TIMEOUT, O_LISTEN, O_ADDR, O_BYTES, O_CHUNK, O_SIZES, O_PROVIDERS,
	O_RUNS, O_FLOWS, O_VERIFY, O_ZCRX_AREA, O_CSV, O_SUMMARY, O_MD, O_TAG, O_SENDER,
	O_LOAD_CMD, O_UNLOAD_CMD, O_CONFIGS, O_FILL, O_HOLD, O_SENDER_TASKS,
	O_VERIFY_EVERY, O_HOLD_BYTES,
	O_UNTIL_CLOSED, O_SECONDS, O_CPUS, O_RX_CPUS, O_NAPI_CPUS,
	O_NAPI_FIFO, O_AUTORELEASE, O_PROBE_DONTNEED, O_PROFILE_CMD,
	O_APP, O_APP_VERIFY, O_APP_FRAGS, O_APP_BAD, O_APP_BYTES, O_BOUND_CMD,
};

int rx_parse_port(const char *s, const char *opt, uint16_t *port);
int rx_parse_seconds(const char *s, const char *opt, int *sec);
/* --verify-every N: 1 (every fragment) to 2^32 - 1. */
int rx_parse_every(const char *s, uint32_t *every);
int rx_unknown_option(char **argv, const char *cmd);
int rx_missing_arg(char **argv);
/* An argument left after the options: an error, said. */
int rx_positional(int argc, char **argv, const char *cmd);
/*
 * The dma-buf options recv and ab share (ab's option table has no
 * --revocable, --tail-first, --p2pdma, --vram-dev or --vfio); 1 when @c
 * is none of them.
 */
int rx_buf_opt(int c, char *arg, int argc, char **argv,
	       struct dx_dmabuf_spec *b);
/* Those options' codes, for the lists of both; recv adds RX_BUF_RECV. */
#define RX_BUF		O_UDMABUF, O_HUGETLB, O_DMA_HEAP, O_VRAM, O_PID, O_FD
#define RX_BUF_RECV	O_REVOCABLE, O_TAIL_FIRST, O_P2PDMA, O_VRAM_DEV, O_VFIO
/*
 * The getopt_long() table of a subcommand: the options whose codes @codes
 * lists (ended by 0; 'h' is --help), each from the one table of every
 * option devmemx-rx has, into @out, which has a row for each and the end.
 */
void rx_opts_pick(const int *codes, struct option *out);
bool rx_is_addr(const char *s);

#endif
