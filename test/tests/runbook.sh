# SPDX-License-Identifier: GPL-2.0
# dx-debug: no README's commands as a user types them: their kernel paths are devmemx-data's, devmemx-life's and sim-devmem's
# The mlx5 runbook (doc/mlx5.md) against devmemx_sim. Every block the
# runbook marks "<!-- runbook: NAME -->" is taken from the runbook as
# written and run with the sim's values for the runbook's variables (dxsim1
# for the mlx5 device; netns rx receives, tx sends); what each prints or
# moves is checked, and every marked block must have run.
. /dx/guestlib.sh

DOC=/dx/mlx5.md
# (BYTES as a plain number: the VM's head is busybox's, which has no "M".)
BYTES_N=$((8 * 1024 * 1024))
export IF=dxsim1 ADDR=192.0.2.2 PORT=5201 CHANNELS=4 RSS=2 Q=2 SIZE=64K \
	DMABUF=128M BYTES=$BYTES_N RUNS=1 RUNSEC=1 NAPICPU=1 RXCPU=0 \
	POD_NS=pod POD_ADDR=198.51.100.2
declare -A RAN

# block NAME: the ```sh block right after the marker, as the runbook has it
# (nothing when the marker is missing or not followed by such a block).
block() {
	awk -v m="<!-- runbook: $1 -->" '
		$0 == m { state = 1; next }
		state == 1 && $0 == "```sh" { state = 2; next }
		state == 1 { exit }
		state == 2 && $0 == "```" { exit }
		state == 2 { print }' "$DOC"
}

# code NAME: block NAME into CODE, counted as run.
code() {
	CODE=$(block "$1")
	[ -n "$CODE" ] || fail "runbook block $1: no marker followed by a \`\`\`sh block in $DOC"
	RAN[$1]=1
}

# run NS NAME: run block NAME in netns NS (bash -eu: stopping at the first
# failing command); its output in OUT.
run() {
	code "$2"
	OUT=$(ip netns exec "$1" bash -eu -c "$CODE") ||
		fail "runbook block $2 (in netns $1) failed: $CODE: $OUT"
}

# has WHAT TEXT LINE: TEXT has exactly the line LINE.
has() { grep -qxF -- "$3" <<<"$2" || fail "$1: no line '$3' in: $2"; }

# bg NAME [NS]: start block NAME in netns NS (rx) in the background;
# output in /tmp/rb-NAME.{out,err}, its pid in BG_PID.
bg() {
	code "$1"
	ip netns exec "${2:-rx}" bash -eu -c "$CODE" >/tmp/rb-$1.out 2>/tmp/rb-$1.err &
	BG_PID=$!
}

# bg_wait NAME: the background block NAME succeeded.
bg_wait() {
	local rc=0
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ $rc = 0 ] || fail "runbook block $1 exited $rc: $(tail -n 20 /tmp/rb-$1.err /tmp/rb-$1.out)"
}

# udmabuf's stock limit (64 MiB), not the VM's (udmabuf.size_limit_mb=1024
# at boot): a runbook that does not raise it fails at its first 128M
# dma-buf. The VM's 64 huge pages (hugepages=64 at boot) stay: given back,
# they may not come back (a 2M page at run time needs free contiguous
# memory), and later tests need them; the runbook adds its own on top.
LIMIT=/sys/module/udmabuf/parameters/size_limit_mb
vm_limit=$(cat $LIMIT) vm_pages=$(cat /proc/sys/vm/nr_hugepages)
echo 64 >$LIMIT
dx_load
sim_setup 4
BG_PID= RD_PID=
cleanup() {
	[ -z "$BG_PID" ] || kill "$BG_PID" 2>/dev/null || true
	[ -z "$RD_PID" ] || kill "$RD_PID" 2>/dev/null || true
	ip netns del pod 2>/dev/null || true
	ip -n rx link del nkh 2>/dev/null || true
	ip -n tx route del 198.51.100.2/32 2>/dev/null || true
	ip netns exec rx devmemx unbind all >/dev/null 2>&1 || true
	rm -f /tmp/ab.md /tmp/ab.csv /tmp/pod-ab.md /tmp/pod-ab.csv \
		/tmp/devmemx-udmabuf-limit /tmp/devmemx-hugepages
	dx_sim_teardown
	echo "$vm_limit" >$LIMIT
	[ "$(cat /proc/sys/vm/nr_hugepages)" = "$vm_pages" ] || echo "$vm_pages" >/proc/sys/vm/nr_hugepages
}
trap cleanup EXIT
cd /tmp

