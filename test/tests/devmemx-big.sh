# SPDX-License-Identifier: GPL-2.0
# dx-lanes: big
# The largest GPUs: the big lane's 256G BAR (a B200's or MI300X's 192 GB
# and an MI355X's 288 GB show as BARs of 256G and more) bound whole by
# devmemx at 4K (2^26 niovs: 4 GiB of net_iovs, more than one kvmalloc
# gives) and 64K, and by in-tree devmem at 4K for comparison; each flow
# lands in the dma-buf's last GiB (gen_pool hands out the chunk added
# last first), read back and verified. Before each devmemx bind, the dry run (BIND-CHECK) of
# a dma-buf of the same memory says what the bind then reports
# (BINDING-GET): niovs, metadata, fits; the metadata is what the kernel's
# memory grew by. Bind and unbind ms and metadata per GiB in the output;
# nothing left after.
. /dx/guestlib.sh

gib=$((1 << 30))
size=$((256 * gib))
# The size as the lane's options and the figures name it: 256G.
sz=$((size >> 30))G
insmod /dx/modules/devmemx_vram.ko
dx_defer rmmod devmemx_vram
mib=$(dmesg_new | sed -n 's/.*devmemx_vram .*: \/dev\/devmemx_vram: \([0-9]*\) MiB of device memory at .*/\1/p')
[ "$mib" = $((size >> 20)) ] ||
	fail "the device memory is '$mib' MiB; this test needs the big lane's $sz (run.sh -B)"
dx_sim_devmem 1500
dx_defer dx_sim_teardown

# QEMU backs the guest's memory lazily: the first touch of each page is a
# fault on the host, which made whichever 4K bind came first take seconds
# longer (128G, devmemx first: 10.7 s, in-tree after it 2.3 s). A host
# has no such cost: touch what the binds will take first, so that their
# times compare. The most is in-tree 4K's: 16 MiB of net_iovs a GiB and
# its gen_pool chunks (one page a 2M entry: 2 MiB a GiB); 20 MiB a GiB
# covers it. /tmp (a tmpfs of half the memory) cannot hold that much, so
# a tmpfs of its own.
warm_mib=$(((size >> 30) * 20))
mkdir -p /tmp/warm
mount -t tmpfs -o size=$((warm_mib + 16))M warm /tmp/warm || fail "cannot mount a tmpfs to warm the VM's memory"
dd if=/dev/zero of=/tmp/warm/zero bs=1M count=$warm_mib 2>/dev/null ||
	fail "cannot warm $warm_mib MiB of the VM's memory: $(grep -E '^Mem(Total|Available):' /proc/meminfo | xargs)"
umount /tmp/warm

# Slab (large kmallocs included) and vmalloc in use, in KiB: where both
# providers keep their metadata.
kmem() {
	awk '/^SUnreclaim:|^VmallocUsed:/ { n += $2 } END { print n }' /proc/meminfo
}
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# dry_run NIOV-SIZE: BIND-CHECK of a dma-buf of the whole BAR (as the
# receiver's will be: one run of 2M entries) held by another process; its
# row for NIOV-SIZE into /tmp/dry.row.
dry_run() {
	local niov=$1 line pid fd vram_pid vram_in
	coproc VRAM { dx-vram $size; }
	vram_pid=$VRAM_PID vram_in=${VRAM[1]}
	read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
	set -- $line
	pid=$2 fd=$4
	ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --pid "$pid" --fd "$fd" --dry-run \
		>/tmp/dry.json || fail "dry run of $sz: $(cat /tmp/dry.json)"
	eval "exec $vram_in>&-"
	wait "$vram_pid"
	grep -o "{\"niov-size\":$niov,[^}]*}" /tmp/dry.json >/tmp/dry.row ||
		fail "the dry run has no row for $niov: $(cat /tmp/dry.json)"
}

