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
trap dx_sim_teardown EXIT
port=7200
rxx() { ip netns exec rx "$@"; }
as_nobody() { ip netns exec rx su -s /bin/sh nobody -c "$*"; }
perm() { echo "$1 needs CAP_NET_ADMIN (Operation not permitted)"; }
noent() { echo "devmemx: $1 $2: no devmemx binding $2 (No such file or directory)"; }
ids() { json_ids | tr '\n' ' '; }

# ---- an unprivileged user --------------------------------------------------
expect_err 1 "devmemx: /dev/udmabuf: Permission denied (run as root, or give this user access to it)" \
	as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
# With the dma-buf allowed, the family is what refuses.
mode=$(stat -c %a /dev/udmabuf)
trap 'chmod $mode /dev/udmabuf; dx_sim_teardown' EXIT
chmod 666 /dev/udmabuf
expect_err 1 "devmemx: bind to dxsim1: $(perm binding)" \
	as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
expect_eq "$(dx_live)" "0 0 0" "live objects after nobody's bind"
id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
[ -n "$id" ] || fail "root's persistent bind of queue 2"
expect_err 1 "devmemx: unbind $id: $(perm unbinding)" as_nobody devmemx unbind "$id"
expect_err 1 "devmemx: unbind $id: $(perm unbinding)" as_nobody devmemx unbind all
expect_eq "$(as_nobody devmemx -j show | ids)" "$id " "nobody's show"
expect_err 1 "devmemx: caps of dxsim1: $(perm caps)" as_nobody devmemx caps dev dxsim1 queue 3
expect_eq "$(as_nobody devmemx -j info | sed 's/.*"bindings":\([0-9]*\),.*/\1/')" 1 \
	"bindings in nobody's info"
