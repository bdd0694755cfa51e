# SPDX-License-Identifier: GPL-2.0
# dx-matrix: the token array: its hooks on tcp_recvmsg_dmabuf, sock_devmem_dontneed and the socket's destroy, where this release's review passed
# The token array (doc/token-array.md): where the gate allows it (the
# review passed, devmemx-gate tests every refusal) INFO says ready,
# autorelease 0 binds, and its tokens are niov indices, handed back and
# given back at close; the hooks are there only while a token-array
# binding is. autorelease 1 binds and show says xarray. On a kernel whose
# review failed, the test is skipped with the review's reason.
. /dx/guestlib.sh

dx_need_review token-array
dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# token_array STATE WHY: INFO's token-array and its why, as text and JSON.
token_array() {
	local got
	got=$(devmemx info | sed -n 's/^token-array\(-why\)\{0,1\}: //p')
	expect_eq "$got" "$1
$2" "devmemx info: token-array"
	got=$(devmemx -j info | sed 's/.*"page-pools":[0-9]*,//; s/,"token-sockets".*/}/')
	expect_eq "$got" "\"token-array\":\"$1\",\"token-array-why\":\"$2\"}" \
		"devmemx -j info: token-array"
}

# left_nothing REF WHAT: after WHAT, no binding (dump empty), the module's
# reference count REF, no live niov and no dma-buf page pool.
left_nothing() {
	expect_eq "$(rxx devmemx -j show)" "" "the dump after $2"
	expect_eq "$(cat /sys/module/devmemx/refcnt)" "$1" "module refcount after $2"
	expect_eq "$(dx_live)" "0 0 0" "live objects after $2"
	expect_eq "$(dmabuf_pools rx)" 0 "dma-buf page pools after $2"
}

# still_binds: autorelease 1 and no autorelease bind, and show says xarray.
still_binds() {
	local id got
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M autorelease 1 --persist | json_ids)
	[ -n "$id" ] || fail "bind with autorelease 1"
	dx_defer unbind_all
	got=$(rxx devmemx show "$id" | grep '^autorelease:')
	expect_eq "$got" "autorelease: xarray" "show after autorelease 1"
	rxx devmemx -j show "$id" | grep -c '"exporter":"udmabuf","autorelease":"xarray","held-by":' >/dev/null ||
		fail "devmemx -j show: no \"autorelease\":\"xarray\": $(rxx devmemx -j show "$id")"
	id=$(rxx devmemx -j bind dev dxsim1 queues 3 --udmabuf 4M --persist | json_ids)
	[ -n "$id" ] || fail "bind without autorelease"
	got=$(rxx devmemx show "$id" | grep '^autorelease:')
	expect_eq "$got" "autorelease: xarray" "show after a bind without autorelease"
	unbind_all
}

# The token array's functions ftrace has hooks on (enabled_functions),
# one name per line: none while no token-array binding or socket is left.
tok_hooked() {
	local f=/sys/kernel/debug/tracing/enabled_functions
	[ -r $f ] || fail "no $f"
	grep -oE '^(tcp_recvmsg_dmabuf|sock_devmem_dontneed|tcp_v4_destroy_sock)\b' $f | sort || true
}
all_hooked="sock_devmem_dontneed
tcp_recvmsg_dmabuf
tcp_v4_destroy_sock"

# Reviewed: INFO says ready, and names the review; nothing hooked.
reviewed_info() {
	token_array ready "reviewed for $DX_KVER"
	expect_eq "$(devmemx -j info | sed -n 's/.*"hooks":\([0-9]*\),.*/\1/p')" 6 "hooks"
	expect_eq "$(tok_hooked)" "" "hooked before any token-array bind"
}
dx_case reviewed-info reviewed_info

# flow_tokens ARGS...: a verified 4M flow with devmemx-rx ARGS; every
# fragment's token handed back.
flow_tokens() {
	devmem_xfer $((4 << 20)) 5304 --queues 2 --provider devmemx "$@"
	expect_eq "$(jget tokens /tmp/rx.json)" "$(jget cmsgs_dmabuf /tmp/rx.json)" \
		"tokens handed back ($*)"
}

