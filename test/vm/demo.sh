#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: what make demo shows. Debian's stock kernel, devmemx and
# the simulated NIC; a 64K-niov binding moving verified data, and the same
# flow through in-tree devmem for comparison.
. /dx/guestlib.sh
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

step "what one flow tells: every byte verified; per GiB, how many buffers the receiver handled"
awk 'function f(k,  v) { v = line; sub(".*\"" k "\":", "", v); sub(/[,}].*/, "", v); return v }
{
	line = $0
	g = f("bytes") / 1073741824
	printf "%-12s %9d bytes, %d wrong  %8d cmsgs/GiB  %8d tokens/GiB  largest fragment %6d\n",
		$1, f("bytes"), f("mismatches"), f("cmsgs_dmabuf") / g, f("tokens") / g, f("frag_max")
}' /tmp/demo.ab
echo "(CPU per GiB is left to the A/B below and to make ab: one flow cannot tell it.)"

step "A/B, short: devmemx-rx ab on one vCPU with instruction counting, as make ab measures; 5 interleaved runs of 16M per configuration"
. /dx/ab-lib.sh
(ab_run demo /tmp --configs netdev-4K,devmemx-4K,devmemx-64K --queues 2 \
	--bytes 16M --runs 5) >/tmp/demo-ab.log 2>&1 ||
	{ tail -n 20 /tmp/demo-ab.log; fail "the short A/B failed"; }
# The ratio one short A/B can tell: 64K against 4K niovs, far from 1.
# Those within a few percent of 1 (devmemx-4K against in-tree-4K) need the
# runs and intervals of make ab.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	k = $c["config"]; n[k] = $c["runs"]; order[++m] = k
	cpu[k] = $c["host_cpu_s_per_gib_median"]; lo[k] = $c["host_cpu_s_per_gib_min"]
	hi[k] = $c["host_cpu_s_per_gib_max"]; cm[k] = $c["cmsgs_per_gib_median"]
}
END {
	printf "%-12s %5s %28s %12s\n", "config", "runs", "receiving host s/GiB (range)", "cmsgs/GiB"
	for (i = 1; i <= m; i++) {
		k = order[i]
		printf "%-12s %5d %14.2f (%.2f-%.2f) %12d\n", k, n[k], cpu[k], lo[k], hi[k], cm[k]
	}
	if (cpu["devmemx-4K"] > 0)
		printf "devmemx-64K / devmemx-4K: %.2f of the receiving host CPU, %.3f of the cmsgs (make ab: every ratio, with its bar)\n",
			cpu["devmemx-64K"] / cpu["devmemx-4K"], cm["devmemx-64K"] / cm["devmemx-4K"]
}' /tmp/demo.sum.csv
sim_teardown
dx_wait_idle
dx_unload
step "done: devmemx unloaded, nothing left"
