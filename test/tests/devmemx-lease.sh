# SPDX-License-Identifier: GPL-2.0
# dx-matrix: queue leasing: the kernel's queue-create and netkit, the provider installed on the physical queue a lease names
# Queues leased to a pod, as 7.2's queue-create gives a container's netkit
# one of the NIC's queues (doc/lease.md). devmemx binds the netkit's queue
# from the pod's namespace and puts the provider on dxsim1's queue, as
# in-tree bind-rx does; a BPF program on dxsim1's ingress redirects the
# pod's flow into its netkit (devmemx-rx redirect: bpf_redirect_peer, as the
# kernel's nk_forward.bpf.c). Each way the lease ends ends the binding,
# with dxsim1's queue restarted without the provider and nothing left.
. /dx/guestlib.sh
. /dx/lease-lib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
pod() { ip netns exec nkns "$@"; }
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }
# dxsim1's page pools that hold a dma-buf binding.
phys_pools() { dmabuf_pools rx; }
# phys_idle WHEN: none left, once those being released have gone (an
# in-tree binding's old pool goes when its last buffer is back, after
# the receiver exits).
phys_idle() {
	none() { [ "$(phys_pools)" = 0 ]; }
	wait_until 20 none || fail "dxsim1's pools with a binding $1: $(phys_pools)"
}

# The kernel refuses to lease a queue devmemx holds.
bound_queue() {
	local id
	nk_pair
	dx_defer unbind_all
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	[ -n "$id" ] || fail "persistent bind of queue 2"
	expect_eq "$(rxx dx-req lease "$NKC" 2 "$PHYS")" \
		"errno 16: Device queue in use by memory provider" "lease of the bound queue 2"
	expect_err 1 "devmemx-rx: lease of queue 2 of dxsim1 to nkc: Device queue in use by memory provider (Device or resource busy)" \
		rxx devmemx-rx lease --netkit nkc --dev dxsim1 --queue 2
	expect_err 1 "devmemx-rx: lease of queue 9 of dxsim1 to nkc: dxsim1 has no RX queue 9 (see: ethtool -l dxsim1) (Numerical result out of range)" \
		rxx devmemx-rx lease --netkit nkc --dev dxsim1 --queue 9
	rxx devmemx unbind "$id" >/dev/null
	dx_wait_idle
}
dx_case bound-queue bound_queue

# The physical end of a lease binds only through the lease, as in-tree.
phys_end() {
	nk_lease
	expect_err 1 "devmemx: bind to dxsim1: queue 3 of dxsim1 is leased: bind it through the lease (Device or resource busy)" \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 4M
	expect_eq "$(dx_live)" "0 0 0" "live objects after the refusal"
}
dx_case phys-end phys_end

# pod_recv PORT BYTES ARGS...: devmemx-rx in the pod receives BYTES on the
# lease's queue from netns tx (dxsim1 steers PORT to queue 3, as the host
# does for its pod), every byte verified.
pod_recv() {
	local port=$1 bytes=$2
	shift 2
	nk_steer "$port"
	DX_RX_EXEC="ip netns exec nkns" recv_start rx "$port" "$bytes" \
		--dev nkc --queues "$Q" --no-flow-rule --listen "$POD" "$@"
	wait_until 20 pod_listening "$port" || fail "no listener in the pod: $(cat /tmp/rx.err)"
	ip netns exec tx devmemx-rx send --addr "$POD" --port "$port" --bytes "$bytes" \
		--timeout $((30 * DX_SLOW)) >/tmp/send.json ||
		fail "send $bytes bytes to the pod: $(cat /tmp/rx.err)"
	recv_check rx "$bytes"
	flush_deferred_skbs
}
pod_listening() { RX_IN="ip netns exec nkns" listening "$1"; }

