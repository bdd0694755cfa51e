#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the build root (make all): devmemx-review on every 7.x kernel the
# root has, as a host runs it, two at a time. What it downloads (each
# kernel's -dbg image, about 1.2 GB, and linux-source) is kept, only the
# files it reads, in .cache/review; each entry goes to build/review/KVER,
# which the VM's initramfs carries where the loader reads it. A kernel's
# review is done again when tools/review changed since its entry. A review
# that fails is a result, not an error: the suite skips what it gates,
# saying why, and make test's summary names it. Only a download or usage
# error (exit 2) stops the build.
set -uo pipefail
out=/src/build/review cache=/src/.cache/review
mkdir -p "$out/log" "$cache"

# review KVER: one kernel; one line on stdout, the rest in its log.
review() {
	local kver=$1 log=$out/log/$1.log rc
	if [ -f "$out/$kver" ] &&
		[ -z "$(find /src/tools/review -newer "$out/$kver" -print -quit)" ]; then
		echo "  REVIEW $kver: $(result "$kver") (from before; log: ${log#/src/})"
		return 0
	fi
	rm -f "$out/$kver"
	python3 /src/tools/review/devmemx-review "$kver" --cache "$cache" \
		--out "$out" -q >"$log" 2>&1
	rc=$?
	if [ $rc -ge 2 ] || [ ! -f "$out/$kver" ]; then
		tail -n 20 "$log" | sed 's/^/    /' >&2
		echo "  REVIEW $kver: could not run (exit $rc); log: ${log#/src/}" >&2
		return 2
	fi
	echo "  REVIEW $kver: $(result "$kver") ($(sed -n 's/^devmemx-review: \(downloading .*\)/\1/p' "$log" |
		paste -sd, | sed 's/,/, /g; s/^$/nothing downloaded/'); log: ${log#/src/})"
}

# result KVER: what its entry says, in a few words.
result() {
	local f=$out/$1 failed
	failed=$(awk '$1 == "failed" { $1 = ""; print substr($0, 2) }' "$f" | paste -sd';')
	if [ -z "$failed" ]; then
		echo "token-array and policies passed"
	else
		echo "FAILED: $failed"
	fi
}
export -f review result
export out cache

awk '$1 !~ /-debug$/ && $2 ~ /^[7-9]\./ { print $2 }' /etc/devmemx-kernels | sort -u |
	xargs -r -n1 -P2 bash -c 'review "$1"' review
