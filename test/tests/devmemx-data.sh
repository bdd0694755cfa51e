# SPDX-License-Identifier: GPL-2.0
# dx-lanes: main iommu
# dx-matrix: the provider's basic verified flow: the ftrace redirect of the in-tree ops, niovs of 4K to 128K, every byte verified, nothing left
# devmemx bindings with niovs of 4K to the sim's 128K on 7.2 and 7.3:
# payloads below, at and across the niov size, every byte verified, MTU
# 9000 and 1500; fragments never cross a niov, and exceed 4K where the niov
# does; all objects gone after.
. /dx/guestlib.sh

dx_sim_devmem 9000
dx_defer dx_sim_teardown

# Each niov size from 4K to 128K at MTU 9000: payloads below, at and across
# the niov size; fragments within a niov, above 4K where the niov is.
sizes_9000() {
	local size bytes frag_max id f port=9000
	for size in 4096 16384 32768 65536 131072; do
		frag_max=0
		for bytes in 1024 $((size / 2)) $size $((3 * size + 123)) 1048576; do
			port=$((port + 1))
			devmem_xfer $bytes $port --queues 2 --provider devmemx \
				--rx-page-size $size --udmabuf 8M --hugetlb
			id=$(jget binding_id /tmp/rx.json)
			[ "$id" -ge $((0xf0000000)) ] || fail "binding id $id is in the in-tree range"
			f=$(jget frag_max /tmp/rx.json)
			[ "$f" -le "$size" ] || fail "a $f-byte fragment in $size-byte niovs"
			[ "$f" -le "$frag_max" ] || frag_max=$f
		done
		xfer_report "devmemx niov $size, mtu 9000"
		if [ $size -gt 4096 ] && [ $frag_max -le 4096 ]; then
			fail "niov $size: no fragment above 4K"
		fi
	done
	dx_wait_idle
}
dx_case sizes-mtu9000 sizes_9000

# MTU 1500, 64K niovs.
mtu_1500() {
	local bytes port=9100
	dx_defer ip -n rx link set dxsim1 mtu 9000
	dx_defer ip -n tx link set dxsim0 mtu 9000
	ip -n tx link set dxsim0 mtu 1500
	ip -n rx link set dxsim1 mtu 1500
	for bytes in 1024 65536 1048576; do
		port=$((port + 1))
		devmem_xfer $bytes $port --queues 2 --provider devmemx \
			--rx-page-size 65536 --udmabuf 8M --hugetlb
	done
	xfer_report "devmemx niov 65536, mtu 1500"
	dx_wait_idle
}
dx_case mtu1500 mtu_1500

# --verify-every: every byte counted, a fragment in 4 compared (4K niovs:
# about a quarter of the bytes), every one with 1; not with --no-verify.
verify_every() {
	local every v port=9200 B=$((4 << 20))
	for every in 1 4; do
		port=$((port + 1))
		devmem_xfer $B $port --queues 2 --provider devmemx --udmabuf 8M \
			--verify-every $every
		v=$(jget verified_bytes /tmp/rx.json)
		case $every in
		1) expect_eq "$v" $B "--verify-every 1: bytes compared" ;;
		4) [ "$v" -gt $((B / 8)) ] && [ "$v" -lt $((B / 2)) ] ||
			fail "--verify-every 4: $v of $B bytes compared, not about a quarter" ;;
		esac
	done
	expect_err 2 "devmemx-rx: --verify-every N checks some of the payload and --no-verify none: give one" \
		ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 9 --expect 1 \
		--no-verify --verify-every 2
	dx_wait_idle
}
dx_case verify-every verify_every
