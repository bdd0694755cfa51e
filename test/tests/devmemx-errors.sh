# SPDX-License-Identifier: GPL-2.0
# Bad input to devmemx: each refusal with its exact message and exit code,
# and no binding, niov or page pool left behind.
. /dx/tlib.sh

dx_sim_devmem
trap dx_sim_teardown EXIT
# A bind that wrongly succeeds would hold forever: give it 20 s.
bind() { timeout $((20 * DX_SLOW)) /sbin/ip netns exec rx devmemx bind "$@"; }
no_state() {
	expect_eq "$(dx_live)" "0 0 0" "live objects after: $*"
	expect_eq "$(dmabuf_pools rx)" 0 \
		"page pools with a binding after: $*"
}
refused() { # message, then the bind arguments
	local msg=$1
	shift
	expect_err 1 "devmemx: bind to ${DEV:-dxsim1}: $msg" bind "$@"
	no_state "$*"
}

# Each refusal below comes before devmemx makes a binding, so none takes an
# id: the first bind after them gets the id after this one.
id0=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
	json_ids)
ip netns exec rx devmemx unbind "$id0" >/dev/null
dx_wait_idle

for size in 0 3 2048 4097; do
	refused "rx-buf-size $size: must be a power of two of at least 4096 (Invalid argument)" \
		dev dxsim1 queues 2 size $size --udmabuf 4M
done
refused "the driver of dxsim1 refuses rx-buf-size 262144 (Numerical result out of range)" \
	dev dxsim1 queues 2 size 256K --udmabuf 8M --hugetlb
refused "rx-buf-size 131072 is larger than the dma-buf (65536 bytes) (Invalid argument)" \
	dev dxsim1 queues 2 size 128K --udmabuf 64K
refused "queue 4 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
	dev dxsim1 queues 4 --udmabuf 4M
refused "queue 4 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
	dev dxsim1 queues 2,4 --udmabuf 4M
expect_err 2 'devmemx: queue 2 listed twice in queues "2,2"' \
	bind dev dxsim1 queues 2,2 --udmabuf 4M
expect_err 1 "devmemx: fd 0 of process $$ is not a dma-buf (it is /dev/null)" \
	bind dev dxsim1 queues 2 --pid $$ --fd 0 </dev/null
no_state "fd not a dma-buf"

# Queues already bound: by devmemx, and by in-tree devmem.
id=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
	json_ids)
expect_eq "$id" $((id0 + 1)) "the id of the first bind after the refused ones"
expect_err 1 "devmemx: bind to dxsim1: queue 2 of dxsim1 is already bound to a memory provider (File exists)" \
	bind dev dxsim1 queues 3,2 --udmabuf 4M
expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings after a refused second bind"
ip netns exec rx devmemx unbind "$id" >/dev/null
dx_wait_idle
ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 3 --port 9200 --expect 1 \
	--udmabuf 4M --timeout $((20 * DX_SLOW)) >/dev/null 2>&1 &
rpid=$!
intree_bound() { [ "$(dmabuf_pools rx)" != 0 ]; }
wait_until 10 intree_bound || fail "the in-tree binding did not appear"
expect_err 1 "devmemx: bind to dxsim1: queue 3 of dxsim1 is already bound to a memory provider (File exists)" \
	bind dev dxsim1 queues 3 --udmabuf 4M
expect_eq "$(dx_live)" "0 0 0" "devmemx objects after a refused bind on an in-tree queue"
kill $rpid
wait $rpid || true

# Device settings devmem needs.
ip netns exec rx ethtool -G dxsim1 hds-thresh 100
refused "hds-thresh is 100: ethtool -G dxsim1 hds-thresh 0 (Invalid argument)" \
	dev dxsim1 queues 2 --udmabuf 4M
ip netns exec rx ethtool -G dxsim1 tcp-data-split off hds-thresh 0
refused "tcp-data-split is off: ethtool -G dxsim1 tcp-data-split on (Invalid argument)" \
	dev dxsim1 queues 2 --udmabuf 4M
ip netns exec rx ethtool -G dxsim1 tcp-data-split on
DEV=lo refused "lo has no queue management ops (devmem needs them) (Operation not supported)" \
	dev lo queues 0 --udmabuf 4M

# What the devices offer: the sim takes 4K..128K (bits 12-17), lo nothing
# (test caps has the rest of caps).
ifx=$(ip netns exec rx cat /sys/class/net/dxsim1/ifindex)
expect_eq "$(ip netns exec rx devmemx -j caps dev dxsim1 queue 2)" \
	"{\"ifindex\":$ifx,\"queue-id\":2,\"driver\":\"devmemx_sim\",\"tcp-data-split\":2,\"hds-thresh\":0,\"rx-page-size\":1,\"rx-buf-sizes\":258048,\"queues\":4,\"dma-bounce\":0,\"rx-gro-hw\":1,\"xdp\":0,\"unmet\":[]}" \
	"caps of dxsim1 queue 2"
expect_eq "$(ip netns exec rx devmemx -j caps dev lo)" \
	"{\"ifindex\":1,\"driver\":\"unknown\",\"tcp-data-split\":0,\"hds-thresh\":0,\"rx-page-size\":0,\"rx-buf-sizes\":0,\"queues\":1,\"dma-bounce\":0,\"xdp\":0,\"unmet\":[\"lo takes no devmem: its driver has no queue management ops\"]}" \
	"caps of lo"
expect_err 1 "devmemx: caps of dxsim1: queue 7 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
	ip netns exec rx devmemx caps dev dxsim1 queue 7

# Without CAP_NET_ADMIN over the device's netns (a new user namespace).
expect_err 1 "devmemx: bind to dxsim1: binding needs CAP_NET_ADMIN (Operation not permitted)" \
	ip netns exec rx unshare -U devmemx bind dev dxsim1 queues 2 --udmabuf 4M
no_state "bind without CAP_NET_ADMIN"

# Unknown ids.
expect_err 1 "devmemx: unbind 12345: no devmemx binding 12345 (No such file or directory)" \
	ip netns exec rx devmemx unbind 12345
expect_err 1 "devmemx: show 12345: no devmemx binding 12345 (No such file or directory)" \
	ip netns exec rx devmemx show 12345
trap - EXIT
dx_sim_teardown
