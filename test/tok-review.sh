#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make tok-review: the compiler's side of the token-array review
# (test/tok-review.py) on each 7.x kernel the root was made for, from its
# image in Debian's linux-image-KVER-dbg package (about 1.2 GB; its
# vmlinux and System.map are kept in build/tok-review/KVER, the package
# is not). Each kernel must pass the checks and match its entry in
# module/tokens-reviewed.h: Debian version and sizes. A lane run when
# asked, not by make test: the packages are 2.4 GB.
set -euo pipefail
. "$(dirname "$0")/hostlib.sh"

dir=$DX_BUILD/tok-review
mkdir -p "$dir"
log=$dir/fetch.log
: >"$log"
bad=0
while read -r short kver kdir; do
	# Debian's 7.x kernels, whatever their series (sid, cloud); not a test
	# build with a directory of its own (7.2-debug).
	case $kver in 7.*) ;; *) continue ;; esac
	[ -z "$kdir" ] || continue
	d=$dir/$kver
	if [ ! -s "$d/System.map" ] || [ ! -s "$d/version" ]; then
		dx_log "$short: fetching linux-image-$kver-dbg (about 1.2 GB; log: $log)"
		rm -rf "$d" "$dir"/*.deb
		mkdir -p "$d"
		dx_in_root sh -c "cd /src/build/tok-review && apt-get download linux-image-$kver-dbg" \
			>>"$log" 2>&1 || dx_die "$short: cannot download linux-image-$kver-dbg; log: $log"
		deb=$(ls "$dir"/linux-image-"$kver"-dbg_*.deb)
		dx_log "$short: unpacking its vmlinux and System.map"
		m=./usr/lib/debug/lib/modules/$kver
		dx_in_root sh -c "dpkg-deb --fsys-tarfile '/src/build/tok-review/${deb##*/}' |
			tar -xC '/src/build/tok-review/$kver' --strip-components=7 $m/vmlinux $m/System.map" \
			>>"$log" 2>&1 || dx_die "$short: cannot unpack ${deb##*/}; log: $log"
		dx_in_root dpkg-deb -f "/src/build/tok-review/${deb##*/}" Version >"$d/version"
		rm -f "$deb"
	fi
	dx_log "$short: reviewing $kver ($(cat "$d/version")); log: $d/review.log"
	if ! dx_in_root python3 /src/test/tok-review.py --entry "/src/build/tok-review/$kver/vmlinux" \
		"/src/build/tok-review/$kver/System.map" >"$d/review.log" 2>&1; then
		sed 's/^/    /' "$d/review.log" >&2
		bad=1
		continue
	fi
	grep -v '^entry sizes: \|^reviewed: ' "$d/review.log" | sed 's/^/    /' >&2
	sizes=$(sed -n 's/^entry sizes: //p' "$d/review.log")
	want="{ \"$kver\", \"$(cat "$d/version")\", $sizes },"
	if grep -qF "$want" "$DX_TOP/module/tokens-reviewed.h"; then
		dx_log "$short: passes, and module/tokens-reviewed.h has its entry: $want"
	else
		dx_log "$short: passes; module/tokens-reviewed.h lacks its entry: $want"
		bad=1
	fi
done < <(dx_kernels)
[ $bad = 0 ] || dx_die "tok-review: a kernel failed the review or is not in the table"
