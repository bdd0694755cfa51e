# SPDX-License-Identifier: GPL-2.0
# dx-lanes: main
# dx-debug: no it needs the main lane's 64G BAR, and the debug lane's is 1G (run.sh says why); at 64G its paths are devmemx-vram's (the exporter, the sim's writes into the BAR) over more segments of niovs
# GPU-sized device memory: the main lane's ivshmem BAR is 64G (an H100
# holds 80G; a BAR is a power of two), a sparse file on the host. One
# dma-buf of all of it, laid out tail first (its last GiB lies first in the
# BAR, as a driver backs one allocation with memory from wherever it is
# free), is bound by devmemx at 64K and 4K and by in-tree devmem at 4K (and
# 64K on 7.3). A gen_pool hands out the last piece it was given first, so
# each receives its flow into the dma-buf's last GiB, 63G and up, verified
# by reading the BAR back through the exporter. Bind time, metadata and the
# kernel memory the binding took, per GiB bound, in the output. Nothing
# left after.
. /dx/guestlib.sh

gib=$((1 << 30))
insmod /dx/modules/devmemx_vram.ko
mib=$(dmesg_new | sed -n 's/.*devmemx_vram .*: \/dev\/devmemx_vram: \([0-9]*\) MiB of device memory at .*/\1/p')
[ "$mib" = 65536 ] ||
	fail "the device memory is '$mib' MiB; this test needs the main lane's 64G (DX_QEMU_VRAM_SIZE)"
dx_sim_devmem 1500
trap 'dx_sim_teardown; rmmod devmemx_vram' EXIT

# Slab and vmalloc in use, in KiB: where both providers keep their metadata.
kmem() {
	awk '/^SUnreclaim:|^VmallocUsed:/ { n += $2 } END { print n }' /proc/meminfo
}
# A range this large is not filled on export: the BAR keeps what earlier
# tests and configurations wrote there. A fresh seed for each makes their
# bytes fail verification.
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
bytes=$((16 << 20))
port=9600
configs="devmemx 65536,devmemx 4096,netdev 4096,netdev 65536"
# Under KASAN a bind of 16M niovs (4K) takes minutes: 64K on the debug kernel.
[ -z "$DX_DEBUG" ] || configs="devmemx 65536,netdev 65536"
IFS=, read -r -a cfgs <<<"$configs"
for cfg in "${cfgs[@]}"; do
	set -- $cfg
	niov_args "$1" "$2" || continue
	port=$((port + 1))
	seed=$((seed + 1))
	m0=$(kmem)
	recv_start rx $port $bytes --queues 2 --provider "$1" "${NIOV_ARGS[@]}" \
		--vram 64G --tail-first --seed "$seed"
	bound() { [ "$(dmabuf_pools rx)" = 1 ]; }
	wait_until 120 bound || fail "$1 $2: no binding of 64G: $(cat /tmp/rx.err)"
	m1=$(kmem)
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port $port --bytes $bytes \
		--seed "$seed" --timeout $((30 * DX_SLOW)) >/tmp/send.json ||
		fail "send: $(cat /tmp/rx.err)"
	recv_check rx $bytes
	lo=$(jget frag_off_min /tmp/rx.json) hi=$(jget frag_off_end /tmp/rx.json)
	[ "$lo" -ge $((63 * gib)) ] && [ "$hi" -le $((64 * gib)) ] ||
		fail "$1 $2: payload at dma-buf offsets $lo..$hi, not in the last GiB"
	# devmemx's count, from its bind reply (in-tree's reply has none),
	# and its metadata: what the kernel's slab and vmalloc grew by (the
	# dma-buf's sg tables and the queue's page pool take a few MiB more).
	if [ "$1" = devmemx ]; then
		expect_eq "$(jget niov_count /tmp/rx.json)" $((64 * gib / $2)) "$1 $2: niovs"
		awk -v m="$(jget meta_bytes /tmp/rx.json)" -v k=$((m1 - m0)) 'BEGIN {
			d = k - m / 1024; exit !(d > -2048 && d < 8192) }' ||
			fail "$1 $2: metadata $(($(jget meta_bytes /tmp/rx.json) >> 10)) KiB, but kernel memory grew by $((m1 - m0)) KiB"
	fi
	awk -v p="$1" -v s=$(($2 >> 10)) -v t="$(jget bind_sec /tmp/rx.json)" \
		-v m="$(jget meta_bytes /tmp/rx.json)" -v src="$(jget meta_source /tmp/rx.json)" \
		-v k=$((m1 - m0)) -v lo=$lo -v hi=$hi -v b=$((63 * gib)) 'BEGIN {
		printf "# 64G, %s %dK: bind %.0f ms (%.1f ms/GiB); metadata %.1f MiB (%.2f MiB/GiB, %s); kernel memory +%.1f MiB; payload at 63G+%.1fM..%.1fM\n",
			p, s, t * 1000, t * 1000 / 64, m / 1048576, m / 1048576 / 64,
			src == "btf" ? "struct net_iov per niov" : "its own count",
			k / 1024, (lo - b) / 1048576, (hi - b) / 1048576 }'
	# The binding's memory comes back: kernel memory within 16 MiB of before.
	flush_deferred_skbs
	gone() { flush_deferred_skbs; [ "$(dmabuf_pools rx)" = 0 ]; }
	wait_until 60 gone || fail "$1 $2: the binding's page pool stays"
	[ "$1" = netdev ] || dx_wait_idle
	back() { [ $(($(kmem) - m0)) -lt $((16 << 10)) ]; }
	wait_until 30 back || fail "$1 $2: kernel memory $(($(kmem) - m0)) KiB above before the bind"
