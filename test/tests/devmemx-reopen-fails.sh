# SPDX-License-Identifier: GPL-2.0
# A full reopen of the channels that fails after it built every queue's
# new page pool (mlx5e_safe_switch_params() failing in its preactivate; the
# sim's fail_reopen knob): the old queues run on, so a 64K devmemx binding
# records no pool of another size, its queue keeps 64K buffers and is not
# restarted. The same reopen without the fault then counts its 4K pool.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
knob=/sys/kernel/debug/devmemx_sim/dxsim1
knob_off() { echo 0 >"$knob/$1"; }
field() { # binding field
	rxx devmemx -j show "$1" >/tmp/show.json || fail "show $1"
	jget "$2" /tmp/show.json
}
ring() { rxx ethtool -g dxsim1 | awk '/^Current/ { c = 1 } c && $1 == "RX:" { print $2; exit }'; }
back_lines() { dmesg_new | grep -c "dxsim1: devmemx: queue 2 back at rx-buf-size 65536 for binding $1 after" || true; }

# What a failed reopen leaves: nothing counted, no restart; then a reopen
# that works.
failed_reopen() { # what, then the command that reopens
	local what=$1 id f0
	shift
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --udmabuf 16M --hugetlb --persist |
		json_ids)
	[ -n "$id" ] || fail "bind"
	dx_defer rxx devmemx unbind "$id"
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "queue 2's buffers once bound"
	f0=$(rx_stat fault_reopen)

	dx_defer knob_off fail_reopen
	echo 1 >$knob/fail_reopen
	! "$@" 2>/tmp/reopen.err || fail "$what went through with fail_reopen set"
	expect_eq "$(rx_stat fault_reopen)" $((f0 + 1)) "reopens the knob failed"
	# The work that restarts queues runs as soon as the device is unlocked:
	# give it the time it would take, then nothing may have happened.
	sleep $((DX_SLOW))
	expect_eq "$(field "$id" pools-other-size) $(field "$id" other-size-ns)" "0 0" \
		"$what failed: pools of another size, ns at another size"
	rxx devmemx show "$id" | grep -qx 'queues: id=2,buf-size=64K' ||
		fail "$what failed: show's queues: $(rxx devmemx show "$id" | grep queues)"
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "$what failed: queue 2's buffers"
	expect_eq "$(back_lines "$id")" 0 "$what failed: restarts back at rx-buf-size (kernel log)"
	expect_eq "$(dx_live)" "1 256 1" "$what failed: live objects (bindings niovs page-pools)"
	echo "# $what failed ($(tail -n 1 /tmp/reopen.err)): queue 2 kept its 64K pool, nothing counted"

	# Without the fault: the 4K pool serves, is counted, and queue 2 is
	# back at 64K.
	"$@" || fail "$what without the fault"
	counted() {
		[ "$(rx_stat rx2_buf_size)" = 65536 ] &&
			[ "$(field "$id" pools-other-size)" = 1 ] && [ "$(back_lines "$id")" = 1 ]
	}
	wait_until 10 counted ||
		fail "$what: queue 2 at $(rx_stat rx2_buf_size), pools of another size $(field "$id" pools-other-size), $(back_lines "$id") restart(s) logged"
}

# ethtool -G (the ring size) failing.
ring_fails() {
	dx_defer rxx ethtool -G dxsim1 rx 1024
	failed_reopen "ring 1024 -> 512" rxx ethtool -G dxsim1 rx 512
	expect_eq "$(ring)" 512 "the ring after the change that worked"
}
dx_case ring-fails ring_fails

# An MTU change failing.
mtu_fails() {
	dx_defer ip -n rx link set dxsim1 mtu 1500
	failed_reopen "MTU 1500 -> 4000" ip -n rx link set dxsim1 mtu 4000
}
dx_case mtu-fails mtu_fails

# A queue left on a smaller pool (the reopen worked, its restart back at
# 64K keeps failing) sees a reopen that honours its config (the sim's
# open_qcfg) fail: that reopen's 64K pool never served, so the queue is
# still on 4K and must still be restarted back at 64K once it can be.
# (Before: the discarded 64K pool ended the queue's time at 4K, show said
# 64K and the queue stayed on 4K.)
qcfg=/sys/module/devmemx_sim/parameters/open_qcfg
qcfg_off() { echo 0 >$qcfg; }
# A queue waiting for its restart at 64K sees a reopen at 64K fail.
own_size_fails() {
	local id
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --udmabuf 16M --hugetlb --persist |
		json_ids)
	[ -n "$id" ] || fail "bind"
	dx_defer rxx devmemx unbind "$id"
	dx_defer rxx ethtool -G dxsim1 rx 1024
	dx_defer knob_off fail_queue_start
	echo 1000 >$knob/fail_queue_start
	rxx ethtool -G dxsim1 rx 512 || fail "ring 1024 -> 512"
	on_4k() { [ "$(field "$id" pools-other-size)" = 1 ] && [ "$(rx_stat rx2_buf_size)" = 4096 ]; }
	wait_until 10 on_4k || fail "queue 2 after the reopen: at $(rx_stat rx2_buf_size)"

	dx_defer qcfg_off
	echo 1 >$qcfg
	dx_defer knob_off fail_reopen
	echo 1 >$knob/fail_reopen
	! rxx ethtool -G dxsim1 rx 256 2>/dev/null || fail "ring 512 -> 256 went through with fail_reopen set"
	echo 0 >$qcfg
	expect_eq "$(rx_stat rx2_buf_size)" 4096 "queue 2's buffers after the failed reopen"
	rxx devmemx show "$id" | grep -qx 'queues: id=2,buf-size=4K' ||
		fail "the failed reopen: show's queues: $(rxx devmemx show "$id" | grep queues)"
	echo 0 >$knob/fail_queue_start
	back() { [ "$(rx_stat rx2_buf_size)" = 65536 ] && [ "$(back_lines "$id")" = 1 ]; }
	wait_until 30 back ||
		fail "queue 2 at $(rx_stat rx2_buf_size), $(back_lines "$id") restart(s) back at 64K logged"
	expect_eq "$(field "$id" pools-other-size)" 1 "pools of another size"
	echo "# a failed reopen at 64K over a queue on 4K: the queue restarted back at 64K"
}
dx_case own-size-fails own_size_fails

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