# ---- check the device: what is missing, with its fix ----------------------
run rx caps
out=$OUT
has caps "$out" "driver: devmemx_sim"
has caps "$out" "rx-buf-sizes: 4K 8K 16K 32K 64K 128K"
has caps "$out" "unmet: tcp-data-split is not enabled: ethtool -G dxsim1 tcp-data-split on"

# ---- set up the NIC --------------------------------------------------------
run rx nic
out=$OUT
expect_eq "$(tail -n 1 <<<"$out")" "unmet: none" "nic: caps after the set-up"
run rx memory
expect_eq "$(cat $LIMIT)" 256 "memory: udmabuf's limit"
[ "$(cat /proc/sys/vm/nr_hugepages)" -gt "$vm_pages" ] ||
	fail "memory: no huge pages added to the $vm_pages there were: $OUT"
echo "# memory: $(tr '\n' ' ' <<<"$OUT")"
has nic "$out" "queue-id: 2"
has nic "$out" "tcp-data-split: enabled"
has nic "$out" "rx-gro-hw: on"
rings=$(ip netns exec rx ethtool -g dxsim1)
expect_eq "$(sed -n 's/^TCP data split:[[:space:]]*//p' <<<"$rings")" on "nic: TCP data split"
expect_eq "$(ip netns exec rx ethtool -x dxsim1 | awk '$1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF; i++) print $i }' | sort -u | tr '\n' ' ')" \
	"0 1 " "nic: RSS spreads over queues 0-1 only"

run rx steer
out=$OUT
RULE=$(sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p' <<<"$out")
[ -n "$RULE" ] || fail "steer: no rule id in: $out"
export RULE
has steer "$out" "Filter: $RULE"
has steer "$out" "	Action: Direct to queue 2"
has steer "$out" "	Dest IP addr: 192.0.2.2 mask: 0.0.0.0"
has steer "$out" "	Dest port: 5201 mask: 0x0"

# ---- what a bind will give, then bind with the CLI, show, unbind -------------
run rx dry-run
out=$OUT
has dry-run "$out" "dma-buf: 128M, mapped for dxsim1; nothing bound"
expect_eq "$(tail -n 1 <<<"$out" | awk '{ $5 = "-"; print }')" "128K 1024 128M 0 - yes aligned <- size auto" \
	"dry-run: the row size auto takes"
expect_eq "$(ip netns exec rx devmemx -j show)" "" "dry-run: bindings after it"
run rx bind
out=$OUT
ID=$(sed -n 's/^id: \([0-9]*\)$/\1/p' <<<"$out" | head -n 1)
[ -n "$ID" ] || fail "bind: no binding id in: $out"
export ID
has bind "$out" "niov-size: 64K"
has bind "$out" "niov-count: 2048"
expect_eq "$(grep -c "^id: $ID\$" <<<"$out")" 2 "bind: the binding, then show listing it"
has bind "$out" "queues: id=2,buf-size=64K"
run rx unbind
expect_eq "$OUT" "unbound: 1" "unbind"
dx_wait_idle

# ---- receive and verify: devmemx-rx, then the kernel's ncdevmem ------------
bg recv
wait_until 30 listening 5201 || fail "recv: not listening: $(cat /tmp/rb-recv.err)"
run tx send
expect_eq "$(jget bytes_sent <(echo "$OUT"))" "$BYTES_N" "send: bytes sent"
bg_wait recv
expect_eq "$(jget bytes /tmp/rb-recv.out)" "$BYTES_N" "recv: bytes received"
expect_eq "$(jget mismatches /tmp/rb-recv.out)" 0 "recv: mismatching bytes"
# 64K niovs with HW-GRO: fragments longer than one 4K page.
[ "$(jget frag_max /tmp/rb-recv.out)" -gt 4096 ] ||
	fail "recv: no fragment above 4K with 64K niovs: $(cat /tmp/rb-recv.out)"
flush_deferred_skbs
dx_wait_idle

bg ncdevmem
wait_until 30 listening 5201 || fail "ncdevmem: not listening: $(tail -n 5 /tmp/rb-ncdevmem.err)"
run tx ncdevmem-send
bg_wait ncdevmem
! grep -m 5 "^Failed validation" /tmp/rb-ncdevmem.err ||
	fail "ncdevmem found wrong bytes (above)"
expect_eq "$(sed -n 's/^total_received=//p' /tmp/rb-ncdevmem.err | tail -n 1)" "$BYTES_N" \
	"ncdevmem: bytes received into the dma-buf"
grep -qx "Validated buffer" /tmp/rb-ncdevmem.out ||
	fail "ncdevmem validated nothing: $(tail -n 5 /tmp/rb-ncdevmem.err)"
flush_deferred_skbs

# ---- A/B: NAPI threaded; ab prints the sender's loop; run it as printed ----
# in netns tx.
threaded=$(ip netns exec rx cat /sys/class/net/dxsim1/threaded)
run rx pin
expect_eq "$(ip netns exec rx cat /sys/class/net/dxsim1/threaded)" 1 "pin: threaded NAPI"
bg ab
loops() { grep '^  for i in ' /tmp/rb-ab.out; }
wait_until 60 loops || fail "ab printed no sender loop: $(cat /tmp/rb-ab.out /tmp/rb-ab.err)"
case $DX_SERIES in
7.2) n=5 ;;	# netdev-4K, devmemx-4K/64K, zcrx-4K/64K (in-tree 64K needs 7.3)
*) n=6 ;;
esac
expect_eq "$(loops)" \
	"  for i in \$(seq $((n * (1 + RUNS)))); do devmemx-rx send --addr 192.0.2.2 --port 7400 --until-closed --timeout 120 || break; done" \
	"ab: the sender's loop"