# Reviewed: autorelease 0 binds and receives. Every token is its niov's
# index in the dma-buf (offset / size, the dma-buf carved whole), one per
# fragment, handed back one each; the hooks are there only while the
# binding is, and nothing is left after.
reviewed_flows() {
	local n at rep
	flow_tokens --udmabuf 4M --autorelease 0
	n=$(jget cmsgs_dmabuf /tmp/rx.json)
	expect_eq "$(jget tokens_at_index /tmp/rx.json)" "$n" "4K: tokens that are niov indices"
	flow_tokens --udmabuf 4M --hugetlb --rx-page-size 64K --autorelease 0
	n=$(jget cmsgs_dmabuf /tmp/rx.json)
	at=$(jget tokens_at_index /tmp/rx.json)
	rep=$(jget token_repeats /tmp/rx.json)
	expect_eq "$at" "$n" "64K: tokens that are niov indices"
	[ "$rep" -gt 0 ] || fail "64K: no fragment shared its niov's token with the one before ($n fragments)"
	# The xarray's tokens are not (the contrast: this check can fail).
	flow_tokens --udmabuf 4M --hugetlb --rx-page-size 64K --autorelease 1
	n=$(jget cmsgs_dmabuf /tmp/rx.json)
	at=$(jget tokens_at_index /tmp/rx.json)
	[ "$at" -lt "$n" ] || fail "xarray mode: all $n tokens were niov indices"
	dx_wait_idle
	wait_until 10 tok_unhooked || fail "hooks left after the last token-array binding: $(tok_hooked)"
	token_array ready "reviewed for $DX_KVER"
	echo "# 64K token array: $rep of $n fragments shared the token before them"
}
tok_unhooked() { [ -z "$(tok_hooked)" ]; }
# INFO's token-sockets and token-bytes.
tok_mem() {
	devmemx -j info | sed -n 's/.*"token-sockets":\([0-9]*\),"token-bytes":\([0-9]*\)[,}].*/\1 \2/p'
}
dx_case reviewed-flows reviewed_flows

# Reviewed: while a token-array binding lives, the three functions are
# hooked and INFO says so; a receiver killed holding its tokens gives
# every niov back (its socket's destroy), and the hooks go with the
# binding.
reviewed_held() {
	local ref id
	ref=$(cat /sys/module/devmemx/refcnt)
	recv_start rx 5305 $((4 << 20)) --queues 2 --provider devmemx \
		--udmabuf 16M --hugetlb --rx-page-size 64K --autorelease 0 --hold 600
	dx_defer dx_stop "${DX_RECV_PID[rx]}"
	send 5305 $((4 << 20)) || fail "send: $(cat /tmp/rx.err)"
	holding() { grep -q "holding [0-9]* tokens" /tmp/rx.err; }
	wait_until 20 holding || fail "receiver holds no tokens: $(cat /tmp/rx.err)"
	expect_eq "$(tok_hooked)" "$all_hooked" "hooked with a token-array binding"
	token_array hooked "reviewed for $DX_KVER"
	# One socket's array: 256 niovs of 64K, 4 bytes each, and its 32-byte head.
	expect_eq "$(tok_mem)" "1 1056" "token-sockets and token-bytes while held"
	id=$(rxx devmemx -j show | json_ids)
	expect_eq "$(rxx devmemx show "$id" | grep '^autorelease:')" \
		"autorelease: token-array" "show of the receiver's binding"
	expect_eq "$(dx_live | cut -d" " -f1)" 1 "bindings while tokens are held"
	kill -9 "${DX_RECV_PID[rx]}"
	wait "${DX_RECV_PID[rx]}" 2>/dev/null || true
	flush_deferred_skbs
	dx_wait_idle
	left_nothing "$ref" "a receiver killed holding its tokens"
	expect_eq "$(tok_mem)" "0 0" "token-sockets and token-bytes after its close"
	wait_until 10 tok_unhooked || fail "hooks left after the binding: $(tok_hooked)"
}
dx_case reviewed-held reviewed_held

# TcpExt's COUNTER in netns rx.
tcpext() {
	ip netns exec rx awk -v c="$1" '$1 == "TcpExt:" && !n { for (i = 2; i <= NF; i++) k[i] = $i; n = 1; next }
		$1 == "TcpExt:" { for (i = 2; i <= NF; i++) if (k[i] == c) print $i }' /proc/net/netstat
}

