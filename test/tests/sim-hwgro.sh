# SPDX-License-Identifier: GPL-2.0
# dx-debug: no every flow of the lane goes through the sim's HW-GRO; this test checks its counts against mlx5's
# HW-GRO in devmemx_sim, as mlx5 does it: a flow's consecutive segments
# become one skb whose fragment grows while the payload stays in one buffer,
# so large niovs carry more payload per cmsg and token. 4K, 16K and 64K
# devmemx niovs (and in-tree 4K) over the same bytes at MTU 9000 and 1500,
# rx-gro-hw on and off; every byte verified; the HW-GRO counters against
# what the sender's device sent.
. /dx/guestlib.sh

dx_sim_devmem 9000
trap dx_sim_teardown EXIT

expect_eq "$(ip netns exec rx ethtool -k dxsim1 | sed -n 's/^rx-gro-hw: //p')" on "rx-gro-hw by default"

bytes=$((32 << 20)) port=7000
# Sums over RX queues of ethtool -S counters of dxsim1; one tx counter of dxsim0.
rxq_sum() { ip netns exec rx ethtool -S dxsim1 | awk -v k="^rx[0-9]+_$1:\$" '$1 ~ k { s += $2 } END { print s + 0 }'; }
tx_packets() { ip -n tx -s -j link show dxsim0 | sed 's/.*"tx":{"bytes":[0-9]*,"packets":\([0-9]*\).*/\1/'; }
tx_doorbells() { ip netns exec tx ethtool -S dxsim0 | awk '$1 == "tx_doorbells:" { print $2 }'; }
per_gib() { echo $(($1 * 1073741824 / bytes)); }

# xfer LABEL SIZE PROVIDER: one verified flow on queue 2; sets cmsgs, tokens,
# fmax (per GiB and largest fragment) and prints them as a "# " line.
xfer() {
	local label=$1 size=$2 provider=$3 rps= gs0 gw0 gs gw pe0 db0
	port=$((port + 1))
	gs0=$(rxq_sum hw_gro_packets) gw0=$(rxq_sum hw_gro_wire_packets)
	pe0=$(rxq_sum hw_gro_poll_ends) db0=$(tx_doorbells)
	# In-tree devmem on 7.2 takes no rx-page-size: its niovs are 4K.
	[ "$provider" = netdev ] || rps="--rx-page-size $size"
	devmem_xfer $bytes $port --queues 2 --provider "$provider" $rps \
		--udmabuf 32M --hugetlb
	cmsgs=$(per_gib "$(jget cmsgs_dmabuf /tmp/rx.json)")
	tokens=$(per_gib "$(jget tokens /tmp/rx.json)")
	fmax=$(jget frag_max /tmp/rx.json)
	gs=$(($(rxq_sum hw_gro_packets) - gs0)) gw=$(($(rxq_sum hw_gro_wire_packets) - gw0))
	printf '# %-28s %7d cmsgs/GiB %7d tokens/GiB, largest fragment %5d, %4.1f segments per HW-GRO skb, %5.1f MB/s; ring full %d; sender: %s\n' \
		"$label" "$cmsgs" "$tokens" "$fmax" \
		"$(awk -v s=$gs -v w=$gw 'BEGIN { print s ? w / s : 0 }')" \
		"$(awk -v w="$(jget wall_sec /tmp/rx.json)" -v b=$bytes 'BEGIN { print b / w / 1e6 }')" \
		"$(rxq_sum ring_full)" "$(sed 's/[{}"]//g' /tmp/send.json),doorbells:$(($(tx_doorbells) - db0)),poll_ends:$(($(rxq_sum hw_gro_poll_ends) - pe0))"
	[ "$fmax" -le "$size" ] || fail "$label: a $fmax-byte fragment in $size-byte niovs"
}

