# SPDX-License-Identifier: GPL-2.0
# Who may do what, and what crosses network namespaces: nothing. Binding,
# unbinding and caps take CAP_NET_ADMIN in the user namespace that owns the
# device's network namespace (bind and unbind as in-tree devmem's bind-rx:
# uns-admin-perm; caps because it makes the driver validate sizes, which
# mlx5 logs). An unprivileged user is refused (EPERM, nothing left behind)
# and may read show and info. Root of a user namespace that owns a network
# namespace with dxsim1 moved in binds, receives and unbinds there, and
# sees and reaches nothing of any other namespace: bindings made elsewhere
# (ENOENT, as for an id that does not exist), devices elsewhere (ENODEV,
# as for an ifindex that does not exist), other namespaces' counters,
# processes it may not ptrace (--pid). A device's move to another
# namespace ends its bindings (that namespace's traffic must not land in
# memory the first one reads); a namespace's end ends the bindings made in
# it.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
# tx's dxsim0 takes devmem too: the cases that bind it in netns tx.
ip netns exec tx ethtool -G dxsim0 tcp-data-split on hds-thresh 0
ip netns exec tx ethtool -X dxsim0 equal 2
MODE=$(stat -c %a /dev/udmabuf)
rxx() { ip netns exec rx "$@"; }
txx() { ip netns exec tx "$@"; }
as_nobody() { ip netns exec rx su -s /bin/sh nobody -c "$*"; }
perm() { echo "$1 needs CAP_NET_ADMIN (Operation not permitted)"; }
noent() { echo "devmemx: $1 $2: no devmemx binding $2 (No such file or directory)"; }
ids() { json_ids | tr '\n' ' '; }
ptrace="Operation not permitted (taking another process's fd needs ptrace access to it: run as its user or with CAP_SYS_PTRACE (see kernel.yama.ptrace_scope))"
# Cleanups: whatever is bound in netns rx (tx), unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }
tx_unbind_all() { txx devmemx unbind all >/dev/null && dx_wait_idle; }

# udmabuf_open: /dev/udmabuf open to every user until the case ends, so
# that the family is what refuses.
udmabuf_open() {
	dx_defer chmod "$MODE" /dev/udmabuf
	chmod 666 /dev/udmabuf
}

# root_bind: root's persistent binding of queue 2 in rx, its id in ID.
root_bind() {
	dx_defer unbind_all
	ID=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	[ -n "$ID" ] || fail "root's persistent bind of queue 2"
}