# peer_start PORT [PAUSE]: the receiver started is stopped at the case's
# end; a peer (bash's /dev/tcp, in netns tx) sends it 1M of zeros (then
# makes /tmp/peer-1M), PAUSE s (default 3) later 1M more (then
# /tmp/peer-2M), and keeps the connection open until stopped; its pid in
# $peer.
peer_start() {
	dx_defer dx_stop "${DX_RECV_PID[rx]}"
	sleep 1
	rm -f /tmp/peer-1M /tmp/peer-2M
	ip netns exec tx bash -c "exec 3<>/dev/tcp/192.0.2.2/$1 &&
		head -c 1048576 /dev/zero >&3 && touch /tmp/peer-1M && sleep ${2:-3} &&
		head -c 1048576 /dev/zero >&3 && touch /tmp/peer-2M && exec sleep 600" &
	peer=$!
	dx_defer dx_stop "$peer"
}
got_array() { [ "$(tok_mem | cut -d' ' -f1)" = 1 ]; }
no_array() { [ "$(tok_mem)" = "0 0" ]; }
# The peer has written its first 1M (with an argument: its second too)
# and has nothing unacked (/proc/net/tcp tx_queue 0).
peer_acked() {
	[ -e /tmp/peer-${1:-1}M ] && ip netns exec tx awk -v p="$(printf ':%04X' "$port")" \
		'$3 ~ p"$" && $4 == "01" { f = 1; if ($5 !~ /^00000000:/) bad = 1 }
		END { exit !(f && !bad) }' /proc/net/tcp /proc/net/tcp6
}
# Both of the peer's 1M acked, and the receiver's queue empty (rx_queue 0):
# it has read everything.
all_read() {
	peer_acked 2 && ip netns exec rx awk -v p="$(printf ':%04X' "$port")" \
		'$2 ~ p"$" && $4 == "01" { f = 1; if ($5 !~ /:00000000$/) bad = 1 }
		END { exit !(f && !bad) }' /proc/net/tcp /proc/net/tcp6
}

# close_holding PORT HOW: a receiver holding every token of 1M of a
# connection its peer keeps open (bash's /dev/tcp: 1M, 3 s, 1M more) is
# killed; HOW "reset": stopped first, so that the second 1M waits unread
# and its close resets the connection (TcpExt TCPAbortOnClose); "orphan":
# it read all, and its close leaves an orphan in FIN_WAIT that goes when
# its FIN is acked. Either way every niov comes back at the destroy.
close_holding() {
	local port=$1 how=$2 ref aborts peer conn
	ref=$(cat /sys/module/devmemx/refcnt)
	aborts=$(tcpext TCPAbortOnClose)
	# 4K buffers: 4096 of them, so that the second 1M finds buffers too
	# (64K ones each hold a few packets only, and 1M can take them all).
	recv_start rx "$port" $((2 << 20)) --queues 2 --provider devmemx \
		--udmabuf 16M --autorelease 0 --hold 600 --no-verify
	peer_start "$port"
	wait_until 20 got_array || fail "$how: no token array: $(cat /tmp/rx.err)"
	if [ "$how" = reset ]; then
		kill -STOP "${DX_RECV_PID[rx]}"
		sleep 5
	else
		# Killed with nothing unread: only then is the close no reset.
		wait_until $((20 * DX_SLOW)) all_read ||
			fail "orphan: the receiver never read both 1M"
	fi
	# The connection's queues (hex tx:rx) and state, for a failure below.
	conn=$(ip netns exec rx awk -v p="$(printf ':%04X' "$port")" \
		'$2 ~ p"$" { print $4, $5 }' /proc/net/tcp /proc/net/tcp6)
	conn="$conn; the peer's: $(ip netns exec tx awk -v p="$(printf ':%04X' "$port")" \
		'$3 ~ p"$" { print $4, $5 }' /proc/net/tcp /proc/net/tcp6); $(grep -c . /tmp/rx.err) receiver lines: $(tail -n 2 /tmp/rx.err)"
	kill -9 "${DX_RECV_PID[rx]}"
	wait "${DX_RECV_PID[rx]}" 2>/dev/null || true
	wait_until 20 no_array || fail "$how: the socket's array outlived it: $(tok_mem)"
	if [ "$how" = reset ]; then
		[ "$(tcpext TCPAbortOnClose)" -gt "$aborts" ] ||
			fail "reset: the close reset nothing (TCPAbortOnClose $aborts; state, queues: $conn)"
	else
		expect_eq "$(tcpext TCPAbortOnClose)" "$aborts" "orphan: TCPAbortOnClose"
	fi
	kill "$peer" 2>/dev/null || true
	wait "$peer" 2>/dev/null || true
	flush_deferred_skbs
	dx_wait_idle
	left_nothing "$ref" "a $how close holding tokens"
	wait_until 10 tok_unhooked || fail "$how: hooks left: $(tok_hooked)"
}

