# SPDX-License-Identifier: GPL-2.0
# Inside the VM: a pod with one of dxsim1's queues leased to it, as 7.2's
# queue-create gives a container's netkit a NIC queue (doc/lease.md), for
# devmemx-lease and make ab's lease set. Needs guestlib.sh and the sim up
# (dx_sim_devmem); each step registers its undoing with dx_defer.
#
# The pair nkp/nkc is made in netns rx (l3: no ARP); queue LEASE_PQ of
# dxsim1 is leased to nkc as its queue Q; the pod is netns nkns, where nkc
# has address POD; devmemx-rx redirect on dxsim1's ingress hands the pod's
# packets to nkc (bpf_redirect_peer, as the kernel's nk_forward.bpf.c),
# and netns rx routes the replies back.
LEASE_PQ=3
POD=198.51.100.2

nk_gone() { ! ip netns exec rx test -e /sys/class/net/nkp; }
# nk_del: the pair gone (and with it any lease of its queues), and netns
# nkns, where nkc may have been moved.
nk_del() {
	ip netns del nkns 2>/dev/null || true
	ip netns exec rx ip link del nkp 2>/dev/null || true
	wait_until 10 nk_gone || fail "the netkit pair did not go"
}
# nk_pair: the pair, up; nkc's ifindex in NKC, dxsim1's in PHYS.
nk_pair() {
	dx_defer nk_del
	ip netns exec rx ip link add nkp numrxqueues 2 type netkit mode l3 \
		peer name nkc numrxqueues 2
	ip netns exec rx ip link set nkp up
	ip netns exec rx ip link set nkc up
	NKC=$(ip netns exec rx cat /sys/class/net/nkc/ifindex)
	PHYS=$(ip netns exec rx cat /sys/class/net/dxsim1/ifindex)
}
# nk_lease: nk_pair with queue LEASE_PQ of dxsim1 leased to nkc, as its
# queue Q.
nk_lease() {
	local out
	nk_pair
	out=$(ip netns exec rx devmemx-rx lease --netkit nkc --dev dxsim1 \
		--queue $LEASE_PQ 2>&1)
	Q=$(sed -n "s/^queue \([0-9]*\) of nkc leases queue $LEASE_PQ of dxsim1\$/\1/p" <<<"$out")
	[ -n "$Q" ] || fail "devmemx-rx lease of queue $LEASE_PQ of dxsim1 to nkc: $out"
}
# nk_pod: nk_lease with nkc in the pod; the pod's flows redirected into
# it, their replies routed back by netns rx; netns tx sends to POD.
nk_pod() {
	nk_lease
	ip netns add nkns
	ip netns exec rx ip link set nkc netns nkns
	ip -n nkns -batch - <<-EOS
		addr add $POD/32 dev nkc
		link set nkc up
		link set lo up
		route add default dev nkc
	EOS
	ip netns exec rx sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'
	ip netns exec rx ip route add $POD/32 dev nkp
	ip -n tx route replace $POD/32 via 192.0.2.2
	# (ip execs it: $! is devmemx-rx.)
	ip netns exec rx devmemx-rx redirect --dev dxsim1 --netkit nkp --addr $POD \
		>/tmp/redirect.out 2>&1 &
	REDIRECT=$!
	dx_defer dx_stop "$REDIRECT"
	redirected() { grep -q "^redirecting " /tmp/redirect.out; }
	wait_until 10 redirected || fail "devmemx-rx redirect: $(cat /tmp/redirect.out)"
}
# nk_steer PORT: dxsim1 steers TCP port PORT to queue LEASE_PQ, as the
# host does for its pod.
nk_steer() {
	local rule
	rule=$(ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port "$1" \
		action $LEASE_PQ | sed -n 's/.*ID \([0-9]*\).*/\1/p')
	[ -n "$rule" ] || fail "steering port $1 to queue $LEASE_PQ"
	dx_defer ip netns exec rx ethtool -N dxsim1 delete "$rule"
}
