# SPDX-License-Identifier: GPL-2.0
# dx-matrix: policies: the hook on the kernel's netdev_nl_bind_rx_doit, its review gate for this release, the kernel's ncdevmem through it
# Per-device policies (doc/policy.md): the kernel's ncdevmem, unchanged,
# binds through the netdev family; under a policy devmemx serves that
# bind-rx at 64K, show marks the binding and names ncdevmem, and the
# binding ends with ncdevmem's socket; its bind self-tests pass. Without
# a policy the kernel's doit runs (in-tree 4K) and ftrace has no hook on
# it. Refusals name what to change and leave nothing. A container's
# policy is its own, and ends with it. On a kernel whose review failed
# for policies (devmemx-gate tests the gate), skipped with its reason.
. /dx/guestlib.sh

dx_need_review policies

BYTES=$((4 * 1024 * 1024))
dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }

# Whether ftrace hooks netdev's bind-rx doit (enabled_functions): 0 or 1.
doit_hooked() {
	local f=/sys/kernel/debug/tracing/enabled_functions
	[ -r $f ] || fail "no $f"
	grep -c '^netdev_nl_bind_rx_doit\b' $f || true
}
doit_unhooked() { [ "$(doit_hooked)" = 0 ]; }
# INFO's policies: ready, or hooked while a policy is set (and until the
# unhooking, after the doit left enabled_functions, has waited out every
# request in devmemx's text).
info_policies() { devmemx info | sed -n 's/^policies: //p'; }
policies_ready() { [ "$(info_policies)" = ready ]; }
# A cleanup: dxsim1's policy off, if a case left it set.
pol_off() {
	if rxx devmemx policy | grep -qx 'dev: dxsim1'; then
		rxx devmemx policy dev dxsim1 off >/dev/null
	fi
}
# pol_set ARGS...: dxsim1's policy (devmemx policy dev dxsim1 ARGS), off
# at the case's end.
pol_set() {
	rxx devmemx policy dev dxsim1 "$@" || fail "policy dev dxsim1 $*"
	dx_defer pol_off
}

# While ncdevmem has bound (NCD_WHILE): the binding is devmemx's, made
# under the policy, by ncdevmem, at 64K.
policy_binding() {
	local pid=$NCD_PID	# ip netns exec and timeout exec it

	expect_eq "$(cat /proc/$pid/comm)" ncdevmem "the process ncd_recv started"
	rxx devmemx -j show >/tmp/pol-show.json
	expect_eq "$(wc -l </tmp/pol-show.json)" 1 "bindings while ncdevmem receives"
	expect_eq "$(jget policy /tmp/pol-show.json)" true "show: made under the policy"
	expect_eq "$(jget creator-pid /tmp/pol-show.json)" "$pid" "show: creator-pid (ncdevmem)"
	expect_eq "$(jget niov-size /tmp/pol-show.json)" 65536 "show: niov size"
	rxx devmemx show | grep -qx "policy: true" ||
		fail "devmemx show does not say policy: $(rxx devmemx show)"
	rxx devmemx show | grep -q "^held-by: $pid (ncdevmem) fd " ||
		fail "devmemx show does not name ncdevmem: $(rxx devmemx show)"
	expect_eq "$(rxx devmemx policy show | sed -n 's/^bindings: //p')" 1 \
		"policy show: bindings while ncdevmem receives"
}

