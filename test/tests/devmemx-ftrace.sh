# SPDX-License-Identifier: GPL-2.0
# devmemx's redirects cannot be switched off under it. Without them the
# in-tree provider would run on devmemx bindings (on 7.2 a NULL pointer
# dereference in NAPI), so its ftrace ops are PERMANENT: the kernel refuses
# kernel.ftrace_enabled=0 while devmemx is loaded, a flow goes on through
# the refused write, and devmemx refuses to load while it is 0. 7.3 refuses
# the write whatever is loaded (the knob is deprecated there).
. /dx/guestlib.sh

knob=/proc/sys/kernel/ftrace_enabled
expect_eq "$(cat $knob)" 1 "kernel.ftrace_enabled at boot"
set_knob() { (echo "$1" >$knob) 2>&1; }
# A cleanup: the knob back at 1 (a case that failed may have left it at 0).
knob_on() { set_knob 1 >/dev/null || true; }

dx_sim_devmem
dx_defer dx_sim_teardown
dx_defer knob_on

# kernel.ftrace_enabled=0 refused during a 64K devmemx flow, which goes on.
in_flow() {
	local spid why rc out
	dx_defer dx_wait_idle
	recv_start rx 7100 67108864 --queues 2 --provider devmemx --rx-page-size 64K \
		--udmabuf 32M --hugetlb
	dx_defer dx_stop "${DX_RECV_PID[rx]}"
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port 7100 --bytes 67108864 \
		--timeout $((30 * DX_SLOW)) >/tmp/send.json &
	spid=$!
	dx_defer dx_stop $spid
	flowing() { [ "$(rx_stat rx2_split)" -gt 100 ]; }
	wait_until 20 flowing || fail "no devmem traffic on queue 2: $(cat /tmp/rx.err)"

	# The refusal names its cause: the PERMANENT ops (7.2), deprecation (7.3).
	case $DX_SERIES in
	7.2) why="Device or resource busy" ;;
	*) why="Operation not supported" ;;
	esac
	rc=0
	out=$(set_knob 0) || rc=$?
	[ $rc != 0 ] || fail "kernel.ftrace_enabled=0 was taken with devmemx loaded and a flow on"
	[[ $out == *"$why"* ]] || fail "kernel.ftrace_enabled=0: '$out', expected '$why'"
	expect_eq "$(cat $knob)" 1 "kernel.ftrace_enabled after the refused write"
	wait $spid || fail "send across the refused write: $(cat /tmp/rx.err)"
	recv_check rx 67108864
	echo "# kernel.ftrace_enabled=0 with a 64K devmemx flow on: refused ($why); 64M received and verified"
	flush_deferred_skbs
}

# A cleanup: devmemx loaded again if a case left it out.
dx_back() {
	grep -q '^devmemx ' /proc/modules || dx_load
}

# Without devmemx: 7.2 takes ftrace_enabled=0, then devmemx refuses to load.
# 7.3 refuses the write anyway.
without_devmemx() {
	local lines rc err msg out
	dx_defer dx_back
	dx_unload
	if [ "$DX_SERIES" = 7.2 ]; then
		# Without devmemx nothing holds the knob: 0 is taken, and devmemx then
		# refuses to load, saying what to do.
		set_knob 0 >/dev/null || fail "kernel.ftrace_enabled=0 without devmemx"
		lines=$(dmesg | wc -l)
		rc=0
		err=$(dx_load 2>&1) || rc=$?
		set_knob 1 >/dev/null || fail "kernel.ftrace_enabled=1"
		[ $rc != 0 ] || { dx_unload; fail "devmemx loaded with kernel.ftrace_enabled=0"; }
		[[ $err == *"Device or resource busy"* ]] || fail "insmod said: $err"
		msg="devmemx: cannot redirect mp_dmabuf_devmem_init (-EBUSY): kernel.ftrace_enabled is 0 (devmemx needs it: sysctl kernel.ftrace_enabled=1), or a live patch holds it"
		dmesg | tail -n +$((lines + 1)) | grep -qF "$msg" ||
			fail "no load refusal in the kernel log: $(dmesg | tail -n +$((lines + 1)))"
		grep -q '^devmemx ' /proc/modules && fail "devmemx is loaded after the refusal"
		echo "# devmemx with kernel.ftrace_enabled=0: refused to load ($msg)"
	else
		rc=0
		out=$(set_knob 0) || rc=$?
		[ $rc != 0 ] || fail "7.3 took kernel.ftrace_enabled=0"
		echo "# $DX_SERIES refuses kernel.ftrace_enabled=0 without devmemx too ($out): devmemx cannot be loaded under it"
	fi
}

dx_case in-flow in_flow
dx_case without-devmemx without_devmemx
