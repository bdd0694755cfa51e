# SPDX-License-Identifier: GPL-2.0
# A binding on every queue of a wide device: the sim with 256 queues (as
# many channels as an mlx5 host has), one dma-buf bound to all of them.
# BINDING-GET (devmemx show ID) and the dump (devmemx show, -j; dx-req
# dump on a fresh socket) list every queue with its buffer size; a flow
# steered to the last queue of a 256-queue binding arrives verified; a dump
# of many small bindings fits a reader's 4K buffer; nothing is left after.
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
	# exactly: headers, 20 attributes, 256 queue nests).
	expect_eq "$(rxx dx-req dump 4096)" "truncated: 5324 bytes into 4096" \
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
# for 5.5K skbs whatever the bindings: "truncated: 5376 bytes into 4096".)
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
flow_last_queue() {
	local mac0 mac1 split
	mac0=$(ip -n tx -br link show dxsim0 | awk '{ print $3 }')
	mac1=$(ip -n rx -br link show dxsim1 | awk '{ print $3 }')
	ip -n tx neigh replace 192.0.2.2 lladdr "$mac1" dev dxsim0 nud permanent
	dx_defer ip -n tx neigh del 192.0.2.2 dev dxsim0
	ip -n rx neigh replace 192.0.2.1 lladdr "$mac0" dev dxsim1 nud permanent
	dx_defer ip -n rx neigh del 192.0.2.1 dev dxsim1
	t0=$SECONDS
	devmem_xfer 1048576 9000 --queues $last,0-$((last - 1)) --provider devmemx \
		--rx-page-size 16384 --udmabuf 8M --hugetlb
	split=$(rx_stat "rx${last}_split")
	[ "$split" -gt 0 ] || fail "queue $last split no payload into the binding"
	echo "# 1M over queue $last of a $n-queue binding in $((SECONDS - t0)) s"
	dx_wait_idle
}
dx_case flow-last-queue flow_last_queue