# A lease, a devmemx bind at 64K from the pod, a verified flow through the
# redirect; in-tree at 4K the same way, for contrast. Every payload byte
# came as a dma-buf fragment, so dxsim1's queue 3 held each provider.
pod_flow() {
	nk_pod
	pod_recv 7600 4194304 --provider devmemx --rx-page-size 64K --udmabuf 16M --hugetlb
	expect_eq "$(jget cmsgs_linear /tmp/rx.json)" 0 "devmemx in the pod: linear cmsgs"
	[ "$(jget frag_max /tmp/rx.json)" -gt 4096 ] ||
		fail "devmemx 64K in the pod: largest fragment $(jget frag_max /tmp/rx.json)"
	xfer_report "devmemx 64K in the pod (largest fragment $(jget frag_max /tmp/rx.json))"
	dx_wait_idle
	phys_idle "after devmemx's"
	pod_recv 7601 4194304 --provider netdev --udmabuf 16M
	expect_eq "$(jget cmsgs_linear /tmp/rx.json)" 0 "in-tree in the pod: linear cmsgs"
	expect_eq "$(jget frag_max /tmp/rx.json)" 4096 "in-tree 4K in the pod: largest fragment"
	xfer_report "in-tree 4K in the pod"
	phys_idle "after in-tree's"
}
dx_case pod-flow pod_flow

# pod_bind: a persistent devmemx binding of the lease's queue from the pod,
# its id in ID; dxsim1's queue 3 holds it.
pod_bind() {
	ID=$(pod devmemx -j bind dev nkc queues "$Q" --udmabuf 4M --persist | json_ids)
	[ -n "$ID" ] || fail "the pod's bind of queue $Q of nkc"
	expect_eq "$(phys_pools)" 1 "dxsim1's pools with a binding"
}

# What each side sees: the pod its netkit's queue and the physical queue's
# index, never the host's device; the host nothing of the pod's binding.
# Bound where both ends are in one namespace, the physical device shows.
pod_show() {
	local show
	nk_pod
	pod_bind
	show=$(pod devmemx -j show)
	[[ $show == *"\"ifindex\":$(pod cat /sys/class/net/nkc/ifindex),"* ]] ||
		fail "the pod's show names no nkc: $show"
	[[ $show == *"\"queues\":[{\"id\":$Q,"*"\"lease-queue\":3}]"* ]] ||
		fail "the pod's show: no queue $Q leasing queue 3: $show"
	[[ $show != *lease-ifindex* ]] || fail "the pod sees the host's device: $show"
	pod devmemx show | grep -qx "queues: id=$Q,buf-size=4K,lease-queue=3" ||
		fail "devmemx show in the pod: $(pod devmemx show)"
	expect_eq "$(rxx devmemx -j show)" "" "the host's show of netns rx"
	expect_err 1 "devmemx: unbind $ID: no devmemx binding $ID (No such file or directory)" \
		rxx devmemx unbind "$ID"
	expect_err 1 "devmemx: bind to nkc: queue $Q of nkc is already bound to a memory provider (File exists)" \
		pod devmemx bind dev nkc queues "$Q" --udmabuf 4M
	pod devmemx unbind "$ID" >/dev/null
	dx_wait_idle
	phys_idle "after the unbind"
	nk_del
	# Both ends in netns rx: its show names dxsim1 too.
	nk_lease
	ID=$(rxx devmemx -j bind dev nkc queues "$Q" --udmabuf 4M --persist | json_ids)
	show=$(rxx devmemx -j show)
	[[ $show == *"\"lease-ifindex\":$PHYS,"* ]] || fail "netns rx's show: no dxsim1: $show"
	rxx devmemx show | grep -qx "lease-dev: dxsim1" ||
		fail "devmemx show in netns rx: $(rxx devmemx show)"
	rxx devmemx unbind "$ID" >/dev/null
	dx_wait_idle
}
dx_case pod-show pod_show

