#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM: run each test script, check it cleaned up after itself,
# report one result line per test for the host to collect.
#   DX-RESULT ok|fail|skip NAME [reason]   and diagnostics as "# ..." lines:
# a failed test's whole output, a passed test's own "# " lines.
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^dx\.$1=//p"; }
sel=$(arg tests | tr ',' ' ')
xtrace=$(arg xtrace | sed -n '/^1$/p')
echo "DX-KERNEL $(uname -r)"
# The tests pin senders and receivers to CPUs 0 and 1; races need both.
cpus=$(arg cpus)
if [ "$(nproc)" = "$cpus" ]; then
	echo "DX-RESULT ok vm-cpus"
else
	echo "DX-RESULT fail vm-cpus"
	echo "# $(nproc) CPUs online; QEMU was asked for $cpus"
fi
# What the tests time (ab-short's device and sender time, the races' waits)
# needs a clock finer than the tick: the stock kernels find the HPET through
# ACPI, the debug kernel runs on the TSC (test/lib.sh says why).
clock=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
case $clock in
*jiffies)
	echo "DX-RESULT fail vm-clock"
	echo "# clocksource $clock: time has 1 ms steps; the kernel log says why (tsc:)" ;;
*)
	echo "DX-RESULT ok vm-clock"
	echo "# clocksource $clock" ;;
esac
# A debug kernel (KASAN, lockdep, kmemleak) runs the same tests several
# times slower, and its speed varies: the same test took from 1.0 to 2.1
# times as long from one lane run to the next (sim-devmem 499 s, then
# 1022 s). The limit catches a hung test; the tests' own waits scale with
# DX_SLOW.
limit=300
case $(uname -r) in *-dxdebug) limit=2400 ;; esac

# run_test SCRIPT: run it in a session of its own (its process group is its
# pid), for at most $limit s; then kill whatever of it is still running: a
# hung test's children would otherwise keep going (and keep its output
# open). Output in /tmp/dx-test.out (streamed too with -x); the test's
# status, 124 if it timed out; /tmp/dx-leftover if it left processes.
run_test() {
	local pid wd tl= rc
	rm -f /tmp/dx-timedout /tmp/dx-leftover
	(cd /tmp && exec setsid bash ${xtrace:+-x} "$1") </dev/null >/tmp/dx-test.out 2>&1 &
	pid=$!
	(	# the watchdog (a sleep of at most 1 s outlives it)
		for _ in $(seq $limit); do
			sleep 1
			kill -0 $pid 2>/dev/null || exit 0
		done
		touch /tmp/dx-timedout
		kill -TERM -- -$pid
		sleep 5
		kill -KILL -- -$pid
	) 2>/dev/null &
	wd=$!
	if [ -n "$xtrace" ]; then
		tail -f /tmp/dx-test.out | sed 's/^/# /' &
		tl=$!
	fi
	wait $pid
	rc=$?
	# What the test left running, in its process group.
	kill -KILL -- -$pid 2>/dev/null && touch /tmp/dx-leftover
	kill $wd 2>/dev/null
	wait $wd
	if [ -n "$tl" ]; then
		sleep 0.5
		kill $tl
	fi
	[ -e /tmp/dx-timedout ] && rc=124
	return $rc
}

for t in /dx/tests/*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "$sel" ] && ! [[ " $sel " == *" $name "* ]]; then
		continue
	fi
	t0=$SECONDS
	run_test "$t"
	rc=$?
	if [ -n "$xtrace" ]; then
		out=	# already streamed
	else
		out=$(cat /tmp/dx-test.out)
	fi
	[ $rc = 124 ] && out=${out:+$out$'\n'}"timed out after $limit s"
	# Whatever a test started, loaded or bound, it must have undone.
	if [ -e /tmp/dx-leftover ] && [ $rc != 124 ]; then
		out=${out:+$out$'\n'}"left behind: processes of the test (killed)"
		[ $rc = 0 ] || [ $rc = 4 ] && rc=1
	fi
	left=$(awk '$1 ~ /^devmemx/ { print $1 }' /proc/modules)
	if [ -n "$left" ]; then
		out=${out:+$out$'\n'}"left behind: modules $left"
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
# With kmemleak (debug kernels): scan once all tests are done, twice, since
# kmemleak reports an object only once its contents stayed the same from one
# scan to the next. Objects unreferenced for 5 s are reported in the kernel
# log ("N new suspected memory leaks"), which fails dmesg-clean; their
# records are kept here.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak || true)
	echo "# kmemleak: $n suspected leaks after the tests"
	head -n 60 /sys/kernel/debug/kmemleak | sed 's/^/# kmemleak: /'
fi