# Reviewed: held tokens come back when the socket closes by a reset and
# as an orphan.
reviewed_closes() {
	close_holding 5307 reset
	close_holding 5308 orphan
}
dx_case reviewed-closes reviewed_closes

# Reviewed: UNBIND while a receiver holds tokens leaves the binding
# draining, its socket's array and the hooks in place; rmmod is refused
# (the draining binding and the array each hold a module reference). The
# receiver then gives every token back by SO_DEVMEM_DONTNEED through the
# array, and nothing is left.
reviewed_unbind() {
	local ref id out
	ref=$(cat /sys/module/devmemx/refcnt)
	recv_start rx 5309 $((1 << 20)) --queues 2 --provider devmemx \
		--udmabuf 8M --hugetlb --rx-page-size 16K --autorelease 0 \
		--hold $((10 * DX_SLOW))
	dx_defer dx_stop "${DX_RECV_PID[rx]}"
	send 5309 $((1 << 20)) || fail "send: $(cat /tmp/rx.err)"
	held() { grep -q "holding [0-9]* tokens" /tmp/rx.err; }
	wait_until 20 held || fail "receiver holds no tokens: $(cat /tmp/rx.err)"
	id=$(rxx devmemx -j show | json_ids)
	expect_eq "$(rxx devmemx unbind "$id")" "unbound: 1" "unbind while tokens are held"
	out=$(rxx devmemx show "$id")
	echo "$out" | grep -qx 'state: draining' && echo "$out" | grep -qx 'autorelease: token-array' ||
		fail "show of the unbound token-array binding whose tokens are held: $out"
	expect_eq "$(tok_mem | cut -d' ' -f1)" 1 "token-sockets after the unbind"
	expect_eq "$(tok_hooked)" "$all_hooked" "hooks after the unbind, tokens held"
	out=$(rmmod devmemx 2>&1) && fail "rmmod while tokens are held: it went"
	expect_eq "$out" "rmmod: can't unload module 'devmemx': Resource temporarily unavailable" \
		"rmmod while tokens are held"
	# devmemx-rx exits non-zero when a DONTNEED frees fewer than it asked
	recv_check rx $((1 << 20))
	expect_eq "$(jget tokens /tmp/rx.json)" "$(jget cmsgs_dmabuf /tmp/rx.json)" \
		"tokens given back after the unbind"
	flush_deferred_skbs
	dx_wait_idle
	left_nothing "$ref" "an unbind while tokens were held"
	expect_eq "$(tok_mem)" "0 0" "token-sockets and token-bytes after the drain"
	wait_until 10 tok_unhooked || fail "hooks left after the drain: $(tok_hooked)"
}
dx_case reviewed-unbind reviewed_unbind

