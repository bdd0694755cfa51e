# SPDX-License-Identifier: GPL-2.0
# dx-lanes: main iommu
# Device memory as a GPU has it: ivshmem's BAR2, which the kernel has no
# struct page for, exported by the test exporter devmemx_vram as NVIDIA's
# driver exports video memory (no pages in the scatterlist, addresses from
# dma_map_resource, no mmap). devmemx at 4K and 64K and in-tree devmem (4K;
# 64K on 7.3) receive into it through the sim, whose writes reach the BAR
# as peer writes; every byte is verified by reading the memory back through
# the exporter. A dma-buf another process holds binds with --pid/--fd.
# A revoke (vfio-pci's rule: revocable, peer-to-peer importers only) ends
# devmemx's binding during a flow; in-tree cannot attach such a dma-buf, and
# keeps its mapping of one that takes static importers. No DMA fault; every
# range back to the exporter after.
. /dx/guestlib.sh

insmod /dx/modules/devmemx_vram.ko
dmesg_new | grep -c 'devmemx_vram .*: /dev/devmemx_vram: [0-9]* MiB of device memory at \[mem 0x[0-9a-f]*-0x[0-9a-f]* 64bit pref\], no struct page$' >/dev/null ||
	fail "the exporter's probe line: $(dmesg_new | grep devmemx_vram)"
dx_sim_devmem 1500
trap 'dx_sim_teardown; rmmod devmemx_vram' EXIT
dmesg_new | grep -c 'devmemx_sim: peer writes reach .* BAR 2 \[mem .* 64bit pref\]$' >/dev/null ||
	fail "the sim reaches no BAR: $(dmesg | grep devmemx_sim)"
rxx() { ip netns exec rx "$@"; }

# The exporter's dma-buf: its name, and no CPU mapping. The coprocess's
# PID and input are kept at once: bash unsets VRAM_PID and VRAM when it
# reaps the coprocess, which can be before `wait` runs (1 run in 10 once
# failed "VRAM_PID: unbound variable"); the other tests do the same.
coproc VRAM { dx-vram $((16 << 20)); }
vram_pid=$VRAM_PID vram_in=${VRAM[1]}
read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
set -- $line
expect_eq "$7 $8 $9 ${10}" "exp_name devmemx_vram mmap EINVAL" "the dma-buf ($line)"
pid=$2 fd=$4

# Another process's GPU buffer, bound persistently by the CLI: carved whole.
id=$(rxx devmemx -j bind dev dxsim1 queues 3 size 64K --pid "$pid" --fd "$fd" --persist |
	json_ids)
[ -n "$id" ] || fail "bind of the held dma-buf printed no id"
rxx devmemx show "$id" >/tmp/show
for want in 'niov-size: 64K' 'niov-count: 256' 'bytes-carved: 16M' \
	'bytes-wasted: 0'; do
	grep -qx "$want" /tmp/show || fail "show lacks '$want': $(cat /tmp/show)"
done
expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
dx_wait_idle
eval "exec $vram_in>&-"
wait "$vram_pid"

# A GPU buffer another process holds, as a user's application holds one:
# devmemx-rx cannot read it back (no mmap) and says so, receives into it
# with --no-verify, and ab runs on it unverified, saying why.
coproc VRAM { dx-vram $((16 << 20)); }
vram_pid=$VRAM_PID vram_in=${VRAM[1]}
read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
set -- $line
pid=$2 fd=$4
expect_err 1 'devmemx-rx: the dma-buf cannot be read back here (its exporter, devmemx_vram, refuses mmap): --no-verify receives and counts without checking the payload (check it in the application that owns the memory)' \
	ip netns exec rx devmemx-rx recv --dev dxsim1 --port 9390 --expect 1M \
	--queues 2 --provider devmemx --pid "$pid" --fd "$fd"
devmem_xfer $((4 << 20)) 9391 --queues 2 --provider devmemx --rx-page-size 64K \
	--pid "$pid" --fd "$fd" --no-verify
expect_eq "$(jget verified /tmp/rx.json) $(jget dmabuf_bytes /tmp/rx.json)" \
	"false 16777216" "recv of the held buffer: verified, dma-buf bytes"
