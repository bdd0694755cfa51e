# SPDX-License-Identifier: GPL-2.0
# Full reopens of the channels, as mlx5 makes them (mlx5e_open_channels
# builds every queue's page pool without the queue's config: PAGE_SIZE
# buffers, yet with the queue's memory provider): link down/up, MTU, ring
# and channel changes, and a recovery (TX timeout, health). With a 64K
# devmemx binding each must succeed, and the bound queue must be back at
# 64K buffers after it, counted in show; a flow across a link down/up
# loses no byte. Before that: UDP steered to the bound queue is dropped, as
# mlx5 drops what it does not split there. On 7.3 in-tree's 64K binding
# makes every reopen fail: MTU, ring, channels and recovery are refused
# (the old channels stay), and after a link down it does not come up.
. /dx/guestlib.sh

# Six queues, so that channels can go down to four with queue 2 bound
# (the core keeps two above a bound queue: net/ethtool/common.c).
dx_load
sim_setup 6
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
knob=/sys/kernel/debug/devmemx_sim/dxsim1/recover
# The kernel log since the case began (each case sets CASE_LINES).
CASE_LINES=$(dmesg | wc -l)
new_log() { dmesg | tail -n +$((CASE_LINES + 1)); }
field() { # binding field
	rxx devmemx -j show "$1" >/tmp/show.json || fail "show $1"
	jget "$2" /tmp/show.json
}
# Kernel log lines since the case began saying queue 2 is back at 64K for
# binding $1.
back_lines() {
	new_log | grep -c "dxsim1: devmemx: queue 2 back at rx-buf-size 65536 for binding $1 after" || true
}
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# bind_64k: a persistent 64K binding of queue 2, its id in ID; the case's
# cleanups unbind it.
bind_64k() {
	CASE_LINES=$(dmesg | wc -l)
	dx_defer unbind_all
	ID=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --udmabuf 16M --hugetlb --persist |
		json_ids)
	[ -n "$ID" ] || fail "bind"
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "queue 2's buffers once bound"
	expect_eq "$(field "$ID" pools-other-size)" 0 "pools of another size after the bind"
}

