# SPDX-License-Identifier: GPL-2.0
# devmemx caps: values decoded by name (raw numbers with -j), and each unmet
# prerequisite of a bind named with the command that fixes it. Each is
# broken on purpose, must appear with its exact text, and must go away when
# the command caps printed is run as printed.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
ifx=$(rxx cat /sys/class/net/dxsim1/ifindex)
# unmet [caps args]: caps's "unmet:" lines of dxsim1, one per line.
unmet() { rxx devmemx caps dev dxsim1 "$@" | sed -n 's/^unmet: //p'; }

# expect_unmet MESSAGES [caps args]: caps names exactly MESSAGES (lines, in
# fixing order); then each one's command (what follows its last ": ") is
# run in netns rx as printed, in that order, and caps names nothing.
expect_unmet() {
	local msgs=$1 msg fix
	shift
	expect_eq "$(unmet "$@")" "$msgs" "unmet prerequisites"
	while read -r msg; do
		fix=${msg##*: }
		# shellcheck disable=SC2086 # the command as caps printed it
		rxx $fix >/dev/null || fail "'$fix' (as caps printed it) failed"
	done <<<"$msgs"
	expect_eq "$(unmet "$@")" none "unmet after running: $msgs"
}

# A cleanup: dxsim1's settings as dx_sim_devmem made them, in the order
# they must be fixed (XDP, HW-GRO, the split), and caps says so.
settings_back() {
	rxx ip link set dev dxsim1 xdpgeneric off 2>/dev/null
	rxx ethtool -K dxsim1 rx-gro-hw on 2>/dev/null
	rxx ethtool -G dxsim1 tcp-data-split on hds-thresh 0 2>/dev/null
	expect_eq "$(unmet)" none "unmet after dxsim1's settings were put back"
}
# A cleanup: whatever is bound in netns rx, unbound.
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# Every prerequisite met: decoded, and raw with -j. The sizes come from
# the driver's validator, which logs each size it refuses, as mlx5's does:
# the probe stops at the first, so one line.
all_met() {
	local lines
	lines=$(dmesg | wc -l)
	rxx devmemx caps dev dxsim1 >/dev/null
	expect_eq "$(dmesg | tail -n +$((lines + 1)) | sed 's/^\[[^]]*\] *//')" \
		"devmemx_sim dxsim1: Selected rx_page_size 262144 not in supported range [4096, 131072]" \
		"the kernel log of one caps"
	expect_eq "$(rxx devmemx caps dev dxsim1 queue 2)" "dev: dxsim1
queue-id: 2
driver: devmemx_sim
tcp-data-split: enabled
hds-thresh: 0
rx-page-size: yes
rx-buf-sizes: 4K 8K 16K 32K 64K 128K
queues: 4
dma-bounce: no
rx-gro-hw: on
xdp: none
unmet: none" "caps of dxsim1 queue 2, all met"
	expect_eq "$(rxx devmemx -j caps dev dxsim1 queue 2)" \
		"{\"ifindex\":$ifx,\"queue-id\":2,\"driver\":\"devmemx_sim\",\"tcp-data-split\":2,\"hds-thresh\":0,\"rx-page-size\":1,\"rx-buf-sizes\":258048,\"queues\":4,\"dma-bounce\":0,\"rx-gro-hw\":1,\"xdp\":0,\"unmet\":[]}" \
		"caps -j of dxsim1 queue 2, all met"
}

# The device's settings, one at a time: tcp-data-split off.
tcp_data_split() {
	dx_defer settings_back
	rxx ethtool -G dxsim1 tcp-data-split off
	expect_eq "$(rxx devmemx caps dev dxsim1 | sed -n 's/^tcp-data-split: //p')" \
		disabled "tcp-data-split by name"
	expect_unmet "tcp-data-split is not enabled: ethtool -G dxsim1 tcp-data-split on"
}

# The device's settings, one at a time: hds-thresh not 0.
hds_thresh() {
	dx_defer settings_back
	rxx ethtool -G dxsim1 hds-thresh 100
	expect_unmet "hds-thresh is 100: ethtool -G dxsim1 hds-thresh 0"
}

# The device's settings, one at a time: HW-GRO off.
rx_gro_hw() {
	dx_defer settings_back
	rxx ethtool -K dxsim1 rx-gro-hw off
	expect_unmet "rx-gro-hw is off: ethtool -K dxsim1 rx-gro-hw on"
}

# XDP: a multi-buffer program (a single-buffer one cannot be attached
# while tcp-data-split is enabled). Generic XDP turns HW-GRO off, which
# stays off after it goes (as mlx5 drops HW-GRO for XDP).
xdp() {
	dx_defer settings_back
	rxx dx-xdp-pass dxsim1 frags
	expect_eq "$(rxx devmemx caps dev dxsim1 | sed -n 's/^xdp: //p')" generic \
		"xdp mode by name"
	expect_eq "$(rxx devmemx -j caps dev dxsim1 | sed -n 's/.*"xdp":\([0-9]*\).*/\1/p')" 2 \
		"xdp mode with -j (XDP_ATTACHED_SKB)"
	expect_err 1 "devmemx: bind to dxsim1: dxsim1 has an XDP program attached (File exists)" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M
	expect_unmet "an XDP program is attached (generic): ip link set dev dxsim1 xdpgeneric off
rx-gro-hw is off: ethtool -K dxsim1 rx-gro-hw on"
}

# Several at once, in the order they must be fixed: XDP first (a
# single-buffer program keeps tcp-data-split from being enabled), HW-GRO
# before tcp-data-split (mlx5 refuses the split without it).
several() {
	dx_defer settings_back
	rxx ethtool -G dxsim1 tcp-data-split off hds-thresh 7
	rxx dx-xdp-pass dxsim1
	! rxx ethtool -G dxsim1 tcp-data-split on 2>/dev/null ||
		fail "tcp-data-split enabled with single-buffer XDP attached"
	expect_unmet "an XDP program is attached (generic): ip link set dev dxsim1 xdpgeneric off
rx-gro-hw is off: ethtool -K dxsim1 rx-gro-hw on
tcp-data-split is not enabled: ethtool -G dxsim1 tcp-data-split on
hds-thresh is 7: ethtool -G dxsim1 hds-thresh 0"
}

# A queue held by a devmemx binding: caps names it, and the unbind.
bound_by_devmemx() {
	local id
	dx_defer unbind_all
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M --persist |
		json_ids)
	[ -n "$id" ] || fail "persistent bind of queue 2"
	expect_eq "$(unmet queue 3)" none "queue 3 while queue 2 is bound"
	expect_eq "$(unmet)" "queue 2 is bound to devmemx binding $id: devmemx unbind $id" \
		"caps of the device while queue 2 is bound"
	expect_eq "$(rxx devmemx -j caps dev dxsim1 queue 2 | sed 's/.*"unmet":/"unmet":/')" \
		"\"unmet\":[\"queue 2 is bound to devmemx binding $id: devmemx unbind $id\"]}" \
		"unmet with -j"
	expect_unmet "queue 2 is bound to devmemx binding $id: devmemx unbind $id" queue 2
	dx_wait_idle
}