# ncdevmem through a 64K policy on queue 2: every byte validated, in
# fragments larger than in-tree's 4K niovs (the sim's HW-GRO coalesces up
# to the niov); its socket's close ends the binding; off ends the policy
# and the hook.
policy_ncdevmem() {
	expect_eq "$(doit_hooked)" 0 "hooks on the doit before any policy"
	shmem_huge
	pol_set size 64K queues 2
	expect_eq "$(rxx devmemx policy show)" "dev: dxsim1
rx-buf-size: 64K
queues: id=2
bindings: 0" "policy show"
	expect_eq "$(doit_hooked)" 1 "hooks on the doit under a policy"
	expect_eq "$(info_policies)" hooked "info's policies under a policy"
	NCD_WHILE=policy_binding ncd_recv ncd-pol 7201
	[ "$NCD_FRAG_MAX" -gt 4096 ] ||
		fail "no fragment above 4K through a 64K policy (largest $NCD_FRAG_MAX)"
	dx_wait_idle
	expect_eq "$(rxx devmemx -j show)" "" "bindings after ncdevmem exited"
	expect_eq "$(rxx devmemx policy dev dxsim1 off)" "bindings: 0" "policy off"
	wait_until 10 doit_unhooked || fail "the doit still hooked after the last policy"
	wait_until 10 policies_ready || fail "info's policies after off: $(info_policies)"
	expect_eq "$(rxx devmemx policy show)" "" "policy show after off"
}
dx_case ncdevmem policy_ncdevmem

# ncdevmem's bind self-tests (-f dxsim1 alone: queues 2-3) under a 64K
# policy on every queue. Binding no queue is the kernel's to refuse (no
# queue id, so no policy covers it): its message. Binding with header
# split off is refused by devmemx, with its message in place of the
# kernel's ('tcp-data-split is disabled'). The bind works and its id is
# devmemx's; shrinking the channels under it is refused by the core, as
# under an in-tree binding (sim-ncdevmem). Exit 0.
self_line() {
	grep -qxF "$1" /tmp/ncd-pself.err ||
		fail "ncdevmem -f dxsim1 did not print '$1': $(cat /tmp/ncd-pself.err)"
}
self_tests() {
	local rc=0 id
	shmem_huge
	pol_set size 64K
	rxx ncdevmem -f dxsim1 >/tmp/ncd-pself.out 2>/tmp/ncd-pself.err || rc=$?
	[ $rc = 0 ] || fail "ncdevmem -f dxsim1 under a policy: exit $rc: $(cat /tmp/ncd-pself.err)"
	self_line "YNL failed: Kernel error: missing attribute: .queues.id"
	self_line "YNL failed: Kernel error: 'tcp-data-split is off: ethtool -G dxsim1 tcp-data-split on'"
	# ncdevmem prints the id with %d (it keeps it unsigned): devmemx's,
	# 0xf0000000 up, come out negative.
	id=$(sed -n 's/^got dmabuf id=\(-\{0,1\}[0-9]*\)$/\1/p' /tmp/ncd-pself.err)
	[ -n "$id" ] || fail "ncdevmem -f dxsim1: no successful bind: $(cat /tmp/ncd-pself.err)"
	id=$(((id + (1 << 32)) % (1 << 32)))
	[ "$id" -ge $((0xf0000000)) ] || fail "ncdevmem's self-test bind under a policy: binding $id is not devmemx's"
	self_line "YNL set channels: Kernel error: 'requested channel counts are too low for existing memory provider setting (4)'"
	dx_wait_idle
	expect_eq "$(rxx ethtool -g dxsim1 | sed -n 's/^TCP data split:[[:space:]]*//p')" on \
		"header split after the self-tests"
}
dx_case self-tests self_tests

# The policy ended while ncdevmem receives under it: off counts the
# binding, which stays until ncdevmem's socket closes (every byte still
# arrives at 64K); the hook goes after.
off_while_bound() {
	local got
	got=$(rxx devmemx policy dev dxsim1 off) || fail "policy off while bound"
	expect_eq "$got" "bindings: 1" "policy off while ncdevmem is bound"
	expect_eq "$(rxx devmemx -j show | wc -l)" 1 "bindings after off"
}
policy_off_while_bound() {
	shmem_huge
	pol_set size 64K queues 2
	NCD_WHILE=off_while_bound ncd_recv ncd-off 7207
	[ "$NCD_FRAG_MAX" -gt 4096 ] ||
		fail "no fragment above 4K after the policy's end (largest $NCD_FRAG_MAX)"
	dx_wait_idle
	expect_eq "$(rxx devmemx -j show)" "" "bindings after ncdevmem exited"
	wait_until 10 doit_unhooked || fail "the doit still hooked after the policy's end"
}
dx_case off-while-bound policy_off_while_bound

