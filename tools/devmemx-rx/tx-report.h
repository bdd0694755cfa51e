/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DX_TX_REPORT_H
#define DX_TX_REPORT_H

#include <stdint.h>

/* Print the sender's JSON line: bytes sent and TCP_INFO's limits on @fd. */
void tx_report(int fd, uint64_t bytes);

#endif
