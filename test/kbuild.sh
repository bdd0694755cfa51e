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

# A test build (7.2-debug) gets its own entry in the token array's review
# (module/tokens-reviewed.h) once test/tok-review.py has passed on its
# vmlinux: its sizes and the whole of its uname -v. Without it the token
# array would be unavailable there, and the debug lane's checkers would
# never reach the token path.
tok_test() {
	local log=$out/$kver/tok-review.log entry=$out/$kver/tokens-test.h sizes uts
	mkdir -p "$out/$kver"
	rm -f "$entry"
	if ! python3 /src/test/tok-review.py --entry "$kdir/vmlinux" "$kdir/System.map" >"$log" 2>&1; then
		sed 's/^/    /' "$log" >&2
		echo "tok-review failed on $series ($kver): its modules get no token array; log: ${log#/src/}" >&2
		return 1
	fi
	sizes=$(sed -n 's/^entry sizes: //p' "$log")
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$kdir/include/generated/utsversion.h")
	[ -n "$sizes" ] && [ -n "$uts" ] ||
		{ echo "no sizes in $log or no UTS_VERSION in $kdir" >&2; return 1; }
	printf '{ "%s", NULL, %s, "%s" },\n' "$kver" "$sizes" "$uts" >"$entry"
	echo "  TOK-REVIEW $series ($kver): passed; its test entry: $(cat "$entry")"
	TEST_ARGS+=(DX_TOK_TEST="$entry")
}
# And one in the policies' review (module/polhook.c): the Debian version of
# the linux-source it was built from (the module takes the entry only if
# that version's doit was reviewed), netdev_nl_bind_rx_doit's size in its
# System.map, and its uname -v.
pol_test() {
	local entry=$out/$kver/policy-test.h src size uts
	rm -f "$entry"
	src=$(dpkg-query -W -f '${Version}' "linux-source-${series%-debug}" 2>/dev/null) ||
		{ echo "no linux-source-${series%-debug} in the build root: $series's source" >&2; return 1; }
	# Its size as kallsyms gives it: up to the next symbol's address.
	size=$(awk '{ a[NR] = $1 } $3 == "netdev_nl_bind_rx_doit" { at = $1 }
		END { if (at == "") exit; for (i in a) if (a[i] > at && (n == "" || a[i] < n)) n = a[i]
		      if (n != "") print n, at }' "$kdir/System.map")
	size=${size:+$((16#${size% *} - 16#${size#* }))}
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$kdir/include/generated/utsversion.h")
	[ -n "$size" ] && [ -n "$uts" ] ||
		{ echo "no netdev_nl_bind_rx_doit in $kdir/System.map or no UTS_VERSION" >&2; return 1; }
	printf '{ "%s", "%s", 0x%x, "%s" },\n' "$kver" "$src" "$size" "$uts" >"$entry"
	echo "  POLICY $series ($kver): its test entry: $(cat "$entry")"
	TEST_ARGS+=(DX_POL_TEST="$entry")
}
TEST_ARGS=()
case $kdir in
/lib/modules/*) ;;
*) tok_test && pol_test || exit 1 ;;
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
