# SPDX-License-Identifier: GPL-2.0
# devmemx_sim fault knobs under in-tree devmem: a bind whose queue start
# fails, buffer allocation failures, dropped packets, and a dma-buf too
# small for the flow; each leaves the queue working and the data intact.
. /dx/guestlib.sh

sim_setup 4
dx_defer sim_teardown
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
knob=/sys/kernel/debug/devmemx_sim/dxsim1
# A cleanup: knob K back to 0 (a case that failed may have left it armed).
knob_off() { echo 0 >"$knob/$1"; }

# The queue restart of a bind fails: the bind fails, the queue keeps working.
queue_start_fails() {
	local rc=0
	dx_defer knob_off fail_queue_start
	echo 1 >$knob/fail_queue_start
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 7000 \
		--expect 1 --timeout 5 >/dev/null 2>/tmp/rx.err || rc=$?
	expect_eq "$rc" 1 "bind with a failing queue start"
	grep -q 'Input/output error' /tmp/rx.err || fail "bind error: $(cat /tmp/rx.err)"
	expect_eq "$(rx_stat fault_queue_start)" 1 "queue starts failed"
	expect_eq "$(cat $knob/fail_queue_start)" 0 "knob left"
	devmem_xfer 65536 7001 --queues 2
}

# Buffer allocations fail: those packets drop, TCP resends, data arrives.
alloc_fails() {
	local a0
	dx_defer knob_off fail_alloc
	a0=$(rx_stat rx2_alloc_fail)
	# Few: every failure costs TCP a retransmission timeout, and they back off.
	echo 5 >$knob/fail_alloc
	devmem_xfer 1048576 7002 --queues 2
	expect_eq "$(rx_stat fault_alloc)" 5 "allocations failed by the knob"
	[ $(($(rx_stat rx2_alloc_fail) - a0)) -ge 5 ] || fail "rx2_alloc_fail did not count the failures"
}

# Packets dropped by the NIC.
drops() {
	dx_defer knob_off drop
	echo 3 >$knob/drop
	devmem_xfer 1048576 7003 --queues 2
	expect_eq "$(rx_stat fault_drop)" 3 "packets dropped by the knob"
}

# A 256K dma-buf (64 niovs) for a 4M flow: the pool may run dry while the
# receiver holds tokens, packets drop, and the flow recovers as it
# returns them. The receive buffer stays below the dma-buf (128K): with
# more, out-of-order segments that TCP keeps can hold every niov while
# the segment that fills the hole finds none, and the flow stops for
# good (seen with 64K bursts); under its limit TCP prunes them instead.
small_dmabuf() {
	local a0 rmem
	rmem=$(ip netns exec rx cat /proc/sys/net/ipv4/tcp_rmem)
	dx_defer ip netns exec rx sh -c "echo '$rmem' >/proc/sys/net/ipv4/tcp_rmem"
	ip netns exec rx sh -c 'echo "4096 65536 131072" >/proc/sys/net/ipv4/tcp_rmem'
	a0=$(rx_stat rx2_alloc_fail)
	devmem_xfer 4194304 7004 --queues 2 --udmabuf 256K
	echo "# alloc_fail during the small-buffer flow: $(($(rx_stat rx2_alloc_fail) - a0))"
}

dx_case queue-start-fails queue_start_fails
dx_case alloc-fails alloc_fails
dx_case drops drops
dx_case small-dmabuf small_dmabuf
