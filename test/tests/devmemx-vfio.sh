# SPDX-License-Identifier: GPL-2.0
# dx-lanes: iommu
# vfio-pci's own dma-buf exporter, which no one here wrote: ivshmem's BAR2
# (device memory without struct pages) bound to vfio-pci and exported with
# VFIO_DEVICE_FEATURE_DMA_BUF. It takes only peer-to-peer, revocable
# importers: in-tree devmem's static attach is refused; devmemx binds it,
# the kernel maps it for the sim's PCI DMA device through the host bridge
# (the lane's AMD CPU model lets p2pdma take that path) and the IOMMU, and
# received bytes are read back through vfio's region reads. Closing the
# vfio device revokes the dma-buf: a persistent binding of it ends.
. /dx/guestlib.sh

[ -f /dx/kmods/vfio-pci.ko ] || skip "this kernel has no vfio-pci module"
bdf=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1af4:0x1110 ] && bdf=${d##*/}
done
[ -n "$bdf" ] || fail "no ivshmem function"
# Undone on every way out: the holder first (an open vfio device blocks
# vfio-pci's unbind), then each step whatever the one before did.
holder=
cleanup() {
	set +e
	[ -z "$holder" ] || { kill "$holder"; wait "$holder"; } 2>/dev/null
	grep -q '^devmemx_sim ' /proc/modules && dx_sim_teardown
	[ ! -e /sys/bus/pci/drivers/vfio-pci/$bdf ] ||
		echo "$bdf" >/sys/bus/pci/drivers/vfio-pci/unbind
	echo >/sys/bus/pci/devices/$bdf/driver_override
	for m in vfio-pci vfio-pci-core vfio_iommu_type1 vfio irqbypass; do
		! grep -q "^${m//-/_} " /proc/modules || rmmod "$m"
	done
}
trap cleanup EXIT
for m in irqbypass vfio vfio_iommu_type1 vfio-pci-core vfio-pci; do
	insmod /dx/kmods/$m.ko
done
echo vfio-pci >/sys/bus/pci/devices/$bdf/driver_override
echo "$bdf" >/sys/bus/pci/drivers_probe
expect_eq "$(basename "$(readlink /sys/bus/pci/devices/$bdf/driver)")" vfio-pci "ivshmem's driver"
dx_sim_devmem 1500
rxx() { ip netns exec rx "$@"; }

expect_err 1 'devmemx-rx: bind to dxsim1: Failed to bind dmabuf to device (Operation not supported)' \
	rxx devmemx-rx recv --dev dxsim1 --port 9600 --expect 1M --queues 2 \
	--provider netdev --vfio "$bdf" 16M
port=9600
for size in 4096 65536; do
	for bytes in 4096 $((4 << 20)); do
		port=$((port + 1))
		devmem_xfer $bytes $port --queues 2 --provider devmemx \
			--rx-page-size $size --vfio "$bdf" 16M
	done
	xfer_report "devmemx niov $size into vfio-pci's dma-buf"
done
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"
# Each receiver unbound before it closed the vfio device: no revoke ended
# a binding so far.
expect_eq "$(dmesg_new | grep -c 'revoked the memory$')" 0 "bindings a revoke ended"
dx_wait_idle

# The exporter's revoke: the holder's vfio device closes.
coproc VF { dx-vfio "$bdf" $((16 << 20)); }
holder=$VF_PID vf_in=${VF[1]}
read -r -u "${VF[0]}" line || fail "dx-vfio printed nothing"
set -- $line
id=$(rxx devmemx -j bind dev dxsim1 queues 3 size 64K --pid "$2" --fd "$4" --persist |
	json_ids)
[ -n "$id" ] || fail "bind of the held vfio dma-buf printed no id"
expect_eq "$(rxx devmemx -j show | json_ids)" "$id" "bindings before the revoke"
eval "exec $vf_in>&-"
wait "$holder" || fail "dx-vfio: exit $?"
holder=
dmesg_new | grep -c "devmemx: binding $id ended: its dma-buf's exporter (vfio_pci_core) revoked the memory$" >/dev/null ||
	fail "no revoke line in the kernel log: $(dmesg | tail -n 5)"
dx_wait_idle
expect_eq "$(rxx devmemx -j show | json_ids)" "" "bindings after the revoke"
trap - EXIT
cleanup
grep -q '^vfio ' /proc/modules && fail "vfio left loaded"
expect_eq "$(readlink /sys/bus/pci/devices/$bdf/driver || true)" "" "ivshmem's driver after"
