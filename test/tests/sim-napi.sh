# SPDX-License-Identifier: GPL-2.0
# A queue restart gives the queue a new NAPI, as mlx5 makes a new channel:
# same NAPI id (the queue's NAPI config), a new thread that keeps nothing of
# the old one's placement; a full reopen renews every queue's; and make
# ab's placement of the NAPI threads holds after each bind all the same.
. /dx/guestlib.sh
. /dx/ab-lib.sh

dx_sim_devmem 9000
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }

# dxsim1's NAPI threads, "PID" a line, sorted (bash builtins: quick).
napi_threads() {
	local p c
	for p in /proc/[0-9]*; do
		read -r c <"$p/comm" 2>/dev/null || continue
		case $c in napi/dxsim1-*) echo "${p#/proc/}" ;; esac
	done | sort -n
}
# minus A B: the lines of A that are not lines of B.
minus() { grep -vxF -f <(echo "$2") <<<"$1" || true; }
# The NAPI ids of dxsim1's live page pools (a pool knows its queue's NAPI).
napi_ids() {
	rxx devmemx-rx pools --dev dxsim1 -j | grep -v detach-time |
		sed -n 's/.*"napi-id":\([0-9]*\).*/\1/p' | sort -un | tr '\n' ' '
}
# PID: "CPUS POLICY PRIO" (policy 0 SCHED_OTHER, 1 SCHED_FIFO); nothing
# for a thread that has gone (an unbind ends it).
placement() {
	local cpus
	cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$1/status 2>/dev/null) &&
		[ -n "$cpus" ] || return 0
	# comm has no spaces here: fields 40 and 41 are rt_priority and policy.
	awk -v c="$cpus" '{ print c, $41, $40 }' /proc/$1/stat 2>/dev/null || true
}
threaded() {
	rxx sh -c "echo $1 >/sys/class/net/dxsim1/threaded"
}
# Threaded NAPI with every thread where ab_hosts puts dxsim1's (CPU 1,
# SCHED_FIFO 50), as placed once, before any bind.
place_all() {
	local p
	for p in $(napi_threads); do
		chrt -f -p 50 "$p" >/dev/null && taskset -pc 1 "$p" >/dev/null ||
			fail "cannot place NAPI thread $p"
	done
}
all_cpus=$(cat /sys/devices/system/cpu/online)
[ "$all_cpus" != 0 ] || fail "needs two CPUs (DX_VM_CPUS)"

# A bind restarts its queue: one thread goes, one new one comes, at the
# kernel's defaults; the other queues' threads keep their placement; the
# NAPI id stays the queue's. The unbind does it again.
restart() {
	local before after id gone new old_ids p
	threaded 1
	dx_defer threaded 0
	place_all
	before=$(napi_threads)
	expect_eq "$(echo $before | wc -w)" 4 "NAPI threads of dxsim1's 4 queues"
	old_ids=$(napi_ids)
	expect_eq "$(echo $old_ids | wc -w)" 4 "NAPI ids of dxsim1's 4 pools"
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist | json_ids)
	[ -n "$id" ] || fail "bind queue 2"
	dx_defer rxx devmemx unbind all
	after=$(napi_threads)
	gone=$(minus "$before" "$after" | tr '\n' ' ')
	new=$(minus "$after" "$before" | tr '\n' ' ')
	echo "# bind: thread ${gone% } went, ${new% } ($(cat /proc/${new% }/comm)) came; NAPI ids $old_ids-> $(napi_ids)"
	expect_eq "$(echo $gone | wc -w) $(echo $new | wc -w)" "1 1" \
		"NAPI threads gone and new after the bind (before: $before; after: $after)"
	expect_eq "$(placement $new)" "$all_cpus 0 0" "the new thread's placement (CPUs policy prio)"
	for p in $after; do
		[ "$p" = "${new% }" ] || expect_eq "$(placement $p)" "1 1 50" "thread $p of another queue"
	done
	expect_eq "$(napi_ids)" "$old_ids" "NAPI ids after the bind"
	# The bound pool is polled by queue 2's NAPI, under the queue's old id.
	rxx devmemx-rx pools --dev dxsim1 -j | grep '"dmabuf"' |
		grep -q "\"napi-id\":\($(echo $old_ids | tr ' ' '|' | sed 's/|/\\|/g')\)," ||
		fail "the bound pool's NAPI id is none of the old ones: $(rxx devmemx-rx pools --dev dxsim1 -j)"
	before=$after
	rxx devmemx unbind "$id" >/dev/null || fail "unbind $id"
	after=$(napi_threads)
	expect_eq "$(minus "$after" "$before" | wc -l)" 1 \
		"new NAPI threads after the unbind"
	expect_eq "$(napi_ids)" "$old_ids" "NAPI ids after the unbind"
}
dx_case restart restart