ip netns exec tx bash -c "$(loops)" >/dev/null || fail "ab: the sender loop failed"
bg_wait ab
for cfg in netdev-4K devmemx-4K devmemx-64K zcrx-4K zcrx-64K; do
	expect_eq "$(awk -F, -v c="$cfg" '$4 == c { n++ } END { print n + 0 }' /tmp/ab.csv)" $((1 + RUNS)) \
		"ab: rows of $cfg in ab.csv"
done
grep -q '^| devmemx-64K / zcrx-64K | ' /tmp/ab.md || fail "ab: no devmemx-64K / zcrx-64K in ab.md: $(cat /tmp/ab.md)"
grep -q "^devmemx-rx: dxsim1's RX queue 2: NAPI thread [0-9]* on CPU 1$" /tmp/rb-ab.err ||
	fail "ab: no word of where queue 2's NAPI runs: $(cat /tmp/rb-ab.err)"
grep -q '1 s per run' /tmp/ab.md || fail "ab: not 1 s per run: $(head -n 3 /tmp/ab.md)"
grep -q 'CPU is the busy time of CPUs 1,0, ' /tmp/ab.md ||
	fail "ab: not CPUs 1,0 measured: $(grep 'CPU is' /tmp/ab.md)"

# ---- counters ----------------------------------------------------------------
run rx stats
out=$OUT
q2=$(grep "^dev dxsim1 queue-type rx queue-id 2 " <<<"$out") ||
	fail "stats: no qstats line for RX queue 2: $out"
grep -q ' rx-hw-gro-packets [1-9][0-9]* ' <<<"$q2" ||
	fail "stats: no HW-GRO on queue 2: $q2"
q2b=$(ip netns exec rx devmemx-rx qstats -j --dev dxsim1 | grep '"queue-type":0,"queue-id":2,') ||
	fail "stats: no JSON qstats for RX queue 2"
[ "$(jget rx-bytes <(echo "$q2b"))" -ge $((3 * BYTES_N)) ] ||
	fail "stats: queue 2 received less than recv, ncdevmem and ab sent: $q2b"
grep -Eq '^ +rx2_hw_gro_packets: [1-9][0-9]*$' <<<"$out" ||
	fail "stats: ethtool -S has no HW-GRO on queue 2: $out"

