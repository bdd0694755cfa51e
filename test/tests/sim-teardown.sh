# SPDX-License-Identifier: GPL-2.0
# rmmod devmemx_sim under in-tree devmem: while a binding waits for a
# connection, and while data flows. No warnings, the receiver fails cleanly,
# and the page pools of the device are gone once the binding's buffers are.
. /dx/tlib.sh

no_pools() { flush_deferred_skbs; [ -z "$(pools rx)" ]; }
bound() { [ "$(dmabuf_pools rx)" != 0 ]; }
cleanup() { ip netns del tx 2>/dev/null; ip netns del rx 2>/dev/null; true; }
trap cleanup EXIT

setup() {
	sim_setup 4
	ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	ip netns exec rx ethtool -X dxsim1 equal 2
}

# 1. Bound and idle: the receiver waits for a connection.
setup
ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 8000 \
	--expect 1 --timeout $((4 * DX_SLOW)) >/dev/null 2>/tmp/rx.err &
pid=$!
wait_until 10 bound || fail "no page pool with a dma-buf appeared: $(pools rx)"
rmmod devmemx_sim
rc=0
wait $pid || rc=$?
expect_eq "$rc" 1 "receiver exit after its device went away"
wait_until 20 no_pools || fail "page pools left after rmmod: $(pools rx)"
cleanup

# 2. Data flowing: 256M at TCG speed takes far longer than this test waits.
setup
ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 8001 \
	--expect 268435456 --timeout $((4 * DX_SLOW)) >/tmp/rx.json 2>/tmp/rx.err &
rpid=$!
ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port 8001 \
	--bytes 268435456 --timeout $((4 * DX_SLOW)) >/dev/null 2>&1 &
spid=$!
flowing() { [ "$(rx_stat rx2_split)" -gt 200 ]; }
wait_until 20 flowing || fail "no devmem traffic on queue 2"
rmmod devmemx_sim
rc=0
wait $rpid || rc=$?
expect_eq "$rc" 1 "receiver exit after its device went away mid-stream"
[ "$(jget mismatches /tmp/rx.json)" = 0 ] || fail "mismatches before the device went: $(cat /tmp/rx.json)"
wait $spid || true
wait_until 20 no_pools || fail "page pools left after rmmod mid-stream: $(pools rx)"
