# SPDX-License-Identifier: GPL-2.0
# dx-boot: swiotlb=force
# With every DMA mapping bounced through swiotlb (swiotlb=force; confidential-
# computing guests do the same), devmem payload never reaches the dma-buf:
# the NIC writes into bounce slots and nothing copies them back. devmemx
# refuses to bind and caps says why, with nothing left behind. In-tree
# devmem has no such check: it binds, and the bytes it delivers are wrong
# (recorded here; if in-tree ever refuses, this test says so).
. /dx/guestlib.sh

tr ' ' '\n' </proc/cmdline | grep -cx swiotlb=force >/dev/null ||
	fail "booted without swiotlb=force: $(cat /proc/cmdline)"
dx_sim_devmem
trap dx_sim_teardown EXIT
msg="DMA to the NIC bounces via swiotlb (swiotlb=force): payload would be lost"

for mem in "--udmabuf 256K" "--udmabuf 4M --hugetlb" "--dma-heap system 1M"; do
	expect_err 1 "devmemx: bind to dxsim1: $msg (Operation not supported)" \
		timeout $((20 * DX_SLOW)) /sbin/ip netns exec rx devmemx bind dev dxsim1 queues 2 $mem
	expect_eq "$(dx_live)" "0 0 0" "live objects after a refused bind ($mem)"
done
expect_err 1 "devmemx-rx: bind to dxsim1: $msg (Operation not supported)" \
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 2 --port 7000 \
	--expect 1 --provider devmemx --udmabuf 256K --timeout 5
expect_eq "$(dx_live)" "0 0 0" "live objects after devmemx-rx's refused bind"

# caps: the reason first, decoded and raw.
unmet="DMA to dxsim1 bounces via swiotlb (swiotlb=force or a confidential-computing guest): devmem payload would never reach the dma-buf; boot without swiotlb=force"
expect_eq "$(ip netns exec rx devmemx caps dev dxsim1 queue 2 | sed -n 's/^unmet: //p')" \
	"$unmet" "caps' unmet lines"
expect_eq "$(ip netns exec rx devmemx caps dev dxsim1 | sed -n 's/^dma-bounce: //p')" yes \
	"caps' dma-bounce"
ip netns exec rx devmemx -j caps dev dxsim1 queue 2 |
	grep -cF "\"dma-bounce\":1," >/dev/null || fail "caps -j has no \"dma-bounce\":1"

# In-tree devmem on the same queue: binds, receives, and the payload is not
# in the dma-buf.
recv_start rx 7001 65536 --queues 2 --udmabuf 256K
send 7001 65536 || fail "send to in-tree devmem: $(cat /tmp/rx.err)"
rc=0
wait "${DX_RECV_PID[rx]}" || rc=$?
expect_eq "$rc" 1 "in-tree devmem receiver's exit ($(cat /tmp/rx.err))"
expect_eq "$(jget bytes /tmp/rx.json)" 65536 "bytes in-tree devmem delivered"
bad=$(jget mismatches /tmp/rx.json)
[ "$bad" -gt 0 ] || fail "in-tree devmem under swiotlb=force delivered the right bytes"
echo "# in-tree devmem under swiotlb=force: binds; $bad of 65536 received bytes differ from what was sent"
flush_deferred_skbs
trap - EXIT
dx_sim_teardown
