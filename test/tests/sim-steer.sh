# SPDX-License-Identifier: GPL-2.0
# dx-debug: no the sim's ntuple rules and channel counts checked against mlx5's; the lane's flows steer through the same code (dx_sim_up, devmemx-races' reopens)
# devmemx_sim steering and channels, as mlx5 takes them: ntuple rules
# (tcp4/tcp6/udp4/udp6 on any of src-ip, dst-ip, src-port, dst-port) steer
# to their queue and nowhere else, list back with every field, delete;
# unsupported forms are refused with a message naming the field. ethtool -L
# shrinks and grows the queues under traffic, and is refused while a queue
# that would go away holds a memory provider (in-tree devmem or devmemx).
. /dx/guestlib.sh

dx_load
sim_setup 4
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
txx() { ip netns exec tx "$@"; }

# Payloads into page pool buffers, so queues that come back need new pools.
rxx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
# RSS on queue 0 only: queues 1-3 take only what a rule sends them.
rxx ethtool -X dxsim1 equal 1
# Addresses that a rule's field must tell apart.
ip -n tx addr add 192.0.2.3/24 dev dxsim0
ip -n rx addr add 192.0.2.4/24 dev dxsim1
ip -n rx addr add 2001:db8::4/64 dev dxsim1 nodad
txx ping -c 1 -W 5 192.0.2.4 >/dev/null || fail "ping 192.0.2.4"
txx ping -6 -c 1 -W 5 2001:db8::4 >/dev/null || fail "ping 2001:db8::4"

# rx<N>_packets of every queue of dxsim1, from ethtool -S.
counts() { rxx ethtool -S dxsim1 | awk '$1 ~ /^rx[0-9]+_packets:$/ { printf "%s ", $2 }'; }

# steered WHAT QUEUE N CMD...: the N packets CMD sends to dxsim1 arrive on
# QUEUE, and none on the other queues that only rules feed (1-3).
steered() {
	local what=$1 q=$2 n=$3 i
	local -a b a
	shift 3
	read -ra b <<<"$(counts)"
	"$@"
	arrived() {
		read -ra a <<<"$(counts)"
		[ $((a[q] - b[q])) -ge "$n" ]
	}
	wait_until 5 arrived || fail "$what: $((a[q] - b[q])) packets on queue $q, expected $n"
	for i in 1 2 3; do
		[ "$i" = "$q" ] || expect_eq "$((a[i] - b[i]))" 0 "$what: packets on queue $i"
	done
}

# syn ADDR DPORT SPORT COUNT: COUNT connection attempts from netns tx to a
# port nobody listens on: one SYN each reaches dxsim1, answered by a RST.
# (busybox nc ignores -p when it connects: the port range picks SPORT.)
syn() {
	local i
	txx sysctl -qw net.ipv4.ip_local_port_range="$3 $3"
	for i in $(seq "$4"); do
		! txx nc -w 5 "$1" "$2" </dev/null >/dev/null 2>&1 ||
			fail "connected to $1 port $2"
	done
	txx sysctl -qw net.ipv4.ip_local_port_range="32768 60999"
}

# udp ADDR PORT COUNT: COUNT datagrams from netns tx.
udp() {
	txx bash -c "for i in \$(seq $3); do echo x >/dev/udp/$1/$2; done"
}

# transfer KIB PORT: KIB KiB of random bytes tx -> rx over TCP, compared.
transfer() {
	local pid
	dd if=/dev/urandom of=/tmp/in bs=1024 count="$1" 2>/dev/null
	rxx nc -l -p "$2" >/tmp/out &
	pid=$!
	wait_until 5 listening "$2" || fail "nobody listens on port $2"
	txx bash -c "cat /tmp/in >/dev/tcp/192.0.2.2/$2" || fail "send to port $2"
	wait $pid || true
	cmp -s /tmp/in /tmp/out || fail "data differs after $1 KiB over port $2"
}

# add_rule ARGS...: ethtool -N dxsim1 ARGS; prints the rule's id.
add_rule() {
	local out
	out=$(rxx ethtool -N dxsim1 "$@") || fail "ethtool -N dxsim1 $*: refused"
	sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p' <<<"$out"
}