# A pod whose user namespace owns its network namespace: CAP_NET_ADMIN
# there is enough to bind the leased queue, as in-tree's bind-rx needs.
pod_userns() {
	nk_lease
	userns_make
	rxx ip link set nkc netns "$OWNER"
	in_userns ip link set nkc up
	ID=$(in_userns devmemx -j bind dev nkc queues "$Q" --udmabuf 4M --persist | json_ids)
	[ -n "$ID" ] || fail "the bind in the user namespace"
	expect_eq "$(phys_pools)" 1 "dxsim1's pools with a binding"
	in_userns devmemx show | grep -qx "queues: id=$Q,buf-size=4K,lease-queue=3" ||
		fail "devmemx show in the user namespace: $(in_userns devmemx show)"
	in_userns devmemx unbind "$ID" >/dev/null
	dx_wait_idle
	phys_idle "after the unbind"
}
dx_case userns pod_userns

# lease_end EVENT: a pod's binding, then EVENT ends the lease (or moves a
# device): the binding ends with dxsim1's queue 3 restarted without the
# provider, and nothing is left.
lease_end() {
	nk_pod
	pod_bind
	"$@"
	dx_wait_idle
	phys_idle "after: $*"
}
end_netkit() { lease_end rxx ip link del nkp; }
dx_case end-netkit end_netkit
end_netns() { lease_end ip netns del nkns; }
dx_case end-netns end_netns
end_pod_move() {
	lease_end ip -n nkns link set nkc netns rx
	dmesg_new | grep -q "nkc: devmemx: 1 binding ended: nkc moves to another network namespace" ||
		fail "no log of the binding's end with nkc's move"
}
dx_case end-pod-move end_pod_move
# The physical device moved: its lease stays, the binding ends.
end_phys_move() {
	dx_defer dx_sim_redo
	lease_end rxx ip link set dxsim1 netns 1
	expect_eq "$(devmemx-rx pools -j | grep -c '"dmabuf"')" 0 \
		"dxsim1's pools with a binding in the initial namespace"
	rxx test -e /sys/class/net/nkp || fail "the netkit pair went with dxsim1's move"
}
dx_case end-phys-move end_phys_move
# The physical device unregistered: netkit deletes the pair, and the
# binding goes with the device.
end_phys_gone() {
	dx_defer dx_sim_redo
	lease_end rmmod devmemx_sim
	wait_until 10 nk_gone || fail "the netkit pair after dxsim1 went"
}
dx_case end-phys-gone end_phys_gone

# The kernel's container test (hw/nk_devmem.py) runs ncdevmem in the pod
# on the netkit's leased queue, the host having set the device up and
# steered the flow: -f NETKIT -t QUEUE -q 1 -n. Its client unchanged, with
# in-tree at 4K, then under a devmemx policy on the netkit at 64K; ncdevmem
# validates every byte (-v 7).
pod_policy_binding() {
	pod devmemx -j show >/tmp/pod-show.json
	expect_eq "$(wc -l </tmp/pod-show.json)" 1 "the pod's bindings while ncdevmem receives"
	expect_eq "$(jget policy /tmp/pod-show.json)" true "show: made under the policy"
	expect_eq "$(jget niov-size /tmp/pod-show.json)" 65536 "show: niov size"
	expect_eq "$(jget lease-queue /tmp/pod-show.json)" 3 "show: the physical queue"
	expect_eq "$(phys_pools)" 1 "dxsim1's pools with a binding"
}
pol_ready() { devmemx info | grep -qx "policies: ready"; }
ncdevmem_pod() {
	local BYTES=4194304
	nk_pod
	nk_steer 7610
	nk_steer 7611
	NCD_DEV=nkc NCD_ADDR=$POD NCD_QUEUE=$Q RX_IN="ip netns exec nkns" \
		NCD_WHILE= ncd_recv ncd-pod-4k 7610 -n
	[ "$NCD_FRAG_MAX" -le 4096 ] || fail "in-tree in the pod: a fragment of $NCD_FRAG_MAX"
	# In-tree's pool goes after ncdevmem exits: the next run counts one.
	phys_idle "after in-tree's ncdevmem"
	dx_need_review policies
	shmem_huge
	pod devmemx policy dev nkc size 64K
	NCD_DEV=nkc NCD_ADDR=$POD NCD_QUEUE=$Q RX_IN="ip netns exec nkns" \
		NCD_WHILE=pod_policy_binding ncd_recv ncd-pod-64k 7611 -n
	[ "$NCD_FRAG_MAX" -gt 4096 ] || fail "devmemx in the pod: largest fragment $NCD_FRAG_MAX"
	expect_eq "$(pod devmemx policy dev nkc off)" "bindings: 0" "the pod's policy off"
	wait_until 20 pol_ready || fail "policies: $(devmemx info | grep policies)"
	dx_wait_idle
	phys_idle "after ncdevmem"
}
dx_case ncdevmem ncdevmem_pod