# No policy: ncdevmem binds in-tree 4K, and nothing hooks the doit.
no_policy() {
	NCD_WHILE= ncd_recv ncd-nopol 7202
	[ "$NCD_FRAG_MAX" -le 4096 ] ||
		fail "a fragment of $NCD_FRAG_MAX bytes without a policy (in-tree niovs are 4K)"
	expect_eq "$(doit_hooked)" 0 "hooks on the doit without a policy"
}
dx_case no-policy no_policy

# A policy on queue 3 leaves a request for queue 2 (ncdevmem's) to the
# kernel: in-tree 4K, no devmemx binding.
no_devmemx() {
	expect_eq "$(rxx devmemx -j show)" "" "devmemx bindings while ncdevmem receives"
}
other_queue() {
	pol_set size 64K queues 3
	NCD_WHILE=no_devmemx ncd_recv ncd-other 7203
	[ "$NCD_FRAG_MAX" -le 4096 ] ||
		fail "a fragment of $NCD_FRAG_MAX bytes for a queue the policy does not cover"
}
dx_case other-queue other_queue

# Where a policy bind differs from in-tree's: a queue devmemx holds
# already is refused with devmemx's message (EEXIST in both), and nothing
# is left of the request.
bound_queue() {
	local id rc=0
	pol_set size 64K
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
		sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	[ -n "$id" ] || fail "devmemx bind queues 2 --persist"
	dx_defer rxx devmemx unbind "$id"
	rxx timeout 60 ncdevmem -l -f dxsim1 -s 192.0.2.2 -p 7204 -t 2 -q 1 \
		>/tmp/ncd-bound.out 2>/tmp/ncd-bound.err || rc=$?
	[ $rc != 0 ] || fail "ncdevmem bound a queue devmemx holds"
	grep -qxF "YNL failed: Kernel error: 'queue 2 of dxsim1 is already bound to a memory provider'" \
		/tmp/ncd-bound.err || fail "ncdevmem's error: $(tail -n 5 /tmp/ncd-bound.err)"
	expect_eq "$(rxx devmemx -j show | wc -l)" 1 "bindings after the refused request"
	expect_eq "$(rxx devmemx policy | sed -n 's/^bindings: //p')" 0 "the policy's bindings"
}
dx_case bound-queue bound_queue

# devmemx-rx's in-tree path (netdev's bind-rx) under a policy gets a
# devmemx binding (its id in devmemx's range, 0xf0000000 up); on 7.3 a
# request that carries its own rx-page-size is the kernel's (the
# application chose): an in-tree binding at that size.
own_page_size() {
	local id
	pol_set size 64K queues 2
	devmem_xfer 1048576 7205 --queues 2 --udmabuf 8M --hugetlb
	id=$(jget binding_id /tmp/rx.json)
	[ "$id" -ge $((0xf0000000)) ] || fail "devmemx-rx's bind-rx under a policy: binding $id is not devmemx's"
	# Its last niov may still be in an skb the stack frees later: the
	# next case must not find the binding draining.
	dx_wait_idle
	[ "$DX_SERIES" != 7.2 ] || return 0
	devmem_xfer 1048576 7206 --queues 2 --udmabuf 8M --hugetlb --rx-page-size 16K
	id=$(jget binding_id /tmp/rx.json)
	[ "$id" -lt $((0xf0000000)) ] || fail "a bind-rx with rx-page-size 16K under a policy: binding $id is devmemx's"
	expect_eq "$(jget rx_page_size /tmp/rx.json)" 16384 "rx_page_size of the kernel's binding"
}
dx_case own-page-size own_page_size

