# SPDX-License-Identifier: GPL-2.0
# rmmod devmemx_sim under a devmem binding: while it waits for a
# connection, and while data flows; and the bound device moved to another
# network namespace. No warnings; the receiver sees its device go (nothing
# on its sockets says so) and exits at once, saying why, without touching
# the flow rule it made (the rule went with the device); and the page pools
# of the device are gone once the binding's buffers are.
#
# The bindings are devmemx's. In-tree devmem's unbind warns on mlx5 here:
# the receiver ends while the device is closed (going away, or moved, which
# takes it down), mlx5 answers the queue restart with -ENODEV, and the core
# expects only -ENETDOWN (WARN_ON in __netif_mp_close_rxq,
# net/core/netdev_rx_queue.c). The sim answers as mlx5 does.
. /dx/guestlib.sh

dx_load
dx_defer dx_unload

no_pools() { flush_deferred_skbs; [ -z "$(pools rx)" ]; }
bound() { [ "$(dmabuf_pools rx)" != 0 ]; }
unbound_tx() { flush_deferred_skbs; [ "$(dmabuf_pools tx)" = 0 ]; }
cleanup() { sim_del_netns; }

# Each case makes its own sim, and removes it: the cases remove or move
# the device.
setup() {
	dx_defer sim_gone
	sim_setup 4
	ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	ip netns exec rx ethtool -X dxsim1 equal 2
}
# A cleanup: the namespaces deleted, the sim unloaded if it is still
# there, nothing of devmemx left.
sim_gone() {
	cleanup
	if grep -q '^devmemx_sim ' /proc/modules; then
		rmmod devmemx_sim
	fi
	dx_wait_idle
}

# The receivers' timeouts are far longer than the test: they must not be
# what ends them.
long=600
ended() { [ ! -e /proc/$1 ] || grep -q '^State:.*zombie' /proc/$1/status; }
# recv_bound PORT BYTES [RECV-ARGS]: a receiver on dxsim1 queue 2 (stdout
# /tmp/rx.json, stderr /tmp/rx.err), bound; its pid in $pid.
recv_bound() {
	local port=$1 bytes=$2
	shift 2
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port "$port" \
		--expect "$bytes" --timeout $long --provider devmemx --udmabuf 16M "$@" \
		>/tmp/rx.json 2>/tmp/rx.err &
	pid=$!
	dx_defer dx_stop $pid
	wait_until 30 bound || fail "no page pool with a dma-buf appeared: $(pools rx)"
}
# gone_exit PID WHEN: receiver PID, whose device was just removed, ends at
# once with status 1 and says why.
gone_exit() {
	local rc=0
	wait_until 5 ended "$1" || { kill "$1"; fail "receiver still running 5 s after its device went ($2)"; }
	wait "$1" || rc=$?
	expect_eq "$rc" 1 "receiver's exit status after its device went ($2)"
	expect_eq "$(cat /tmp/rx.err)" \
		"devmemx-rx: dxsim1 went away (unregistered, or moved to another network namespace)" \
		"receiver's message after its device went ($2)"
}

# rmmod devmemx_sim while a bound receiver waits for a connection.
bound_idle() {
	setup
	recv_bound 8000 1
	rmmod devmemx_sim
	gone_exit $pid "waiting for a connection"
	wait_until 20 no_pools || fail "page pools left after rmmod: $(pools rx)"
}

# rmmod devmemx_sim while devmem data flows to the receiver.
# 256M at TCG speed takes far
# longer than this test waits. The sender starts once the receiver is
# bound (a bind can take long on the debug kernel); it is stopped once
# the device is gone.
mid_stream() {
	local spid
	setup
	recv_bound 8001 268435456
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port 8001 \
		--bytes 268435456 --timeout $((10 * DX_SLOW)) >/dev/null 2>/tmp/tx.err &
	spid=$!
	dx_defer dx_stop $spid
	flowing() { [ "$(rx_stat rx2_split)" -gt 200 ]; }
	wait_until 20 flowing || fail "no devmem traffic on queue 2 (receiver: $(cat /tmp/rx.err); sender: $(cat /tmp/tx.err))"
	rmmod devmemx_sim
	gone_exit $pid "mid-stream"
	[ "$(jget bytes /tmp/rx.json)" -gt 0 ] || fail "nothing received before the device went: $(cat /tmp/rx.json)"
	[ "$(jget mismatches /tmp/rx.json)" = 0 ] || fail "mismatches before the device went: $(cat /tmp/rx.json)"
	kill $spid 2>/dev/null || true
	wait $spid || true
	wait_until 20 no_pools || fail "page pools left after rmmod mid-stream: $(pools rx)"
}

# The bound device moved to another namespace: gone for the receiver too.
# The move itself ends the binding (devmemx-perms).
moved() {
	setup
	recv_bound 8002 1
	ip -n rx link set dxsim1 netns tx
	gone_exit $pid "moved to another namespace"
	wait_until 20 unbound_tx || fail "dma-buf page pool left after the moved device's receiver ended: $(pools tx)"
}

dx_case idle bound_idle
dx_case mid-stream mid_stream
dx_case moved moved