# A queue held by in-tree devmem: caps names it, and how it ends.
bound_in_tree() {
	local rpid iid
	# (not through rxx: $! must be devmemx-rx itself, which ip netns exec becomes)
	ip netns exec rx devmemx-rx recv --dev dxsim1 --queues 3 --port 9300 --expect 1 \
		--timeout $((30 * DX_SLOW)) >/dev/null 2>/tmp/caps-recv.err &
	rpid=$!
	dx_defer dx_stop "$rpid"
	intree_bound() { [ "$(dmabuf_pools rx)" != 0 ]; }
	wait_until 10 intree_bound || fail "the in-tree binding did not appear: $(cat /tmp/caps-recv.err)"
	iid=$(rxx devmemx-rx queues -j | sed -n 's/.*"id":3,.*"dmabuf":\([0-9]*\).*/\1/p')
	[ -n "$iid" ] || fail "queue 3's in-tree binding id: $(rxx devmemx-rx queues -j)"
	expect_eq "$(unmet queue 3)" \
		"queue 3 is bound to in-tree devmem binding $iid: it ends when the process that bound it exits" \
		"caps of queue 3 while in-tree devmem holds it"
	expect_eq "$(unmet queue 2)" none "queue 2 while queue 3 is bound in-tree"
	kill "$rpid"
	wait "$rpid" || true
	intree_gone() { [ "$(unmet queue 3)" = none ]; }
	wait_until 10 intree_gone || fail "queue 3 still held after its process exited: $(unmet queue 3)"
}

# An ethtool that cannot set hds-thresh (trixie's 6.14), and none at all.
old_ethtool() {
	dx_defer settings_back
	rxx ethtool -G dxsim1 tcp-data-split off
	mkdir -p /tmp/old-ethtool
	printf '#!/bin/sh\necho "ethtool version 6.14"\n' >/tmp/old-ethtool/ethtool
	chmod +x /tmp/old-ethtool/ethtool
	expect_eq "$(rxx env PATH=/tmp/old-ethtool:$PATH devmemx caps dev dxsim1 2>&1 >/dev/null)" \
		'devmemx: this ethtool (6.14) cannot set hds-thresh and refuses "ethtool -G ... hds-thresh 0": it needs 6.15 or later (Debian: trixie-backports or sid)' \
		"caps with ethtool 6.14"
	expect_eq "$(rxx env PATH=/tmp/no-such-dir "$(command -v devmemx)" caps dev dxsim1 2>&1 >/dev/null)" \
		'devmemx: ethtool is not installed; the fixes below need it (apt install ethtool, 6.15 or later)' \
		"caps without ethtool"
	expect_eq "$(rxx devmemx caps dev dxsim1 2>&1 >/dev/null)" "" "caps with the VM's ethtool ($(ethtool --version))"
	rxx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
	expect_eq "$(rxx env PATH=/tmp/old-ethtool:$PATH devmemx caps dev dxsim1 2>&1 >/dev/null)" "" \
		"caps with ethtool 6.14, nothing to fix"
}

# A device that takes no devmem: lo.
lo() {
	expect_eq "$(rxx devmemx caps dev lo | sed -n 's/^unmet: //p')" \
		"lo takes no devmem: its driver has no queue management ops" "caps of lo"
}

dx_case all-met all_met
dx_case tcp-data-split tcp_data_split
dx_case hds-thresh hds_thresh
dx_case rx-gro-hw rx_gro_hw
dx_case xdp xdp
dx_case several several
dx_case bound-by-devmemx bound_by_devmemx
dx_case bound-in-tree bound_in_tree
dx_case old-ethtool old_ethtool
dx_case lo lo