# Reviewed: a token-array socket takes the fragments of its own binding
# only. Its flow, moved from queue 2 to queue 3 (an xarray-mode binding)
# midway, fails its receive with EFAULT, as upstream's does; the other
# binding and the token array go on.
reviewed_mixed() {
	local ref port=5309 rule peer rc=0
	ref=$(cat /sys/module/devmemx/refcnt)
	rxx devmemx -j bind dev dxsim1 queues 3 --udmabuf 4M autorelease 1 --persist |
		json_ids | grep -q . || fail "an xarray binding on queue 3"
	dx_defer unbind_all
	rule=$(rxx ethtool -N dxsim1 flow-type tcp4 dst-port $port action 2 |
		sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || fail "tcp4 rule to queue 2"
	recv_start rx $port $((2 << 20)) --queues 2 --provider devmemx \
		--udmabuf 16M --hugetlb --rx-page-size 64K --autorelease 0 \
		--no-flow-rule --no-verify
	# A pause long enough for the move below (each command takes seconds
	# on the debug kernel).
	peer_start "$port" $((3 * DX_SLOW))
	wait_until 20 got_array || fail "no token array: $(cat /tmp/rx.err)"
	# Move the flow in the peer's pause, once its first 1M is acked:
	# between the two rules its packets would take RSS's queues.
	wait_until 20 peer_acked || fail "the peer's first 1M was never acked"
	rxx ethtool -N dxsim1 delete "$rule"
	rule=$(rxx ethtool -N dxsim1 flow-type tcp4 dst-port $port action 3 |
		sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || fail "tcp4 rule to queue 3"
	dx_defer rxx ethtool -N dxsim1 delete "$rule"
	wait "${DX_RECV_PID[rx]}" || rc=$?
	expect_eq "$rc" 1 "the receiver's exit"
	grep -q "^devmemx-rx: recvmsg after [0-9]* bytes: Bad address$" /tmp/rx.err ||
		fail "no EFAULT: $(cat /tmp/rx.err)"
	kill "$peer" 2>/dev/null || true
	wait "$peer" 2>/dev/null || true
	wait_until 20 no_array || fail "the socket's array outlived it: $(tok_mem)"
	# The xarray binding is still there (the receiver's listed until its
	# niovs are back); a token-array flow still runs.
	one_left() { flush_deferred_skbs; [ "$(rxx devmemx -j show | json_ids | wc -l)" = 1 ]; }
	wait_until 20 one_left || fail "bindings left: $(rxx devmemx -j show | json_ids)"
	flow_tokens --udmabuf 4M --autorelease 0
	unbind_all
	left_nothing "$ref" "a token-array socket refused another binding's fragment"
}
dx_case reviewed-mixed reviewed_mixed

# probe ARGS...: an 8M flow received into 4K buffers with every token held,
# then SO_DEVMEM_DONTNEED probed (devmemx-rx --probe-dontneed); its answers.
probe() {
	local bytes=$((8 << 20))
	recv_start rx 5306 $bytes --queues 2 --udmabuf 16M --hold 600 \
		--probe-dontneed "$@"
	send 5306 $bytes || fail "send $bytes bytes ($*): $(cat /tmp/rx.err)"
	recv_check rx $bytes
	sed -n 's/.*"dontneed_probe":"\([^"]*\)".*/\1/p' /tmp/rx.json
}

# Reviewed: SO_DEVMEM_DONTNEED answers alike on in-tree devmem, the xarray
# and the token array: 1025 fragments give back 1024; a held token gives
# back one fragment a call, as often as it is held, then nothing; a token
# not held and one past any binding nothing; 129 entries, a length not of
# entries, and a UDP socket are refused. What the receiver still held
# comes back at its close.
reviewed_dontneed() {
	local mode got h re
	re='^limit=1024 more=([0-9]+)/([0-9]+) again=0 unheld=0 past=0 entries=EINVAL odd=EINVAL udp=EBADF$'
	for mode in "--provider netdev" "--provider devmemx --autorelease 1" \
		"--provider devmemx --autorelease 0"; do
		# shellcheck disable=SC2086
		got=$(probe $mode)
		[[ $got =~ $re ]] || fail "$mode: DONTNEED answered '$got'"
		h=${BASH_REMATCH[2]}
		expect_eq "${BASH_REMATCH[1]}" "$h" "$mode: a token held $h times gave back"
		[ "$h" -ge 1 ] || fail "$mode: the 1025th fragment's token is held $h times"
		flush_deferred_skbs
		dx_wait_idle
		echo "# $mode: $got"
	done
}
dx_case reviewed-dontneed reviewed_dontneed

# Reviewed: autorelease 1 (and none) binds, and a verified flow arrives.
reviewed_xarray() {
	still_binds
	devmem_xfer $((1 << 20)) 5302 --queues 2 --provider devmemx --autorelease 1 \
		--udmabuf 4M
	dx_wait_idle
}
dx_case reviewed-xarray reviewed_xarray

# Bad values: the CLI's and devmemx-rx's usage errors.
bad_usage() {
	expect_err 2 'devmemx: bad autorelease "2": use 0 (token array) or 1 (xarray)' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 2
	expect_err 2 'devmemx: bad autorelease "xarray": use 0 (token array) or 1 (xarray)' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease xarray
	expect_err 2 'devmemx: autorelease needs 0|1' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease
	expect_err 2 'devmemx-rx: bad --autorelease "01": use 0 (token array) or 1 (xarray)' \
		rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 5303 --expect 1M \
		--provider devmemx --autorelease 01
	expect_err 2 "devmemx-rx: --autorelease is devmemx's: add --provider devmemx (in-tree devmem of this kernel has no autorelease)" \
		rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 5303 --expect 1M \
		--autorelease 1
	expect_eq "$(dx_live)" "0 0 0" "live objects after bad usage"
}
dx_case bad-usage bad_usage

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
