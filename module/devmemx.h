/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DEVMEMX_H
#define _DEVMEMX_H

#include "compat.h"

int devmemx_nl_init(void);
void devmemx_nl_exit(void);

#endif
