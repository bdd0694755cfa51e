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

# A test build (7.2-debug) gets its own entry in the reviews
# (module/reviewed.h): devmemx-review on its vmlinux and System.map and on
# the linux-source it was built from (the root's), as a host reviews a
# stock kernel, written as a C line naming the build by the whole of its
# uname -v. Without it the token array and policies would be unavailable
# there, and the debug lane's checkers would never reach their paths.
gate_test() {
	local log=$out/$kver/review.log entry=$out/$kver/gate-test.h src uts
	mkdir -p "$out/$kver"
	rm -f "$entry"
	src=$(dpkg-query -W -f '${Version}' "linux-source-${series%-debug}" 2>/dev/null) ||
		{ echo "no linux-source-${series%-debug} in the build root: $series's source" >&2; return 1; }
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$kdir/include/generated/utsversion.h")
	[ -n "$uts" ] || { echo "no UTS_VERSION in $kdir" >&2; return 1; }
	if ! python3 /src/tools/review/devmemx-review "$kver" --debian "$src" \
		--source "/usr/src/linux-source-${series%-debug}.tar.xz" \
		--image "$kdir/vmlinux" --map "$kdir/System.map" --cache /src/.cache/review \
		--entry-c --build "$uts" -q >"$entry" 2>"$log"; then
		sed 's/^/    /' "$log" >&2
		echo "the review of $series ($kver) failed: its modules get no test entry; log: ${log#/src/}" >&2
		return 1
	fi
	echo "  REVIEW $series ($kver): passed; its test entry: $(cat "$entry")"
	TEST_ARGS+=(DX_GATE_TEST="$entry")
}
TEST_ARGS=()
case $kdir in
/lib/modules/*) ;;
*) gate_test || exit 1 ;;
esac

build() {
	local m
	for m in module driver-shims/sim driver-shims/vram; do
		mkdir -p "$out/$kver/$m"
		make --no-print-directory -C "$kdir" M="/src/$m" MO="$out/$kver/$m" \
			${TEST_ARGS[@]+"${TEST_ARGS[@]}"} "$@" modules
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
