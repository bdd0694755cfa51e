#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: what make demo shows. Debian's stock kernel, devmemx and
# the simulated NIC; a 64K-niov binding moving verified data, and the same
# flow through in-tree devmem for comparison.
. /dx/tlib.sh
step() { printf '\n== %s\n' "$*"; }

step "kernel $(uname -r); load devmemx and devmemx_sim"
dx_load
devmemx info
sim_setup 4 9000
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
ip netns exec rx devmemx caps dev dxsim1 queue 2

bytes=$((64 << 20))
run() { # label, then recv args
	local label=$1
	shift
	devmem_xfer $bytes $((9300 + RANDOM % 100)) --queues 2 "$@"
	echo "$label $(cat /tmp/rx.json)" >>/tmp/demo.ab
}

step "devmemx: 64K niovs from a hugetlb udmabuf, 64 MiB over TCP, every byte verified"
run devmemx-64K --provider devmemx --rx-page-size 64K --udmabuf 32M --hugetlb
cat /tmp/rx.json
step "in-tree devmem on the same queue: 4K niovs (all $(uname -r | cut -d. -f1-2) can do)"
run in-tree-4K --udmabuf 32M --hugetlb
cat /tmp/rx.json

step "A/B summary (one run in TCG: ratios matter, absolute numbers do not)"
awk '{
	name = $1; line = $0
	b = line; sub(/.*"bytes":/, "", b); sub(/,.*/, "", b)
	c = line; sub(/.*"cpu_sec":/, "", c); sub(/,.*/, "", c)
	w = line; sub(/.*"wall_sec":/, "", w); sub(/[,}].*/, "", w)
	k = line; sub(/.*"cmsgs_dmabuf":/, "", k); sub(/,.*/, "", k)
	g = b / 1073741824
	printf "%-12s %8.1f MB/s  %6.2f CPU s/GiB  %9d cmsgs/GiB\n", name, b / w / 1e6, c / g, k / g
}' /tmp/demo.ab

step "A/B, short (make ab has the full one): devmemx-rx ab, 3 interleaved runs of 16M per configuration"
. /dx/ab-lib.sh
ab_run demo /tmp --configs netdev-4K,devmemx-4K,devmemx-64K --queues 2 \
	--bytes 16M --runs 3 2>/dev/null
sim_teardown
dx_wait_idle
dx_unload
step "done: devmemx unloaded, nothing left"
