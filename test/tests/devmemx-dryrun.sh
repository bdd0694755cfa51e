# SPDX-License-Identifier: GPL-2.0
# devmemx bind --dry-run (BIND-CHECK) and size auto. The dry run maps the
# dma-buf as a bind would and reports, per size the driver takes, what a
# bind would carve: checked against real binds of the same dma-buf, figure
# for figure (a plain udmabuf another process holds, carved where its pages
# happen to be contiguous). A GPU-style buffer whose size is 4K past a
# multiple of 64K: devmemx wastes that 4K at every size above 4K, in-tree
# 7.3 refuses it above 4K (checked against in-tree's own bind on 7.3), and
# size auto picks the largest size within max-waste. A dry run binds
# nothing and leaves nothing behind; bad input is refused with its reason.
. /dx/guestlib.sh

insmod /dx/modules/devmemx_vram.ko
dx_defer rmmod devmemx_vram
dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# The GPU buffer, 4K past a multiple of 64K, that the gpu cases bind: held
# by dx-vram for the whole test (its process $vram_pid, the dma-buf its fd
# $GPU_FD); it goes when its standard input closes.
coproc VRAM { dx-vram $(((16 << 20) + 4096)); }
vram_pid=$VRAM_PID vram_in=${VRAM[1]}
vram_close() {
	eval "exec $vram_in>&-"
	wait "$vram_pid"
}
dx_defer vram_close
read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
set -- $line
GPU_PID=$2 GPU_FD=$4

# Bad usage of --dry-run, size auto and max-waste: refused (exit 2).
bad_usage() {
	expect_err 2 'devmemx: --dry-run binds nothing: drop --persist' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M --dry-run --persist
	expect_err 2 'devmemx: --dry-run reports every size the driver takes: drop size (or say size auto)' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M --dry-run size 64K
	expect_err 2 'devmemx: max-waste goes with size auto' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M size 64K max-waste 1%
	expect_err 2 'devmemx: bad max-waste "150%": a size, or a percentage from 0% to 100%' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M size auto max-waste 150%
	expect_err 2 'devmemx: bad max-waste "%": a size, or a percentage from 0% to 100%' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M size auto max-waste %
}
dx_case bad-usage bad_usage

# A dry run on a device that is not ready says what to change.
# The bind's checks come first, as the bind would make them.
not_ready() {
	dx_defer rxx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	rxx ethtool -G dxsim1 tcp-data-split off
	expect_err 1 'devmemx: dry run of a bind to dxsim1: tcp-data-split is off: ethtool -G dxsim1 tcp-data-split on (Invalid argument)' \
		rxx devmemx bind dev dxsim1 queues 3 --udmabuf 1M --dry-run
}
dx_case not-ready not_ready

