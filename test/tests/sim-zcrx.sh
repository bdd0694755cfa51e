# SPDX-License-Identifier: GPL-2.0
# The kernel's io_uring zcrx client, iou-zcrx (built from Debian's
# linux-source-7.2, tools/testing/selftests/drivers/net/hw/iou-zcrx.c, with
# sid's liburing), through devmemx_sim as its selftest iou-zcrx.py drives
# it: header split on with hds-thresh 0, RSS kept off the target queue, a
# flow rule to it. The server registers an interface queue on queue 3 and
# checks every byte of the client's 2M (512K on the debug kernel; it exits
# 0 only then): with 4K buffers, then with 8K (-x 2, as the selftest's
# large-chunk case, after its dry-run registration -d) and 64K (-x 16),
# over huge pages. While the server waits, exactly one page pool on dxsim1
# is io_uring's, with the buffer size asked for; none is left after each
# run. Then devmemx-rx's own zcrx (ab) refuses what zcrx cannot do, naming
# the fix, and leaves none.
. /dx/guestlib.sh

PORT=9500
sim_setup 4
IOU_PID=
cleanup() {
	[ -z "$IOU_PID" ] || kill "$IOU_PID" 2>/dev/null || true
	sim_teardown
	if grep -q '^devmemx ' /proc/modules; then
		dx_wait_idle
		dx_unload
	fi
}
trap cleanup EXIT
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
rule=$(ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port $PORT action 3 |
	sed -n 's/.*ID \([0-9]*\).*/\1/p')
[ -n "$rule" ] || fail "ethtool -N: no rule to queue 3"

# The server gives up 5 s after it has registered its queue (iou-zcrx.c,
# run_server: "test failed"), and the client then fails its send() part-way.
# On the debug kernel a process costs 0.35-0.55 s and `ip netns exec` 0.75
# s (it mounts sysfs anew), so the steps between the two are cheap ones: the
# server's sockets read through /proc/PID/net with builtins, its namespace
# entered by nsenter. There the client also sends 512K, not 2M: its 2M took
# longer than the window (1.7M sent when the server gave up, the client
# started 3.5 s after the server).
# listening_in PID PORT: a TCP socket in PID's namespace listens on PORT.
listening_in() {
	local f hex _a l _b st
	printf -v hex ':%04X' "$2"
	for f in /proc/$1/net/tcp6 /proc/$1/net/tcp; do
		while read -r _a l _b st _; do
			[ "$st" = 0A ] && [ "${l: -5}" = "$hex" ] && return 0
		done <"$f"
	done 2>/dev/null
	return 1
}

# The page pools of io_uring on dxsim1, with their buffer sizes.
iou_pools() {
	ip netns exec rx devmemx-rx pools --dev dxsim1 -j |
		sed -n 's/.*"io-uring":{\([^}]*\)}.*/\1/p'
}

# iou_run NAME BUF_LEN [server args]: the server on queue 3, the client
# sending from netns tx; both exit 0, and the pool carried BUF_LEN.
iou_run() {
	local name=$1 len=$2 rc=0 t0 pools
	shift 2
	t0=$EPOCHREALTIME
	ip netns exec rx timeout 60 iou-zcrx -s -p $PORT -i dxsim1 -q 3 "$@" \
		>/tmp/$name.out 2>&1 &
	IOU_PID=$!	# timeout's, in netns rx once ip has entered it
	up() { listening_in $IOU_PID $PORT || ! kill -0 "$IOU_PID" 2>/dev/null; }
	wait_until 30 up && listening_in $IOU_PID $PORT || {
		wait "$IOU_PID" || rc=$?
		IOU_PID=
		fail "$name: iou-zcrx -s (exit $rc) not listening: $(tail -n 5 /tmp/$name.out)"
	}
	pools=$(nsenter -t $IOU_PID -n devmemx-rx pools --dev dxsim1 -j |
		sed -n 's/.*"io-uring":{\([^}]*\)}.*/\1/p')
	expect_eq "$pools" "\"rx-buf-len\":$len" "$name: io_uring's page pools on dxsim1"
	echo "# $name: the client starts $(((${EPOCHREALTIME/./} - ${t0/./}) / 1000)) ms after the server"
	nsenter --net=/run/netns/tx iou-zcrx -c -h 192.0.2.2 -p $PORT -l 12840 \
		-z $((${DX_DEBUG:-0} ? 524288 : 2097152)) \
		>/tmp/$name-c.out 2>&1 ||
		fail "$name: iou-zcrx -c: exit $?: $(tail -n 5 /tmp/$name-c.out); the server said: $(tail -n 5 /tmp/$name.out)"
	wait "$IOU_PID" || rc=$?
	IOU_PID=
	[ $rc = 0 ] || fail "$name: iou-zcrx -s: exit $rc: $(tail -n 5 /tmp/$name.out)"
	flush_deferred_skbs
	wait_until 10 bash -c '[ -z "$(ip netns exec rx devmemx-rx pools -j | grep io-uring)" ]' ||
		fail "$name: io_uring's page pools left: $(pools rx)"
}

iou_run zcrx-4k 4096
expect_eq "$(echo 64 >/proc/sys/vm/nr_hugepages; cat /proc/sys/vm/nr_hugepages)" 64 "huge pages"
out=$(ip netns exec rx iou-zcrx -s -p $PORT -i dxsim1 -q 3 -x 2 -d 2>&1) ||
	fail "iou-zcrx -x 2 -d: exit $?: $out"
iou_run zcrx-8k 8192 -x 2
iou_run zcrx-64k 65536 -x 16

# devmemx-rx's zcrx refuses what zcrx cannot do with a message naming the
# fix, and leaves no page pool: a queue the device does not have, a queue
# devmemx has bound, header split off. (Host memory for 64K buffers without
# --hugetlb is refused only where no transparent huge page backs it.)
zerr() { # WANT ARGS...: ab with zcrx on dxsim1 fails, saying WANT
	local want=$1 err
	shift
	err=$(ip netns exec rx devmemx-rx ab --dev dxsim1 --runs 1 --bytes 1M \
		--timeout 5 "$@" 2>&1 >/dev/null) && fail "ab $*: succeeded"
	grep -qxF "$want" <<<"$err" || fail "ab $*: '$want' not said: $err"
	[ -z "$(iou_pools)" ] || fail "ab $*: io_uring's page pools left: $(pools rx)"
}
zerr "devmemx-rx: zcrx on dxsim1 queue 9 with 4K buffers: Numerical result out of range (queue 9 is out of the device's range, or the area is not contiguous in 4K pieces: the dma-buf's mapped chunks must be multiples of the buffer size)" \
	--queues 9 --configs zcrx-4K
dx_load
id=$(ip netns exec rx devmemx -j bind dev dxsim1 queues 2 --udmabuf 8M --persist | json_ids)
zerr "devmemx-rx: zcrx on dxsim1 queue 2 with 4K buffers: File exists (the queue has a memory provider already, or the device an XDP program: unbind it)" \
	--queues 2 --configs zcrx-4K
ip netns exec rx devmemx unbind "$id" >/dev/null
ip netns exec rx ethtool -G dxsim1 tcp-data-split off
zerr "devmemx-rx: zcrx on dxsim1 queue 3 with 4K buffers: Invalid argument (zcrx needs tcp-data-split on with hds-thresh 0: devmemx caps dev dxsim1 queue 3)" \
	--queues 3 --configs zcrx-4K
ip netns exec rx ethtool -N dxsim1 delete "$rule"
trap - EXIT
cleanup