[ "$(jget frag_max /tmp/rx.json)" -gt 4096 ] || fail "held buffer at 64K: no fragment above 4K"
dx_wait_idle
ip netns exec rx devmemx-rx ab --dev dxsim1 --queues 2 --configs devmemx-64K,netdev-4K \
	--bytes 1M --runs 1 --seed 1 --pid "$pid" --fd "$fd" --csv /tmp/ab-held.csv \
	--sender "/sbin/ip netns exec tx devmemx-rx send --addr 192.0.2.2" \
	>/tmp/ab-held.out 2>/tmp/ab-held.err || fail "ab on the held buffer: $(tail -n 5 /tmp/ab-held.err)"
grep -qx 'devmemx-rx: the dma-buf cannot be read back here (its exporter, devmemx_vram, refuses mmap): no run verifies its payload; runs count bytes and cmsgs' \
	/tmp/ab-held.err || fail "ab's word on the held buffer: $(cat /tmp/ab-held.err)"
csv=/tmp/ab-held.csv
expect_eq "$(awk -F, -v b="$(csv_col bytes $csv)" -v v="$(csv_col verified $csv)" \
	-v p="$(csv_col provider $csv)" \
	'NR > 1 { print $p, $b, $v }' /tmp/ab-held.csv | sort | uniq -c | tr -s ' ')" \
	" 2 devmemx 1048576 0
 2 netdev 1048576 0" "ab's runs on the held buffer (provider, bytes, verified)"