# holder_start: a root process holding a dma-buf, the CLI holding its
# binding of queue 3 in rx (the only binding there): its pid in HOLDER, its
# binding's id in HID, the dma-buf's fd in FD.
holder_start() {
	# (Started directly, so that $! is the CLI itself.)
	ip netns exec rx devmemx bind dev dxsim1 queues 3 --udmabuf 4M >/dev/null 2>&1 &
	HOLDER=$!
	dx_defer dx_wait_idle
	dx_defer dx_stop $HOLDER
	held() { [ "$(rxx devmemx -j show | ids | wc -w)" = 1 ]; }
	wait_until 10 held || fail "no binding from the holding CLI"
	HID=$(rxx devmemx -j show | ids | tr -d ' ')
	FD=$(ls -l /proc/$HOLDER/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
	[ -n "$FD" ] || fail "the CLI holds no dma-buf fd: $(ls -l /proc/$HOLDER/fd)"
}

# back: the user namespace goes (its owner killed); dxsim1 returns to the
# initial namespace.
back() {
	kill "$OWNER" 2>/dev/null || true
	wait_until 10 test -e /sys/class/net/dxsim1 || fail "dxsim1 did not come back"
}
# tx_bind: a persistent binding of dxsim0 in tx, its id in RID.
tx_bind() {
	dx_defer tx_unbind_all
	RID=$(txx devmemx -j bind dev dxsim0 queues 3 --udmabuf 4M --persist | json_ids)
	[ -n "$RID" ] || fail "persistent bind of dxsim0 in tx"
}
userns_live() { in_userns devmemx -j info | sed 's/.*"bindings":\([0-9]*\),"niovs":\([0-9]*\),"page-pools":\([0-9]*\).*/\1 \2 \3/'; }

# ---- an unprivileged user --------------------------------------------------

# An unprivileged user cannot open /dev/udmabuf, and the CLI says so.
nobody_udmabuf() {
	expect_err 1 "devmemx: /dev/udmabuf: Permission denied (run as root, or give this user access to it)" \
		as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
}
dx_debug_no nobody-udmabuf "udmabuf's device node refuses it; no devmemx code runs"
dx_case nobody-udmabuf nobody_udmabuf

# With the dma-buf allowed, the family refuses an unprivileged bind.
nobody_bind() {
	udmabuf_open
	expect_err 1 "devmemx: bind to dxsim1: $(perm binding)" \
		as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
	expect_eq "$(dx_live)" "0 0 0" "live objects after nobody's bind"
}
dx_debug_no nobody-bind "genl refuses it by the op's flags before devmemx's doit runs"
dx_case nobody-bind nobody_bind

# An unprivileged user may not unbind root's binding, but shows and counts it.
nobody_unbind() {
	root_bind
	expect_err 1 "devmemx: unbind $ID: $(perm unbinding)" as_nobody devmemx unbind "$ID"
	expect_err 1 "devmemx: unbind $ID: $(perm unbinding)" as_nobody devmemx unbind all
	expect_eq "$(as_nobody devmemx -j show | ids)" "$ID " "nobody's show"
	expect_eq "$(as_nobody devmemx -j info | sed 's/.*"bindings":\([0-9]*\),.*/\1/')" 1 \
		"bindings in nobody's info"
	expect_eq "$(rxx devmemx unbind "$ID")" "unbound: 1" "root's unbind $ID"
}
dx_case nobody-unbind nobody_unbind

# An unprivileged user may not ask for caps (the driver validates sizes).
nobody_caps() {
	expect_err 1 "devmemx: caps of dxsim1: $(perm caps)" as_nobody devmemx caps dev dxsim1 queue 3
}
dx_debug_no nobody-caps "genl refuses it by the op's flags before devmemx's doit runs"
dx_case nobody-caps nobody_caps

# An unprivileged user cannot take a root process's dma-buf (--pid/--fd).
# The holding CLI's fd is out of nobody's reach: pidfd_getfd needs ptrace
# access.
nobody_pid_fd() {
	udmabuf_open
	holder_start
	expect_err 1 "devmemx: pidfd_getfd of fd $FD of process $HOLDER: $ptrace" \
		as_nobody devmemx bind dev dxsim1 queues 2 --pid $HOLDER --fd "$FD"
}
dx_debug_no nobody-pid-fd "pidfd_getfd's ptrace check refuses it; no devmemx code runs"
dx_case nobody-pid-fd nobody_pid_fd

# In-tree devmem refuses an unprivileged bind-rx the same way.
nobody_intree() {
	udmabuf_open
	holder_start
	expect_err 1 "devmemx-rx: bind to dxsim1: $(perm binding)" \
		as_nobody devmemx-rx recv --dev dxsim1 --queues 2 --port 7100 --expect 1 \
		--udmabuf 4M --timeout 5
	expect_eq "$(dmabuf_pools rx)" 1 "page pools with a binding after nobody's bind-rx (the holder's)"
	expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings: the holder's"
}
dx_debug_no nobody-intree "the netdev family's own refusal; no devmemx code runs"
dx_case nobody-intree nobody_intree

# ---- root of a user namespace that owns the device's network namespace -----

# dxsim1's move into the user namespace's netns ends rx's binding of it first.
move_ends_binding() {
	local lines
	holder_start
	userns_make
	lines=$(dmesg | wc -l)
	ip -n rx link set dxsim1 netns "$OWNER"
	rxx devmemx show "$HID" >/tmp/show 2>&1 || true
	grep -qx 'state: draining' /tmp/show || grep -qx "$(noent show "$HID")" /tmp/show ||
		fail "rx's show of the binding its device's move ended: $(cat /tmp/show)"
	dmesg | tail -n +$((lines + 1)) |
		grep -q "dxsim1: devmemx: 1 binding ended: dxsim1 moves to another network namespace$" ||
		fail "no kernel log line for the binding the move ended: $(dmesg | tail -n +$((lines + 1)))"
	dx_wait_idle
	expect_eq "$(rxx devmemx show)" "" "rx's bindings after dxsim1 moved"
	userns_dev_up
	expect_eq "$(in_userns devmemx-rx pools -j | grep -c '"dmabuf"')" 0 \
		"page pools with a binding on dxsim1, up in the user namespace"
}
dx_case move-ends-binding move_ends_binding

# The user namespace reaches no binding, device or process of another one.
# tx's persistent binding of dxsim0, and the holder CLI (still running in
# rx, its binding ended by the move).
reaches_nothing() {
	local ifx_tx nodev
	holder_start
	userns_make
	userns_move
	dx_wait_idle
	tx_bind
	ifx_tx=$(txx cat /sys/class/net/dxsim0/ifindex)
	expect_eq "$(in_userns devmemx show)" "" "the user namespace's show"
	expect_err 1 "$(noent unbind "$RID")" in_userns devmemx unbind "$RID"
	expect_err 1 "$(noent show "$RID")" in_userns devmemx show "$RID"
	expect_err 1 "$(noent unbind "$RID")" rxx devmemx unbind "$RID"
	expect_eq "$(userns_live)" "0 0 0" "the user namespace's info"
	expect_eq "$(in_userns devmemx unbind all)" "unbound: 0" "the user namespace's unbind all"
	nodev="errno 19: no such device in this network namespace"
	expect_eq "$(in_userns dx-req bind "$ifx_tx" 2)" "$nodev" "bind of tx's dxsim0 from the user namespace"
	expect_eq "$(in_userns dx-req caps "$ifx_tx")" "$nodev" "caps of tx's dxsim0 from the user namespace"
	expect_eq "$(in_userns dx-req netdev-bind "$ifx_tx" 2)" "errno 19: " \
		"in-tree bind-rx of tx's dxsim0 from the user namespace"
	expect_err 1 "devmemx: pidfd_getfd of fd $FD of process $HOLDER: $ptrace" \
		in_userns devmemx bind dev dxsim1 queues 2 --pid $HOLDER --fd "$FD"
	expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings after the user namespace's refusals (tx's)"
}
dx_case reaches-nothing reaches_nothing

