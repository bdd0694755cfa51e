# SPDX-License-Identifier: GPL-2.0
# A binding on every queue of a wide device: the sim with 256 queues (as
# many channels as an mlx5 host has), one dma-buf bound to all of them.
# BINDING-GET (devmemx show ID) and the dump (devmemx show, -j; dx-req
# dump on a fresh socket) list every queue with its buffer size; a flow
# steered to the last queue of a 256-queue binding arrives verified; a dump
# of many small bindings fits a reader's 4K buffer; a 64-queue binding
# takes flows on its first, middle and last queues, each queue's bytes
# counted by the sim; nothing is left after.
. /dx/guestlib.sh

n=256
last=$((n - 1))
dx_load
t0=$SECONDS
sim_setup $n
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
rxx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
echo "# the sim with $n queues up in $((SECONDS - t0)) s"
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# One binding on all 256 queues: GET, the dumps, the page pools.
all_queues() {
	local out id want want_json get cli
	dx_defer unbind_all
	t0=$SECONDS
	out=$(rxx devmemx -j bind dev dxsim1 queues 0-$last size 16K --udmabuf 8M \
		--hugetlb --persist 2>&1) || fail "bind to queues 0-$last: $out"
	id=$(json_ids <<<"$out")
	[ -n "$id" ] || fail "bind to queues 0-$last printed no id: $out"
	echo "# bound to $n queues in $((SECONDS - t0)) s"
	expect_eq "$(rxx devmemx-rx pools -j | grep -c "\"dmabuf\":$id}")" $n \
		"page pools with the binding"

	want="queues:$(for q in $(seq 0 $last); do printf ' id=%d,buf-size=16K' "$q"; done)"
	want_json="\"queues\":\[$(for q in $(seq 0 $last); do
		printf '{"id":%d,"buf-size":16384}' "$q"; done | sed 's/}{/},{/g')\]"

	# What each reader gets, first, on one line: the checks below stop at
	# the first that fails.
	get=$(rxx devmemx show "$id" 2>&1 >/dev/null) && get=ok
	cli=$(rxx devmemx show 2>&1 >/dev/null) && cli=ok
	echo "# show $id: $get; show (dump): $cli; dx-req dump: $(rxx dx-req dump)"

	# BINDING-GET.
	out=$(rxx devmemx show "$id" 2>&1) || fail "show $id: $out"
	expect_eq "$(grep '^queues: ' <<<"$out")" "$want" "show $id: queues"
	grep -qx "niov-size: 16K" <<<"$out" || fail "show $id: $out"
	out=$(rxx devmemx -j show "$id" 2>&1) || fail "show -j $id: $out"
	grep -q "$want_json" <<<"$out" || fail "show -j $id: $out"

	# The dump on a socket that read nothing before it (YNL's Python
	# client): its first skb is sized by the dump's start for this binding.
	expect_eq "$(rxx dx-req dump)" "ok 1 $n" "dump on a fresh socket: bindings, queues"
	# A 4K buffer is too small for this binding's one message (its size,
	# exactly: headers, 21 attributes, 256 queue nests).
	expect_eq "$(rxx dx-req dump 4096)" "truncated: a message of 5332 bytes into 4096" \
		"dump into 4K with a 256-queue binding"
	# The dump, in text and JSON (the CLI's socket read before: 16K).
	out=$(rxx devmemx show 2>&1) || fail "show (dump): $out"
	expect_eq "$(grep '^queues: ' <<<"$out")" "$want" "show (dump): queues"
	out=$(rxx devmemx -j show 2>&1) || fail "show -j (dump): $out"
	expect_eq "$(grep -c "^{\"id\":$id," <<<"$out")" 1 "show -j (dump): binding $id"
	grep -q "$want_json" <<<"$out" || fail "show -j (dump): $out"

	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
	dx_wait_idle
	expect_eq "$(rxx devmemx -j show)" "" "bindings after unbind"
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after unbind"
}
dx_case all-queues all_queues


