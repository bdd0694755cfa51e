# SPDX-License-Identifier: GPL-2.0
# A queue of dxsim1 leased to a virtual device, as 7.2's queue-create gives
# a container's netkit one of the NIC's queues. In-tree bind-rx follows the
# lease to the physical queue; devmemx does not yet, and refuses with a
# message that says so (extack's 79 characters) before any check that would
# name the virtual device's own settings; it binds neither end of a lease,
# and the kernel leases no queue devmemx holds. Once the lease ends, the queue binds again.
. /dx/guestlib.sh

dx_sim_devmem
rxx() { ip netns exec rx "$@"; }
trap 'rxx ip link del nkp 2>/dev/null; dx_sim_teardown' EXIT
rxx ip link add nkp numrxqueues 2 type netkit mode l2 peer name nkc numrxqueues 2
rxx ip link set nkp up
rxx ip link set nkc up
phys=$(rxx cat /sys/class/net/dxsim1/ifindex)
nkc=$(rxx cat /sys/class/net/nkc/ifindex)

# The kernel refuses to lease a queue devmemx holds.
id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
[ -n "$id" ] || fail "persistent bind of queue 2"
expect_eq "$(rxx dx-req lease "$nkc" 2 "$phys")" \
	"errno 16: Device queue in use by memory provider" "lease of the bound queue 2"
rxx devmemx unbind "$id" >/dev/null
dx_wait_idle

out=$(rxx dx-req lease "$nkc" 3 "$phys")
q=${out#ok }
[ "$out" = "ok $q" ] || fail "queue-create leasing queue 3 of dxsim1 to nkc: $out"
leased="devmemx: bind to nkc: queue $q of nkc is leased: devmemx takes no leased queue (Operation not supported)"
expect_err 1 "$leased" \
	rxx devmemx bind dev nkc queues "$q" --udmabuf 4M
expect_err 1 "devmemx: bind to dxsim1: queue 3 of dxsim1 is leased (Device or resource busy)" \
	rxx devmemx bind dev dxsim1 queues 3 --udmabuf 4M
expect_eq "$(dx_live)" "0 0 0" "live objects after the refusals"
# So in a namespace of its own, as a container has it.
ip netns add nkns
trap 'ip netns del nkns 2>/dev/null; rxx ip link del nkp 2>/dev/null; dx_sim_teardown' EXIT
rxx ip link set nkc netns nkns
ip -n nkns link set nkc up
expect_err 1 "$leased" \
	ip netns exec nkns devmemx bind dev nkc queues "$q" --udmabuf 4M
expect_eq "$(dx_live)" "0 0 0" "live objects after the refusal in nkns"
# In-tree devmem binds the leased queue (its binding ends as dx-req exits).
expect_eq "$(ip netns exec nkns dx-req netdev-bind "$(ip netns exec nkns cat /sys/class/net/nkc/ifindex)" "$q")" \
	"ok" "in-tree bind-rx of the leased queue"
expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after in-tree's"

# The lease ends with the netkit pair: queue 3 is dxsim1's again.
ip netns del nkns
rxx ip link del nkp 2>/dev/null || true
gone() { ! rxx test -e /sys/class/net/nkp; }
wait_until 10 gone || fail "the netkit pair did not go"
trap dx_sim_teardown EXIT
devmem_xfer 1048576 7500 --queues 3 --provider devmemx --udmabuf 4M
trap - EXIT
dx_sim_teardown
