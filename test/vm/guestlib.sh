# SPDX-License-Identifier: GPL-2.0
# Helpers for the test scripts, sourced inside the VM.
set -euo pipefail

DX_VERSION=$(cat /dx/VERSION)
DX_KVER=$(uname -r)
DX_SERIES=$(echo "$DX_KVER" | cut -d. -f1-2)
# DX_DEBUG is set on the 7.2-debug kernel (KASAN, lockdep, kmemleak, under
# TCG), which gets 6 times as long in every wait and transfer timeout of
# these helpers.
DX_DEBUG= DX_SLOW=1
case $DX_KVER in *-dxdebug) DX_DEBUG=1 DX_SLOW=6 ;; esac

# fail MESSAGE: the test (or the case: dx_case) fails. In a cleanup
# (dx_defer) it says so and returns 1 instead: the cleanups after it still
# run, and the case or test fails once they have.
fail() {
	echo "FAIL: $*" >&2
	if [ -n "${DX_CLEANING:-}" ]; then
		DX_CLEANUP_FAILED=1
		return 1
	fi
	exit 1
}
skip() { echo "SKIP: $*"; exit 4; }

# ---- named cases and their cleanups ----------------------------------------
# A test runs its setup at the top, then its cases:
#   dx_case NAME FUNCTION [ARGS...]
# runs FUNCTION ARGS in a subshell of its own (with set -e), which is the
# case NAME: it passes if FUNCTION returns 0, is skipped if it exits 4
# (skip), and fails otherwise (fail, expect_eq, a failed command). Either
# way the test goes on with its next case: dx_case returns 0. What a case
# changes in the shell (variables, functions) is gone after it; what it
# changes in the machine its cleanups undo:
#   dx_defer CMD [ARGS...]
# registers CMD ARGS (the words as they are now) to run when the case ends,
# whether it passed, failed or was skipped, the last registered first. At
# the top of a test (outside any case) dx_defer registers the test's own
# cleanups, run when the test exits, after all its cases. Cleanups run in
# the shell that registered them (wait works on its background jobs) with
# set +e: each runs, whatever the one before did; a cleanup that returns
# non-zero or calls fail fails its case (or test). A cleanup must not exit.
# A background job of the case still running after its cleanups fails it
# too (and is killed).
# A case must leave the machine as the test's setup made it: so each case
# runs alone as well as after the others (run.sh -t TEST/CASE).
#
# Each case's output goes between two marker lines in the test's output:
#   DX-CASE-BEGIN NAME
#   DX-CASE-END ok|fail|skip SECONDS NAME
# from which run-tests.sh reports it as the result TEST/NAME. DX_CASES (set
# by run-tests.sh from run.sh -t TEST/CASE) names the cases to run, space
# separated; the others are passed over without a word. run.sh -l lists each
# case with the first line of the comment right above its dx_case line, or
# else above its function (cases.sh reads the script, and run-tests.sh
# knows from it which cases did not run): dx_case's NAME and FUNCTION must
# be written out, not computed.
#   dx_debug_no NAME WHY
# before "dx_case NAME ...": on the debug kernel the case is skipped,
# saying "not in the debug lane: WHY" (what the lane's checkers cannot add
# to: the kernel code it runs is not devmemx's, or other cases of the lane
# run the same paths), unless run.sh -t names it.
DX_DEFERS=()
DX_CASE= DX_CASES_RUN=" " DX_DEFER_TRAP=
declare -A DX_DEBUG_NO=()
dx_debug_no() { DX_DEBUG_NO[$1]=$2; }
dx_defer() {
	[ $# -gt 0 ] || fail "dx_defer: no command"
	DX_DEFERS+=("$(printf '%q ' "$@")")
	# At the top of the test, the first cleanup sets the test's EXIT trap
	# (a case sets its own).
	if [ -z "$DX_CASE" ] && [ -z "$DX_DEFER_TRAP" ]; then
		DX_DEFER_TRAP=1
		trap _dx_exit EXIT
	fi
}

# Run the registered cleanups, the last first; false if one failed.
_dx_run_defers() {
	local i rc bad=0
	DX_CLEANING=1 DX_CLEANUP_FAILED=
	for ((i = ${#DX_DEFERS[@]} - 1; i >= 0; i--)); do
		rc=0
		eval "${DX_DEFERS[i]}" || rc=$?
		if [ $rc != 0 ]; then
			echo "FAIL: cleanup: ${DX_DEFERS[i]% }: exit $rc" >&2
			bad=1
		fi
	done
	DX_DEFERS=()
	DX_CLEANING=
	[ $bad = 0 ] && [ -z "$DX_CLEANUP_FAILED" ]
}

# The EXIT trap of a case's subshell, and of a test that registered
# cleanups: run them; a failed cleanup fails what passed or was skipped.
_dx_exit() {
	local rc=$? left
	set +e
	if ! _dx_run_defers; then
		case $rc in 0 | 4) rc=1 ;; esac
	fi
	# A case's background jobs still running after its cleanups: killed,
	# and the case fails (run-tests.sh checks the whole test the same way).
	left=$(jobs -pr)
	if [ -n "$DX_CASE" ] && [ -n "$left" ]; then
		echo "FAIL: left behind: processes $(echo $left) of case $DX_CASE (killed)" >&2
		# shellcheck disable=SC2086 # the PIDs, one word each
		kill -KILL $left 2>/dev/null
		wait $left 2>/dev/null
		rc=1
	fi
	trap - EXIT
	exit $rc
}

dx_case() {
	local name=$1 fn=$2 rc errexit= t0=$SECONDS st
	shift 2
	[ -z "$DX_CASE" ] || fail "dx_case $name: inside case $DX_CASE (cases do not nest)"
	[[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || fail "dx_case: bad case name '$name' (a-z, 0-9, -)"
	declare -F "$fn" >/dev/null || fail "dx_case $name: no function $fn"
	[[ $DX_CASES_RUN != *" $name "* ]] || fail "dx_case $name: a second case of that name"
	DX_CASES_RUN+="$name "
	if [ -n "${DX_CASES:-}" ] && [[ " $DX_CASES " != *" $name "* ]]; then
		return 0
	fi
	if [ -n "$DX_DEBUG" ] && [ -n "${DX_DEBUG_NO[$name]:-}" ] &&
		[[ " ${DX_CASES:-} " != *" $name "* ]]; then
		printf 'DX-CASE-BEGIN %s\nSKIP: not in the debug lane: %s\nDX-CASE-END skip 0 %s\n' \
			"$name" "${DX_DEBUG_NO[$name]}" "$name"
		return 0
	fi
	# The watchdog's TERM (run-tests.sh) reaches the whole test: the case
	# runs its cleanups, then the test its own, not both at once.
	trap 'exit 143' TERM
	echo "DX-CASE-BEGIN $name"
	[[ $- != *e* ]] || errexit=1
	# Run as a plain command, not in an if or ||: set -e holds inside.
	set +e
	(
		set -e
		DX_CASE=$name
		DX_DEFERS=()	# the test's own cleanups stay with the test
		trap _dx_exit EXIT
		"$fn" "$@"
	)
	rc=$?
	[ -z "$errexit" ] || set -e
	case $rc in
	0) st=ok ;;
	4) st=skip ;;
	*) st=fail
	   echo "FAIL: case $name: exit $rc" >&2 ;;
	esac
	echo "DX-CASE-END $st $((SECONDS - t0)) $name"
}

# dx_stop PID [SIGNAL]: a cleanup (dx_defer dx_stop $!): end the background
# job PID of this shell with SIGNAL (default TERM) and reap it; nothing if
# it was reaped already (its PID may be another process's by now).
dx_stop() {
	jobs -p | grep -qx "$1" || return 0
	kill -"${2:-TERM}" "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

expect_eq() { # got want what
	[ "$1" == "$2" ] || fail "$3: expected '$2', got '$1'"
}

# expect_err STATUS MESSAGE CMD...: CMD exits with STATUS and prints exactly
# MESSAGE on stderr.
expect_err() {
	local want_rc=$1 want_msg=$2 rc=0 err
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = "$want_rc" ] || fail "$*: exit $rc, expected $want_rc (stderr: $err)"
	[ "$err" == "$want_msg" ] || fail "$*: stderr '$err', expected '$want_msg'"
}

# The kernel addresses the tests load devmemx with, read from /proc/kallsyms
# once per boot (they do not change while it runs) into /tmp/dx-ksyms:
# "NAME ADDRESS" of every symbol that devmemx takes as a parameter. On the
# debug kernel each read of /proc/kallsyms takes seconds. What a read under
# kptr_restrict=2 (zeros) or with a symbol missing gives is not kept.
dx_ksyms() {
	local got
	if [ -s /tmp/dx-ksyms ]; then
		cat /tmp/dx-ksyms
		return
	fi
	got=$(awk 'NF == 3 && ($3 == "dmabuf_devmem_ops" || $3 == "tcp_recvmsg_dmabuf" ||
		$3 == "sock_devmem_dontneed" || $3 == "netdev_nl_bind_rx_doit") &&
		!($3 in seen) { seen[$3]; print $3, $1 }' /proc/kallsyms)
	echo "$got"
	if [ "$(grep -vc ' 0*$' <<<"$got")" = 4 ]; then
		echo "$got" >/tmp/dx-ksyms.new
		mv /tmp/dx-ksyms.new /tmp/dx-ksyms
	fi
}
# What module/modprobe.conf does for modprobe.
dx_ops_addr() { dx_sym_addr dmabuf_devmem_ops; }
# dx_sym_addr NAME: the address of one of dx_ksyms' symbols.
dx_sym_addr() { dx_ksyms | awk -v n="$1" '$1 == n { print $2 }'; }
# The token array's (doc/token-array.md) and the policies' (doc/policy.md);
# later parameters override them.
dx_tok_params() {
	dx_ksyms | awk '$1 != "dmabuf_devmem_ops" { printf "%s%s=0x%s", sep, $1, $2; sep = " " }'
}
# This kernel's review (doc/review.md): the build root runs devmemx-review
# on every kernel it has and the initramfs carries its result where a
# host's loader reads it; the loader's own code (module/modprobe-devmemx
# --review) turns it into the module's review= parameter.
DX_REVIEW_FILE=/var/lib/devmemx/review/$DX_KVER
dx_review_param() { /dx/modprobe-devmemx --review; }
# dx_review_failed FEATURE: why this kernel's review failed for FEATURE
# (token-array, policies); nothing when it passed.
dx_review_failed() {
	[ -f "$DX_REVIEW_FILE" ] || return 0
	awk -v f="$1" '$1 == "failed" && $2 == f { sub(/^failed [^ ]+ /, ""); print }' "$DX_REVIEW_FILE"
}
# dx_need_review FEATURE: skip the case (or the test) when this kernel's
# review failed for FEATURE, with the review's reason. Where it passed, or
# where the build root has no result (a kernel the project reviewed), the
# case runs, and a gate that refuses fails it.
dx_need_review() {
	local why
	why=$(dx_review_failed "$1")
	[ -z "$why" ] || skip "$1: the review of $DX_KVER failed: $why"
}
# shellcheck disable=SC2046 # dx_tok_params, dx_review_param: one word per parameter
dx_load() {
	insmod /dx/modules/devmemx.ko dmabuf_devmem_ops=0x"$(dx_ops_addr)" $(dx_tok_params) \
		$(dx_review_param) "$@"
}
dx_unload() { rmmod devmemx; }

# sim_ns_up NETNS DEV IPV4 IPV6 MTU: DEV's addresses, MTU and link up in
# NETNS, and its lo up (one ip for all of it).
sim_ns_up() {
	ip -n "$1" -batch - <<-EOF
		addr add $3/24 dev $2
		addr add $4/64 dev $2 nodad
		link set $2 mtu $5 up
		link set lo up
	EOF
}

# The simulated NIC pair, dxsim0 in netns "tx" (192.0.2.1, 2001:db8::1) and
# dxsim1 in netns "rx" (192.0.2.2, 2001:db8::2), both up, MTU $2.
# With DX_MODPROBE=1 the sim comes from modprobe (what dkms installed);
# DX_SIM_ARGS adds module parameters (insmod only).
sim_setup() { # [queues] [mtu]
	if [ "${DX_MODPROBE:-}" = 1 ]; then
		modprobe devmemx_sim queues="${1:-4}"
	else
		# shellcheck disable=SC2086 # DX_SIM_ARGS: more parameters, split
		insmod /dx/modules/devmemx_sim.ko queues="${1:-4}" ${DX_SIM_ARGS:-}
	fi
	# One ip per namespace: on the debug kernel every process costs seconds.
	ip -batch - <<-EOF
		netns add tx
		netns add rx
		link set dxsim0 netns tx
		link set dxsim1 netns rx
	EOF
	sim_ns_up tx dxsim0 192.0.2.1 2001:db8::1 "${2:-1500}"
	sim_ns_up rx dxsim1 192.0.2.2 2001:db8::2 "${2:-1500}"
	# The sender stands for a host at NIC speed, which sends 64K TSO/GSO
	# bursts; HW-GRO sessions follow them. Under TCG, TCP would size its
	# bursts to a slow pacing rate (tcp_tso_autosize()).
	ip netns exec tx sh -c 'echo 64 >/proc/sys/net/ipv4/tcp_min_tso_segs'
}

# The sim's namespaces gone, those that are there (one ip for both).
sim_del_netns() {
	ip -force -batch - >/dev/null 2>&1 <<-EOF || true
		netns del tx
		netns del rx
	EOF
}

sim_teardown() {
	sim_del_netns
	# Devices come back to the initial namespace when theirs goes away.
	rmmod devmemx_sim
}

# One counter from ethtool -S of dxsim1 (in netns rx).
rx_stat() {
	ip netns exec rx ethtool -S dxsim1 | awk -v k="$1:" '$1 == k { print $2 }'
}

# The kernel log since the test began: every test of a boot shares it.
DX_DMESG_START=$(dmesg | wc -l)
dmesg_new() { dmesg | tail -n +$((DX_DMESG_START + 1)); }

# jget KEY FILE: a number or string field of a one-line JSON object.
jget() {
	sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" "$2"
}

# csv_col NAME CSV: the number of column NAME in CSV's header.
csv_col() { head -n1 "$2" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }

# recv_start NAME PORT BYTES RECV-ARGS...: devmemx-rx recv on dxsim1 (netns
# rx, or where the command DX_RX_EXEC enters) in the background; its JSON
# line goes to /tmp/NAME.json.
declare -A DX_RECV_PID
DX_RX_EXEC="ip netns exec rx"
recv_start() {
	local name=$1 port=$2 bytes=$3
	shift 3
	$DX_RX_EXEC devmemx-rx recv --dev dxsim1 --port "$port" \
		--expect "$bytes" --timeout $((60 * DX_SLOW)) "$@" >/tmp/$name.json 2>/tmp/$name.err &
	DX_RECV_PID[$name]=$!
}

# send PORT BYTES: the pattern from netns tx; its JSON line (what held the
# sender back: TCP_INFO) goes to /tmp/send.json.
send() {
	ip netns exec tx devmemx-rx send --addr 192.0.2.2 --port "$1" \
		--bytes "$2" --timeout $((30 * DX_SLOW)) >/tmp/send.json
}

# recv_check NAME BYTES: receiver NAME got every byte and verified it.
recv_check() {
	local name=$1 bytes=$2 rc=0
	wait "${DX_RECV_PID[$name]}" || rc=$?
	[ $rc = 0 ] || fail "$name: recv $bytes bytes: exit $rc: $(cat /tmp/$name.err /tmp/$name.json)"
	expect_eq "$(jget bytes /tmp/$name.json)" "$bytes" "$name: bytes received"
	expect_eq "$(jget mismatches /tmp/$name.json)" 0 "$name: mismatching bytes"
}

# devmem_xfer BYTES PORT RECV-ARGS...: one flow, received as "rx"
# (/tmp/rx.json) while netns tx sends it; fails unless every byte arrived
# and verified.
devmem_xfer() {
	local bytes=$1 port=$2
	shift 2
	recv_start rx "$port" "$bytes" "$@"
	send "$port" "$bytes" || fail "send $bytes bytes to port $port: $(cat /tmp/rx.err)"
	recv_check rx "$bytes"
	# Let the finished binding go now rather than hold its memory.
	flush_deferred_skbs
}

# Page pools listed in netns $1 (page-pool-get dump), one JSON line each.
pools() { ip netns exec "$1" devmemx-rx pools -j; }
# How many of them hold a dma-buf binding (in-tree or devmemx).
dmabuf_pools() {
	local out
	out=$(pools "$1") || fail "the page-pool dump in netns $1"
	grep -c '"dmabuf"' <<<"$out" || true
}
# The id of each JSON line on stdin that begins with one (devmemx -j bind
# and show, devmemx-rx queues -j), one per line.
json_ids() { sed -n 's/^{"id":\([0-9]*\),.*/\1/p'; }

# Freed skbs wait on the per-CPU defer list of the CPU that received them
# until that CPU next runs NET_RX; their buffers keep page pools (and
# bindings) alive until then. Loopback traffic from each CPU flushes them.
flush_deferred_skbs() {
	local cpu
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1 || true
	done
}

# rx_in CMD...: CMD in the receiving side's network namespace: rx, or where
# RX_IN enters (a command that execs the rest, e.g. "nsenter -t PID -U -n").
rx_in() { ${RX_IN:-ip netns exec rx} "$@"; }

# listening PORT: a TCP socket listens on PORT in netns rx (rx_in).
listening() {
	rx_in cat /proc/net/tcp6 /proc/net/tcp |
		awk -v p=":$(printf %04X "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p' |
		grep -q .
}

# wait_until SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_until() {
	local end=$((SECONDS + $1 * DX_SLOW))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# niov_args PROVIDER SIZE: the recv arguments for niovs of SIZE bytes in
# NIOV_ARGS; false, saying why in a "# " line, where this kernel's PROVIDER
# cannot bind them (7.2's in-tree devmem binds 4K niovs only).
niov_args() {
	NIOV_ARGS=()
	if [ "$1" = netdev ] && [ "$2" != 4096 ] && [ "$DX_SERIES" = 7.2 ]; then
		echo "# in-tree $(($2 >> 10))K: 7.2's devmem binds 4K niovs only"
		return 1
	fi
	[ "$2" = 4096 ] || NIOV_ARGS=(--rx-page-size "$2")
}

# A "# " line with the last transfer's throughput and receiver CPU per GiB.
xfer_report() { # label
	awk -v l="$1" -v b="$(jget bytes /tmp/rx.json)" -v w="$(jget wall_sec /tmp/rx.json)" \
		-v c="$(jget cpu_sec /tmp/rx.json)" 'BEGIN {
		g = b / 1073741824
		printf "# %s: %d bytes, %.1f MB/s, %.2f receiver CPU s/GiB\n", l, b,
			(w > 0 ? b / w / 1e6 : 0), (g > 0 ? c / g : 0) }'
}

# devmemx's live objects, from INFO: "bindings niovs page-pools".
dx_live() {
	devmemx -j info | sed 's/.*"bindings":\([0-9]*\),"niovs":\([0-9]*\),"page-pools":\([0-9]*\).*/\1 \2 \3/'
}

# Wait until devmemx has no live binding, niov or page pool left.
dx_wait_idle() {
	idle() { flush_deferred_skbs; [ "$(dx_live)" = "0 0 0" ]; }
	wait_until 20 idle || fail "devmemx objects left (bindings niovs page-pools): $(dx_live)"
}

# dx_sim_devmem [mtu]: devmemx loaded, the sim up with HDS on, RSS kept on
# queues 0-1 so that 2 and 3 carry only steered flows.
dx_sim_devmem() {
	dx_load
	dx_sim_up "$@"
}

# dx_sim_up [mtu]: dx_sim_devmem's sim, devmemx loaded already.
dx_sim_up() {
	sim_setup 4 "${1:-1500}"
	ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	ip netns exec rx ethtool -X dxsim1 equal 2
}

# dx_sim_redo [mtu]: dx_sim_devmem's sim afresh, wherever the old one went
# (its namespaces deleted, its devices back in the initial one, or the
# module gone): a case that did that defers it.
dx_sim_redo() {
	sim_del_netns
	if grep -q '^devmemx_sim ' /proc/modules; then
		rmmod devmemx_sim
	fi
	dx_wait_idle
	dx_sim_up "$@"
}

dx_sim_teardown() {
	sim_teardown
	dx_wait_idle
	dx_unload
}

# ---- the kernel's ncdevmem -----------------------------------------------------
# send_pattern PORT BYTES: from netns tx, what devmem.py sends: the 6 bytes
# 01..06 and a newline, over and over.
send_pattern() {
	ip netns exec tx bash -c 'yes "$(echo -e "\x01\x02\x03\x04\x05\x06")" |
		head -c "$2" >/dev/tcp/"$3"/"$1"' _ "$1" "$2" "${3:-192.0.2.2}"
}

# userns_make: a user namespace owning a network namespace: OWNER, a
# process in both; in_userns runs a command there. The case's cleanups
# bring dxsim1 back to rx, as the setup had it, wherever it went.
in_userns() { nsenter -t "$OWNER" -U -n "$@"; }
userns_make() {
	unshare -Urn sleep 600 &
	OWNER=$!
	dx_defer userns_end
	# (Until unshare has run, the owner is in our user namespace.)
	entered() { [ "$(readlink /proc/$OWNER/ns/user)" != "$(readlink /proc/self/ns/user)" ]; }
	wait_until 5 entered || fail "no user namespace to enter"
	expect_eq "$(in_userns id -u)" 0 "uid in the user namespace"
}
# userns_move: dxsim1 moved into the user namespace's network namespace,
# up there with rx's address.
userns_move() {
	ip -n rx link set dxsim1 netns "$OWNER"
	userns_dev_up
}
userns_dev_up() {
	in_userns ip link set lo up
	in_userns ip addr add 192.0.2.2/24 dev dxsim1
	in_userns ip link set dxsim1 up
}
# A cleanup: dxsim1 back in rx with its addresses and up, and the user
# namespace gone. (iproute2's ip by its path: busybox's nsenter runs its
# own ip applet, which takes no netns name.)
in_rx_or_init() { rxx test -e /sys/class/net/dxsim1 || test -e /sys/class/net/dxsim1; }
userns_end() {
	local rc=0
	if nsenter -t "$OWNER" -n /sbin/ip link show dxsim1 >/dev/null 2>&1; then
		nsenter -t "$OWNER" -n /sbin/ip link set dxsim1 netns rx || rc=1
	fi
	# Its namespace gone, dxsim1 returns to the initial one.
	dx_stop "$OWNER" KILL
	wait_until 10 in_rx_or_init || fail "dxsim1 is neither in rx nor back in the initial namespace"
	if [ -e /sys/class/net/dxsim1 ]; then
		ip link set dxsim1 netns rx || return 1
	fi
	rxx ip addr replace 192.0.2.2/24 dev dxsim1 &&
		rxx ip addr replace 2001:db8::2/64 dev dxsim1 nodad &&
		rxx ip link set dxsim1 up &&
		dx_wait_idle &&
		return $rc
}

# shmem_huge: memfds get transparent huge pages (shmem_enabled always)
# until the case ends. The kernel's ncdevmem makes its udmabuf from a plain
# memfd, whose 4K pages hold no 64K-contiguous run once memory is
# fragmented: a 64K bind of it is refused ("no DMA-contiguous 65536-byte
# run in the dma-buf: use hugetlb memory").
# The debug build has no THP (its config is defconfig's): it says so, and
# ncdevmem's memfd stays in 4K pages there.
shmem_huge() {
	local f=/sys/kernel/mm/transparent_hugepage/shmem_enabled old
	if [ ! -e $f ]; then
		[ -n "$DX_DEBUG" ] || fail "no $f on a stock kernel"
		echo "# no shmem THP on this kernel: ncdevmem's memfd is 4K pages"
		return 0
	fi
	old=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $f)
	[ -n "$old" ] || fail "no shmem THP setting in $f"
	echo always >$f || fail "cannot set $f to always"
	dx_defer sh -c "echo $old >$f"
}

