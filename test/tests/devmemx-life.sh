# SPDX-License-Identifier: GPL-2.0
# Every way a devmemx binding ends: UNBIND, the CLI's socket closing
# (Ctrl-C or kill), device removal, the end of the network namespace it was
# made in; a persistent binding outlives the CLI;
# rmmod devmemx is refused while a binding lives; a dma-buf taken from
# another process with --pid/--fd. Nothing is left after each.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
bound_ids() { rxx devmemx -j show | json_ids | tr '\n' ' '; }
has_binding() { [ -n "$(bound_ids)" ]; }
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# A persistent binding: the CLI exits, the binding stays, the module is
# pinned (rmmod refused); show, the page pools and the queues report it;
# UNBIND ends it.
persistent() {
	local id
	dx_defer unbind_all
	id=$(rxx devmemx -j bind dev dxsim1 queues 2,3 size 64K --udmabuf 8M --hugetlb --persist |
		json_ids)
	[ -n "$id" ] || fail "persistent bind printed no id"
	rxx devmemx show "$id" >/tmp/show
	grep -qx 'queues: id=2,buf-size=64K id=3,buf-size=64K' /tmp/show || fail "show: $(cat /tmp/show)"
	grep -qx 'flags: persistent' /tmp/show || fail "show: $(cat /tmp/show)"
	grep -qx 'niov-size: 64K' /tmp/show || fail "show: $(cat /tmp/show)"
	grep -qx 'niov-count: 128' /tmp/show || fail "show: $(cat /tmp/show)"
	expect_eq "$(rxx devmemx-rx pools -j | grep -c "\"dmabuf\":$id}")" 2 "page pools with the binding"
	expect_eq "$(rxx devmemx-rx queues -j | sed -n "s/^{\"id\":\([0-9]*\),.*\"type\":0,\"dmabuf\":$id}$/\1/p" | tr '\n' ' ')" \
		"2 3 " "queues the netdev family shows with the binding"
	# The same in text, by name, for dxsim1 only.
	expect_eq "$(rxx devmemx-rx queues --dev dxsim1 | grep -v "^id [0-9]* dev dxsim1 type [rt]x")" "" \
		"queues --dev dxsim1: lines of other devices"
	expect_eq "$(rxx devmemx-rx queues --dev dxsim1 | sed -n "s/^id \([0-9]*\) dev dxsim1 type rx binding $id$/\1/p" | tr '\n' ' ')" \
		"2 3 " "queues --dev dxsim1 with the binding, in text"
	expect_eq "$(rxx devmemx-rx pools --dev lo | grep -c .)" 0 "page pools of lo"
	expect_eq "$(dx_live)" "1 128 2" "live objects with one binding"
	expect_err 1 "rmmod: can't unload module 'devmemx': Resource temporarily unavailable" rmmod devmemx
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
	dx_wait_idle
	expect_eq "$(bound_ids)" "" "bindings after unbind"
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding"
}

# Held by the CLI: signal SIG to it (INT: Ctrl-C, KILL) releases it.
cli_held() {
	local sig=$1 pid rc=0
	# Started directly, so that $! is the CLI itself.
	ip netns exec rx devmemx bind dev dxsim1 queues 2 size 16K --udmabuf 8M \
		--hugetlb >/tmp/bind.out 2>/tmp/bind.err &
	pid=$!
	dx_defer dx_wait_idle
	dx_defer dx_stop $pid INT
	wait_until 10 has_binding || fail "no binding from the CLI: $(cat /tmp/bind.err)"
	grep -qx "devmemx: holding binding $(bound_ids | tr -d ' ') on dxsim1; press Ctrl-C to release it" /tmp/bind.err ||
		fail "bind said: $(cat /tmp/bind.err)"
	kill -"$sig" $pid
	wait $pid || rc=$?
	[ "$sig" = KILL ] || expect_eq "$rc" 0 "exit of the CLI after Ctrl-C"
	dx_wait_idle
}

