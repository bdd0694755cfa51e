# SPDX-License-Identifier: GPL-2.0
# Who may do what. devmemx's bind and unbind take CAP_NET_ADMIN over the
# device's network namespace, as in-tree devmem's bind-rx does (both are
# uns-admin-perm): an unprivileged user is refused (EPERM, nothing left
# behind) by both, and may only read (show, caps, info); root of a user
# namespace that owns the device's network namespace binds with both.
. /dx/tlib.sh

dx_sim_devmem
trap dx_sim_teardown EXIT
port=7200
as_nobody() { ip netns exec rx su -s /bin/sh nobody -c "$*"; }
perm="binding needs CAP_NET_ADMIN (Operation not permitted)"

# ---- an unprivileged user --------------------------------------------------
expect_err 1 "devmemx: /dev/udmabuf: Permission denied (run as root, or give this user access to it)" \
	as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
# With the dma-buf allowed, the family is what refuses.
mode=$(stat -c %a /dev/udmabuf)
trap 'chmod $mode /dev/udmabuf; dx_sim_teardown' EXIT
chmod 666 /dev/udmabuf
expect_err 1 "devmemx: bind to dxsim1: $perm" \
	as_nobody devmemx bind dev dxsim1 queues 2 --udmabuf 4M
expect_eq "$(dx_live)" "0 0 0" "live objects after nobody's bind"
id=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
	json_ids)
[ -n "$id" ] || fail "root's persistent bind of queue 2"
expect_err 1 "devmemx: unbind $id: unbinding needs CAP_NET_ADMIN (Operation not permitted)" \
	as_nobody devmemx unbind "$id"
expect_err 1 "devmemx: unbind $id: unbinding needs CAP_NET_ADMIN (Operation not permitted)" \
	as_nobody devmemx unbind all
expect_eq "$(as_nobody devmemx -j show | grep -c "\"id\":$id,")" 1 \
	"nobody's show lists root's binding"
as_nobody devmemx caps dev dxsim1 queue 3 >/dev/null || fail "nobody's caps"
as_nobody devmemx info >/dev/null || fail "nobody's info"
ip netns exec rx devmemx unbind "$id" || fail "root's unbind $id"
dx_wait_idle
# In-tree devmem refuses nobody the same way.
expect_err 1 "devmemx-rx: bind to dxsim1: $perm" \
	as_nobody devmemx-rx recv --dev dxsim1 --queues 2 --port 7100 --expect 1 \
	--udmabuf 4M --timeout 5
expect_eq "$(dmabuf_pools rx)" 0 "in-tree bindings after nobody's bind-rx"
chmod "$mode" /dev/udmabuf
trap dx_sim_teardown EXIT

# ---- root of a user namespace that owns the device's network namespace -----
unshare -Urn sleep 600 &
owner=$!
back() { # dxsim1 returns to the initial namespace when the owner's goes
	kill $owner 2>/dev/null || true
	wait_until 10 test -e /sys/class/net/dxsim1 || fail "dxsim1 did not come back"
}
trap 'back; dx_sim_teardown' EXIT
in_userns() { nsenter -t $owner -U -n "$@"; }
wait_until 5 in_userns true || fail "no user namespace to enter"
expect_eq "$(in_userns id -u)" 0 "uid in the user namespace"
ip -n rx link set dxsim1 netns $owner
in_userns ip link set lo up
in_userns ip addr add 192.0.2.2/24 dev dxsim1
in_userns ip link set dxsim1 up
DX_RX_EXEC="nsenter -t $owner -U -n"
for provider in netdev devmemx; do
	port=$((port + 1))
	devmem_xfer 1048576 $port --queues 2 --provider $provider --udmabuf 4M
	[ "$(jget cmsgs_dmabuf /tmp/rx.json)" -ge 1 ] || fail "$provider: no payload in the dma-buf"
done
back
trap - EXIT
dx_sim_teardown
