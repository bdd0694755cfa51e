# SPDX-License-Identifier: GPL-2.0
# dx-lanes: main iommu
# A queue whose restart without the provider fails goes on receiving into
# the binding's memory until a retry restarts it (every second): an
# exporter's revoke must not unmap that memory before then. The sim fails
# the unbind's restart and the first two retries (fail_queue_start 3); the
# revoke waits for the third, the queue then carries a plain TCP flow into
# host memory, and no DMA write faulted.
. /dx/guestlib.sh

insmod /dx/modules/devmemx_vram.ko
dx_defer rmmod devmemx_vram
dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
knob=/sys/kernel/debug/devmemx_sim/dxsim1
knob_off() { echo 0 >"$knob/$1"; }

# transfer KIB PORT: KIB KiB of random bytes over plain TCP (host memory)
# from tx to rx, compared.
transfer() {
	local pid
	dd if=/dev/urandom of=/tmp/stuck.in bs=1024 count="$1" 2>/dev/null
	rxx nc -l -p "$2" >/tmp/stuck.out &
	pid=$!
	wait_until 5 listening "$2" || fail "nothing listens on port $2"
	ip netns exec tx bash -c "cat /tmp/stuck.in >/dev/tcp/192.0.2.2/$2" ||
		fail "send to port $2"
	wait $pid || true
	cmp -s /tmp/stuck.in /tmp/stuck.out || fail "the $1 KiB over port $2 differ"
}

# The revoke comes while the queue still receives into the memory: it
# unmaps only once the queue restarted without the binding.
revoke_waits() {
	local line pid fd id out rule split0 faults0
	coproc VRAM { dx-vram -r $((16 << 20)); }
	dx_defer wait "$VRAM_PID"
	dx_defer eval "exec ${VRAM[1]}>&-"
	read -r -u "${VRAM[0]}" line || fail "dx-vram printed nothing"
	set -- $line
	pid=$2 fd=$4
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --pid "$pid" --fd "$fd" --persist |
		json_ids)
	[ -n "$id" ] || fail "bind of the revocable dma-buf printed no id"
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "queue 2's buffers once bound"
	faults0=$(rx_stat dma_faults)

	dx_defer knob_off fail_queue_start
	echo 3 >$knob/fail_queue_start
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
	expect_eq "$(rx_stat rx2_buf_size)" 65536 "queue 2's buffers after its restart failed"

	out=$(dx-vram revoke "$pid" "$fd" $((20000 * DX_SLOW))) || fail "revoke: $out"
	# Read at once: the queue's buffers when the exporter had its memory back.
	expect_eq "$(rx_stat rx2_buf_size)" 4096 "queue 2's buffers when the revoke had unmapped ($out)"
	[[ $out == "mappings left 0 after "* ]] || fail "the revoke: $out"
	echo "# revoked with queue 2 stuck: $out"
	expect_eq "$(rx_stat fault_queue_start)" 3 "queue starts the knob failed"
	dmesg_new | grep -c "dxsim1: devmemx: restarting queue 2 without the provider failed: -5; retrying every second$" >/dev/null ||
		fail "no failed restart in the kernel log: $(dmesg_new | grep devmemx | tail -n 5)"
	dmesg_new | grep -c "devmemx: binding $id: its dma-buf was revoked, but a queue whose restart failed still receives into it; unmapped once that queue restarts$" >/dev/null ||
		fail "no word of the stuck queue at the revoke: $(dmesg_new | grep devmemx | tail -n 5)"
	dmesg_new | grep -c "dxsim1: devmemx: queue 2 restarted without the provider$" >/dev/null ||
		fail "queue 2 never restarted: $(dmesg_new | grep devmemx | tail -n 5)"

	# The queue after: host memory, every byte, no DMA write lost.
	rule=$(rxx ethtool -N dxsim1 flow-type tcp4 dst-port 7401 action 2 |
		sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || fail "tcp4 rule to queue 2"
	dx_defer rxx ethtool -N dxsim1 delete "$rule"
	split0=$(rx_stat rx2_split)
	transfer 1024 7401
	[ $(($(rx_stat rx2_split) - split0)) -ge 100 ] || fail "the flow did not land on queue 2"
	expect_eq "$(rx_stat dma_faults)" "$faults0" "the sim's DMA faults"
	expect_eq "$(dmesg_new | grep -c 'DMAR: \[DMA Write')" 0 "DMAR faults in the kernel log"
	dx_wait_idle
}
dx_case revoke-waits revoke_waits

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