# ---- a pod on a leased queue: the host's steps, the pod's, the A/B ---------
ip netns add pod
forward=$(ip netns exec rx cat /proc/sys/net/ipv4/ip_forward)
run rx pod-lease
out=$OUT
has pod-lease "$out" "queue 1 of nkp leases queue 2 of dxsim1"
POD_RULE=$(sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p' <<<"$out")
[ -n "$POD_RULE" ] || fail "pod-lease: no rule id in: $out"
export POD_RULE
expect_eq "$(ip -n pod -br link show nkp | awk '{ print $1 }')" "nkp@if$(ip -n rx -o link show nkh | cut -d: -f1)" \
	"pod-lease: nkp in the pod, nkh's peer"
# pod-redirect runs until stopped (bash -c execs it: its pid is RD_PID).
code pod-redirect
ip netns exec rx bash -eu -c "$CODE" >/tmp/rb-pod-redirect.out 2>&1 &
RD_PID=$!
redirecting() { grep -q '^redirecting IPv4 for 198.51.100.2 from dxsim1 to nkh' /tmp/rb-pod-redirect.out; }
wait_until 10 redirecting || fail "pod-redirect: $(cat /tmp/rb-pod-redirect.out)"
run pod pod-net
bg pod-recv pod
pod_listening() { RX_IN="ip netns exec pod" listening 5201; }
wait_until 30 pod_listening || fail "pod-recv: not listening: $(cat /tmp/rb-pod-recv.err)"
show=$(ip netns exec pod devmemx show)
has "pod-recv: the pod's show" "$show" "queues: id=1,buf-size=64K,lease-queue=2"
expect_eq "$(ip netns exec rx devmemx -j show)" "" "pod-recv: the host's show"
run tx pod-route
run tx pod-send
expect_eq "$(jget bytes_sent <(echo "$OUT"))" "$BYTES_N" "pod-send: bytes sent"
bg_wait pod-recv
expect_eq "$(jget bytes /tmp/rb-pod-recv.out)" "$BYTES_N" "pod-recv: bytes received"
expect_eq "$(jget mismatches /tmp/rb-pod-recv.out)" 0 "pod-recv: mismatching bytes"
expect_eq "$(jget cmsgs_linear /tmp/rb-pod-recv.out)" 0 "pod-recv: bytes not in the dma-buf"
[ "$(jget frag_max /tmp/rb-pod-recv.out)" -gt 4096 ] ||
	fail "pod-recv: no fragment above 4K: $(cat /tmp/rb-pod-recv.out)"
flush_deferred_skbs
dx_wait_idle
bg pod-ab pod
pod_loops() { grep '^  for i in ' /tmp/rb-pod-ab.out; }
wait_until 60 pod_loops || fail "pod-ab printed no sender loop: $(cat /tmp/rb-pod-ab.out /tmp/rb-pod-ab.err)"
expect_eq "$(pod_loops)" \
	"  for i in \$(seq 4); do devmemx-rx send --addr 198.51.100.2 --port 5201 --until-closed --timeout 120 || break; done" \
	"pod-ab: the sender's loop"
ip netns exec tx bash -c "$(pod_loops)" >/dev/null || fail "pod-ab: the sender loop failed"
bg_wait pod-ab
for cfg in netdev-4K devmemx-64K; do
	expect_eq "$(awk -F, -v c="$cfg" '$4 == c { n++ } END { print n + 0 }' /tmp/pod-ab.csv)" 2 \
		"pod-ab: rows of $cfg in pod-ab.csv"
done
grep -q '^| devmemx-64K / netdev-4K | cmsgs/GiB | ' /tmp/pod-ab.md ||
	fail "pod-ab: no devmemx-64K / netdev-4K in pod-ab.md: $(cat /tmp/pod-ab.md)"
kill "$RD_PID"
wait "$RD_PID" || fail "pod-redirect: exit $? at SIGTERM"
RD_PID=
run rx pod-end
ip netns del pod
ip -n tx route del 198.51.100.2/32
ip netns exec rx sh -c "echo $forward >/proc/sys/net/ipv4/ip_forward"
dx_wait_idle
# (An in-tree binding's last pool goes once its buffers are back, after
# the receiver has exited.)
no_pools() { [ "$(dmabuf_pools rx)" = 0 ]; }
wait_until 20 no_pools || fail "pod-end: dxsim1's pools with a binding: $(dmabuf_pools rx)"
expect_eq "$(ip netns exec rx ethtool -n dxsim1 | grep -c '^Filter:' || true)" 1 "pod-end: rules left (steer's)"
echo "# pod: $(jget bytes /tmp/rb-pod-recv.out) bytes received in the pod, largest fragment $(jget frag_max /tmp/rb-pod-recv.out); pod-ab: $(awk -F' *[|] *' '$2 == "devmemx-64K / netdev-4K" { printf "%s%s %s", n++ ? ", " : "", $3, $4 }' /tmp/pod-ab.md)"

# ---- clean up ------------------------------------------------------------------
run rx restore
expect_eq "$(ip netns exec rx ethtool -n dxsim1 | grep -c '^Filter:' || true)" 0 "restore: rules left"
expect_eq "$(cat $LIMIT) $(cat /proc/sys/vm/nr_hugepages)" "64 $vm_pages" \
	"restore: udmabuf's limit and the huge pages"
expect_eq "$(ip netns exec rx cat /sys/class/net/dxsim1/threaded)" "$threaded" \
	"restore: NAPI threaded as before"
[ ! -e /tmp/devmemx-threaded ] || fail "restore: /tmp/devmemx-threaded left"
has restore "$(ip netns exec rx devmemx caps dev dxsim1)" \
	"unmet: tcp-data-split is not enabled: ethtool -G dxsim1 tcp-data-split on"

# Every block the runbook marks runnable ran here.
expect_eq "$(sed -n 's/^<!-- runbook: \([a-z0-9-]*\) -->$/\1/p' "$DOC" | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "${!RAN[@]}" | sort | tr '\n' ' ')" "runbook blocks run by this test"

trap - EXIT
rm -f /tmp/ab.md /tmp/ab.csv /tmp/pod-ab.md /tmp/pod-ab.csv
dx_sim_teardown
