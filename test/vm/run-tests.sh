#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM: run each test script, check it cleaned up after itself,
# report one result line per test, and one per case of a test that has
# named cases (dx_case, guestlib.sh), for the host to collect:
#   DX-RESULT ok|fail|skip NAME [reason]   and diagnostics as "# ..." lines:
# a failed test's or case's whole output, a passed one's own "# " lines.
# A case's NAME is TEST/CASE; its lines come before its test's. The test's
# own line judges what is not in a case: its setup and cleanups, what it
# left behind, its time limit; a failed case is counted on its own line
# only. dx.tests= selects tests (TEST) or cases (TEST/CASE): the cases go
# to the test in DX_CASES. dx.rounds=N (run.sh -n) runs the selection N
# times over, each result named TEST@ROUND (TEST@ROUND/CASE): a test that
# fails one run in a few shows it in one boot.
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^dx\.$1=//p"; }
sel=$(arg tests | tr ',' ' ')
xtrace=$(arg xtrace | sed -n '/^1$/p')
rounds=$(arg rounds)
rounds=${rounds:-1}
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
# ACPI, the debug kernel runs on the TSC (test/hostlib.sh says why).
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
	# Closes a dx-plant bracket (run.sh) that a killed test left open.
	echo "dx-test: ended $1" 2>/dev/null >/dev/kmsg || true
	kill $wd 2>/dev/null
	wait $wd
	if [ -n "$tl" ]; then
		sleep 0.5
		kill $tl
	fi
	[ -e /tmp/dx-timedout ] && rc=124
	return $rc
}

# The cases a test script declares, in order (cases.sh reads them).
cases_of() { bash /dx/cases.sh "$1" | cut -f1 | sed -n 's|^[^/]*/||p'; }

# case_result ok|fail|skip NAME SECONDS OUTPUT: one case's result line and
# what it said.
case_result() {
	case $1 in
	ok) echo "DX-RESULT ok $2"
	    grep '^# ' <<<"$4" || true
	    echo "# $2: $3 s" ;;
	skip) echo "DX-RESULT skip $2 $(sed -n 's/^SKIP: //p' <<<"$4" | tail -n1)" ;;
	*) echo "DX-RESULT fail $2"
	   [ -n "$xtrace" ] || sed 's/^/# /' <<<"${4%$'\n'}" ;;
	esac
}

# cases NAME STATUS WANT SCRIPT: the results of test NAME's cases (SCRIPT's,
# NAME being SCRIPT or SCRIPT@ROUND), from the marker
# lines (DX-CASE-BEGIN/END) in its output, /tmp/dx-test.out; a case it was
# inside when it ended fails; a case of WANT (all of them when empty) that
# did not run is skipped, saying why. Leaves the test's own output (all
# that is in no case) in $own, and in $tally how its cases went.
cases() {
	local name=$1 rc=$2 want=$3 script=$4 line cur= buf= done=" " c why
	local -a w
	local -A n=([ok]=0 [fail]=0 [skip]=0)
	own= tally=
	while IFS= read -r line; do
		case $line in
		"DX-CASE-BEGIN "*)
			cur=${line#DX-CASE-BEGIN } buf= ;;
		"DX-CASE-END "*)
			read -ra w <<<"${line#DX-CASE-END }"	# status seconds case
			case_result "${w[0]}" "$name/${w[2]}" "${w[1]}" "$buf"
			n[${w[0]}]=$((n[${w[0]}] + 1))
			done+="${w[2]} " cur= ;;
		*)
			if [ -n "$cur" ]; then
				buf+=$line$'\n'
			else
				own+=$line$'\n'
			fi ;;
		esac
	done </tmp/dx-test.out
	own=${own%$'\n'}
	if [ -n "$cur" ]; then
		why="the test ended inside this case (exit $rc)"
		[ "$rc" != 124 ] || why="the test timed out inside this case ($limit s)"
		case_result fail "$name/$cur" 0 "$buf$why"
		n[fail]=$((n[fail] + 1))
		done+="$cur "
	fi
	case $rc in
	0) why="not run (its dx_case line was not reached)" ;;
	4) why="not run: $name skipped" ;;
	*) why="not run: $name failed before it" ;;
	esac
	for c in ${want:-$(cases_of "/dx/tests/$script.sh")}; do
		[[ $done == *" $c "* ]] && continue
		echo "DX-RESULT skip $name/$c $why"
		n[skip]=$((n[skip] + 1))
	done
	[ $((n[ok] + n[fail] + n[skip])) = 0 ] ||
		tally=", cases: ${n[ok]} passed, ${n[fail]} failed, ${n[skip]} skipped"
}

for round in $(seq "$rounds"); do
	for t in /dx/tests/*.sh; do
		script=$(basename "$t" .sh)
		name=$script
		[ "$rounds" = 1 ] || name=$script@$round
		# TEST runs all of it; TEST/CASE (one or more) those cases only.
		want=
		if [ -n "$sel" ] && ! [[ " $sel " == *" $script "* ]]; then
			[[ " $sel " == *" $script/"* ]] || continue
			want=$(tr ' ' '\n' <<<"$sel" | sed -n "s|^$script/||p" | tr '\n' ' ')
		fi
		export DX_CASES=$want
		t0=$SECONDS
		run_test "$t"
		rc=$?
		script_rc=$rc
		# Whatever a test started, loaded or bound, it must have undone.
		if [ -e /tmp/dx-leftover ] && [ $rc != 124 ]; then
			left_procs=1
			[ $rc = 0 ] || [ $rc = 4 ] && rc=1
		else
			left_procs=
		fi
		left=$(awk '$1 ~ /^devmemx/ { print $1 }' /proc/modules)
		if [ -n "$left" ]; then
			[ $rc = 0 ] || [ $rc = 4 ] && rc=1
			for m in $left; do rmmod "$m"; done
		fi
		cases "$name" "$script_rc" "$want" "$script"
		if [ -n "$xtrace" ]; then
			out=	# already streamed
		else
			out=$own
		fi
		[ $rc = 124 ] && out=${out:+$out$'\n'}"timed out after $limit s"
		[ -z "$left_procs" ] || out=${out:+$out$'\n'}"left behind: processes of the test (killed)"
		[ -z "$left" ] || out=${out:+$out$'\n'}"left behind: modules $left"
		case $rc in
		0) echo "DX-RESULT ok $name"
		   grep '^# ' <<<"$out"
		   echo "# $name: $((SECONDS - t0)) s$tally" ;;
		4) echo "DX-RESULT skip $name $(sed -n 's/^SKIP: //p' <<<"$own" | tail -n1)" ;;
		*) echo "DX-RESULT fail $name"
		   sed 's/^/# /' <<<"$out"
		   [ -z "$tally" ] || echo "# $name$tally" ;;
		esac
	done
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
