# SPDX-License-Identifier: GPL-2.0
# The NIC's DMA device goes while a binding still needs it, as on a PCI
# unplug: the sim with keep_dma_dev=0 drops its device at unload, and a
# receiver holds the binding's niovs past that, so the binding is freed,
# and its dma-buf unmapped for that device, after the driver went. The
# binding holds the device until then; without that hold the unmap reads a
# freed device, which KASAN reports on the debug lane (make test-debug).
#
# One story, so no named cases: each step needs the state the one before
# left (the held tokens, then the driver gone under them).
. /dx/guestlib.sh

# A cleanup: the sim unloaded, if it is still there.
sim_gone() {
	if grep -q '^devmemx_sim ' /proc/modules; then
		sim_teardown
	fi
}

dx_load
dx_defer dx_unload
dx_defer dx_wait_idle
DX_SIM_ARGS="keep_dma_dev=0" sim_setup 4
dx_defer sim_gone
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
expect_eq "$(cat /sys/module/devmemx_sim/parameters/keep_dma_dev)" N "keep_dma_dev"
# The receiver's socket, closed once the device is gone, holds the tokens
# until TCP gives up its FIN (no route any more): a second, not minutes.
ip netns exec rx bash -c 'echo 1 >/proc/sys/net/ipv4/tcp_orphan_retries'

recv_start rx 7400 4194304 --queues 2 --provider devmemx --rx-page-size 64K \
	--udmabuf 16M --hugetlb --hold 600
dx_defer dx_stop "${DX_RECV_PID[rx]}"
send 7400 4194304 || fail "send: $(cat /tmp/rx.err)"
holding() { grep -q "holding [0-9]* tokens" /tmp/rx.err; }
wait_until 20 holding || fail "receiver holds no tokens: $(cat /tmp/rx.err)"
expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings while tokens are held"

# The device goes with the driver; the receiver sees it and ends, and
# only once its socket is gone do the binding's niovs come back and the
# binding is freed.
sim_teardown
rc=0
wait "${DX_RECV_PID[rx]}" || rc=$?
expect_eq "$rc" 1 "receiver's exit after its device went"
grep -q "went away" /tmp/rx.err || fail "receiver said: $(cat /tmp/rx.err)"
dx_wait_idle
grep -q '^devmemx_sim ' /proc/modules && fail "devmemx_sim still loaded"
echo "# a 64K binding freed after its driver and DMA device went: $(grep -c . /tmp/rx.err) lines from the receiver, no kernel report"