rule_count() { rxx ethtool -n dxsim1 | sed -n 's/^Total \([0-9]*\) rules$/\1/p'; }

# expect_rule ID TEXT: ethtool -n dxsim1 rule ID shows TEXT (without the
# Filter line and the indent).
expect_rule() {
	local got
	got=$(rxx ethtool -n dxsim1 rule "$1" | sed '1d; s/^\t//')
	expect_eq "$got" "$2" "ethtool -n dxsim1 rule $1"
}

del_rule() {
	rxx ethtool -N dxsim1 delete "$1" || fail "delete rule $1"
	expect_err 1 "rxclass: Cannot get RX class rule: No such file or directory
Cannot get RX classification rule" rxx ethtool -n dxsim1 rule "$1"
}

# A case's cleanup: every rule deleted, whatever the case left.
no_rules() {
	local id
	for id in $(rxx ethtool -n dxsim1 | sed -n 's/^Filter: \([0-9]*\)$/\1/p'); do
		rxx ethtool -N dxsim1 delete "$id"
	done
}

# tcp4, dst-port only: a whole transfer lands on queue 1.
tcp4_dst_port() {
	local id
	dx_defer no_rules
	id=$(add_rule flow-type tcp4 dst-port 6001 action 1)
	expect_rule "$id" "Rule Type: TCP over IPv4
Src IP addr: 0.0.0.0 mask: 255.255.255.255
Dest IP addr: 0.0.0.0 mask: 255.255.255.255
TOS: 0x0 mask: 0xff
Src port: 0 mask: 0xffff
Dest port: 6001 mask: 0x0
Action: Direct to queue 1"
	steered "tcp4 dst-port" 1 100 transfer 256 6001
	del_rule "$id"
	steered "tcp4 dst-port after delete" 0 3 syn 192.0.2.2 6001 40001 3
}
dx_case tcp4-dst-port tcp4_dst_port

# tcp4 on all four fields: each field that differs keeps the rule off.
tcp4_four_fields() {
	local id
	dx_defer no_rules
	id=$(add_rule flow-type tcp4 src-ip 192.0.2.1 dst-ip 192.0.2.2 src-port 40002 dst-port 6002 action 2)
	expect_rule "$id" "Rule Type: TCP over IPv4
Src IP addr: 192.0.2.1 mask: 0.0.0.0
Dest IP addr: 192.0.2.2 mask: 0.0.0.0
TOS: 0x0 mask: 0xff
Src port: 40002 mask: 0x0
Dest port: 6002 mask: 0x0
Action: Direct to queue 2"
	steered "tcp4 4-tuple" 2 3 syn 192.0.2.2 6002 40002 3
	steered "tcp4 4-tuple, other src-port" 0 3 syn 192.0.2.2 6002 40003 3
	steered "tcp4 4-tuple, other dst-port" 0 3 syn 192.0.2.2 6012 40002 3
	steered "tcp4 4-tuple, other dst-ip" 0 3 syn 192.0.2.4 6002 40002 3
	ip -n tx route add 192.0.2.2/32 dev dxsim0 src 192.0.2.3
	dx_defer eval 'ip -n tx route del 192.0.2.2/32 2>/dev/null || true'
	steered "tcp4 4-tuple, other src-ip" 0 3 syn 192.0.2.2 6002 40002 3
	ip -n tx route del 192.0.2.2/32 dev dxsim0 src 192.0.2.3
	steered "tcp4 4-tuple, udp" 0 5 udp 192.0.2.2 6002 5
	del_rule "$id"
	steered "tcp4 4-tuple after delete" 0 3 syn 192.0.2.2 6002 40002 3
}
dx_case tcp4-four-fields tcp4_four_fields

# tcp6 on dst-ip and dst-port.
tcp6() {
	local id
	dx_defer no_rules
	id=$(add_rule flow-type tcp6 dst-ip 2001:db8::2 dst-port 6003 action 3)
	expect_rule "$id" "Rule Type: TCP over IPv6
Src IP addr: :: mask: ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff
Dest IP addr: 2001:db8::2 mask: ::
Traffic Class: 0x0 mask: 0xff
Src port: 0 mask: 0xffff
Dest port: 6003 mask: 0x0
Action: Direct to queue 3"
	steered "tcp6" 3 3 syn 2001:db8::2 6003 40004 3
	steered "tcp6, other dst-ip" 0 3 syn 2001:db8::4 6003 40004 3
	steered "tcp6, IPv4" 0 3 syn 192.0.2.2 6003 40004 3
	steered "tcp6, udp6" 0 5 udp 2001:db8::2 6003 5
	del_rule "$id"
	steered "tcp6 after delete" 0 3 syn 2001:db8::2 6003 40004 3
}
dx_case tcp6 tcp6

