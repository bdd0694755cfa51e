# SPDX-License-Identifier: GPL-2.0
# dx-lanes: main iommu
# dx-debug: no in-tree devmem through the sim: the kernel's provider on the sim's paths, which devmemx-coexist (an in-tree flow beside devmemx's), sim-ncdevmem and devmemx-races run too
# In-tree devmem TCP on devmemx_sim: payloads into a udmabuf, every byte
# verified, MTU 1500 and 9000, two queues, unbind, ordinary traffic after.
# On 7.3 also in-tree large niovs (rx-page-size 16K, 64K) from hugetlb.
. /dx/guestlib.sh

sim_setup 4
trap sim_teardown EXIT
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
# Keep RSS on queues 0-1; devmem queues are 2 and 3.
ip netns exec rx ethtool -X dxsim1 equal 2

sweep() { # mtu, then recv args
	local mtu=$1 n=0 size
	shift
	ip -n tx link set dxsim0 mtu "$mtu"
	ip -n rx link set dxsim1 mtu "$mtu"
	for size in 1024 4096 8192 16384 32768 65536 1048576; do
		n=$((n + 1))
		devmem_xfer $size $((6000 + n)) "$@"
		[ "$(jget cmsgs_dmabuf /tmp/rx.json)" -ge 1 ] ||
			fail "$size bytes at MTU $mtu: no payload in the dma-buf"
	done
	xfer_report "in-tree mtu $mtu $*"
}

base_split=$(rx_stat rx2_split)
sweep 1500 --queues 2
[ "$(jget frag_max /tmp/rx.json)" -le 4096 ] || fail "frag above PAGE_SIZE without rx-page-size"
[ "$(rx_stat rx2_split)" -gt "$base_split" ] || fail "devmem traffic did not use queue 2"
sweep 9000 --queues 2

# One binding over two queues: the flow lands on the first one listed.
q3=$(rx_stat rx3_split)
devmem_xfer 1048576 6100 --queues 3,2
[ "$(rx_stat rx3_split)" -gt "$q3" ] || fail "flow did not land on queue 3"

# dma-heap memory works as well as udmabuf.
devmem_xfer 1048576 6101 --queues 2 --dma-heap system 16M

# After unbind (the receiver is gone) queue 2 is an ordinary queue again.
ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port 6200 action 2 >/dev/null
dd if=/dev/urandom of=/tmp/in bs=1024 count=1024 2>/dev/null
ip netns exec rx nc -l -p 6200 >/tmp/out &
pid=$!
sleep 0.5
s2=$(rx_stat rx2_split)
ip netns exec tx bash -c "cat /tmp/in >/dev/tcp/192.0.2.2/6200" || fail "send after unbind"
wait $pid || true
cmp /tmp/in /tmp/out || fail "ordinary traffic on queue 2 after unbind differs"
[ "$(rx_stat rx2_split)" -gt "$s2" ] || fail "ordinary traffic did not use queue 2"

case $DX_SERIES in
7.2)
	# In-tree devmem has no large niovs before 7.3: the request is refused.
	rc=0
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 6300 \
		--expect 1 --rx-page-size 16K >/dev/null 2>/tmp/rx.err || rc=$?
	expect_eq "$rc" 1 "in-tree rx-page-size on 7.2"
	;;
7.3)
	# 8M buffers: a finished binding lingers until the CPU that received
	# its last skbs runs the deferred skb frees, holding its huge pages.
	port=6400
	for rps in 16384 65536; do
		for size in 1024 16384 65536 1048576; do
			port=$((port + 1))
			devmem_xfer $size $port --queues 2 --udmabuf 8M --hugetlb \
				--rx-page-size $rps
			expect_eq "$(jget rx_page_size /tmp/rx.json)" $rps "rx_page_size"
		done
		[ "$(jget frag_max /tmp/rx.json)" -gt 4096 ] ||
			fail "rx-page-size $rps: no fragment above 4K ($(cat /tmp/rx.json))"
	done
	;;
esac

# A longer flow per niov size, for the record (ratios within one run only).
sizes=4096
[ "$DX_SERIES" = 7.2 ] || sizes="4096 16384 65536"
for rps in $sizes; do
	args="--queues 2 --udmabuf 32M --hugetlb"
	[ "$DX_SERIES" = 7.2 ] || args="$args --rx-page-size $rps"
	devmem_xfer 16777216 $((6500 + rps / 4096)) $args
	xfer_report "in-tree niov $rps, 16M"
done

[ "$(ip netns exec rx ethtool -n dxsim1 | grep -c '^Filter:')" = 1 ] ||
	fail "devmemx-rx left ntuple rules behind"
trap - EXIT
sim_teardown