# A full reopen (a new ring size) renews every queue's NAPI thread; a
# closed device has none (mlx5 closes its channels).
reopen() {
	local before after
	threaded 1
	dx_defer threaded 0
	before=$(napi_threads)
	old_ids=$(napi_ids)
	expect_eq "$(echo $before | wc -w) $(echo $old_ids | wc -w)" "4 4" \
		"NAPI threads and ids before a reopen"
	rxx ethtool -G dxsim1 rx 512 || fail "ethtool -G dxsim1 rx 512"
	dx_defer rxx ethtool -G dxsim1 rx 1024
	after=$(napi_threads)
	expect_eq "$(minus "$after" "$before" | wc -l) $(echo $after | wc -w)" "4 4" \
		"NAPI threads kept, and there, after a reopen"
	expect_eq "$(napi_ids)" "$old_ids" "NAPI ids after a reopen"
	rxx ip link set dxsim1 down
	dx_defer rxx ip link set dxsim1 up
	expect_eq "$(napi_threads | wc -l)" 0 "NAPI threads of a closed dxsim1"
}
dx_case reopen reopen

# make ab's placement (ab_hosts, ab_napi_args): after each bind the bound
# queue's thread, a new one, runs where ab_hosts put the others (CPU 1,
# SCHED_FIFO 50), read while ab holds the binding.
ab_placed() {
	local out=/tmp/sim-napi-ab before pid pl seen= bad= p
	rm -rf $out
	mkdir -p $out
	dx_defer rm -rf $out
	threaded 1
	dx_defer threaded 0
	dx_defer ip netns exec tx sh -c 'echo 0 >/sys/class/net/dxsim0/threaded'
	before=$(napi_threads)
	: >$out/err
	(ab_run napi $out --configs devmemx-4K,netdev-4K --queues 2 --seconds 2 --runs 1) \
		>$out/out 2>$out/err &
	p=$!
	while kill -0 $p 2>/dev/null; do
		# The latest bind's (each configuration binds anew).
		pid=$(sed -n "s/^devmemx-rx: dxsim1's RX queue 2: NAPI thread \([0-9]*\) .*/\1/p" $out/err |
			tail -n 1)
		if [ -n "$pid" ] && [ -e /proc/$pid ]; then
			pl=$(placement $pid)
			case $pl in
			"1 1 50") seen=$pid ;;
			"") ;;
			*) bad="$bad $pl" ;;
			esac
		fi
		sleep 0.2
	done
	wait $p || fail "ab: $(tail -n 5 $out/err)"
	grep "NAPI thread" $out/err | sed 's/^/# ab: /' || true
	[ -n "$pid" ] || fail "ab did not say where it placed queue 2's NAPI thread: $(tail -n 5 $out/err)"
	[ -z "$bad" ] || fail "queue 2's NAPI thread ${pid:-?} during ab: '$bad', not '1 1 50' (CPUs policy prio)"
	[ -n "$seen" ] || fail "queue 2's NAPI thread never seen placed during ab: $(grep NAPI $out/err)"
	grep -qx "$seen" <<<"$before" && fail "ab placed thread $seen, which was there before the bind"
	true
}
dx_case ab-placed ab_placed

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
