# SPDX-License-Identifier: GPL-2.0
# A niov the provider must refuse when its page pool is destroyed (a
# driver gave it back holding a page pool reference too many: the sim's
# bad_ref knob, a planted bug) never returns to the binding's gen_pool.
# The binding's free then warns and leaks the gen_pool and its niovs, as
# in-tree devmem does, where gen_pool_destroy() would BUG on the bit still
# set (lib/genalloc.c). The warnings are the point: the test brackets them
# in the kernel log (dx-plant, run.sh) and checks them itself.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
knob=/sys/kernel/debug/devmemx_sim/dxsim1

# The unbind's queue stop plants one refused niov: the binding's free
# warns "1 of 128 niovs never came back" and leaks, with no BUG; the queue
# then binds again and a 1M flow lands whole.
refused_niov() {
	local id given0 leak
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 size 64K --udmabuf 8M --hugetlb --persist |
		json_ids)
	[ -n "$id" ] || fail "bind printed no id"
	given0=$(rx_stat fault_bad_ref)
	echo "dx-plant: begin bad_ref on binding $id" >/dev/kmsg
	# (run-tests.sh closes the bracket too, should this case die in it.)
	dx_defer eval 'echo "dx-plant: end" >/dev/kmsg'
	dx_defer eval "echo 0 >$knob/bad_ref"
	echo 1 >$knob/bad_ref
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind"
	expect_eq "$(rx_stat fault_bad_ref)" $((given0 + 1)) "net_iovs the sim gave back with a ref too many"
	dx_wait_idle
	# The binding's counters drop before its free warns: wait for the line.
	leak="devmemx: binding $id: 1 of 128 niovs never came back; its gen_pool and niovs are leaked"
	leaked() { dmesg_new | grep -qF "$leak"; }
	wait_until 10 leaked ||
		fail "no leak warning for binding $id: $(dmesg_new | grep devmemx | tail -n 5)"
	echo "dx-plant: end" >/dev/kmsg
	if dmesg_new | grep -qE 'kernel BUG|BUG:|Oops'; then
		fail "the kernel log: $(dmesg_new | grep -E 'BUG|Oops' | head -n 3)"
	fi
	# The device and devmemx go on, their warnings judged again: a bind of
	# the same queue, and data.
	devmem_xfer 1048576 7410 --queues 2 --provider devmemx --rx-page-size 65536 \
		--udmabuf 8M --hugetlb
	dx_wait_idle
}
dx_case refused-niov refused_niov
