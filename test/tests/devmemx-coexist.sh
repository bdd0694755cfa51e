# SPDX-License-Identifier: GPL-2.0
# devmemx next to in-tree devmem on one device, and two devmemx bindings of
# different niov sizes at once: concurrent flows, every byte verified.
. /dx/guestlib.sh

dx_sim_devmem 9000
dx_defer dx_sim_teardown

# Two flows at once, each with its own receiver (guestlib's recv_start/check).
two_flows() { # port1 port2: receivers f1 and f2 are started
	local s1 s2
	send "$1" 4194304 &
	s1=$!
	send "$2" 4194304 &
	s2=$!
	wait $s1 || fail "send to port $1: $(cat /tmp/f1.err)"
	wait $s2 || fail "send to port $2: $(cat /tmp/f2.err)"
	recv_check f1 4194304
	recv_check f2 4194304
}

# In-tree on queue 2, devmemx (64K niovs) on queue 3, at the same time.
in_tree_and_devmemx() {
	recv_start f1 9101 4194304 --queues 2
	recv_start f2 9102 4194304 --queues 3 --provider devmemx --rx-page-size 64K \
		--udmabuf 8M --hugetlb
	two_flows 9101 9102
	expect_eq "$(jget provider /tmp/f1.json)" netdev "first receiver's provider"
	expect_eq "$(jget provider /tmp/f2.json)" devmemx "second receiver's provider"
	[ "$(jget frag_max /tmp/f2.json)" -gt 4096 ] || fail "devmemx flow had no fragment above 4K"
	[ "$(jget frag_max /tmp/f1.json)" -le 4096 ] || fail "in-tree flow had a fragment above 4K"
	flush_deferred_skbs
}

# Two devmemx bindings, 16K niovs on queue 2 and 128K on queue 3.
two_devmemx() {
	recv_start f1 9103 4194304 --queues 2 --provider devmemx --rx-page-size 16K \
		--udmabuf 8M --hugetlb
	recv_start f2 9104 4194304 --queues 3 --provider devmemx --rx-page-size 128K \
		--udmabuf 8M --hugetlb
	two_flows 9103 9104
	[ "$(jget binding_id /tmp/f1.json)" != "$(jget binding_id /tmp/f2.json)" ] ||
		fail "two bindings with one id"
	[ "$(jget frag_max /tmp/f1.json)" -le 16384 ] || fail "fragment above the 16K niov"
	flush_deferred_skbs
}

dx_case in-tree-and-devmemx in_tree_and_devmemx
dx_case two-devmemx two_devmemx