# udp4 on dst-port; udp6 on src-ip and src-port lists back as given.
udp_rules() {
	local id
	dx_defer no_rules
	id=$(add_rule flow-type udp4 dst-port 7004 action 1)
	expect_rule "$id" "Rule Type: UDP over IPv4
Src IP addr: 0.0.0.0 mask: 255.255.255.255
Dest IP addr: 0.0.0.0 mask: 255.255.255.255
TOS: 0x0 mask: 0xff
Src port: 0 mask: 0xffff
Dest port: 7004 mask: 0x0
Action: Direct to queue 1"
	steered "udp4" 1 10 udp 192.0.2.2 7004 10
	steered "udp4, tcp" 0 3 syn 192.0.2.2 7004 40005 3
	del_rule "$id"
	steered "udp4 after delete" 0 10 udp 192.0.2.2 7004 10

	id=$(add_rule flow-type udp6 src-ip 2001:db8::1 src-port 99 action 2)
	expect_rule "$id" "Rule Type: UDP over IPv6
Src IP addr: 2001:db8::1 mask: ::
Dest IP addr: :: mask: ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff
Traffic Class: 0x0 mask: 0xff
Src port: 99 mask: 0x0
Dest port: 0 mask: 0xffff
Action: Direct to queue 2"
	del_rule "$id"
}
dx_case udp udp_rules

# Rules are tried in order: the first one (by location) that matches wins.
rule_order() {
	dx_defer no_rules
	add_rule flow-type tcp4 dst-port 6006 action 1 loc 5 >/dev/null
	add_rule flow-type tcp4 src-port 40006 dst-port 6006 action 2 loc 6 >/dev/null
	steered "first of two matching rules" 1 3 syn 192.0.2.2 6006 40006 3
	del_rule 5
	steered "the second rule, once alone" 2 3 syn 192.0.2.2 6006 40006 3
	del_rule 6
	expect_eq "$(rule_count)" 0 "rules left"
}
dx_case rule-order rule_order

# refused ERRNO-TEXT MESSAGE ARGS...: ethtool -N dxsim1 ARGS fails with
# ERRNO-TEXT, the kernel log says MESSAGE, and no rule is left.
refused() {
	local errtext=$1 msg=$2 last
	shift 2
	expect_err 1 "rmgr: Cannot insert RX class rule: $errtext
Cannot insert classification rule" rxx ethtool -N dxsim1 "$@"
	last=$(dmesg | tail -n 1 | sed 's/^\[[^]]*\] *//')
	expect_eq "$last" "devmemx_sim dxsim1: $msg" "kernel message for ethtool -N $*"
	expect_eq "$(rule_count)" 0 "rules after ethtool -N $*"
}
nosup="Operation not supported"

# Unsupported rule forms: refused with a message naming the field.
refused_forms() {
	dx_defer no_rules
	refused "$nosup" "ntuple: vlan is not supported" \
		flow-type tcp4 dst-port 6001 vlan 5 action 1
	refused "$nosup" "ntuple: user-def is not supported" \
		flow-type tcp4 dst-port 6001 user-def 0x1 action 1
	refused "$nosup" "ntuple: dst-mac is not supported" \
		flow-type tcp4 dst-port 6001 dst-mac 00:11:22:33:44:55 action 1
	refused "$nosup" "ntuple: dst-ip takes no mask (exact match only)" \
		flow-type tcp4 dst-ip 192.0.2.2 m 0.0.0.255 action 1
	refused "$nosup" "ntuple: src-port takes no mask (exact match only)" \
		flow-type tcp6 src-port 40000 m 0xff action 1
	refused "$nosup" "ntuple: tos is not supported" \
		flow-type tcp4 tos 4 action 1
	refused "$nosup" "ntuple: tclass is not supported" \
		flow-type udp6 tclass 4 action 1
	refused "$nosup" "ntuple: flow-type ether is not supported (tcp4, tcp6, udp4, udp6 are)" \
		flow-type ether dst 00:11:22:33:44:55 action 1
	refused "$nosup" "ntuple: flow-type ip4 is not supported (tcp4, tcp6, udp4, udp6 are)" \
		flow-type ip4 l4proto 6 action 1
	refused "$nosup" "ntuple: action -1 (drop) is not supported" \
		flow-type tcp4 dst-port 6001 action -1
	refused "Invalid argument" "ntuple: queue 4 is out of range: the device has queues 0-3" \
		flow-type tcp4 dst-port 6001 action 4
	refused "Invalid argument" "ntuple: loc 64 is out of range: rules go in 0-63" \
		flow-type tcp4 dst-port 6001 action 1 loc 64
}
dx_case refused-forms refused_forms