# Where a policy bind differs from in-tree's (doc/policy.md), through
# devmemx-rx's netdev bind-rx (the kernel's family, as ncdevmem's): a
# request naming a queue the policy omits beside one it covers, a device
# that is down, one with XDP attached; each refused with devmemx's
# message, nothing left. (In-tree would bind queues 2 and 3 at 4K, and a
# down device too.)
nd_bind() { # QUEUES
	rxx devmemx-rx recv --dev dxsim1 --port 7210 --expect 1M --queues "$1" \
		--provider netdev --udmabuf 4M --no-flow-rule --timeout 2
}
xdp_off() {
	rxx ip link set dev dxsim1 xdpgeneric off
	rxx ethtool -K dxsim1 rx-gro-hw on
}
differences() {
	pol_set size 64K queues 2
	expect_err 1 "devmemx-rx: bind to dxsim1: devmemx policy on dxsim1 omits queue 3: bind it separately (Invalid argument)" \
		nd_bind 2,3
	rxx ip link set dxsim1 down
	dx_defer rxx ip link set dxsim1 up
	expect_err 1 "devmemx-rx: bind to dxsim1: dxsim1 is down: ip link set dxsim1 up (Network is down)" \
		nd_bind 2
	rxx ip link set dxsim1 up
	dx_defer xdp_off
	rxx dx-xdp-pass dxsim1 frags
	expect_err 1 "devmemx-rx: bind to dxsim1: dxsim1 has an XDP program attached (File exists)" \
		nd_bind 2
	expect_eq "$(rxx devmemx -j show)" "" "bindings after the refusals"
	expect_eq "$(rxx devmemx policy | sed -n 's/^bindings: //p')" 0 "the policy's bindings"
}
dx_case differences differences

# Bad requests: each refused with what to change, nothing left.
refusals() {
	local ref
	ref=$(cat /sys/module/devmemx/refcnt)
	expect_err 1 "devmemx: policy on dxsim1: rx-buf-size 12288: must be a power of two of at least 4096 (Invalid argument)" \
		rxx devmemx policy dev dxsim1 size 12288
	expect_err 1 "devmemx: policy off on dxsim1: no policy on this device (No such file or directory)" \
		rxx devmemx policy dev dxsim1 off
	expect_err 1 "devmemx: policy on dxsim1: queue 9 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
		rxx devmemx policy dev dxsim1 size 64K queues 9
	expect_err 2 "devmemx: policy dev dxsim1 needs size SIZE, or off" \
		rxx devmemx policy dev dxsim1
	expect_err 1 "devmemx: policy on dxsim1: setting a policy needs CAP_NET_ADMIN (Operation not permitted)" \
		rxx su -s /bin/sh nobody -c "devmemx policy dev dxsim1 size 64K"
	expect_eq "$(rxx devmemx policy show)" "" "policies after the refusals"
	expect_eq "$(cat /sys/module/devmemx/refcnt)" "$ref" "module refcount after the refusals"
	expect_eq "$(doit_hooked)" 0 "hooks on the doit after the refusals"
}
dx_case refusals refusals

# A policy belongs to its namespace: another one does not see it, and
# cannot set one on a device it does not have (a raw ifindex).
namespaces() {
	local ifx
	ifx=$(rxx cat /sys/class/net/dxsim1/ifindex)
	pol_set size 64K
	expect_eq "$(ip netns exec tx devmemx policy)" "" "netns tx's policies"
	expect_eq "$(ip netns exec tx dx-req policy "$ifx")" \
		"errno 19: no such device in this network namespace" "POLICY-SET from netns tx"
	expect_eq "$(rxx devmemx policy | sed -n 's/^bindings: //p')" 0 "the policy's bindings"
}
dx_case namespaces namespaces

