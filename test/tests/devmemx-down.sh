# SPDX-License-Identifier: GPL-2.0
# A down device, as mlx5 has one: no channels, so restarting a queue says
# -ENODEV and a queue has no DMA device. A bind is refused with a message
# that says how to bring it up; an unbind completes at once, without
# retries or warnings, and the device comes up without the binding.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
# A cleanup: dxsim1 up (a no-op if it is).
up_again() { rxx ip link set dxsim1 up; }

# A bind on a down device is refused, saying how to bring it up.
# In-tree devmem's attempt, for contrast.
bind_down() {
	local rc lines
	dx_defer up_again
	lines=$(dmesg | wc -l)
	rxx ip link set dxsim1 down
	expect_err 1 "devmemx: bind to dxsim1: dxsim1 is down: ip link set dxsim1 up (Network is down)" \
		rxx devmemx bind dev dxsim1 queues 2 size 64K --udmabuf 4M --hugetlb
	expect_eq "$(dx_live)" "0 0 0" "live objects after the refused bind"
	# In-tree devmem on the same down device, for contrast.
	rc=0
	rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 7000 --expect 1 --timeout 5 \
		>/dev/null 2>/tmp/intree.err || rc=$?
	[ $rc != 0 ] || fail "in-tree devmem bound a down device"
	echo "# in-tree bind on a down device: $(head -n 1 /tmp/intree.err)"
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a dma-buf after the in-tree attempt"
	if dmesg | tail -n +$((lines + 1)) | grep 'devmemx: restarting queue'; then
		fail "a bind refused on a down device restarted its queues"
	fi
	rxx ip link set dxsim1 up
}

# A cleanup: the device up, nothing bound, nothing of devmemx left.
unbound_up() {
	up_again
	[ -z "$(rxx devmemx -j show | json_ids)" ] || rxx devmemx unbind all >/dev/null
	dx_wait_idle
}

# Bound, then down: unbind at once, no queue restart; up, a new bind works.
# Up, the queues come back without the binding.
unbind_down() {
	local lines id
	dx_defer unbound_up
	lines=$(dmesg | wc -l)
	id=$(rxx devmemx -j bind dev dxsim1 queues 2,3 size 64K --udmabuf 8M --hugetlb --persist |
		json_ids)
	[ -n "$id" ] || fail "bind on the device once up"
	rxx ip link set dxsim1 down
	down_live() { flush_deferred_skbs; [ "$(dx_live)" = "1 128 0" ]; }
	wait_until 10 down_live || fail "live objects with the device down (its pools go): $(dx_live)"
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind on a down device"
	dx_wait_idle
	if dmesg | tail -n +$((lines + 1)) | grep 'devmemx: restarting queue'; then
		fail "unbind on a down device tried to restart its queues"
	fi
	# Up, its queues come up without the binding; a new bind works.
	rxx ip link set dxsim1 up
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a dma-buf once up"
	expect_eq "$(rx_stat rx2_buf_size)" 4096 "queue 2's buffers once up"
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --udmabuf 8M --hugetlb --persist |
		json_ids)
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "queue 2's buffers bound again"
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind on an up device"
}

dx_case bind-down bind_down
dx_case unbind-down unbind_down