# bind_once PROVIDER NIOV-SIZE PORT: a binding of all of it, a flow verified in its
# last GiB, the figures, and every byte of it back after.
bind_once() {
	local prov=$1 niov=$2 port=$3 m0 m1 t0 t1 lo hi meta src
	local seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') bytes=$((8 << 20))
	niov_args "$prov" "$niov" || return 0
	[ "$prov" = netdev ] || dry_run "$niov"
	flush_deferred_skbs
	m0=$(kmem)
	recv_start rx "$port" $bytes --queues 2 --provider "$prov" "${NIOV_ARGS[@]}" \
		--vram $size --seed "$seed"
	# Bound, or the receiver gave up (a refused bind).
	bound() { [ "$(dmabuf_pools rx)" = 1 ] || ! kill -0 "${DX_RECV_PID[rx]}" 2>/dev/null; }
	wait_until 120 bound && [ "$(dmabuf_pools rx)" = 1 ] ||
		fail "$prov $niov: no binding of $sz: $(cat /tmp/rx.err)"
	m1=$(kmem)
	if [ "$prov" = devmemx ]; then
		# BINDING-GET against the dry run: the same niovs and metadata,
		# and a bind that the dry run said fits did fit.
		ip netns exec rx devmemx -j show >/tmp/show.json || fail "show"
		for k in niov-count metadata-bytes; do
			expect_eq "$(jget $k /tmp/show.json)" "$(jget $k /tmp/dry.row)" \
				"$k at $niov: BINDING-GET vs the dry run"
		done
		expect_eq "$(jget metadata-fits /tmp/dry.row)" 1 "the dry run's metadata-fits at $niov"
		expect_eq "$(jget niov-count /tmp/show.json)" $((size / niov)) "niovs at $niov"
		# The metadata is what the kernel's memory grew by: the bind
		# allocates nothing it does not count (the dma-buf's sg tables,
		# 2M entries, and the queue's page pool take the rest: a few MiB).
		meta=$(jget metadata-bytes /tmp/show.json)
		awk -v m="$meta" -v k=$((m1 - m0)) 'BEGIN {
			d = k - m / 1024; exit !(d > -2048 && d < 8192) }' ||
			fail "$prov $niov: metadata $((meta >> 10)) KiB, but kernel memory grew by $((m1 - m0)) KiB"
	fi
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port "$port" --bytes $bytes \
		--seed "$seed" --timeout $((30 * DX_SLOW)) >/tmp/send.json ||
		fail "send: $(cat /tmp/rx.err)"
	recv_check rx $bytes
	# The socket closed: the binding ends. Unbind: until its last
	# page pool, niov and byte of metadata are gone.
	t0=$(now_ms)
	gone() {
		flush_deferred_skbs
		[ "$(dmabuf_pools rx)" = 0 ] && { [ "$prov" = netdev ] || [ "$(dx_live)" = "0 0 0" ]; } &&
			[ $(($(kmem) - m0)) -lt $((16 << 10)) ]
	}
	wait_until 60 gone ||
		fail "$prov $niov: after the flow: pools $(dmabuf_pools rx), devmemx $(dx_live), kernel memory $(($(kmem) - m0)) KiB above before"
	t1=$(now_ms)
	lo=$(jget frag_off_min /tmp/rx.json) hi=$(jget frag_off_end /tmp/rx.json)
	[ "$lo" -ge $((size - gib)) ] && [ "$hi" -le $size ] && [ "$lo" -lt "$hi" ] ||
		fail "$prov $niov: payload at dma-buf offsets $lo..$hi, not in the last GiB of $sz"
	meta=$(jget meta_bytes /tmp/rx.json) src=$(jget meta_source /tmp/rx.json)
	awk -v sz="$sz" -v g=$((size >> 30)) -v p="$prov" -v s=$((niov >> 10)) -v t="$(jget bind_sec /tmp/rx.json)" -v u=$((t1 - t0)) \
		-v m="$meta" -v src="$src" -v k=$((m1 - m0)) 'BEGIN {
		printf "# %s, %s %dK: bind %.0f ms (%.1f ms/GiB), unbind %d ms; metadata %.1f MiB (%.2f MiB/GiB, %s); kernel memory +%.1f MiB\n",
			sz, p, s, t * 1000, t * 1000 / g, u, m / 1048576, m / 1048576 / g,
			src == "btf" ? "struct net_iov per niov" : "its own count", k / 1024 }'
}

# devmemx at 4K: 2^26 niovs, 4 GiB of net_iovs in 2 MiB segments. Before
# segments even 128G was refused ("no memory for 2053 MiB of metadata
# (33554432 niovs): use a larger niov size") while its dry run said it fits.
devmemx_4k() { bind_once devmemx 4096 9701; }
dx_case devmemx-4k devmemx_4k

# devmemx at 64K: 16 times fewer niovs for the same memory.
devmemx_64k() { bind_once devmemx 65536 9702; }
dx_case devmemx-64k devmemx_64k

# The same buffer by in-tree devmem (one array and one gen_pool chunk per
# 2M entry), for the bind times' ratio.
intree_4k() { bind_once netdev 4096 9703; }
dx_case intree-4k intree_4k

dx_wait_idle
expect_eq "$(rx_stat dma_faults)" 0 "the sim's DMA faults"