# make ab's lease set, short: devmemx-rx ab in the pod, in-tree 4K and
# devmemx 64K through the lease, a verified pass and a verified timed run
# of 4M each. Every run moved its bytes verified, as dma-buf fragments
# (none linear), devmemx's longer than a page; the sim's NAPI threads were
# placed after each bind (--bound-cmd).
lease_ab() {
	local out=/tmp/ab-lease csv bad
	. /dx/ab-lib.sh
	dx_defer ab_napi_off
	rm -rf $out
	mkdir -p $out
	(ab_sets lease 4M 1 "" $out --verify) >$out/stdout 2>$out/stderr ||
		fail "ab: $(tail -n 20 $out/stderr)"
	csv=$out/lease.csv
	expect_eq "$(($(wc -l <$csv) - 1))" 4 "CSV rows"
	bad=$(ab_unverified $csv 4194304)
	[ -z "$bad" ] || fail "runs that did not move 4M of verified data: $bad"
	bad=$(awk -F, -v l="$(csv_col cmsgs_linear $csv)" -v d="$(csv_col cmsgs_dmabuf $csv)" \
		'NR > 1 && ($l != 0 || $d == 0)' $csv)
	[ -z "$bad" ] || fail "runs with payload outside the dma-buf: $bad"
	bad=$(awk -F, -v c="$(csv_col config $csv)" -v f="$(csv_col frag_max $csv)" \
		'NR > 1 && (($c == "devmemx-64K") != ($f > 4096))' $csv)
	[ -z "$bad" ] || fail "largest fragments: $bad"
	for c in netdev-4K devmemx-64K; do
		grep -q "^| $c | 1 |" $out/lease.md || fail "no table row for $c: $(cat $out/lease.md)"
	done
	# The pod's netkit has no NAPI of its own: the table says nothing of
	# it (dxsim1's is threaded).
	! grep -q "NAPI not threaded" $out/lease.md ||
		fail "the table calls the pod's NAPI unthreaded: $(grep NAPI $out/lease.md)"
	for m in "receiving host s/GiB" cmsgs/GiB; do
		grep -q "^| devmemx-64K / netdev-4K | $m | [0-9.]* | - | <= " $out/lease.md ||
			fail "no ratio devmemx-64K / netdev-4K of $m: $(cat $out/lease.md)"
	done
	echo "# devmemx-64K / netdev-4K in the pod, one 4M run: $(awk -F' *[|] *' \
		'$2 == "devmemx-64K / netdev-4K" { printf "%s%s %s", n++ ? ", " : "", $3, $4 }' $out/lease.md)"
	dx_wait_idle
	phys_idle "after ab"
}
# The sim's NAPI as dx_sim_devmem leaves it: not threaded.
ab_napi_off() {
	rxx sh -c 'echo 0 >/sys/class/net/dxsim1/threaded'
	ip netns exec tx sh -c 'echo 0 >/sys/class/net/dxsim0/threaded'
}
dx_debug_no ab "make ab's harness: the kernel paths it runs are pod-flow's"
dx_case ab lease_ab