for mtu in 9000 1500; do
	ip -n tx link set dxsim0 mtu $mtu
	ip -n rx link set dxsim1 mtu $mtu
	# A packet's payload: the MTU less the IP and TCP headers.
	pkt=$((mtu - 40))

	ip netns exec rx ethtool -K dxsim1 rx-gro-hw on
	declare -A on=()
	for size in 4096 16384 65536; do
		g0=$(rxq_sum hw_gro_wire_packets)
		xfer "mtu $mtu gro on, devmemx $((size / 1024))K" $size devmemx
		on[$size]=$cmsgs
		[ "$tokens" -le "$cmsgs" ] || fail "more tokens ($tokens) than cmsgs ($cmsgs)"
		[ "$(rxq_sum hw_gro_wire_packets)" -gt "$g0" ] ||
			fail "mtu $mtu, $size: HW-GRO coalesced nothing"
		# Coalesced: a fragment beyond one packet's payload, up to the
		# niov (a 64K session's IP length stops short of 64K of payload).
		want=$size
		[ $size -lt 65536 ] || want=$((size / 2))
		[ "$fmax" -ge "$want" ] && { [ $size -le $pkt ] || [ "$fmax" -gt "$pkt" ]; } ||
			fail "mtu $mtu, $size-byte niovs: largest fragment $fmax, expected at least $want (and above a packet's $pkt)"
	done
	[ $((on[65536] * 8)) -le "${on[4096]}" ] ||
		fail "mtu $mtu: 64K niovs took ${on[65536]} cmsgs/GiB, more than 1/8 of 4K's ${on[4096]}"
	xfer "mtu $mtu gro on, in-tree 4K" 4096 netdev

	ip netns exec rx ethtool -K dxsim1 rx-gro-hw off
	expect_eq "$(ip netns exec rx ethtool -k dxsim1 | sed -n 's/^rx-gro-hw: //p')" off "rx-gro-hw"
	g0=$(rxq_sum hw_gro_packets)
	for size in 4096 16384 65536; do
		xfer "mtu $mtu gro off, devmemx $((size / 1024))K" $size devmemx
		[ "$fmax" -le "$pkt" ] ||
			fail "rx-gro-hw off: a $fmax-byte fragment, more than a packet's payload ($pkt)"
	done
	expect_eq "$(rxq_sum hw_gro_packets)" "$g0" "HW-GRO skbs with rx-gro-hw off"
done

# The counters: every packet the sender's device sent arrived on one RX
# queue and was counted once, or (not TCP, on a queue with net_iov
# buffers) was dropped as mlx5 drops it; the HW-GRO ones describe what
# was coalesced.
ip netns exec rx ethtool -K dxsim1 rx-gro-hw on
tx0=$(tx_packets) rx0=$(($(rxq_sum packets) + $(rxq_sum nosplit_drops))) b0=$(rxq_sum bytes)
gp0=$(rxq_sum hw_gro_packets) gw0=$(rxq_sum hw_gro_wire_packets)
gwb0=$(rxq_sum hw_gro_wire_bytes) gb0=$(rxq_sum hw_gro_bytes)
xfer "counters, mtu 1500 gro on" 65536 devmemx
# (the connection's last packets may still be on their way: wait for them)
arrived() { echo $(($(rxq_sum packets) + $(rxq_sum nosplit_drops) - rx0)); }
same() { [ "$(arrived)" = $(($(tx_packets) - tx0)) ]; }
wait_until 5 same || fail "received or dropped unsplit $(arrived) packets, the sender's device sent $(($(tx_packets) - tx0))"
sent=$(($(tx_packets) - tx0))
gp=$(($(rxq_sum hw_gro_packets) - gp0)) gw=$(($(rxq_sum hw_gro_wire_packets) - gw0))
gwb=$(($(rxq_sum hw_gro_wire_bytes) - gwb0)) gb=$(($(rxq_sum hw_gro_bytes) - gb0))
[ "$gp" -gt 0 ] && [ $((gp * 2)) -le "$gw" ] && [ "$gw" -le "$sent" ] ||
	fail "HW-GRO: $gp skbs from $gw wire packets of $sent"