# In the user namespace, its own device: caps, and data with both providers.
userns_data() {
	local port=7200 provider
	userns_make
	userns_move
	in_userns devmemx caps dev dxsim1 queue 2 >/tmp/caps || fail "caps in the user namespace: $(cat /tmp/caps)"
	grep -qx 'driver: devmemx_sim' /tmp/caps || fail "caps in the user namespace: $(cat /tmp/caps)"
	DX_RX_EXEC="nsenter -t $OWNER -U -n"
	for provider in netdev devmemx; do
		port=$((port + 1))
		devmem_xfer 1048576 $port --queues 2 --provider $provider --udmabuf 4M
		[ "$(jget cmsgs_dmabuf /tmp/rx.json)" -ge 1 ] || fail "$provider: no payload in the dma-buf"
	done
}
dx_debug_no userns-data "devmemx-data's receive paths, from another namespace"
dx_case userns-data userns_data

# The fuzzer, from inside the user namespace: tx's binding untouched.
userns_fuzz() {
	local seed count out binds
	userns_make
	userns_move
	tx_bind
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	count=1000
	[ -z "$DX_DEBUG" ] || count=300
	out=$(in_userns dx-fuzz dxsim1 "$seed" "$count" 2>&1) || fail "dx-fuzz in the user namespace (seed $seed): $out"
	echo "# fuzzer in the user namespace, seed $seed: $out"
	binds=$(sed -n 's/.*(\([0-9]*\) binds).*/\1/p' <<<"$out")
	[ "${binds:-0}" -gt 0 ] || fail "no bind succeeded in the user namespace (seed $seed): $out"
	# It leaves persistent bindings; the user namespace's unbind all ends
	# them and none of tx's.
	in_userns devmemx unbind all >/dev/null
	expect_eq "$(txx devmemx -j show | ids)" "$RID " "tx's bindings after the fuzzer"
}
dx_debug_no userns-fuzz "devmemx-fuzz's requests, from another namespace"
dx_case userns-fuzz userns_fuzz

