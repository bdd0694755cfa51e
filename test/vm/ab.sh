#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: make ab. devmemx-rx ab against devmemx_sim on this kernel:
# in-tree 4K (with devmemx loaded and not), devmemx 4K to 64K (and on 7.3
# in-tree 16K and 64K), one flow and four, and an rx-gro-hw off pair.
# Kernel arguments: dx.ab_bytes (per run), dx.ab_runs, dx.ab_seed,
# dx.ab_sets (main,flows4,grooff,apps,scale,sockets,lease). Files come out
# as DX-FILE blocks.
. /dx/guestlib.sh
. /dx/ab-lib.sh

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^dx\.$1=//p"; }
bytes=$(arg ab_bytes) runs=$(arg ab_runs) seed=$(arg ab_seed) sets=$(arg ab_sets)
sets=${sets:-main,flows4,grooff}

echo "# kernel $DX_KVER: devmemx-rx ab, ${bytes:-64M} per run, ${runs:-5} timed runs per configuration"
dx_sim_devmem 9000
trap dx_sim_teardown EXIT
mkdir -p /tmp/ab
ab_sets "$sets" "${bytes:-64M}" "${runs:-5}" "$seed" /tmp/ab
bash /dx/ab-plot.sh /tmp/ab
for f in /tmp/ab/*; do
	echo "DX-FILE $(basename "$f")"
	cat "$f"
	echo "DX-FILE-END"
done
