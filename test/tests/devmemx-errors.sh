# SPDX-License-Identifier: GPL-2.0
# Bad input to devmemx: each refusal with its exact message and exit code,
# and no binding, niov or page pool left behind.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
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
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { ip netns exec rx devmemx unbind all >/dev/null && dx_wait_idle; }

# Each refusal of the cases with ids_before and ids_after comes before
# devmemx makes a binding, so none takes an id: the first bind after them
# gets the id after that of the bind before them. ids_before: a binding
# made and unbound, its id in ID0.
ids_before() {
	ID0=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
		json_ids)
	[ -n "$ID0" ] || fail "the bind before the refusals printed no id"
	ip netns exec rx devmemx unbind "$ID0" >/dev/null
	dx_wait_idle
}
ids_after() {
	local id
	dx_defer unbind_all
	id=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
		json_ids)
	expect_eq "$id" $((ID0 + 1)) "the id of the first bind after the refused ones"
	ip netns exec rx devmemx unbind "$id" >/dev/null
	dx_wait_idle
}

# rx-buf-size not a power of two of at least 4096.
buf_size_invalid() {
	local size
	ids_before
	for size in 0 3 2048 4097; do
		refused "rx-buf-size $size: must be a power of two of at least 4096 (Invalid argument)" \
			dev dxsim1 queues 2 size $size --udmabuf 4M
	done
	ids_after
}

# rx-buf-size larger than the driver takes.
buf_size_driver() {
	ids_before
	refused "the driver of dxsim1 refuses rx-buf-size 262144 (Numerical result out of range)" \
		dev dxsim1 queues 2 size 256K --udmabuf 8M --hugetlb
	ids_after
}

# rx-buf-size larger than the dma-buf.
buf_size_over_dmabuf() {
	ids_before
	refused "rx-buf-size 131072 is larger than the dma-buf (65536 bytes) (Invalid argument)" \
		dev dxsim1 queues 2 size 128K --udmabuf 64K
	ids_after
}

# A queue past the device's RX queues, alone or in a list.
queue_out_of_range() {
	ids_before
	refused "queue 4 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
		dev dxsim1 queues 4 --udmabuf 4M
	refused "queue 4 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
		dev dxsim1 queues 2,4 --udmabuf 4M
	ids_after
}

# A queue listed twice: bad usage (exit 2).
queue_twice() {
	ids_before
	expect_err 2 'devmemx: queue 2 listed twice in queues "2,2"' \
		bind dev dxsim1 queues 2,2 --udmabuf 4M
	ids_after
}

# --pid/--fd naming a file that is no dma-buf: the test's own stdin, which
# run-tests.sh makes /dev/null.
fd_not_dmabuf() {
	ids_before
	expect_err 1 "devmemx: fd 0 of process $$ is not a dma-buf (it is /dev/null)" \
		bind dev dxsim1 queues 2 --pid $$ --fd 0 </dev/null
	no_state "fd not a dma-buf"
	ids_after
}

# A queue already bound by devmemx.
bound_by_devmemx() {
	local id
	dx_defer unbind_all
	id=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
		json_ids)
	[ -n "$id" ] || fail "the first bind printed no id"
	expect_err 1 "devmemx: bind to dxsim1: queue 2 of dxsim1 is already bound to a memory provider (File exists)" \
		bind dev dxsim1 queues 3,2 --udmabuf 4M
	expect_eq "$(dx_live | cut -d' ' -f1)" 1 "bindings after a refused second bind"
	ip netns exec rx devmemx unbind "$id" >/dev/null
	dx_wait_idle
}

# A queue already bound by in-tree devmem (devmemx-rx recv).
bound_in_tree() {
	local rpid
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 3 --port 9200 --expect 1 \
		--udmabuf 4M --timeout $((20 * DX_SLOW)) >/dev/null 2>&1 &
	rpid=$!
	dx_defer dx_stop $rpid
	intree_bound() { [ "$(dmabuf_pools rx)" != 0 ]; }
	wait_until 10 intree_bound || fail "the in-tree binding did not appear"
	expect_err 1 "devmemx: bind to dxsim1: queue 3 of dxsim1 is already bound to a memory provider (File exists)" \
		bind dev dxsim1 queues 3 --udmabuf 4M
	expect_eq "$(dx_live)" "0 0 0" "devmemx objects after a refused bind on an in-tree queue"
	kill $rpid
	wait $rpid || true
}

