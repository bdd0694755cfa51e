// SPDX-License-Identifier: GPL-2.0
/*
 * What the sender reports when it is done: the bytes, and from TCP_INFO
 * what held it back. Apart from rx-send.c because the kernel's struct
 * tcp_info (linux/tcp.h) has fields glibc's lacks, and the two headers
 * cannot meet in one file.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>

#include "json.h"
#include "tx-report.h"

void tx_report(int fd, uint64_t bytes)
{
	struct tcp_info ti = { 0 };
	socklen_t len = sizeof(ti);
	struct dx_json j;

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		len = 0;
	dx_json_init(&j, stdout, false);
	dx_json_open_object(&j);
	dx_json_u64_field(&j, "bytes_sent", bytes);
	if (len >= offsetof(struct tcp_info, tcpi_sndbuf_limited) +
		   sizeof(ti.tcpi_sndbuf_limited)) {
		dx_json_u64_field(&j, "segs_out", ti.tcpi_segs_out);
		dx_json_u64_field(&j, "retrans", ti.tcpi_total_retrans);
		dx_json_u64_field(&j, "cwnd", ti.tcpi_snd_cwnd);
		dx_json_u64_field(&j, "busy_us", ti.tcpi_busy_time);
		dx_json_u64_field(&j, "rwnd_limited_us", ti.tcpi_rwnd_limited);
		dx_json_u64_field(&j, "sndbuf_limited_us", ti.tcpi_sndbuf_limited);
	}
	dx_json_close_object(&j);
}