# The dry run of a held udmabuf binds nothing and equals real binds' figures.
# A plain udmabuf another process holds: size for size, what a real bind
# of it then carves, wastes and spends on metadata.
held_udmabuf() {
	local holder fd live row size k
	# The holder binds it to queue 2 (and keeps it); we look at it for
	# queue 3. (Started directly, so that $! is the CLI itself.)
	ip netns exec rx devmemx bind dev dxsim1 queues 2 --udmabuf 16M >/tmp/holder.out 2>/tmp/holder.err &
	holder=$!
	dx_defer dx_wait_idle
	dx_defer dx_stop $holder
	dx_defer unbind_all
	held() { grep -q '^id: ' /tmp/holder.out; }
	wait_until 30 held || fail "the holder did not bind: $(cat /tmp/holder.err)"
	fd=$(ls -l /proc/$holder/fd | awk '/dmabuf/ { print $(NF - 2) }' | head -n1)
	[ -n "$fd" ] || fail "the holder has no dma-buf open: $(ls -l /proc/$holder/fd)"
	live=$(dx_live)

	rxx devmemx bind dev dxsim1 queues 3 --pid $holder --fd "$fd" --dry-run >/tmp/dry.txt ||
		fail "dry run: $(cat /tmp/dry.txt)"
	rxx devmemx -j bind dev dxsim1 queues 3 --pid $holder --fd "$fd" --dry-run >/tmp/dry.json ||
		fail "dry run -j"
	echo "# dry run of the held 16M udmabuf:"
	sed 's/^/#   /' /tmp/dry.txt
	expect_eq "$(head -n2 /tmp/dry.txt | tr -s ' ')" "dma-buf: 16M, mapped for dxsim1; nothing bound
size niovs carved wasted metadata fits in-tree-7.3" "the dry run's head"
	expect_eq "$(dx_live)" "$live" "devmemx's live objects after the dry runs (bindings niovs page-pools)"
	expect_eq "$(rxx devmemx -j show | json_ids | wc -l)" 1 "bindings after the dry runs"
	# One nest per size the driver takes (caps), in order.
	expect_eq "$(grep -o '"niov-size":[0-9]*' /tmp/dry.json | cut -d: -f2 | tr '\n' ' ')" \
		"4096 8192 16384 32768 65536 131072 " "the dry run's sizes"
	expect_eq "$(jget dmabuf-size /tmp/dry.json)" 16777216 "the dry run's dmabuf-size"
	# Each size bound for real: the same niovs, bytes and metadata.
	grep -o '{"niov-size[^}]*}' /tmp/dry.json >/tmp/rows
	while read -r row; do
		echo "$row" >/tmp/row
		size=$(jget niov-size /tmp/row)
		if [ "$(jget niov-count /tmp/row)" = 0 ]; then
			# Nothing to allocate fits; bind refuses for its own reason.
			expect_eq "$(jget metadata-fits /tmp/row)" 1 "metadata-fits at $size, no niov"
			expect_err 1 "devmemx: bind to dxsim1: no DMA-contiguous $size-byte run in the dma-buf: use hugetlb memory (Invalid argument)" \
				rxx devmemx bind dev dxsim1 queues 3 size "$size" --pid $holder --fd "$fd" --persist
			continue
		fi
		rxx devmemx -j bind dev dxsim1 queues 3 size "$size" --pid $holder --fd "$fd" \
			--persist >/tmp/bound.json || fail "bind at $size"
		for k in niov-count bytes-carved bytes-wasted metadata-bytes; do
			expect_eq "$(jget $k /tmp/bound.json)" "$(jget $k /tmp/row)" "$k at $size: bind vs dry run"
		done
		expect_eq "$(jget metadata-fits /tmp/row)" 1 "metadata-fits at $size"
		expect_eq "$(rxx devmemx unbind "$(json_ids </tmp/bound.json)")" "unbound: 1" "unbind at $size"
	done </tmp/rows
	# The table's 4K row: 4096 niovs, all of it (metadata aside).
	expect_eq "$(sed -n 3p /tmp/dry.txt | awk '{ $5 = "-"; print }')" "4K 4096 16M 0 - yes aligned" \
		"the table's 4K row"
	kill $holder
	wait $holder || true
	dx_wait_idle
}
dx_case held-udmabuf held_udmabuf

# A GPU buffer 4K past 64K: the dry run wastes 4K above 4K, in-tree refuses.
# In-tree 7.3 refuses every size above 4K; size auto marks 128K.
gpu_dry_run() {
	rxx devmemx bind dev dxsim1 queues 3 --pid "$GPU_PID" --fd "$GPU_FD" --dry-run size auto >/tmp/gpu.txt ||
		fail "dry run of the GPU buffer: $(cat /tmp/gpu.txt)"
	sed 's/^/#   /' /tmp/gpu.txt
	expect_eq "$(tail -n +3 /tmp/gpu.txt | awk '{ $5 = "-"; print }')" \
		"4K 4097 16388K 0 - yes aligned
8K 2048 16M 4K - yes refuses
16K 1024 16M 4K - yes refuses
32K 512 16M 4K - yes refuses
64K 256 16M 4K - yes refuses
128K 128 16M 4K - yes refuses <- size auto" "the GPU buffer's dry run"
	expect_eq "$(dx_live)" "0 0 0" "live objects after the GPU buffer's dry run"
}
dx_case gpu-dry-run gpu_dry_run