# Device settings devmem needs: hds-thresh 0.
hds_thresh() {
	dx_defer ip netns exec rx ethtool -G dxsim1 hds-thresh 0
	ip netns exec rx ethtool -G dxsim1 hds-thresh 100
	refused "hds-thresh is 100: ethtool -G dxsim1 hds-thresh 0 (Invalid argument)" \
		dev dxsim1 queues 2 --udmabuf 4M
}

# Device settings devmem needs: tcp-data-split on.
tcp_data_split_off() {
	dx_defer ip netns exec rx ethtool -G dxsim1 tcp-data-split on
	ip netns exec rx ethtool -G dxsim1 tcp-data-split off hds-thresh 0
	refused "tcp-data-split is off: ethtool -G dxsim1 tcp-data-split on (Invalid argument)" \
		dev dxsim1 queues 2 --udmabuf 4M
}

# A device without queue management ops (lo).
no_queue_ops() {
	DEV=lo refused "lo has no queue management ops (devmem needs them) (Operation not supported)" \
		dev lo queues 0 --udmabuf 4M
}

# What dxsim1 offers: the sim takes 4K..128K (bits 12-17) (test caps has
# the rest of caps).
caps_dxsim1() {
	local ifx
	ifx=$(ip netns exec rx cat /sys/class/net/dxsim1/ifindex)
	expect_eq "$(ip netns exec rx devmemx -j caps dev dxsim1 queue 2)" \
		"{\"ifindex\":$ifx,\"queue-id\":2,\"driver\":\"devmemx_sim\",\"tcp-data-split\":2,\"hds-thresh\":0,\"rx-page-size\":1,\"rx-buf-sizes\":258048,\"queues\":4,\"dma-bounce\":0,\"rx-gro-hw\":1,\"xdp\":0,\"unmet\":[]}" \
		"caps of dxsim1 queue 2"
}

# What lo offers: nothing, and it says why.
caps_lo() {
	expect_eq "$(ip netns exec rx devmemx -j caps dev lo)" \
		"{\"ifindex\":1,\"driver\":\"unknown\",\"tcp-data-split\":0,\"hds-thresh\":0,\"rx-page-size\":0,\"rx-buf-sizes\":0,\"queues\":1,\"dma-bounce\":0,\"xdp\":0,\"unmet\":[\"lo takes no devmem: its driver has no queue management ops\"]}" \
		"caps of lo"
}

# caps of a queue past the device's RX queues.
caps_queue_range() {
	expect_err 1 "devmemx: caps of dxsim1: queue 7 out of range: dxsim1 has 4 RX queues (Numerical result out of range)" \
		ip netns exec rx devmemx caps dev dxsim1 queue 7
}

# Without CAP_NET_ADMIN over the device's netns (a new user namespace).
no_cap_net_admin() {
	expect_err 1 "devmemx: bind to dxsim1: binding needs CAP_NET_ADMIN (Operation not permitted)" \
		ip netns exec rx unshare -U devmemx bind dev dxsim1 queues 2 --udmabuf 4M
	no_state "bind without CAP_NET_ADMIN"
}

# unbind of an unknown id.
unbind_unknown() {
	expect_err 1 "devmemx: unbind 12345: no devmemx binding 12345 (No such file or directory)" \
		ip netns exec rx devmemx unbind 12345
}

# show of an unknown id.
show_unknown() {
	expect_err 1 "devmemx: show 12345: no devmemx binding 12345 (No such file or directory)" \
		ip netns exec rx devmemx show 12345
}

dx_case buf-size-invalid buf_size_invalid
dx_case buf-size-driver buf_size_driver
dx_case buf-size-over-dmabuf buf_size_over_dmabuf
dx_case queue-out-of-range queue_out_of_range
dx_case queue-twice queue_twice
dx_case fd-not-dmabuf fd_not_dmabuf
dx_case bound-by-devmemx bound_by_devmemx
dx_case bound-in-tree bound_in_tree
dx_case hds-thresh hds_thresh
dx_case tcp-data-split-off tcp_data_split_off
dx_case no-queue-ops no_queue_ops
dx_case caps-dxsim1 caps_dxsim1
dx_case caps-lo caps_lo
dx_case caps-queue-range caps_queue_range
dx_case no-cap-net-admin no_cap_net_admin
dx_case unbind-unknown-id unbind_unknown
dx_case show-unknown-id show_unknown
