#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the build root: build the modules (devmemx, devmemx_sim and the
# test exporter devmemx_vram) against one kernel series of
# /etc/devmemx-kernels, into OUT/KVER/. With LOG, the whole output goes there
# and only its tail shows on failure.
# usage: kbuild.sh SERIES OUT [LOG] [-- Kbuild variables...]
set -euo pipefail
series=$1 out=$2 log=
shift 2
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	log=$1
	shift
fi
[ "${1:-}" != -- ] || shift
# A third column is a build directory outside /lib/modules (7.2-debug).
read -r kver kdir < <(awk -v s="$series" '$1 == s {
	print $2, ($3 != "" ? $3 : "/lib/modules/" $2 "/build") }' /etc/devmemx-kernels) || true
[ -n "${kver:-}" ] || { echo "no kernel $series in the build root (7.2-debug: make debug-kernel)" >&2; exit 1; }

build() {
	local m
	for m in module driver-shims/sim driver-shims/vram; do
		mkdir -p "$out/$kver/$m"
		make --no-print-directory -C "$kdir" M="/src/$m" MO="$out/$kver/$m" "$@" modules
	done
}
if [ -z "$log" ]; then
	build "$@"
# A log gets every line Kbuild prints (make check counts its CHECK lines),
# whatever flags the calling make had.
elif ! MAKEFLAGS= build "$@" >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "the build on $series ($kver) failed; log: ${log#/src/}" >&2
	exit 1
fi