# Many small bindings on the wide device: their messages fill more than 4K,
# but none needs more than a page, so the dump's skbs stay a page and a
# reader with a 4K buffer (libmnl's) reads them all. (The dump used to ask
# for 5.5K skbs whatever the bindings: a 5376-byte datagram truncated into
# 4096.)
small_dump_4k() {
	local q out ids=0 k=24
	dx_defer unbind_all
	t0=$SECONDS
	for q in $(seq 0 $((k - 1))); do
		out=$(rxx devmemx -j bind dev dxsim1 queues "$q" --udmabuf 1M --persist 2>&1) ||
			fail "bind to queue $q: $out"
		[ -n "$(json_ids <<<"$out")" ] || fail "bind to queue $q printed no id: $out"
	done
	echo "# $k bindings of one queue each in $((SECONDS - t0)) s"
	expect_eq "$(rxx dx-req dump 4096)" "ok $k $k" "dump into 4K: bindings, queues"
	expect_eq "$(rxx dx-req dump)" "ok $k $k" "dump into 128K: bindings, queues"
	ids=$(rxx devmemx -j show | json_ids | wc -l)
	expect_eq "$ids" $k "bindings the CLI's dump lists"
	expect_eq "$(rxx devmemx unbind all)" "unbound: $k" "unbind all"
	dx_wait_idle
}
dx_case small-dump-4k small_dump_4k

# A flow on queue 255 of a binding on all queues (devmemx-rx's own). With
# every queue bound, no frame but a split TCP one is readable on receive:
# an ARP request or reply lands whole in the dma-buf and the stack drops
# it (devmem's rule: steer only devmem flows to bound queues), so neither
# side could resolve the other and the sender found no route. Each side
# gets the other's address as a permanent neighbour for the case.
perm_neighbours() {
	local mac0 mac1
	mac0=$(ip -n tx -br link show dxsim0 | awk '{ print $3 }')
	mac1=$(ip -n rx -br link show dxsim1 | awk '{ print $3 }')
	ip -n tx neigh replace 192.0.2.2 lladdr "$mac1" dev dxsim0 nud permanent
	dx_defer ip -n tx neigh del 192.0.2.2 dev dxsim0
	ip -n rx neigh replace 192.0.2.1 lladdr "$mac0" dev dxsim1 nud permanent
	dx_defer ip -n rx neigh del 192.0.2.1 dev dxsim1
}
flow_last_queue() {
	local split
	perm_neighbours
	t0=$SECONDS
	devmem_xfer 1048576 9000 --queues $last,0-$((last - 1)) --provider devmemx \
		--rx-page-size 16384 --udmabuf 8M --hugetlb
	split=$(rx_stat "rx${last}_split")
	[ "$split" -gt 0 ] || fail "queue $last split no payload into the binding"
	echo "# 1M over queue $last of a $n-queue binding in $((SECONDS - t0)) s"
	dx_wait_idle
}
# A verified flow on queue 255 of a binding on all 256 queues.
dx_case flow-last-queue flow_last_queue

# rx<N>_bytes and rx<N>_packets of dxsim1's queues below $1, from ethtool
# -S, "N BYTES PACKETS" a line.
queue_counts() {
	rxx ethtool -S dxsim1 | awk -v n="$1" -F'[_: ]+' '
		$2 ~ /^rx[0-9]+$/ && ($3 == "bytes" || $3 == "packets") {
			q = substr($2, 3) + 0
			if (q < n) { if ($3 == "bytes") b[q] = $4; else p[q] = $4 }
		}
		END { for (q = 0; q < n; q++) print q, b[q], p[q] }'
}

