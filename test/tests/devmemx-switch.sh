# SPDX-License-Identifier: GPL-2.0
# dx-lanes: iommu
# A peer write that a PCIe switch routes. In the IOMMU lane the sim's DMA
# device (edu) shares a switch without ACS with a second ivshmem. The test
# exporter maps device memory as vfio-pci maps its own (--p2pdma: the
# kernel's p2pdma rules): for the ivshmem behind the switch the kernel hands
# the NIC the BAR's bus addresses, which the switch takes to the peer
# before the IOMMU (it maps none of them); for the ivshmem behind its own
# root port, IOVAs through the host bridge, which the IOMMU translates.
# devmemx receives into both at 4K and 64K, every byte read back through
# the exporter; in-tree devmem's static attach is refused, as vfio-pci
# refuses it. No DMA fault.
. /dx/guestlib.sh

insmod /dx/modules/devmemx_vram.ko
dx_sim_devmem 1500
trap 'dx_sim_teardown; rmmod devmemx_vram' EXIT

# Which ivshmem the switch reaches (the sim's fabric says), and the
# exporter's device of each.
sw_bdf=$(dmesg_new | sed -n 's/.*devmemx_sim: peer writes reach \([0-9a-f:.]*\) BAR 2 \[mem .*\], routed by the sim.s PCIe switch (bus addresses, past the IOMMU)$/\1/p')
[ -n "$sw_bdf" ] || fail "no BAR behind the sim's switch: $(dmesg_new | grep 'peer writes')"
nodes=$(dmesg_new | sed -n 's/.*devmemx_vram \([0-9a-f:.]*\): \/dev\/\(devmemx_vram[0-9]*\): 64 MiB of device memory at .*/\1 \2/p')
sw=$(awk -v b="$sw_bdf" '$1 == b { print $2 }' <<<"$nodes")
rp=$(awk -v b="$sw_bdf" '$1 != b { print $2 }' <<<"$nodes")
[ -n "$sw" ] && [ -n "$rp" ] && [ "$(wc -w <<<"$rp")" = 1 ] ||
	fail "the exporter's devices: $nodes"
echo "# behind the switch: $sw_bdf (/dev/$sw); behind a root port: /dev/$rp"

# In-tree devmem attaches statically: refused, as by vfio-pci's dma-bufs.
expect_err 1 'devmemx-rx: bind to dxsim1: Failed to bind dmabuf to device (Operation not supported)' \
	ip netns exec rx devmemx-rx recv --dev dxsim1 --port 9700 --expect 1M \
	--queues 2 --provider netdev --vram 16M --vram-dev "/dev/$sw" --p2pdma

port=9700
for node in "$sw" "$rp"; do
	for size in 4096 65536; do
		args=()
		[ $size = 4096 ] || args=(--rx-page-size $size)
		s0=$(rx_stat dma_switch_routed) r0=$(rx_stat dma_remapped)
		port=$((port + 1))
		devmem_xfer $((4 << 20)) $port --queues 2 --provider devmemx "${args[@]}" \
			--vram 16M --vram-dev "/dev/$node" --p2pdma
		s1=$(rx_stat dma_switch_routed) r1=$(rx_stat dma_remapped)
		if [ "$node" = "$sw" ]; then
			[ $((s1 - s0)) -gt 0 ] ||
				fail "$node $size: no write went through the switch"
			what="$((s1 - s0)) writes routed by the switch to bus addresses"
		else
			[ "$s1" = "$s0" ] && [ $((r1 - r0)) -gt 0 ] ||
				fail "$node $size: switch-routed $((s1 - s0)), IOMMU-translated $((r1 - r0))"
			what="none through the switch, $((r1 - r0)) IOMMU-translated (all queues)"
		fi
		f=$(jget frag_max /tmp/rx.json)
		[ $size = 4096 ] || [ "$f" -gt 4096 ] || fail "$node $size: no fragment above 4K"
		xfer_report "devmemx niov $size into /dev/$node, $what"
	done
done
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"

trap - EXIT
dx_sim_teardown
rmmod devmemx_vram
