#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM: run each test script, check it cleaned up after itself,
# report one result line per test for the host to collect.
#   DX-RESULT ok|fail|skip NAME [reason]   and diagnostics as "# ..." lines:
# a failed test's whole output, a passed test's own "# " lines.
sel=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^dx\.tests=//p' | tr ',' ' ')
xtrace=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^dx\.xtrace=1$/1/p')
echo "DX-KERNEL $(uname -r)"
# The tests pin senders and receivers to CPUs 0 and 1; races need both.
cpus=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^dx\.cpus=//p')
if [ "$(nproc)" = "$cpus" ]; then
	echo "DX-RESULT ok vm-cpus"
else
	echo "DX-RESULT fail vm-cpus"
	echo "# $(nproc) CPUs online; QEMU was asked for $cpus"
fi
# A debug kernel (KASAN, lockdep, kmemleak) runs the same tests several
# times slower.
limit=300
case $(uname -r) in *-dxdebug) limit=1200 ;; esac
for t in /dx/tests/*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "$sel" ] && ! [[ " $sel " == *" $name "* ]]; then
		continue
	fi
	t0=$SECONDS
	if [ -n "$xtrace" ]; then
		# Streamed as it runs (run.sh -x): for tests that hang.
		cd /tmp
		timeout $limit bash -x "$t" 2>&1 | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
		cd /
		out=
	else
		out=$(cd /tmp && timeout $limit bash "$t" 2>&1)
		rc=$?
	fi
	[ $rc = 124 ] && out+=$'\n'"timed out after $limit s"
	# Whatever a test loaded or bound, it must have undone.
	left=$(awk '$1 ~ /^devmemx/ { print $1 }' /proc/modules)
	if [ -n "$left" ]; then
		out+=$'\n'"left behind: modules $left"
		[ $rc = 0 ] || [ $rc = 4 ] && rc=1
		for m in $left; do rmmod "$m"; done
	fi
	case $rc in
	0) echo "DX-RESULT ok $name"
	   grep '^# ' <<<"$out"
	   echo "# $name: $((SECONDS - t0)) s" ;;
	4) echo "DX-RESULT skip $name $(sed -n 's/^SKIP: //p' <<<"$out" | tail -n1)" ;;
	*) echo "DX-RESULT fail $name"
	   sed 's/^/# /' <<<"$out" ;;
	esac
done
# With kmemleak (debug kernels): scan once all tests are done. Objects
# unreferenced for 5 s are reported in the kernel log ("N new suspected
# memory leaks"), which fails dmesg-clean; their records are kept here.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak || true)
	echo "# kmemleak: $n suspected leaks after the tests"
	head -n 60 /sys/kernel/debug/kmemleak | sed 's/^/# kmemleak: /'
fi
