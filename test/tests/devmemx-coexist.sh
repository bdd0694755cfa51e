# SPDX-License-Identifier: GPL-2.0
# devmemx next to in-tree devmem on one device, and two devmemx bindings of
# different niov sizes at once: concurrent flows, every byte verified.
. /dx/tlib.sh

dx_sim_devmem 9000
trap dx_sim_teardown EXIT

# pair NAME PORT BYTES RECV-ARGS...: start receiver NAME in the background.
recv_bg() {
	local name=$1 port=$2 bytes=$3
	shift 3
	ip netns exec rx devmemx-rx recv --dev dxsim1 --port "$port" \
		--expect "$bytes" --timeout 60 "$@" >/tmp/$name.json 2>/tmp/$name.err &
}
send_bg() { # port bytes
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port "$1" \
		--bytes "$2" --timeout 30 >/dev/null &
}
check() { # name bytes
	expect_eq "$(jget bytes /tmp/$1.json)" "$2" "$1: bytes ($(cat /tmp/$1.err))"
	expect_eq "$(jget mismatches /tmp/$1.json)" 0 "$1: mismatches"
}

# In-tree on queue 2, devmemx (64K niovs) on queue 3, at the same time.
recv_bg intree 9101 4194304 --queues 2
recv_bg dx 9102 4194304 --queues 3 --provider devmemx --rx-page-size 64K \
	--udmabuf 8M --hugetlb
send_bg 9101 4194304
send_bg 9102 4194304
wait
check intree 4194304
check dx 4194304
expect_eq "$(jget provider /tmp/intree.json)" netdev "first receiver's provider"
expect_eq "$(jget provider /tmp/dx.json)" devmemx "second receiver's provider"
[ "$(jget frag_max /tmp/dx.json)" -gt 4096 ] || fail "devmemx flow had no fragment above 4K"
[ "$(jget frag_max /tmp/intree.json)" -le 4096 ] || fail "in-tree flow had a fragment above 4K"
flush_deferred_skbs

# Two devmemx bindings, 16K niovs on queue 2 and 128K on queue 3.
recv_bg a 9103 4194304 --queues 2 --provider devmemx --rx-page-size 16K \
	--udmabuf 8M --hugetlb
recv_bg b 9104 4194304 --queues 3 --provider devmemx --rx-page-size 128K \
	--udmabuf 8M --hugetlb
send_bg 9103 4194304
send_bg 9104 4194304
wait
check a 4194304
check b 4194304
[ "$(jget binding_id /tmp/a.json)" != "$(jget binding_id /tmp/b.json)" ] ||
	fail "two bindings with one id"
[ "$(jget frag_max /tmp/a.json)" -le 16384 ] || fail "fragment above the 16K niov"
trap - EXIT
dx_sim_teardown
