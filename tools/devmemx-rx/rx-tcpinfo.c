// SPDX-License-Identifier: GPL-2.0
/*
 * What the sender reports when it is done: the bytes, and from TCP_INFO
 * what held it back. Apart from rx-send.c because the kernel's struct
 * tcp_info (linux/tcp.h) has fields glibc's lacks, and the two headers
 * cannot meet in one file.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>

#include "tx-report.h"

void tx_report(int fd, uint64_t bytes)
{
	struct tcp_info ti = { 0 };
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		len = 0;
	printf("{\"bytes_sent\":%" PRIu64, bytes);
	if (len >= offsetof(struct tcp_info, tcpi_sndbuf_limited) +
		   sizeof(ti.tcpi_sndbuf_limited))
		printf(",\"segs_out\":%u,\"retrans\":%u,\"cwnd\":%u"
		       ",\"busy_us\":%llu,\"rwnd_limited_us\":%llu"
		       ",\"sndbuf_limited_us\":%llu",
		       ti.tcpi_segs_out, ti.tcpi_total_retrans, ti.tcpi_snd_cwnd,
		       (unsigned long long)ti.tcpi_busy_time,
		       (unsigned long long)ti.tcpi_rwnd_limited,
		       (unsigned long long)ti.tcpi_sndbuf_limited);
	printf("}\n");
}