[ "$gwb" -le $(($(rxq_sum bytes) - b0)) ] || fail "HW-GRO wire bytes $gwb above the bytes received"
# A coalesced skb keeps one set of headers: its bytes are the wire bytes
# less the headers of the segments it absorbed (54 + 12 bytes each here).
expect_eq "$gb" $((gwb - (gw - gp) * 66)) "HW-GRO bytes"
echo "# counters: $sent packets sent, $gw coalesced into $gp skbs"

# IPv6: the same coalescing, every byte verified.
g0=$(rxq_sum hw_gro_wire_packets)
recv_start rx6 7100 $bytes --queues 2 --provider devmemx --rx-page-size 64K \
	--udmabuf 32M --hugetlb --listen 2001:db8::2
ip netns exec tx devmemx-rx send --addr 2001:db8::2 --port 7100 --bytes $bytes \
	--timeout $((30 * DX_SLOW)) >/dev/null || fail "send over IPv6: $(cat /tmp/rx6.err)"
recv_check rx6 $bytes
[ "$(rxq_sum hw_gro_wire_packets)" -gt "$g0" ] || fail "IPv6: HW-GRO coalesced nothing"
[ "$(jget frag_max /tmp/rx6.json)" -gt 1440 ] || fail "IPv6: no fragment above a packet's payload"
flush_deferred_skbs

# The netdev family's qstats say what ethtool -S says, per queue.  Stray
# traffic (IPv6 neighbour discovery, MLD reports) may land between the two
# reads, so the comparison takes a snapshot that ethtool -S brackets
# unchanged, trying a few times.
ifindex=$(ip netns exec rx cat /sys/class/net/dxsim1/ifindex)
for try in 1 2 3 4 5; do
	ip netns exec rx ethtool -S dxsim1 >/tmp/es0.txt
	ip netns exec rx devmemx-rx qstats -j >/tmp/qstats.json
	ip netns exec rx ethtool -S dxsim1 >/tmp/es1.txt
	cmp -s /tmp/es0.txt /tmp/es1.txt && break
	[ $try = 5 ] && fail "qstats: dxsim1's counters never held still over one qstats dump"
	sleep 1
done
es_stat() { awk -v k="$1:" '$1 == k { print $2 }' /tmp/es1.txt; }
for q in 0 1 2 3; do
	line=$(grep "\"ifindex\":$ifindex,\"queue-type\":0,\"queue-id\":$q," /tmp/qstats.json) ||
		fail "qstats: no line for queue $q: $(cat /tmp/qstats.json)"
	echo "$line" >/tmp/q.json
	for k in packets bytes hw_gro_packets hw_gro_bytes hw_gro_wire_packets hw_gro_wire_bytes; do
		expect_eq "$(jget "rx-${k//_/-}" /tmp/q.json)" "$(es_stat "rx${q}_$k")" "qstats rx-${k//_/-} of queue $q"
	done
done

# The device's totals keep what its queues counted when ethtool -L takes
# queues away (the driver's base stats carry them).
dev_rx() { # counter: dxsim1's device-scope qstats value
	ip netns exec rx devmemx-rx qstats -j | grep "^{\"ifindex\":$ifindex,\"rx-packets\"" >/tmp/qd.json ||
		fail "qstats: no device line for dxsim1"
	jget "$1" /tmp/qd.json
}
p0=$(dev_rx rx-packets) w0=$(dev_rx rx-hw-gro-wire-packets)
ip netns exec rx ethtool -L dxsim1 combined 2
p1=$(dev_rx rx-packets) w1=$(dev_rx rx-hw-gro-wire-packets)
[ "$p1" -ge "$p0" ] && [ "$w1" -ge "$w0" ] ||
	fail "device totals went back after ethtool -L combined 2: packets $p0 -> $p1, HW-GRO wire packets $w0 -> $w1"
ip netns exec rx ethtool -L dxsim1 combined 4

trap - EXIT
dx_sim_teardown