# ncd_recv NAME PORT [ncdevmem args]: the kernel's ncdevmem (unchanged)
# receives $BYTES on PORT of $NCD_ADDR into a udmabuf on queue $NCD_QUEUE
# of $NCD_DEV (192.0.2.2, 2 and dxsim1 unless set) and validates them (-v
# 7); output in /tmp/NAME.{out,err}. Fails unless every byte arrived in
# the dma-buf and passed validation. With NCD_WHILE set, that command runs
# once ncdevmem listens (it has bound), before the send. With RX_IN set,
# ncdevmem runs where it enters (rx_in). Sets NCD_FRAG_MAX (the largest
# fragment) and NCD_GRO.
NCD_DEV=dxsim1 NCD_ADDR=192.0.2.2 NCD_QUEUE=2
ncd_recv() {
	local name=$1 port=$2 rc=0 frags
	shift 2
	# (ip, busybox nsenter and timeout exec the command: $! is ncdevmem.)
	# 4M at 4K took 110 s on the debug lane: its time is DX_SLOW's.
	${RX_IN:-ip netns exec rx} timeout $((120 * DX_SLOW)) ncdevmem -l -f "$NCD_DEV" -s "$NCD_ADDR" \
		-p "$port" -v 7 -t "$NCD_QUEUE" -q 1 "$@" >/tmp/$name.out 2>/tmp/$name.err &
	NCD_PID=$!
	dx_defer dx_stop $NCD_PID
	up() { listening "$port" || ! kill -0 "$NCD_PID" 2>/dev/null; }
	wait_until 30 up && listening "$port" || {
		wait "$NCD_PID" || rc=$?
		NCD_PID=
		fail "$name: ncdevmem (exit $rc) not listening on $port: $(tail -n 5 /tmp/$name.err)"
	}
	[ -z "${NCD_WHILE:-}" ] || $NCD_WHILE
	# The sim's HW-GRO as ncdevmem's device configuration left it.
	NCD_GRO=$(rx_in ethtool -k "$NCD_DEV" | sed -n 's/^rx-gro-hw: //p')
	send_pattern "$port" "$BYTES" "$NCD_ADDR" || fail "$name: sending $BYTES bytes to port $port"
	wait "$NCD_PID" || rc=$?
	NCD_PID=
	[ $rc = 0 ] || fail "$name: ncdevmem exit $rc: $(tail -n 20 /tmp/$name.err)"
	grep -qx "ncdevmem: client exited" /tmp/$name.err ||
		fail "$name: ncdevmem did not see the sender finish: $(tail -n 5 /tmp/$name.err)"
	# It counts a mismatch and carries on (up to 20): none may be there.
	! grep -m 5 "^Failed validation" /tmp/$name.err ||
		fail "$name: ncdevmem found wrong bytes (above)"
	expect_eq "$(sed -n 's/^total_received=//p' /tmp/$name.err | tail -n 1)" "$BYTES" \
		"$name: bytes received into the dma-buf"
	# One "Validated buffer" line per dma-buf fragment, and nothing else.
	frags=$(grep -c '^received frag_page=' /tmp/$name.err || true)
	[ "$frags" -gt 0 ] || fail "$name: no dma-buf fragment"
	expect_eq "$(grep -cx 'Validated buffer' /tmp/$name.out)" "$frags" "$name: fragments validated"
	expect_eq "$(grep -cvx 'Validated buffer' /tmp/$name.out)" 0 "$name: other lines on stdout"
	NCD_FRAG_MAX=$(sed -n 's/.*frag_size=\([0-9]*\),.*/\1/p' /tmp/$name.err | sort -n | tail -n 1)
	echo "# $name: $BYTES bytes in $frags fragments, largest $NCD_FRAG_MAX," \
		"rx-gro-hw ${NCD_GRO:-unknown}"
	flush_deferred_skbs
}