# userns_bind: a persistent binding in the user namespace, its id in UID_B.
userns_bind() {
	UID_B=$(in_userns devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	[ -n "$UID_B" ] || fail "persistent bind in the user namespace"
}

# A persistent binding in the user namespace: seen and counted only there.
userns_persistent() {
	userns_make
	userns_move
	tx_bind
	userns_bind
	# (The receivers' bindings may wait a moment for their last buffers.)
	userns_one() { flush_deferred_skbs; [ "$(userns_live | cut -d' ' -f1,2)" = "1 1024" ]; }
	wait_until 10 userns_one ||
		fail "the user namespace's info (bindings niovs page-pools): $(userns_live)"
	in_userns devmemx show "$UID_B" >/tmp/show
	grep -qx 'state: bound' /tmp/show || fail "the user namespace's show: $(cat /tmp/show)"
	grep -qx "dev: dxsim1" /tmp/show ||
		fail "the user namespace's show: $(cat /tmp/show)"
	expect_eq "$(in_userns devmemx -j show | ids)" "$UID_B " "the user namespace's bindings"
	expect_eq "$(txx devmemx -j show | ids)" "$RID " "tx's bindings"
	expect_eq "$(rxx devmemx -j show | ids)" "" "rx's bindings"
	expect_eq "$(devmemx -j show | ids)" "" "the initial namespace's bindings"
	expect_err 1 "$(noent unbind "$UID_B")" txx devmemx unbind "$UID_B"
	expect_err 1 "$(noent unbind "$UID_B")" devmemx unbind "$UID_B"
	expect_eq "$(dx_live | cut -d' ' -f1,2)" "2 2048" "the module's live objects"
	expect_eq "$(in_userns devmemx unbind "$UID_B")" "unbound: 1" "the user namespace's unbind"
}
dx_case userns-persistent userns_persistent

# The user namespace's end ends the binding made in it, and not tx's.
# The binding ends before dxsim1 returns to the initial namespace (the log
# has no move line).
userns_end_case() {
	local lines new_log
	userns_make
	userns_move
	tx_bind
	userns_bind
	lines=$(dmesg | wc -l)
	back
	tx_only() { flush_deferred_skbs; [ "$(dx_live | cut -d' ' -f1)" = 1 ]; }
	wait_until 20 tx_only || fail "bindings after the user namespace went: $(dx_live)"
	new_log=$(dmesg | tail -n +$((lines + 1)))
	grep -q "devmemx: 1 binding ended with the network namespace it was made in$" <<<"$new_log" ||
		fail "no kernel log line for the binding its namespace ended: $new_log"
	! grep -q "moves to another network namespace" <<<"$new_log" ||
		fail "the namespace's binding was still there when dxsim1 left it: $new_log"
	expect_eq "$(txx devmemx -j show | ids)" "$RID " "tx's bindings after the user namespace went"
	expect_eq "$(txx devmemx unbind "$RID")" "unbound: 1" "tx's unbind"
	dx_wait_idle
}
dx_case userns-end userns_end_case