# A policy holds the module: rmmod is refused until it is off.
policy_holds() {
	pol_set size 64K
	expect_err 1 "rmmod: can't unload module 'devmemx': Resource temporarily unavailable" rmmod devmemx
}
dx_case holds-module policy_holds

# The device's end ends its policy (the sim's removal is the teardown's:
# here, a move of dxsim1 to another namespace does it).
policy_dev_moves() {
	rxx devmemx policy dev dxsim1 size 64K || fail "policy dev dxsim1 size 64K"
	ip netns add pol-other
	dx_defer ip netns del pol-other
	dx_defer dx_sim_redo
	rxx ip link set dxsim1 netns pol-other
	expect_eq "$(rxx devmemx policy show)" "" "policies after dxsim1 left the namespace"
	dmesg_new | grep -q "devmemx: the policy on dxsim1 ended with it" ||
		fail "no kernel log line for the policy's end"
	wait_until 10 doit_unhooked || fail "the doit still hooked after the policy's device left"
	expect_eq "$(ip netns exec pol-other devmemx policy show)" "" "policies in the other namespace"
}
dx_case dev-moves policy_dev_moves

# A container (a user namespace owning a network namespace, dxsim1 moved
# in): its root sets a policy on its own device, and ncdevmem there gets
# devmemx's 64K; rx and the initial namespace list no policy. The
# container's end while ncdevmem is bound (its processes killed at once)
# ends the binding, the policy and the hook.
userns_binding() {
	expect_eq "$(in_userns devmemx -j show | wc -l)" 1 "the container's bindings while ncdevmem receives"
	expect_eq "$(in_userns devmemx policy show | sed -n 's/^bindings: //p')" 1 \
		"the container's policy: bindings while ncdevmem receives"
	expect_eq "$(rxx devmemx -j show)" "" "rx's bindings while the container's ncdevmem receives"
}
policy_userns() {
	local pid
	shmem_huge
	userns_make
	userns_move
	in_userns devmemx policy dev dxsim1 size 64K queues 2 ||
		fail "the container's root: policy dev dxsim1 size 64K queues 2"
	expect_eq "$(in_userns devmemx policy show)" "dev: dxsim1
rx-buf-size: 64K
queues: id=2
bindings: 0" "the container's policy show"
	expect_eq "$(rxx devmemx policy show)" "" "rx's policies"
	expect_eq "$(devmemx policy show)" "" "the initial namespace's policies"
	RX_IN="nsenter -t $OWNER -U -n" NCD_WHILE=userns_binding ncd_recv ncd-userns 7208
	[ "$NCD_FRAG_MAX" -gt 4096 ] ||
		fail "no fragment above 4K through the container's 64K policy (largest $NCD_FRAG_MAX)"
	dx_wait_idle
	# The container ends while a second ncdevmem is bound (it listens).
	nsenter -t "$OWNER" -U -n timeout $((120 * DX_SLOW)) ncdevmem -l -f dxsim1 -s 192.0.2.2 -p 7209 -t 2 -q 1 \
		>/dev/null 2>/tmp/ncd-end.err &
	pid=$!
	dx_defer dx_stop $pid
	RX_IN="nsenter -t $OWNER -U -n" wait_until 30 listening 7209 ||
		fail "the container's second ncdevmem is not listening: $(tail -n 5 /tmp/ncd-end.err)"
	expect_eq "$(in_userns devmemx -j show | wc -l)" 1 "the container's bindings before its end"
	kill -KILL "$pid" "$OWNER"
	wait_until 10 test -e /sys/class/net/dxsim1 ||
		fail "dxsim1 did not come back from the container's namespace"
	dx_wait_idle
	wait_until 10 doit_unhooked || fail "the doit still hooked after the container's end"
	wait_until 10 policies_ready || fail "info's policies after the container's end: $(info_policies)"
}
dx_case userns policy_userns

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