# size auto binds the GPU buffer at 128K, the largest size within 1%.
# (4K of 16M is less.)
gpu_size_auto() {
	dx_defer unbind_all
	rxx devmemx -j bind dev dxsim1 queues 3 --pid "$GPU_PID" --fd "$GPU_FD" size auto --persist \
		>/tmp/auto.json 2>/tmp/auto.err || fail "size auto: $(cat /tmp/auto.err)"
	expect_eq "$(cat /tmp/auto.err)" "devmemx: size auto: 128K, the largest size dxsim1 takes that wastes at most 163.9K of the dma-buf (it wastes 4K)" \
		"size auto's word"
	expect_eq "$(jget niov-size /tmp/auto.json) $(jget bytes-wasted /tmp/auto.json)" "131072 4096" "size auto's binding"
	expect_eq "$(rxx devmemx unbind "$(json_ids </tmp/auto.json)")" "unbound: 1" "unbind size auto"
}
dx_case gpu-size-auto gpu_size_auto

# max-waste as shares of the GPU buffer: 0.1% gives 128K, 0.01% 4K.
# 0.1% of 16388K is 16.4K, more than the 4K 128K wastes; 0.01% is less.
gpu_max_waste_share() {
	local w
	dx_defer unbind_all
	for w in "0.1% 128K 16.4K" "0.01% 4K 1.6K"; do
		set -- $w
		rxx devmemx bind dev dxsim1 queues 3 --pid "$GPU_PID" --fd "$GPU_FD" size auto max-waste "$1" --dry-run \
			>/tmp/auto.txt 2>/dev/null || fail "size auto max-waste $1: $(cat /tmp/auto.txt)"
		expect_eq "$(grep -- '<- size auto' /tmp/auto.txt | awk '{ print $1 }')" "$2" "size auto max-waste $1"
		rxx devmemx bind dev dxsim1 queues 3 --pid "$GPU_PID" --fd "$GPU_FD" size auto max-waste "$1" \
			--persist 2>&1 >/dev/null | grep -qF "wastes at most $3 of the dma-buf" ||
			fail "size auto max-waste $1: no limit of $3"
		rxx devmemx unbind all >/dev/null
	done
	dx_wait_idle
}
dx_case gpu-max-waste-share gpu_max_waste_share

# max-waste 0: nothing of the GPU buffer may be wasted, so 4K.
gpu_max_waste_zero() {
	dx_defer unbind_all
	rxx devmemx -j bind dev dxsim1 queues 3 --pid "$GPU_PID" --fd "$GPU_FD" size auto max-waste 0 --persist \
		>/tmp/auto.json 2>/tmp/auto.err || fail "size auto max-waste 0: $(cat /tmp/auto.err)"
	expect_eq "$(jget niov-size /tmp/auto.json) $(jget bytes-wasted /tmp/auto.json)" "4096 0" "size auto max-waste 0"
	expect_eq "$(rxx devmemx unbind "$(json_ids </tmp/auto.json)")" "unbound: 1" "unbind max-waste 0"
	dx_wait_idle
}
dx_case gpu-max-waste-zero gpu_max_waste_zero

# In-tree 7.3 refuses the GPU buffer at 64K, as the dry run said.
gpu_intree_refuses() {
	local rc=0
	[ "$DX_SERIES" = 7.3 ] || skip "in-tree devmem binds 4K niovs only before 7.3"
	rxx devmemx-rx recv --dev dxsim1 --port 9470 --expect 1M --queues 3 --provider netdev \
		--rx-page-size 64K --pid "$GPU_PID" --fd "$GPU_FD" --no-verify >/dev/null 2>/tmp/intree.err || rc=$?
	expect_eq "$rc" 1 "in-tree 64K bind of the GPU buffer: exit"
	# 7.3 formats it into extack's 80 bytes: "... niov size 65536" is cut.
	grep -qx 'devmemx-rx: bind to dxsim1: dmabuf sg entry (addr=0x[0-9a-f]*, len=4096) not aligned to niov size 6[0-9]* (Invalid argument)' \
		/tmp/intree.err || fail "in-tree's refusal: $(cat /tmp/intree.err)"
	echo "# in-tree 7.3 at 64K: $(cat /tmp/intree.err)"
	expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after in-tree's refusal"
}
dx_case gpu-intree-refuses gpu_intree_refuses