# --- channels -------------------------------------------------------------

# ethtool -L's refusals: netlink error TEXT, then the errno.
lerr() { printf 'netlink error: %s\nnetlink error: Invalid argument' "$1"; }
combined() { rxx ethtool -l dxsim1 | awk '/^Combined:/ { printf "%s ", $2 }'; }
# The RX queues the netdev family lists for dxsim1 (qstats go by them too).
ifindex=$(rxx cat /sys/class/net/dxsim1/ifindex)
nl_queues() {
	rxx devmemx-rx queues -j |
		sed -n "s/^{\"id\":\([0-9]*\),\"ifindex\":$ifindex,\"type\":0.*/\1/p" | tr '\n' ' '
}
# Page pools of dxsim1 that serve a queue (not ones freed, still draining).
nl_pools() {
	flush_deferred_skbs
	rxx devmemx-rx pools -j | grep "\"ifindex\":$ifindex," | grep -vc detach-time
}
# A case's cleanup: the setup's channels and table (4, RSS on queue 0),
# the device up, no rule.
channels_back() {
	no_rules
	ip -n rx link set dxsim1 up
	[ "$(combined)" = "4 4 " ] || rxx ethtool -L dxsim1 combined 4
	rxx ethtool -X dxsim1 equal 1
}
mp_refusal=$(lerr "requested channel counts are too low for existing memory provider setting (4)")

# What the core checks before the driver sees the request: the maximum, a
# table the user set, and rules, on queues that would go away.
channel_refusals() {
	local id
	dx_defer channels_back
	expect_eq "$(combined)" "4 4 " "ethtool -l: max, current"
	expect_err 1 "$(lerr "requested channel count exceeds maximum (offset 36)")" \
		rxx ethtool -L dxsim1 combined 5
	expect_err 1 "$(lerr "requested channel count exceeds maximum (offset 36)")" \
		rxx ethtool -L dxsim1 rx 2
	rxx ethtool -X dxsim1 equal 4
	expect_err 1 "$(lerr "requested channel counts are too low for existing indirection table (3)")" \
		rxx ethtool -L dxsim1 combined 2
	rxx ethtool -X dxsim1 default
	id=$(add_rule flow-type tcp4 dst-port 6100 action 3)
	expect_err 1 "$(lerr "requested channel counts are too low for existing ntuple filter settings")" \
		rxx ethtool -L dxsim1 combined 3
	del_rule "$id"
	expect_eq "$(combined)" "4 4 " "channels after refusals"
}
dx_case channel-refusals channel_refusals