# A root process holding a dma-buf (the CLI holding its binding of queue 3):
# its fd is out of nobody's reach (pidfd_getfd needs ptrace access).
# (Started directly, so that $! is the CLI itself.)
ip netns exec rx devmemx bind dev dxsim1 queues 3 --udmabuf 4M >/dev/null 2>&1 &
holder=$!
trap 'kill $holder 2>/dev/null; chmod $mode /dev/udmabuf; dx_sim_teardown' EXIT
held() { [ "$(rxx devmemx -j show | ids | wc -w)" = 2 ]; }
wait_until 10 held || fail "no binding from the holding CLI"
hid=$(rxx devmemx -j show | ids | tr ' ' '\n' | grep -vx "$id")
fd=$(ls -l /proc/$holder/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
[ -n "$fd" ] || fail "the CLI holds no dma-buf fd: $(ls -l /proc/$holder/fd)"
ptrace="Operation not permitted (taking another process's fd needs ptrace access to it: run as its user or with CAP_SYS_PTRACE (see kernel.yama.ptrace_scope))"
expect_err 1 "devmemx: pidfd_getfd of fd $fd of process $holder: $ptrace" \
	as_nobody devmemx bind dev dxsim1 queues 2 --pid $holder --fd "$fd"
expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "root's unbind $id"
# In-tree devmem refuses nobody the same way.
expect_err 1 "devmemx-rx: bind to dxsim1: $(perm binding)" \
	as_nobody devmemx-rx recv --dev dxsim1 --queues 2 --port 7100 --expect 1 \
	--udmabuf 4M --timeout 5
expect_eq "$(dmabuf_pools rx)" 1 "page pools with a binding after nobody's bind-rx (the holder's)"
expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings: the holder's"
chmod "$mode" /dev/udmabuf

# ---- root of a user namespace that owns the device's network namespace -----
unshare -Urn sleep 600 &
owner=$!
back() { # dxsim1 returns to the initial namespace when the owner's goes
	kill $owner 2>/dev/null || true
	wait_until 10 test -e /sys/class/net/dxsim1 || fail "dxsim1 did not come back"
}
trap 'back; kill $holder 2>/dev/null; dx_sim_teardown' EXIT
in_userns() { nsenter -t $owner -U -n "$@"; }
# (Until unshare has run, the owner is in our user namespace.)
userns_up() { [ "$(readlink /proc/$owner/ns/user)" != "$(readlink /proc/self/ns/user)" ]; }
wait_until 5 userns_up || fail "no user namespace to enter"
expect_eq "$(in_userns id -u)" 0 "uid in the user namespace"
ifx_tx=$(ip netns exec tx cat /sys/class/net/dxsim0/ifindex)
# The move ends the holder's binding, made in rx, before dxsim1 leaves.
lines=$(dmesg | wc -l)
ip -n rx link set dxsim1 netns $owner
rxx devmemx show "$hid" >/tmp/show 2>&1 || true
grep -qx 'state: draining' /tmp/show || grep -qx "$(noent show "$hid")" /tmp/show ||
	fail "rx's show of the binding its device's move ended: $(cat /tmp/show)"
dmesg | tail -n +$((lines + 1)) |
	grep -q "dxsim1: devmemx: 1 binding ended: dxsim1 moves to another network namespace$" ||
	fail "no kernel log line for the binding the move ended: $(dmesg | tail -n +$((lines + 1)))"
dx_wait_idle
expect_eq "$(rxx devmemx show)" "" "rx's bindings after dxsim1 moved"
in_userns ip link set lo up
in_userns ip addr add 192.0.2.2/24 dev dxsim1
in_userns ip link set dxsim1 up
expect_eq "$(in_userns devmemx-rx pools -j | grep -c '"dmabuf"')" 0 \
	"page pools with a binding on dxsim1, up in the user namespace"

# Nor a binding, nor a device, nor a process, of another namespace: tx's
# persistent binding of dxsim0, the holder CLI (still running in rx).
ip netns exec tx ethtool -G dxsim0 tcp-data-split on hds-thresh 0
ip netns exec tx ethtool -X dxsim0 equal 2
rid=$(ip netns exec tx devmemx -j bind dev dxsim0 queues 3 --udmabuf 4M --persist | json_ids)
[ -n "$rid" ] || fail "persistent bind of dxsim0 in tx"
expect_eq "$(in_userns devmemx show)" "" "the user namespace's show"
expect_err 1 "$(noent unbind "$rid")" in_userns devmemx unbind "$rid"
expect_err 1 "$(noent show "$rid")" in_userns devmemx show "$rid"
expect_err 1 "$(noent unbind "$rid")" rxx devmemx unbind "$rid"
userns_live() { in_userns devmemx -j info | sed 's/.*"bindings":\([0-9]*\),"niovs":\([0-9]*\),"page-pools":\([0-9]*\).*/\1 \2 \3/'; }
expect_eq "$(userns_live)" "0 0 0" "the user namespace's info"
expect_eq "$(in_userns devmemx unbind all)" "unbound: 0" "the user namespace's unbind all"
nodev="errno 19: no such device in this network namespace"
expect_eq "$(in_userns dx-req bind "$ifx_tx" 2)" "$nodev" "bind of tx's dxsim0 from the user namespace"
expect_eq "$(in_userns dx-req caps "$ifx_tx")" "$nodev" "caps of tx's dxsim0 from the user namespace"
expect_eq "$(in_userns dx-req netdev-bind "$ifx_tx" 2)" "errno 19: " \
	"in-tree bind-rx of tx's dxsim0 from the user namespace"
expect_err 1 "devmemx: pidfd_getfd of fd $fd of process $holder: $ptrace" \
	in_userns devmemx bind dev dxsim1 queues 2 --pid $holder --fd "$fd"
expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings after the user namespace's refusals (tx's)"

