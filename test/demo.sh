#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's stock 7.2 kernel, load devmemx, show what it does.
set -uo pipefail
. "$(dirname "$0")/hostlib.sh"
series=${1:-7.2}
# Measured as make ab measures (test/ab.sh): one vCPU, instruction counting.
export DX_QEMU_EXTRA="-accel tcg,thread=single -icount shift=0,sleep=off"
export DX_VM_CPUS=1
dx_log "booting $(dx_kver "$series") in QEMU (TCG)"
dx_boot "$series" demo.sh
rc=$?
tr -d '\r' <"$DX_BUILD/vm/$series/results.log" | grep -v '^DX-END$'
grep -q '^DX-END' "$DX_BUILD/vm/$series/results.log" && [ $rc = 0 ] ||
	dx_die "the demo VM failed (exit $rc); see build/vm/$series/console.log"