# Shrink to 2 on the running device: the default table follows, traffic
# uses queues 0-1 only, and only they are listed; grow back to 4: queue 3
# has a page pool again and takes a steered flow.
shrink_grow() {
	local id p s3
	local -a a b
	dx_defer channels_back
	rxx ethtool -X dxsim1 default
	rxx ethtool -L dxsim1 combined 2
	expect_eq "$(combined)" "4 2 " "ethtool -l after shrinking"
	expect_eq "$(rxx ethtool -x dxsim1 | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) s[$i] = 1 }
		END { for (q in s) printf "%s ", q }' | tr ' ' '\n' | sort -n | tr '\n' ' ')" "0 1 " \
		"queues in the indirection table"
	expect_eq "$(nl_queues)" "0 1 " "RX queues listed"
	expect_eq "$(nl_pools)" 2 "page pools"
	read -ra b <<<"$(counts)"
	for p in $(seq 6110 6125); do transfer 16 "$p"; done
	read -ra a <<<"$(counts)"
	expect_eq "$((a[2] - b[2])) $((a[3] - b[3]))" "0 0" "packets on queues 2 and 3 with 2 channels"
	[ $((a[0] - b[0] + a[1] - b[1])) -ge 64 ] || fail "16 transfers: only $((a[0] - b[0] + a[1] - b[1])) packets on queues 0-1"
	refused "Invalid argument" "ntuple: queue 2 is out of range: the device has queues 0-1" \
		flow-type tcp4 dst-port 6001 action 2

	rxx ethtool -L dxsim1 combined 4
	expect_eq "$(combined)" "4 4 " "ethtool -l after growing"
	expect_eq "$(nl_queues)" "0 1 2 3 " "RX queues listed"
	expect_eq "$(nl_pools)" 4 "page pools"
	rxx ethtool -X dxsim1 equal 1
	id=$(add_rule flow-type tcp4 dst-port 6130 action 3)
	s3=$(rx_stat rx3_split)
	steered "queue 3 after growing" 3 100 transfer 256 6130
	[ "$(rx_stat rx3_split)" -gt "$s3" ] || fail "no payload in queue 3's buffers after growing"
	del_rule "$id"
}
dx_case shrink-grow shrink_grow

# While the device is down: the count applies when it comes up.
down_count() {
	local id
	dx_defer channels_back
	ip -n rx link set dxsim1 down
	rxx ethtool -L dxsim1 combined 3
	ip -n rx link set dxsim1 up
	expect_eq "$(nl_queues)" "0 1 2 " "RX queues listed after down, -L 3, up"
	expect_eq "$(nl_pools)" 3 "page pools after down, -L 3, up"
	id=$(add_rule flow-type tcp4 dst-port 6140 action 2)
	steered "queue 2 with 3 channels" 2 100 transfer 256 6140
	del_rule "$id"
}
dx_case down-count down_count

# A queue bound to in-tree devmem cannot go away, even without a rule on it.
bound_in_tree() {
	local id
	dx_defer channels_back
	bound() { rxx devmemx-rx queues -j | grep -c "^{\"id\":3,\"ifindex\":$ifindex,\"type\":0,\"dmabuf\"" >/dev/null; }
	unbound() { ! bound; }
	recv_start dm 6150 1048576 --queues 3 --no-flow-rule
	dx_defer dx_stop "${DX_RECV_PID[dm]}"
	wait_until 10 bound || fail "queue 3 not bound: $(cat /tmp/dm.err)"
	expect_err 1 "$mp_refusal" rxx ethtool -L dxsim1 combined 3
	expect_err 1 "$mp_refusal" rxx ethtool -L dxsim1 combined 1
	id=$(add_rule flow-type tcp4 dst-port 6150 action 3)
	send 6150 1048576 || fail "send to the devmem receiver: $(cat /tmp/dm.err)"
	recv_check dm 1048576
	del_rule "$id"
	flush_deferred_skbs
	wait_until 10 unbound || fail "queue 3 still bound after the receiver ended"
}
dx_case bound-in-tree bound_in_tree

# The same for a devmemx binding.
bound_devmemx() {
	local bid
	dx_defer channels_back
	dx_defer dx_wait_idle
	bid=$(rxx devmemx -j bind dev dxsim1 queues 3 --udmabuf 4M --persist |
		json_ids)
	[ -n "$bid" ] || fail "devmemx bind printed no id"
	dx_defer eval 'rxx devmemx unbind all >/dev/null'
	expect_err 1 "$mp_refusal" rxx ethtool -L dxsim1 combined 3
	expect_eq "$(combined)" "4 4 " "channels while bound"
	expect_eq "$(rxx devmemx unbind "$bid")" "unbound: 1" "unbind"
	dx_wait_idle
	rxx ethtool -L dxsim1 combined 3
	expect_eq "$(combined)" "4 3 " "channels after unbind"
}
dx_case bound-devmemx bound_devmemx
