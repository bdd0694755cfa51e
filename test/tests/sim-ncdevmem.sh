# SPDX-License-Identifier: GPL-2.0
# dx-matrix: the kernel's own devmem client through the sim: this kernel's in-tree devmem, its bind-rx and its queue restarts, on which the provider stands
# The kernel's own devmem reference client, ncdevmem (built from Debian's
# linux-source-7.2, tools/testing/selftests/drivers/net/hw/ncdevmem.c),
# through devmemx_sim as a new user would run it: its bind self-tests, then
# its receive with validation (-v 7) of the pattern devmem.py sends, once
# with the device configured by the test (-n) and then, with the sim's
# HW-GRO on and off, configuring the device itself (HDS through ethtool
# netlink, ethtool -X equal, ethtool -N dst-ip/dst-port rule, restored at
# exit).
. /dx/guestlib.sh

BYTES=$((4 * 1024 * 1024))

sim_setup 4
dx_defer sim_teardown

# What ncdevmem must leave behind as it found it.
rings() { ip netns exec rx ethtool -g dxsim1; }
rss_state() { ip netns exec rx ethtool -x dxsim1 | grep -E '^[[:space:]]*[0-9]+:'; }
nrules() { ip netns exec rx ethtool -n dxsim1 | grep -c '^Filter:' || true; }
rings0=$(rings)
rss0=$(rss_state)

# Header split back as the sim had it. ethtool shows the driver's default
# ("unknown") as n/a and sets it as auto.
rings_back() {
	local split0
	split0=$(sed -n 's/^TCP data split:[[:space:]]*//p' <<<"$rings0")
	[ "$split0" != n/a ] || split0=auto
	ip netns exec rx ethtool -G dxsim1 tcp-data-split "$split0" \
		hds-thresh "$(sed -n 's/^HDS thresh:[[:space:]]*//p' <<<"$rings0" | tail -n 1)"
}
# A cleanup: the device as the sim had it, whatever a case (or an
# ncdevmem that did not get to its exit) left: no ntuple rule, RSS and
# header split as they were.
dev_back() {
	local r
	for r in $(ip netns exec rx ethtool -n dxsim1 | sed -n 's/^Filter: //p'); do
		ip netns exec rx ethtool -N dxsim1 delete "$r"
	done
	[ "$(rss_state)" = "$rss0" ] || ip netns exec rx ethtool -X dxsim1 default
	[ "$(rings)" = "$rings0" ] || rings_back
}

# ---- bind self-tests ----------------------------------------------------------
self_line() { # line: the self-test printed exactly this line
	grep -qxF "$1" /tmp/ncd-self.err ||
		fail "ncdevmem -f dxsim1 did not print '$1': $(cat /tmp/ncd-self.err)"
}

# ncdevmem's bind self-tests (-f dxsim1 alone), the device left as it was.
# No -s/-c: on queues 2-3 (half of the 4) it
# checks that binding no queue and binding with header split off are
# refused, that a bind works, and that shrinking the channels under the
# binding is refused. Exit 0 when all hold.
self_tests() {
	local rc=0
	dx_defer dev_back
	ip netns exec rx ncdevmem -f dxsim1 >/tmp/ncd-self.out 2>/tmp/ncd-self.err || rc=$?
	[ $rc = 0 ] || fail "ncdevmem -f dxsim1: exit $rc: $(cat /tmp/ncd-self.err)"
	self_line "using ifindex=$(ip netns exec rx cat /sys/class/net/dxsim1/ifindex)"
	self_line "YNL failed: Kernel error: missing attribute: .queues.id"
	self_line "YNL failed: Kernel error: 'tcp-data-split is disabled'"
	grep -q '^got dmabuf id=[0-9]*$' /tmp/ncd-self.err ||
		fail "ncdevmem -f dxsim1: no successful bind: $(cat /tmp/ncd-self.err)"
	expect_eq "$(rings)" "$rings0" "ring settings (header split) after the self-tests"
	expect_eq "$(rss_state)" "$rss0" "RSS table after the self-tests"
	# What needs the sim's channels (issue 7). The self-tests' channel
	# check passes on any refusal; the core must be what refused it
	# (ethtool_check_max_channel: queues 2-3 hold the provider, so fewer
	# than 4 channels), not a driver without set_channels.
	self_line "YNL set channels: Kernel error: 'requested channel counts are too low for existing memory provider setting (4)'"
	flush_deferred_skbs
}

# ---- receive: ncd_recv (guestlib.sh) ---------------------------------------

# ncdevmem -n on a device the test configured (HDS, RSS, dst-port rule).
# The rule has the form devmem.py uses in its netns variant (dst-port and
# queue only); ncdevmem -n leaves it alone.
configured() {
	local id
	dx_defer dev_back
	ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	ip netns exec rx ethtool -X dxsim1 equal 2
	id=$(ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port 7001 action 2 |
		sed -n 's/^Added rule with ID //p')
	[ -n "$id" ] || fail "ethtool -N dst-port 7001 action 2: no rule id"
	ncd_recv ncd-n 7001 -n
	expect_eq "$(nrules)" 1 "ntuple rules after ncdevmem -n"
	ip netns exec rx ethtool -N dxsim1 delete "$id"
	ip netns exec rx ethtool -X dxsim1 default
	rings_back
	expect_eq "$(rings)" "$rings0" "ring settings restored by the test"
}

# ncd_gro on|off PORT: as a new user runs it: ncdevmem configures header
# split, RSS and the flow rule (flow-type tcp4 dst-ip 192.0.2.2 dst-port P
# queue 2) itself and undoes them at exit; with the sim's HW-GRO as given.
ncd_gro() {
	local gro=$1 port=$2
	dx_defer ip netns exec rx ethtool -K dxsim1 rx-gro-hw on
	dx_defer dev_back
	ip netns exec rx ethtool -K dxsim1 rx-gro-hw $gro ||
		fail "ethtool -K dxsim1 rx-gro-hw $gro refused"
	ncd_recv "ncd-gro-$gro" $port
	expect_eq "${NCD_GRO%% *}" "$gro" "rx-gro-hw while ncdevmem received"
	# Without HW-GRO a fragment holds one packet's payload (MTU 1500: 1448);
	# with it, payloads coalesce up to the 4K niov.
	[ $gro = on ] || [ "$NCD_FRAG_MAX" -le 1448 ] ||
		fail "rx-gro-hw off: a fragment of $NCD_FRAG_MAX bytes"
	[ $gro = off ] || [ "$NCD_FRAG_MAX" -gt 1448 ] ||
		fail "rx-gro-hw on: no fragment above one packet's payload (largest $NCD_FRAG_MAX)"
	grep -qx "Added flow rule with ID [0-9]*" /tmp/ncd-gro-$gro.err ||
		fail "ncdevmem did not add its flow rule: $(head -n 20 /tmp/ncd-gro-$gro.err)"
	expect_eq "$(nrules)" 0 "ntuple rules left by ncdevmem (rx-gro-hw $gro)"
	expect_eq "$(rings)" "$rings0" "ring settings left by ncdevmem (rx-gro-hw $gro)"
	expect_eq "$(rss_state)" "$rss0" "RSS table left by ncdevmem (rx-gro-hw $gro)"
}

dx_case self-tests self_tests
dx_case configured configured
# ncdevmem configuring the device itself, the sim's HW-GRO on.
dx_case gro-on ncd_gro on 7101
# ncdevmem configuring the device itself, the sim's HW-GRO off.
dx_case gro-off ncd_gro off 7102
