#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the build root (make check): every semantic patch of the kernel's
# scripts/coccinelle (linux-source-7.2, at /opt/linux) that has a report
# mode, run by spatch over the kernel code here, as the kernel's coccicheck
# runs them (MODE=report, each script's own "Options:"). Prints what they
# report and fails on any report or on a script spatch cannot run.
set -uo pipefail
dirs=(/src/module /src/driver-shims/sim)
log=/src/build/coccicheck.log
: >"$log"
ran=0 skipped=0 no_ocaml=0 bad=0
for f in $(find /opt/linux/scripts/coccinelle -name '*.cocci' | sort); do
	if ! grep -q "virtual[[:space:]]\+report" "$f"; then
		skipped=$((skipped + 1))
		continue
	fi
	# OCaml script rules need an OCaml compiler at run time; the build
	# root has none (the python ones run).
	if grep -q "^@[a-z]*[[:space:]]*\(script\|initialize\|finalize\):ocaml" "$f"; then
		no_ocaml=$((no_ocaml + 1))
		continue
	fi
	opt=$(sed -n 's/^\/\/ *Options: *//p' "$f")
	for d in "${dirs[@]}"; do
		# shellcheck disable=SC2086 # Options: holds several words
		out=$(spatch -D report --no-show-diff --very-quiet --cocci-file "$f" \
			$opt --dir "$d" -I /src -I "$d" 2>&1)
		rc=$?
		# spatch's own remarks on the semantic patch, not reports
		out=$(grep -v '^warning: line [0-9]*: should .* be a metavariable?$' <<<"$out")
		echo "== $f $d (exit $rc)" >>"$log"
		echo "$out" >>"$log"
		if [ $rc != 0 ]; then
			echo "coccicheck: spatch failed on ${f#/opt/linux/} over ${d#/src/} (exit $rc):"
			echo "$out" | tail -n 5
			bad=$((bad + 1))
		elif [ -n "$out" ]; then
			echo "$out"
			bad=$((bad + 1))
		fi
	done
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "coccicheck: no semantic patches under /opt/linux/scripts/coccinelle"; exit 1; }
if [ $bad != 0 ]; then
	echo "coccicheck: $bad reports or failures (whole log: build/coccicheck.log)"
	exit 1
fi
echo "  COCCI $ran semantic patches (report mode) over ${dirs[*]#/src/}: nothing to report ($skipped without a report mode, $no_ocaml with OCaml rules)"