dx_wait_idle
eval "exec $vram_in>&-"
wait "$vram_pid"
# A udmabuf another process holds (a receiver waiting for its connection;
# huge pages, so that 64K niovs carve from it whole): mappable, so read
# back and verified.
recv_start hold 9392 1 --queues 3 --provider devmemx --udmabuf 16M --hugetlb
hpid=${DX_RECV_PID[hold]}
held() { ls -l /proc/$hpid/fd 2>/dev/null | grep -q dmabuf; }
wait_until 30 held || fail "the holder has no dma-buf: $(cat /tmp/hold.err)"
hfd=$(ls -l /proc/$hpid/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
devmem_xfer $((4 << 20)) 9393 --queues 2 --provider devmemx --rx-page-size 64K \
	--pid "$hpid" --fd "$hfd"
expect_eq "$(jget verified /tmp/rx.json) $(jget mismatches /tmp/rx.json) $(jget niov_count /tmp/rx.json)" \
	"true 0 256" "recv of a held hugetlb udmabuf at 64K: verified, mismatches, niovs"
kill "$hpid"
wait "$hpid" || true
dx_wait_idle

# Data, verified through the exporter. The 4K flow crosses the 64K niovs'
# size; the 4M flows fill a quarter of the 16M dma-buf.
port=9300
for cfg in "devmemx 4096" "devmemx 65536" "netdev 4096" "netdev 65536"; do
	set -- $cfg
	niov_args "$1" "$2" || continue
	for bytes in 4096 $((4 << 20)); do
		port=$((port + 1))
		devmem_xfer $bytes $port --queues 2 --provider "$1" "${NIOV_ARGS[@]}" \
			--vram 16M
		f=$(jget frag_max /tmp/rx.json)
		[ "$f" -le "$2" ] || fail "$1 $2: a $f-byte fragment"
	done
	[ "$2" = 4096 ] || [ "$f" -gt 4096 ] ||
		fail "$1 $2: no fragment above 4K in device memory"
	xfer_report "$1 niov $2 into device memory"
	# A binding gives its dma-buf back once its page pools are gone
	# (in-tree's later than devmemx's): the IOMMU lane's 64M BAR holds
	# four of these 16M buffers (a 7.3 run found it full at the next).
	pools_gone() { flush_deferred_skbs; [ "$(dmabuf_pools rx)" = 0 ]; }
	wait_until 60 pools_gone || fail "$1 $2: page pools with a binding stay"
done

# Revoked, as vfio-pci revokes on a reset. A dma-buf that takes only
# peer-to-peer, revocable importers (vfio-pci's rule): in-tree devmem
# attaches statically and is refused.
expect_err 1 'devmemx-rx: bind to dxsim1: Failed to bind dmabuf to device (Operation not supported)' \
	ip netns exec rx devmemx-rx recv --dev dxsim1 --port 9400 --expect 1M \
	--queues 2 --provider netdev --vram 16M --revocable
# devmemx, during a flow: the binding ends within the revoke, the receiver
# stops with its message, nothing is left, and the queue works after.
big=$((256 << 20))
recv_start rx 9401 $big --queues 2 --provider devmemx --rx-page-size 64K \
	--vram 16M --revocable
rxpid=${DX_RECV_PID[rx]}
ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port 9401 --bytes $big \
	--timeout $((60 * DX_SLOW)) >/dev/null 2>&1 &
spid=$!
b0=$(rx_stat rx2_bytes)
moving() { [ "$(rx_stat rx2_bytes)" -gt $((b0 + (4 << 20))) ]; }
wait_until 60 moving || fail "the flow does not move: $(cat /tmp/rx.err)"
fd=$(ls -l /proc/$rxpid/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
[ -n "$fd" ] || fail "the receiver holds no dma-buf: $(ls -l /proc/$rxpid/fd)"
out=$(dx-vram revoke $rxpid "$fd" $((10000 * DX_SLOW))) || fail "revoke: $out"
[[ $out == "mappings left 0 after "* ]] || fail "revoke during the flow: $out"
echo "# devmemx, revoked during a flow: $out"
rc=0
wait $rxpid || rc=$?
[ $rc = 1 ] || fail "the receiver after the revoke: exit $rc: $(cat /tmp/rx.err)"
id=$(jget binding_id /tmp/rx.json)
grep -c "^devmemx-rx: binding $id stopped receiving at stream offset [0-9]*: the payload now arrives in host memory (the binding ended: unbound, its device gone, or its memory revoked by the exporter)$" \
	/tmp/rx.err >/dev/null || fail "the receiver's message: $(cat /tmp/rx.err)"
kill $spid 2>/dev/null || true
wait $spid || true
dmesg_new | grep -c "devmemx: binding $id ended: its dma-buf's exporter (devmemx_vram) revoked the memory$" >/dev/null ||
	fail "no revoke line in the kernel log"
dx_wait_idle
devmem_xfer $((1 << 20)) 9402 --queues 2 --provider devmemx --rx-page-size 64K \
	--vram 16M --revocable
# In-tree devmem on a dma-buf that takes static importers (NVIDIA's
# shape): a revoke tells it nothing, and it keeps its mapping.
# (The 64K binding's page pool may linger a moment: taken for in-tree's,
# it let the revoke below run before the receiver had its dma-buf.)
no_pools() { flush_deferred_skbs; [ "$(dmabuf_pools rx)" = 0 ]; }
wait_until 20 no_pools || fail "page pools with a binding left: $(pools rx)"
recv_start rx 9403 $((1 << 20)) --queues 2 --provider netdev --vram 16M
rxpid=${DX_RECV_PID[rx]}
bound() { [ "$(dmabuf_pools rx)" = 1 ]; }
wait_until 30 bound || fail "in-tree did not bind: $(cat /tmp/rx.err)"
fd=$(ls -l /proc/$rxpid/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
[ -n "$fd" ] || fail "the in-tree receiver holds no dma-buf: $(ls -l /proc/$rxpid/fd)"
out=$(dx-vram revoke $rxpid "$fd" 1000) || fail "revoke: $out"
[[ $out == "mappings left 1 after "* ]] || fail "in-tree's mapping after a revoke: $out"
echo "# in-tree devmem, revoked: $out (it keeps the mapping)"
send 9403 $((1 << 20)) || fail "send: $(cat /tmp/rx.err)"
recv_check rx $((1 << 20))
flush_deferred_skbs
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"

trap - EXIT
dx_sim_teardown
# Every range came back: the whole device memory exports again, at once
# for devmemx's bindings (gone, dx_wait_idle), shortly for in-tree's.
whole() { timeout 5 dx-vram $((64 << 20)) </dev/null >/dev/null 2>&1; }
wait_until 20 whole || fail "the device memory is not whole again: $(dx-vram $((64 << 20)) 2>&1 </dev/null)"
rmmod devmemx_vram