# UDP steered to the bound queue is dropped, as mlx5 drops it.
# What the device does not split (anything but TCP) is dropped on a queue
# with net_iov buffers.
udp_dropped() {
	local rule drops packets
	bind_64k
	rule=$(rxx ethtool -N dxsim1 flow-type udp4 dst-port 7999 action 2 | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || fail "udp4 rule to queue 2"
	dx_defer rxx ethtool -N dxsim1 delete "$rule"
	drops=$(rx_stat rx2_nosplit_drops)
	packets=$(rx_stat rx2_packets)
	ip netns exec tx bash -c 'for i in 1 2 3 4 5; do echo x >/dev/udp/192.0.2.2/7999; done'
	dropped() { [ "$(rx_stat rx2_nosplit_drops)" = $((drops + 5)) ]; }
	wait_until 5 dropped || fail "UDP on the bound queue: nosplit_drops $(rx_stat rx2_nosplit_drops), was $drops"
	expect_eq "$(rx_stat rx2_packets)" "$packets" "packets received on queue 2 from the UDP datagrams"
}

# reopen WHAT CMD...: with queue 2 bound at 64K (bind_64k), CMD reopens
# every channel; queue 2 comes back at 64K, and the kernel log says so once.
# Then the unbind.
reopen() {
	local what=$1 before t1 t2
	shift
	bind_64k
	before=$(field "$ID" pools-other-size)
	"$@" || fail "$what with a 64K devmemx binding on queue 2 failed"
	back() {
		[ "$(rx_stat rx2_buf_size)" = 65536 ] &&
			[ "$(field "$ID" pools-other-size)" -gt "$before" ]
	}
	wait_until 10 back ||
		fail "$what: queue 2 at $(rx_stat rx2_buf_size) bytes, pools of another size $(field "$ID" pools-other-size) (were $before)"
	# No queue runs at another size now: the time stands still.
	t1=$(field "$ID" other-size-ns)
	sleep 0.3
	t2=$(field "$ID" other-size-ns)
	expect_eq "$t2" "$t1" "$what: time at another size still growing"
	one_pool() { flush_deferred_skbs; [ "$(dx_live)" = "1 256 1" ]; }
	wait_until 10 one_pool || fail "$what: live objects $(dx_live), expected one binding of 256 niovs, one pool"
	echo "# $what: queue 2 got $(($(field "$ID" pools-other-size) - before)) 4K pool(s), back at 64K; $((t2 / 1000)) us at 4K so far"
	[ "$(back_lines "$ID")" = 1 ] || fail "$what: kernel log: $(new_log | grep devmemx)"
	expect_eq "$(rxx devmemx unbind "$ID")" "unbound: 1" "unbind"
	dx_wait_idle
}
down_up() { rxx ip link set dxsim1 down && rxx ip link set dxsim1 up; }
recover() { echo 1 >$knob; }
# The first restart at 64K fails after it made its pool (the old queue
# stays): devmemx must try again, not take the new pool for the queue's.
recover_failing() {
	echo 1 >/sys/kernel/debug/devmemx_sim/dxsim1/fail_queue_start
	recover
}
knob_off() { echo 0 >/sys/kernel/debug/devmemx_sim/dxsim1/"$1"; }

# Link down/up with queue 2 bound at 64K: back at 64K after, counted.
reopen_link() { reopen "link down/up" down_up; }

# An MTU change with queue 2 bound at 64K: back at 64K after, counted.
reopen_mtu() {
	dx_defer ip -n rx link set dxsim1 mtu 1500
	reopen "MTU 1500 -> 4000" ip -n rx link set dxsim1 mtu 4000
}

# A ring size change with queue 2 bound at 64K: back at 64K after, counted.
reopen_ring() {
	dx_defer rxx ethtool -G dxsim1 rx 1024
	reopen "ring 1024 -> 512" rxx ethtool -G dxsim1 rx 512
}

# Channels 6 -> 4 with queue 2 bound at 64K: back at 64K after, counted.
# (The core keeps two channels above a bound queue.)
reopen_channels() {
	dx_defer rxx ethtool -L dxsim1 combined 6
	reopen "channels 6 -> 4" rxx ethtool -L dxsim1 combined 4
}

# A recovery with queue 2 bound at 64K: back at 64K after, counted.
# (The sim's recover knob: a TX timeout or a health event.)
reopen_recovery() { reopen "recovery" recover; }

# A recovery whose first restart back at 64K fails: devmemx tries again.
reopen_recovery_failing() {
	local f0
	dx_defer knob_off fail_queue_start
	f0=$(rx_stat fault_queue_start)
	reopen "recovery, the first restart failing" recover_failing
	expect_eq "$(rx_stat fault_queue_start)" $((f0 + 1)) "queue starts the knob failed"
}

# A 64K devmemx flow across a link down/up arrives whole.
# 512M (64M on the debug kernel, which receives at a few MB/s).
flow_link_down_up() {
	local bytes spid ms
	CASE_LINES=$(dmesg | wc -l)
	bytes=$((512 * 1024 * 1024))
	[ -z "$DX_DEBUG" ] || bytes=$((64 * 1024 * 1024))
	dx_defer dx_wait_idle
	dx_defer rxx ip link set dxsim1 up
	recv_start rx 7200 $bytes --queues 2 --provider devmemx --rx-page-size 64K \
		--udmabuf 32M --hugetlb
	dx_defer dx_stop "${DX_RECV_PID[rx]}"
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port 7200 --bytes $bytes \
		--timeout $((60 * DX_SLOW)) >/tmp/send.json &
	spid=$!
	dx_defer dx_stop $spid
	flowing() { [ "$(rx_stat rx2_split)" -gt 1000 ]; }
	wait_until 20 flowing || fail "no devmem traffic on queue 2: $(cat /tmp/rx.err)"
	rxx ip link set dxsim1 down
	sleep 0.5
	rxx ip link set dxsim1 up
	wait $spid || fail "send across the link down/up: $(cat /tmp/rx.err)"
	recv_check rx $bytes
	ms=$(new_log | sed -n 's/.*dxsim1: devmemx: queue 2 back at rx-buf-size 65536 for binding [0-9]* after \([0-9]*\) ms.*/\1/p' |
		tail -n 1)
	[ -n "$ms" ] || fail "queue 2 not back at 64K after the link came up: $(new_log | grep devmemx)"
	echo "# a 64K flow across link down/up: queue 2 ran $ms ms with 4K pools; $bytes bytes received, 0 lost, $(jget mismatches /tmp/rx.json) wrong, largest fragment $(jget frag_max /tmp/rx.json)"
	dx_wait_idle
}

# In-tree 7.3's 64K binding: every reopen refused, no link up after a down.
# The same reopens devmemx's binding takes, from where they left the device.
intree_reopens() {
	local rpid rc out
	[ "$DX_SERIES" = 7.3 ] || skip "in-tree devmem binds 4K niovs only before 7.3"
	CASE_LINES=$(dmesg | wc -l)
	# Where devmemx's reopens left the device: MTU 4000, ring 512, four
	# channels.
	dx_defer rxx ethtool -L dxsim1 combined 6
	dx_defer rxx ethtool -G dxsim1 rx 1024
	dx_defer ip -n rx link set dxsim1 mtu 1500
	ip -n rx link set dxsim1 mtu 4000
	rxx ethtool -G dxsim1 rx 512
	rxx ethtool -L dxsim1 combined 4
	# Started directly, so that $! is the receiver itself.
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 7300 --expect 1 \
		--rx-page-size 64K --udmabuf 32M --hugetlb --timeout 600 \
		>/dev/null 2>/tmp/intree.err &
	rpid=$!
	gone() { flush_deferred_skbs; [ "$(dmabuf_pools rx)" = 0 ]; }
	intree_gone() { wait_until 20 gone || fail "in-tree binding left: $(pools rx)"; }
	dx_defer intree_gone
	dx_defer dx_stop $rpid
	# The sim as kind as before brings it up, so that the binding can go
	# (in-tree on a down device would warn: netdev_rx_queue.c, -ENODEV).
	qcfg_up() {
		echo 1 >/sys/module/devmemx_sim/parameters/open_qcfg
		rxx ip link set dxsim1 up
		echo 0 >/sys/module/devmemx_sim/parameters/open_qcfg
	}
	dx_defer qcfg_up
	bound() { [ "$(dmabuf_pools rx)" = 1 ]; }
	wait_until 20 bound || fail "in-tree 64K binding: $(cat /tmp/intree.err)"
	# Each reopen that keeps the old channels on failure is refused.
	refused() { # what, then the command
		local what=$1 rc=0 out
		shift
		out=$("$@" 2>&1) || rc=$?
		[ $rc != 0 ] || fail "in-tree 64K: $what went through (the sim is kinder than mlx5?)"
		expect_eq "$(dmabuf_pools rx)" 1 "in-tree 64K: pools with the binding after the refused $what"
		echo "# in-tree 7.3 64K, $what: refused: $(echo "$out" | tail -n 1)"
	}
	refused "MTU 4000 -> 1500" rxx ip link set dxsim1 mtu 1500
	refused "ring 512 -> 1024" rxx ethtool -G dxsim1 rx 1024
	refused "channels 4 -> 6" rxx ethtool -L dxsim1 combined 6
	refused "recovery" recover
	rxx ip link set dxsim1 down
	rc=0
	out=$(rxx ip link set dxsim1 up 2>&1) || rc=$?
	[ $rc != 0 ] || fail "in-tree 64K: the link came up (the sim is kinder than mlx5?)"
	new_log | grep -q "mem-provider init failed -7" || fail "in-tree 64K: no provider refusal in the kernel log"
	echo "# in-tree 7.3 64K across link down/up: ip link set up: $out (page_pool_init: mem-provider init failed -7)"
	qcfg_up
	kill $rpid
	wait $rpid || true
	intree_gone
}

dx_case udp-dropped udp_dropped
dx_case link-down-up reopen_link
dx_case mtu reopen_mtu
dx_case ring reopen_ring
dx_case channels reopen_channels
dx_case recovery reopen_recovery
dx_case recovery-restart-fails reopen_recovery_failing
dx_case flow-link-down-up flow_link_down_up
dx_case intree-reopens intree_reopens
