# SPDX-License-Identifier: GPL-2.0
# dx-debug: no devmemx_sim as a plain NIC, with no memory provider: every flow of the lane runs its receive path
# devmemx_sim as a normal NIC: link, ping, TCP data through header split
# with payload in page pool buffers, ntuple steering, RSS, MTU 9000,
# ethtool settings, and a clean unload.
. /dx/guestlib.sh

sim_setup 4
dx_defer sim_teardown

# Header-data split on, threshold 0: every TCP payload goes to buffers.
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -g dxsim1 | grep -c '^TCP data split:[[:space:]]*on$' >/dev/null || fail "tcp-data-split not on"

# transfer KIB PORT: send KIB KiB of random bytes tx -> rx over TCP, compare.
transfer() {
	dd if=/dev/urandom of=/tmp/in bs=1024 count="$1" 2>/dev/null
	ip netns exec rx nc -l -p "$2" >/tmp/out &
	local pid=$! i
	for i in $(seq 50); do
		ip netns exec rx ss -ltn 2>/dev/null | grep -c ":$2 " >/dev/null && break
		sleep 0.1
	done
	ip netns exec tx bash -c "cat /tmp/in >/dev/tcp/192.0.2.2/$2" || fail "send to port $2"
	wait $pid || true
	cmp /tmp/in /tmp/out || fail "data differs after $1 KiB over port $2"
}

sum_stat() { # name: sum of rxN_name over queues
	local s=0 q
	for q in 0 1 2 3; do s=$((s + $(rx_stat "rx${q}_$1"))); done
	echo $s
}

# The driver's name and channels; ping over IPv4 and IPv6.
link_ping() {
	expect_eq "$(ip netns exec rx ethtool -i dxsim1 | sed -n 's/^driver: //p')" devmemx_sim "driver name"
	ip netns exec rx ethtool -l dxsim1 | grep -c '^Combined:[[:space:]]*4$' >/dev/null || fail "ethtool -l"
	ip netns exec tx ping -c 2 -W 5 192.0.2.2 >/dev/null || fail "ping over dxsim"
	ip netns exec tx ping -6 -c 2 -W 5 2001:db8::2 >/dev/null || fail "ping6 over dxsim"
}

# Header split on: a 4M transfer's payload split into buffers, no alloc failure.
header_split() {
	local split0 split1
	split0=$(sum_stat split)
	transfer 4096 5000
	split1=$(sum_stat split)
	[ $((split1 - split0)) -ge 100 ] || fail "payload was not split: split went $split0 -> $split1"
	[ "$(sum_stat alloc_fail)" = 0 ] || fail "allocation failures in a clean run"
}

# A cleanup: ntuple rule $1 deleted, if it is still there.
rule_gone() {
	! ip netns exec rx ethtool -n dxsim1 | grep -q "Filter: $1\$" ||
		ip netns exec rx ethtool -N dxsim1 delete "$1"
}

# An ntuple rule steers port 5001 to queue 2; deleted, it is gone.
ntuple() {
	local loc q2
	loc=$(ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port 5001 action 2 | sed -n 's/.*rule with ID \([0-9]*\).*/\1/p')
	[ -n "$loc" ] || fail "ntuple rule not added"
	dx_defer rule_gone "$loc"
	ip netns exec rx ethtool -n dxsim1 | grep -c "Filter: $loc" >/dev/null || fail "rule $loc not listed"
	q2=$(rx_stat rx2_split)
	transfer 2048 5001
	[ $(($(rx_stat rx2_split) - q2)) -ge 100 ] || fail "steered flow did not land on queue 2"
	ip netns exec rx ethtool -N dxsim1 delete "$loc"
	expect_err 1 "rmgr: Cannot delete RX class rule: No such file or directory
Cannot delete classification rule" ip netns exec rx ethtool -N dxsim1 delete "$loc"
}

# RSS over queues 0-1 only: queues 2 and 3 see no new packets.
rss() {
	local q2 q3 p
	dx_defer ip netns exec rx ethtool -X dxsim1 default
	ip netns exec rx ethtool -X dxsim1 equal 2
	q2=$(rx_stat rx2_packets) q3=$(rx_stat rx3_packets)
	for p in 5002 5003 5004 5005; do transfer 256 $p; done
	expect_eq "$(rx_stat rx2_packets) $(rx_stat rx3_packets)" "$q2 $q3" "queues 2,3 outside RSS"
}

# A cleanup: both ends back at MTU 1500.
mtu_back() {
	ip -n tx link set dxsim0 mtu 1500
	ip -n rx link set dxsim1 mtu 1500
}

# Jumbo frames: 4M at MTU 9000.
jumbo() {
	dx_defer mtu_back
	ip -n tx link set dxsim0 mtu 9000
	ip -n rx link set dxsim1 mtu 9000
	transfer 4096 5006
}

# Header split off: payload stays in the linear part.
split_off() {
	local s0
	dx_defer ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	ip netns exec rx ethtool -G dxsim1 tcp-data-split off
	s0=$(sum_stat split)
	transfer 1024 5007
	expect_eq "$(sum_stat split)" "$s0" "split packets with tcp-data-split off"
}

dx_case link link_ping
dx_case header-split header_split
dx_case ntuple ntuple
dx_case rss rss
dx_case jumbo jumbo
dx_case split-off split_off

# No ring ran full in any case.
expect_eq "$(sum_stat ring_full)" 0 "ring_full"