# A binding of queues 0-63 (a quarter of the device, as a host binds the
# queues of one GPU's NUMA node) takes a flow on its first, two middle and
# last queue. devmemx-rx binds for each flow (its socket owns the binding)
# and steers the flow to the first queue it names: each flow gets a
# binding of all 64 queues that names its queue first. While the receiver
# waits for the connection, BINDING-GET, the CLI's dump (text and -j) and
# a dump on a fresh socket list the binding with its 64 queues at 16K;
# the flow is verified byte for byte, and the sim's counters say its
# queue received every byte (payload plus at most 100 bytes of headers a
# packet: Ethernet, IPv4, TCP with options) and no other bound queue one.
# The binding ends with the receiver; every count is back to zero after.
flows_64() {
	local nq=64 bytes=1048576 q qs id out want got port=9640 before after
	local b0 b1 p1 k bms="" per=""
	perm_neighbours
	# Nothing but the steered flows on the bound queues: RSS spreads the
	# rest (ND, MLD) over the others, as devmem tools keep bound queues
	# apart, so that every other bound queue's count stays 0.
	rxx ethtool -X dxsim1 start $nq equal $((n - nq))
	dx_defer rxx ethtool -X dxsim1 default
	want="$(seq 0 $((nq - 1)))"
	for q in 0 21 42 $((nq - 1)); do
		qs=$q
		[ "$q" = 0 ] || qs+=",0-$((q - 1))"
		[ "$q" = $((nq - 1)) ] || qs+=",$((q + 1))-$((nq - 1))"
		before=$(queue_counts $nq)
		port=$((port + 1))
		recv_start rx $port $bytes --queues "$qs" --provider devmemx \
			--rx-page-size 16384 --udmabuf 8M --hugetlb
		dx_defer dx_stop "${DX_RECV_PID[rx]}"
		# It listens once bound and steered (or exits, refused).
		bound() { listening $port || ! kill -0 "${DX_RECV_PID[rx]}" 2>/dev/null; }
		wait_until 30 bound && listening $port ||
			fail "queue $q: no receiver bound and listening: $(cat /tmp/rx.err)"
		id=$(rxx devmemx -j show | json_ids)
		[ -n "$id" ] || fail "queue $q: devmemx show lists no binding"

		# BINDING-GET, the dump in text and JSON, the dump on a fresh socket.
		out=$(rxx devmemx show "$id" 2>&1) || fail "show $id: $out"
		got=$(grep '^queues: ' <<<"$out" | grep -o 'id=[0-9]*,buf-size=16K' |
			sed 's/id=\([0-9]*\),.*/\1/' | sort -n)
		expect_eq "$got" "$want" "show $id: the queues at 16K"
		out=$(rxx devmemx show 2>&1) || fail "show (dump): $out"
		got=$(grep '^queues: ' <<<"$out" | grep -o 'id=[0-9]*,buf-size=16K' |
			sed 's/id=\([0-9]*\),.*/\1/' | sort -n)
		expect_eq "$got" "$want" "show (dump): the queues at 16K"
		out=$(rxx devmemx -j show 2>&1) || fail "show -j (dump): $out"
		expect_eq "$(json_ids <<<"$out")" "$id" "show -j (dump): the binding"
		got=$(grep -o '{"id":[0-9]*,"buf-size":16384}' <<<"$out" |
			sed 's/{"id":\([0-9]*\),.*/\1/' | sort -n)
		expect_eq "$got" "$want" "show -j (dump): the queues at 16K"
		expect_eq "$(rxx dx-req dump)" "ok 1 $nq" "dump on a fresh socket: bindings, queues"

		send $port $bytes || fail "send to queue $q: $(cat /tmp/rx.err)"
		recv_check rx $bytes
		expect_eq "$(jget binding_id /tmp/rx.json)" "$id" "the receiver's binding"
		after=$(queue_counts $nq)
		# Each queue's bytes and packets since the flow began.
		while read -r k b1 p1; do
			b0=$(awk -v k="$k" '$1 == k { print $2 " " $3 }' <<<"$before")
			b1=$((b1 - ${b0% *}))
			p1=$((p1 - ${b0#* }))
			if [ "$k" = "$q" ]; then
				[ "$b1" -ge $bytes ] && [ "$b1" -le $((bytes + p1 * 100)) ] ||
					fail "queue $q received $b1 bytes in $p1 packets for a flow of $bytes"
				per+=" q$q=$b1"
			else
				expect_eq "$b1" 0 "bytes on queue $k during the flow to queue $q"
			fi
		done <<<"$after"
		bms+=" $(awk -v s="$(jget bind_sec /tmp/rx.json)" 'BEGIN { printf "%d", s * 1000 }')"
		flush_deferred_skbs
		dx_wait_idle
		expect_eq "$(rxx devmemx -j show)" "" "bindings after the flow to queue $q"
		expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after the flow to queue $q"
	done
	echo "# 64 queues: bind ms$bms; bytes per queue (1M flows, headers included):$per"
}
dx_case flows-64 flows_64
