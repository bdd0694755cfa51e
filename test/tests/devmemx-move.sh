# SPDX-License-Identifier: GPL-2.0
# A device moved to another network namespace while UNBIND ends its
# binding: the move ends every binding on the device before it joins the
# other namespace, including one UNBIND marked but has not undone yet, so
# a link brought up there at once has no page pool of the binding.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }

# dxsim1 back in rx, as dx_sim_up left it (a move drops its address and
# brings it down).
home() {
	ip -n mv link set dxsim1 netns rx 2>/dev/null || true
	ip -n rx addr add 192.0.2.2/24 dev dxsim1 2>/dev/null || true
	ip -n rx addr add 2001:db8::2/64 dev dxsim1 nodad 2>/dev/null || true
	ip -n rx link set dxsim1 up
}

# UNBIND and a move with the link up at the other end, at once; many times
# (6 on the debug kernel, where a round takes 20 s).
unbind_races_move() {
	local i id upid rc pools n=20 faults0
	[ -z "$DX_DEBUG" ] || n=6
	ip netns add mv
	dx_defer ip netns del mv
	dx_defer home
	faults0=$(rx_stat dma_faults)
	for i in $(seq $n); do
		id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
		[ -n "$id" ] || fail "round $i: bind"
		rxx devmemx unbind "$id" >/tmp/unbind.out 2>&1 &
		upid=$!
		ip -n rx link set dxsim1 netns mv
		ip -n mv link set dxsim1 up
		# Before the unbind is waited for: it may not have ended yet.
		pools=$(dmabuf_pools mv)
		rc=0
		wait $upid || rc=$?
		expect_eq "$pools" 0 "round $i: page pools with a binding in netns mv once dxsim1 came up there"
		# The unbind ends it, or the move did first.
		case "$rc $(cat /tmp/unbind.out)" in
		"0 unbound: 1" | "1 devmemx: unbind $id: no devmemx binding $id"*) ;;
		*) fail "round $i: unbind: exit $rc: $(cat /tmp/unbind.out)" ;;
		esac
		expect_eq "$(dmabuf_pools mv)" 0 "round $i: page pools with a binding in netns mv after the unbind"
		home
		dx_wait_idle
	done
	echo "# $n rounds of unbind against a move to netns mv and link up: no page pool of a binding there"
	expect_eq "$(rx_stat dma_faults)" "$faults0" "the sim's DMA faults"
}
dx_case unbind-races-move unbind_races_move

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
