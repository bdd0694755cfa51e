/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels the project reviewed (doc/review.md): for each, by its
 * utsname release and Debian version, the size the kernel's symbol table
 * gives each function devmemx replaces or hooks (gate.h's order). Only
 * gate.c reads it. An entry is added when devmemx-review passed on that
 * kernel (source and binary) and prints the same sizes; a host that runs
 * devmemx-review itself needs no entry here.
 *
 * A test build (the debug lane's kernel, from Debian's source with another
 * config) gets one more entry, which test/kbuild.sh writes from
 * devmemx-review's result on that build: it names the build by the whole
 * of its utsname()->version, as such a kernel has no Debian version there.
 * Modules built any other way (dkms, packages) never have it.
 */
#ifndef _DEVMEMX_REVIEWED_H
#define _DEVMEMX_REVIEWED_H

#include "gate.h"

struct devmemx_gate_entry {
	const char *release;		/* utsname()->release */
	const char *debian;		/* "Debian VERSION" in utsname()->version */
	const char *build;		/* a test build's utsname()->version */
	unsigned long size[DEVMEMX_GATE_NFN];	/* 0: not reviewed */
};

static const struct devmemx_gate_entry devmemx_gate_reviewed[] = {
	{ "7.2.12+deb13-amd64", "7.2.12-1~bpo13+1", NULL,
	  { 0x5e0, 0x340, 0x220, 0x5f0 } },
	{ "7.3.4+deb13-amd64", "7.3.4-1~bpo13+1", NULL,
	  { 0x5f0, 0x340, 0x220, 0x670 } },
#ifdef DEVMEMX_GATE_TEST
#include DEVMEMX_GATE_TEST
#endif
};

#endif
