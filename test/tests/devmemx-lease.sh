# SPDX-License-Identifier: GPL-2.0
# A queue of dxsim1 leased to a virtual device, as 7.2's queue-create gives
# a container's netkit one of the NIC's queues. In-tree bind-rx follows the
# lease to the physical queue; devmemx does not yet, and refuses with a
# message that says so (extack's 79 characters) before any check that would
# name the virtual device's own settings; it binds neither end of a lease,
# and the kernel leases no queue devmemx holds. Once the lease ends, the queue binds again.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
PHYS=$(rxx cat /sys/class/net/dxsim1/ifindex)

# nk_pair: the netkit pair nkp/nkc in netns rx, up, nkc's ifindex in NKC;
# a cleanup deletes it (and with it any lease of its queues), and netns
# nkns, where a case may have moved nkc.
nk_gone() { ! rxx test -e /sys/class/net/nkp; }
nk_del() {
	ip netns del nkns 2>/dev/null || true
	rxx ip link del nkp 2>/dev/null || true
	wait_until 10 nk_gone || fail "the netkit pair did not go"
}
nk_pair() {
	dx_defer nk_del
	rxx ip link add nkp numrxqueues 2 type netkit mode l2 peer name nkc numrxqueues 2
	rxx ip link set nkp up
	rxx ip link set nkc up
	NKC=$(rxx cat /sys/class/net/nkc/ifindex)
}
# nk_lease: nk_pair with queue 3 of dxsim1 leased to nkc, as its queue Q.
nk_lease() {
	local out
	nk_pair
	out=$(rxx dx-req lease "$NKC" 3 "$PHYS")
	Q=${out#ok }
	[ "$out" = "ok $Q" ] || fail "queue-create leasing queue 3 of dxsim1 to nkc: $out"
	LEASED="devmemx: bind to nkc: queue $Q of nkc is leased: devmemx takes no leased queue (Operation not supported)"
}
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# The kernel refuses to lease a queue devmemx holds.
bound_queue() {
	local id
	nk_pair
	dx_defer unbind_all
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	[ -n "$id" ] || fail "persistent bind of queue 2"
	expect_eq "$(rxx dx-req lease "$NKC" 2 "$PHYS")" \
		"errno 16: Device queue in use by memory provider" "lease of the bound queue 2"
	rxx devmemx unbind "$id" >/dev/null
	dx_wait_idle
}
dx_case bound-queue bound_queue

# devmemx binds neither end of a lease, the netkit queue nor dxsim1's.
# The netkit queue is refused with devmemx's own message.
both_ends() {
	nk_lease
	expect_err 1 "$LEASED" \
		rxx devmemx bind dev nkc queues "$Q" --udmabuf 4M
	expect_err 1 "devmemx: bind to dxsim1: queue 3 of dxsim1 is leased (Device or resource busy)" \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 4M
	expect_eq "$(dx_live)" "0 0 0" "live objects after the refusals"
}
dx_case both-ends both_ends

# In a container's namespace: devmemx refuses the lease, in-tree binds it.
# nkc in a namespace of its own, as a container has it.
in_netns() {
	nk_lease
	ip netns add nkns
	rxx ip link set nkc netns nkns
	ip -n nkns link set nkc up
	expect_err 1 "$LEASED" \
		ip netns exec nkns devmemx bind dev nkc queues "$Q" --udmabuf 4M
	expect_eq "$(dx_live)" "0 0 0" "live objects after the refusal in nkns"
	# In-tree devmem binds the leased queue (its binding ends as dx-req
	# exits).
	expect_eq "$(ip netns exec nkns dx-req netdev-bind "$(ip netns exec nkns cat /sys/class/net/nkc/ifindex)" "$Q")" \
		"ok" "in-tree bind-rx of the leased queue"
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after in-tree's"
}
dx_case in-netns in_netns

# Once the lease ends, queue 3 binds again and carries a devmemx flow.
# The lease ends with the netkit pair, as its container goes.
lease_ended() {
	nk_lease
	ip netns add nkns
	rxx ip link set nkc netns nkns
	nk_del
	devmem_xfer 1048576 7500 --queues 3 --provider devmemx --udmabuf 4M
}
dx_case lease-ended lease_ended
