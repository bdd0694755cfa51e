# SPDX-License-Identifier: GPL-2.0
# dx-lanes: iommu
# Behind a strict virtual IOMMU (q35, intel-iommu, iommu.strict=1) the sim's
# DMA device is QEMU's edu function: every address the NIC is given is an
# IOVA, and each write is translated through the device's IOMMU domain (an
# address it does not map is a logged DMA fault). devmemx and in-tree devmem
# move verified data through it; the addresses differ from the physical
# ones; and a plain udmabuf of 4K pages maps to one contiguous IOVA run, so
# 64K niovs carve from it whole, without huge pages.
. /dx/guestlib.sh

dmesg | grep -c 'DMAR: IOMMU enabled$' >/dev/null || fail "no IOMMU: $(dmesg | grep -i dmar | head -n 5)"
dx_sim_devmem 1500
trap dx_sim_teardown EXIT
dmesg_new | grep -c "^\[ *[0-9.]*\] devmemx_sim [0-9a-f:.]*: the sim's DMA device, behind an IOMMU$" >/dev/null ||
	fail "the sim's DMA device: $(dmesg | grep devmemx_sim | head -n 3)"
rxx() { ip netns exec rx "$@"; }

# 8M of 4K pages at 64K: 128 niovs, nothing wasted (dma-direct carves
# almost nothing from it: see devmemx-data's use of --hugetlb).
id=$(rxx devmemx -j bind dev dxsim1 queues 3 size 64K --udmabuf 8M --persist | json_ids)
[ -n "$id" ] || fail "bind of a plain 8M udmabuf at 64K printed no id"
rxx devmemx show "$id" >/tmp/show
for want in 'niov-count: 128' 'bytes-carved: 8M' 'bytes-wasted: 0'; do
	grep -qx "$want" /tmp/show || fail "show lacks '$want': $(cat /tmp/show)"
done
expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
dx_wait_idle

r0=$(rx_stat dma_remapped)
port=9500
for cfg in "devmemx 65536" "devmemx 4096" "netdev 4096"; do
	set -- $cfg
	size=()
	[ "$2" = 4096 ] || size=(--rx-page-size "$2")
	port=$((port + 1))
	devmem_xfer $((4 << 20)) $port --queues 2 --provider "$1" "${size[@]}" --udmabuf 8M
	f=$(jget frag_max /tmp/rx.json)
	[ "$2" = 4096 ] || [ "$f" -gt 4096 ] || fail "$1 $2: no fragment above 4K"
	xfer_report "$1 niov $2 through the IOMMU, plain udmabuf"
done
r1=$(rx_stat dma_remapped)
[ $((r1 - r0)) -gt 0 ] || fail "no write went to an address other than its DMA address"
echo "# $((r1 - r0)) device writes went to IOVAs other than their physical addresses"
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"
trap - EXIT
dx_sim_teardown