done
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"

# The most the VM's 2G hold: one devmemx binding of the 64G at 4K (16M
# niovs, about 1 GiB of metadata). A second binding of the same memory
# does not fit: refused with what to change, no OOM kill, no warning, and
# nothing of it left.
if [ -z "$DX_DEBUG" ]; then
	coproc VRAM { dx-vram $((64 * gib)); }
	vram_pid=$VRAM_PID vram_in=${VRAM[1]}
	read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
	set -- $line
	pid=$2 fd=$4
	rxx() { ip netns exec rx "$@"; }
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 4K --pid "$pid" --fd "$fd" --persist |
		json_ids)
	[ -n "$id" ] || fail "the first 4K binding of 64G printed no id"
	live=$(dx_live)
	out=$(rxx devmemx bind dev dxsim1 queues 3 size 4K --pid "$pid" --fd "$fd" --persist 2>&1) &&
		fail "a second 4K binding of 64G fit in the VM: $out"
	[[ $out == "devmemx: bind to dxsim1: no memory for "[0-9]*" MiB of metadata (16777216 niovs): use a larger niov size (Cannot allocate memory)" ]] ||
		fail "the second 4K binding of 64G: $out"
	echo "# 64G, devmemx 4K twice: ${out#devmemx: bind to dxsim1: }"
	# A dry run says so first: at 4K the metadata does not fit now.
	rxx devmemx bind dev dxsim1 queues 3 --pid "$pid" --fd "$fd" --dry-run >/tmp/gpu-dry.txt ||
		fail "dry run of 64G: $(cat /tmp/gpu-dry.txt)"
	sed 's/^/#   /' /tmp/gpu-dry.txt
	expect_eq "$(awk '$1 == "4K" || $1 == "64K" { print $1, $2, $6 }' /tmp/gpu-dry.txt)" \
		"4K 16777216 no
64K 1048576 yes" "the dry run of 64G while a 4K binding holds its metadata (size, niovs, fits)"
	expect_eq "$(dx_live)" "$live" "devmemx's objects after the refused bind"
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
	dx_wait_idle
	eval "exec $vram_in>&-"
	wait "$vram_pid"
fi

trap - EXIT
dx_sim_teardown
rmmod devmemx_vram