# A dma-buf that another process made (--pid/--fd): the holding CLI's own,
# shared by two bindings; show names its holder, then none once it exits.
dmabuf_of_pid() {
	local pid fd ino
	ip netns exec rx devmemx bind dev dxsim1 queues 2 --udmabuf 4M >/dev/null 2>&1 &
	pid=$!
	dx_defer unbind_all
	dx_defer dx_stop $pid INT
	wait_until 10 has_binding || fail "no binding to take the dma-buf from"
	fd=$(ls -l /proc/$pid/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
	[ -n "$fd" ] || fail "the CLI holds no dma-buf fd: $(ls -l /proc/$pid/fd)"
	rxx devmemx bind dev dxsim1 queues 3 --pid $pid --fd "$fd" --persist >/dev/null ||
		fail "bind with --pid $pid --fd $fd"
	expect_eq "$(bound_ids | wc -w)" 2 "bindings sharing one dma-buf"
	# show names the process that holds the dma-buf, whoever bound it: both
	# bindings, with the buffer's inode and exporter.
	expect_eq "$(rxx devmemx show | grep -c "^held-by: $pid (devmemx) fd $fd$")" 2 \
		"show: held-by of the bindings sharing the holder's dma-buf"
	ino=$(stat -L -c %i /proc/$pid/fd/$fd)
	expect_eq "$(rxx devmemx -j show | grep -c "\"dmabuf-ino\":$ino,\"exporter\":\"udmabuf\",\"autorelease\":\"xarray\",\"held-by\":\[{\"pid\":$pid,\"comm\":\"devmemx\",\"fd\":$fd}\]}$")" 2 \
		"show -j: the dma-buf's inode, exporter and holder"
	kill -INT $pid
	wait $pid || true
	# The CLI's own binding ended with its socket, but show lists it until
	# it is freed (its pools gone): wait for that, as CI once did not.
	one_left() { flush_deferred_skbs; [ "$(bound_ids | wc -w)" = 1 ]; }
	wait_until 10 one_left || fail "the CLI's binding outlived it: $(rxx devmemx show)"
	# The persistent binding alone keeps it now.
	expect_eq "$(rxx devmemx show | grep '^held-by: ')" \
		"held-by: no process (the binding alone keeps the dma-buf)" "show: held-by after the holder exited"
	expect_eq "$(rxx devmemx unbind all)" "unbound: 1" "unbind all"
	dx_wait_idle
}

# The network namespace a binding was made in ends it when it goes,
# persistent or not (no one can reach it there any more; in-tree bindings
# cannot outlive theirs, whose socket holds it): deleting netns rx brings
# dxsim1 back to the initial one without the binding. A move that leaves
# the namespace alive keeps it (devmemx-perms).
netns_end() {
	local lines
	dx_defer dx_sim_redo
	rxx devmemx -j bind dev dxsim1 queues 2 size 32K --udmabuf 8M --hugetlb --persist >/dev/null
	expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings before the netns went"
	lines=$(dmesg | wc -l)
	ip netns del tx
	ip netns del rx
	wait_until 10 test -e /sys/class/net/dxsim1 || fail "dxsim1 did not come back from netns rx"
	dx_wait_idle
	dmesg | tail -n +$((lines + 1)) |
		grep -q "devmemx: 1 binding ended with the network namespace it was made in$" ||
		fail "no kernel log line for the binding its namespace ended: $(dmesg | tail -n +$((lines + 1)))"
	ip link set dxsim1 up
	has_pools() { [ "$(devmemx-rx pools -j | grep -c '"ifindex"')" -ge 1 ]; }
	wait_until 10 has_pools ||
		fail "dxsim1 made no page pools once up: $(devmemx-rx pools -j)"
	expect_eq "$(devmemx-rx pools -j | grep -c '"dmabuf"')" 0 \
		"page pools with a binding after its namespace went"
}

# Device removal (rmmod devmemx_sim) ends a binding, persistent too.
device_removal() {
	local id
	dx_defer dx_sim_redo
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	expect_eq "$(rxx devmemx-rx pools -j | grep -c "\"dmabuf\":$id}")" 1 "page pools with binding $id"
	rmmod devmemx_sim
	dx_wait_idle
	expect_eq "$(rxx devmemx show)" "" "bindings after the device went"
}

dx_case persistent persistent
# Ctrl-C to the CLI that holds a binding releases it.
dx_case cli-sigint cli_held INT
# kill -KILL of the CLI that holds a binding releases it.
dx_case cli-sigkill cli_held KILL
dx_case dmabuf-of-pid dmabuf_of_pid
dx_case netns-end netns_end
dx_case device-removal device_removal