# Its own device: caps, data with both providers.
in_userns devmemx caps dev dxsim1 queue 2 >/tmp/caps || fail "caps in the user namespace: $(cat /tmp/caps)"
grep -qx 'driver: devmemx_sim' /tmp/caps || fail "caps in the user namespace: $(cat /tmp/caps)"
DX_RX_EXEC="nsenter -t $owner -U -n"
for provider in netdev devmemx; do
	port=$((port + 1))
	devmem_xfer 1048576 $port --queues 2 --provider $provider --udmabuf 4M
	[ "$(jget cmsgs_dmabuf /tmp/rx.json)" -ge 1 ] || fail "$provider: no payload in the dma-buf"
done

# The fuzzer, from inside the user namespace.
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
count=1000
[ -z "$DX_DEBUG" ] || count=300
out=$(in_userns dx-fuzz dxsim1 "$seed" "$count" 2>&1) || fail "dx-fuzz in the user namespace (seed $seed): $out"
echo "# fuzzer in the user namespace, seed $seed: $out"
binds=$(sed -n 's/.*(\([0-9]*\) binds).*/\1/p' <<<"$out")
[ "${binds:-0}" -gt 0 ] || fail "no bind succeeded in the user namespace (seed $seed): $out"
# It leaves persistent bindings; the user namespace's unbind all ends them
# and none of tx's.
in_userns devmemx unbind all >/dev/null
expect_eq "$(ip netns exec tx devmemx -j show | ids)" "$rid " "tx's bindings after the fuzzer"

# A persistent binding: seen and counted only here.
uid=$(in_userns devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
[ -n "$uid" ] || fail "persistent bind in the user namespace"
# (The receivers' bindings may wait a moment for their last buffers.)
userns_one() { flush_deferred_skbs; [ "$(userns_live | cut -d' ' -f1,2)" = "1 1024" ]; }
wait_until 10 userns_one ||
	fail "the user namespace's info (bindings niovs page-pools): $(userns_live)"
in_userns devmemx show "$uid" >/tmp/show
grep -qx 'state: bound' /tmp/show || fail "the user namespace's show: $(cat /tmp/show)"
grep -qx "dev: dxsim1" /tmp/show ||
	fail "the user namespace's show: $(cat /tmp/show)"
expect_eq "$(in_userns devmemx -j show | ids)" "$uid " "the user namespace's bindings"
expect_eq "$(ip netns exec tx devmemx -j show | ids)" "$rid " "tx's bindings"
expect_eq "$(rxx devmemx -j show | ids)" "" "rx's bindings"
expect_eq "$(devmemx -j show | ids)" "" "the initial namespace's bindings"
expect_err 1 "$(noent unbind "$uid")" ip netns exec tx devmemx unbind "$uid"
expect_err 1 "$(noent unbind "$uid")" devmemx unbind "$uid"
expect_eq "$(dx_live | cut -d' ' -f1,2)" "2 2048" "the module's live objects"

# The namespace goes: the binding made in it ends before dxsim1 returns to
# the initial namespace (the log has no move line); tx's stays.
lines=$(dmesg | wc -l)
back
tx_only() { flush_deferred_skbs; [ "$(dx_live | cut -d' ' -f1)" = 1 ]; }
wait_until 20 tx_only || fail "bindings after the user namespace went: $(dx_live)"
new_log=$(dmesg | tail -n +$((lines + 1)))
grep -q "devmemx: 1 binding ended with the network namespace it was made in$" <<<"$new_log" ||
	fail "no kernel log line for the binding its namespace ended: $new_log"
! grep -q "moves to another network namespace" <<<"$new_log" ||
	fail "the namespace's binding was still there when dxsim1 left it: $new_log"
expect_eq "$(ip netns exec tx devmemx -j show | ids)" "$rid " "tx's bindings after the user namespace went"
expect_eq "$(ip netns exec tx devmemx unbind "$rid")" "unbound: 1" "tx's unbind"
kill $holder
wait $holder || true
dx_wait_idle
trap - EXIT
dx_sim_teardown
