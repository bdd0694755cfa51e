#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make ab: devmemx-rx ab in QEMU on each stock kernel, with QEMU's
# instruction counting so that guest time follows the instructions run
# rather than the host's load. Output in build/ab: ab.csv (one row per run),
# summary.csv (medians per configuration), ab.md (the tables with the
# ratios, also printed), cpu.svg and cmsgs.svg; with the scale set (-S
# scale, not a default: a VM of its own per kernel with a 256G BAR),
# scale.svg; with the profile set (-S profile, not a default: a VM of its
# own per kernel, two CPUs, perf), a flame graph per configuration,
# SERIES-profile-CONFIG.svg, and each one's busiest functions in ab.md.
#
# usage: ab.sh [-k "7.2 7.3"] [-b BYTES] [-r RUNS] [-s SEED] [-S SETS]
#
# Bytes per run. The VM has one vCPU and counts instructions (below), so
# a run's busy, device and sender times are exact; what still varies from
# run to run is the flow itself. Left to the scheduler, the receiver took
# the data in 940 recvmsg calls per 512M in some runs and 3900 in others
# (at 4K: 10% more CPU), so medians of 5 missed or met a bar by luck; with
# the NAPI threads at SCHED_FIFO (ab-lib.sh) the calls are steady and, at
# 128M per run, the receiving host's CPU spread (max-min over median, 5
# runs) 2-3% at 4K and 16K, up to 8% at 64K. 512M per run averages over
# four times as much data.
# Runs per configuration: 7. The interval of devmemx-4K / netdev-4K (the
# ratio closest to 1 that matters) was +/-0.7% on 7.2 and +/-1.1% on 7.3
# with 5 runs in one make ab (2026-12-02); the half-width goes with
# t(n-1)/sqrt(n), so 7 runs bring 1.1% to about 0.8%.
set -uo pipefail
. "$(dirname "$0")/hostlib.sh"

kernels=${KERNELS:-7.2 7.3} bytes=512M runs=7 seed= sets=main,flows4,grooff,sockets,apps,lease
while getopts k:b:r:s:S: o; do
	case $o in
	k) kernels=$OPTARG ;;
	b) bytes=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) seed=$OPTARG ;;
	S) sets=$OPTARG ;;
	*) dx_die "usage: ab.sh [-k kernels] [-b bytes] [-r runs] [-s seed] [-S sets]" ;;
	esac
done

out=$DX_BUILD/ab
rm -rf "$out"
mkdir -p "$out"
export DX_QEMU_EXTRA="-accel tcg,thread=single -icount shift=0,sleep=off"
# One CPU. Under -icount the guest's clock counts the instructions of every
# vCPU, which take turns on one host thread: with two, a CPU's busy time
# would hold the other's instructions too. With one, busy time is the
# instructions run, and each task's run time its own.
export DX_VM_CPUS=1
export DX_VM_TIMEOUT=${DX_VM_TIMEOUT:-5400}
start=$SECONDS
# Under -icount guest time follows the instructions run, not the host's
# load: the kernels' VMs run side by side without changing their figures.
# follow SERIES PID: the VM's progress lines ("[10/36] timed netdev-4K
# ...", one per run) as they come, with the time so far, until PID ends.
follow() {
	tail -n +1 -F --pid="$2" "$DX_BUILD/vm/$1/results.log" 2>/dev/null |
		while IFS= read -r line; do
			line=${line%$'\r'}
			case $line in
			\[[0-9]*/[0-9]*\]\ *)
				dx_log "ab $1 $line ($(((SECONDS - start) / 60)) min in)" ;;
			esac
		done
}
# The scale set boots a VM of its own (below); the other sets share one
# VM per kernel.
vm_sets=$(echo "${sets//,/ }" | tr ' ' '\n' | grep -vx 'scale\|profile' | paste -sd, -)
scale=$(echo "${sets//,/ }" | tr ' ' '\n' | grep -x scale || true)
profile=$(echo "${sets//,/ }" | tr ' ' '\n' | grep -x profile || true)
# boot_ab SERIES NAME SETS: a VM of SERIES (files in build/vm/NAME) runs
# SETS in the background; its pid in $vm_pid.
boot_ab() {
	local per="$bytes per run, $runs runs"
	[ "$3" != scale ] || per="1M per run, 3 runs"
	dx_log "ab on $(dx_kver "$1"): $per, sets $3 (QEMU $DX_QEMU_EXTRA${DX_QEMU_MEM:+, $DX_QEMU_MEM of memory}${DX_QEMU_VRAM_SIZE:+, a $DX_QEMU_VRAM_SIZE BAR}); a line per run follows (each set counts its own runs), full log in build/vm/$2/results.log"
	rm -f "$DX_BUILD/vm/$2/results.log"
	DX_VM_NAME=$2 dx_boot "$1" ab.sh "dx.ab_bytes=$bytes" "dx.ab_runs=$runs" \
		"dx.ab_sets=$3" ${seed:+"dx.ab_seed=$seed"} &
	vm_pid=$!
	follow "$2" "$vm_pid" &
}
# collect SERIES NAME PID SET: wait for the VM, then its files into $out as
# SERIES-FILE; SERIES-SET*.md must be among them.
collect() {
	local rc log=$DX_BUILD/vm/$2/results.log
	wait "$3"
	rc=$?
	tr -d '\r' <"$log" | awk -v d="$out" -v s="$1" '
		/^DX-FILE-END$/ { f = ""; next }
		/^DX-FILE / { f = d "/" s "-" $2; next }
		f != "" { print > f; next }
		/^DX-END$/ { next }
		/^\[[0-9]+\/[0-9]+\] / { next }
		{ print > "/dev/stderr" }'
	grep -q '^DX-END' "$log" && [ $rc = 0 ] && ls "$out/$1-$4"*.md >/dev/null 2>&1 ||
		dx_die "the ab VM $2 failed (exit $rc); see build/vm/$2/{results,console}.log"
	dx_log "ab VM $2 done after $((SECONDS - start)) s"
}
declare -A pid
if [ -n "$vm_sets" ]; then
	for series in $kernels; do
		boot_ab "$series" "$series" "$vm_sets"
		pid[$series]=$vm_pid
	done
	for series in $kernels; do
		collect "$series" "$series" "${pid[$series]}" "${vm_sets%%,*}"
	done
fi
# The scale set: device memory as the largest GPUs have it, a 256G BAR
# (sparse: the VM writes only the flows' few MiB), and memory for a 4K
# binding of all of it (in-tree: 4 GiB of net_iovs and ~0.5 GiB of
# gen_pool chunks; devmemx binds only what leaves a sixteenth of the
# memory free). QEMU's default machine and CPU place it as they place
# the main lane's 64G (doc/ab.md, "The scale set"). One kernel after the
# other: 8G each is more than the host should give twice.
if [ -n "$scale" ]; then
	for series in $kernels; do
		DX_QEMU_MEM=${DX_AB_SCALE_MEM:-8G} DX_QEMU_VRAM_SIZE=256G \
			boot_ab "$series" "$series-scale" scale
		collect "$series" "$series-scale" "$vm_pid" scale
	done
fi
# The profile set: two CPUs, so that the receiver and its NAPI thread have
# CPU 1 to themselves and perf samples only that (the sender's side and
# perf run on CPU 0), and the root's perf in the initramfs: Debian's
# linux-perf from trixie-backports, put in the build root the first time.
if [ -n "$profile" ]; then
	if ! dx_in_root test -x /usr/bin/perf; then
		dx_log "profile: installing linux-perf in the build root (log: build/ab/perf-install.log)"
		dx_in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y \
			-t trixie-backports --no-install-recommends linux-perf' \
			>"$out/perf-install.log" 2>&1 ||
			dx_die "cannot install linux-perf in the build root; log: $out/perf-install.log"
	fi
	for series in $kernels; do
		DX_VM_CPUS=2 DX_INITRD_PERF=1 boot_ab "$series" "$series-profile" profile
		pid[$series]=$vm_pid
	done
	for series in $kernels; do
		collect "$series" "$series-profile" "${pid[$series]}" profile
	done
fi

# One CSV of all runs, one of all medians, one markdown file, two plots.
merge() { awk 'FNR == 1 && NR != 1 { next } { print }' "$@"; }
merge $(ls "$out"/*.csv | grep -v '\.sum\.csv$') >"$out/ab.csv"
merge "$out"/*.sum.csv >"$out/summary.csv"
# The scale tables, checked against the runs' own rows (test/ab-scale.awk).
rm -f "$out/scale.md"
if ls "$out"/*-scale-*G.sum.csv >/dev/null 2>&1; then
	ls "$out"/*-scale-*G.sum.csv | sort -V | sed 's/\(.*\)\.sum\.csv$/& \1.csv/' |
		xargs awk -F, -f "$DX_TOP/test/ab-scale.awk" >"$out/scale.md" ||
		dx_die "the scale tables do not match the runs (above)"
fi
{
	echo "# make ab: in-tree devmem against devmemx on devmemx_sim"
	echo
	echo "QEMU TCG with \`$DX_QEMU_EXTRA\`; $bytes per run, $runs timed runs per configuration after a verified one, MTU 9000. Ratios within one run are the result; absolute TCG numbers mean little."
	for series in $kernels; do
		for s in ${sets//,/ }; do
			# scale-1G, scale-16G, ... scale-256G in that order
			ls "$out/$series-$s"*.md 2>/dev/null | sort -V | xargs -r cat
		done
	done
	# Bind and unbind time, metadata and kernel memory against the
	# dma-buf's size, from the medians in SERIES-scale-NG.sum.csv.
	[ ! -s "$out/scale.md" ] || cat "$out/scale.md"
	# Many sockets: token memory (the first run's last batches, held
	# at once) and CPU (the timed runs) against the number of sockets.
	if ls "$out"/*-sockets-*.sum.csv >/dev/null 2>&1; then
		echo
		echo "### Many sockets: the kernel's memory for held tokens, and CPU"
		echo
		echo "Each socket returns its tokens in batches of 1M; in each configuration's first run every socket holds its last 1M until all do. Token memory: the sk_user_frags xarray nodes the held token ids need (the ab-sockets test checks that figure against the kernel's own count). CPU: medians of the timed runs."
		echo
		echo "| kernel | configuration | sockets | tokens held per socket | token memory per socket (B) | token memory MiB per GiB held | receiving host s/GiB |"
		echo "|---|---|---:|---:|---:|---:|---:|"
		for f in $(ls "$out"/*-sockets-*.sum.csv | sort -V); do
			awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				{ split($1, t, " "); n = $c["held_flows"]
				  m = $c["token_mem_bytes"]; b = $c["held_bytes"]
				  tok = n > 0 ? sprintf("%.0f", $c["held_tokens"] / n) : "-"
				  per = n > 0 && m != "" ? sprintf("%.0f", m / n) : "-"
				  gib = b > 0 && m != "" ? sprintf("%.2f", m / 1048576 / (b / 1073741824)) : "-"
				  h = $c["host_cpu_s_per_gib_median"]
				  cpu = h == "" ? "-" : sprintf("%.3f", h)
				  printf "| %s | %s | %s | %s | %s | %s | %s |\n", t[1], $c["config"], $c["flows"],
					tok, per, gib, cpu }' "$f"
		done
	fi
} >"$out/ab.md"
for series in $kernels; do rm -f "$out/$series"-*.svg; done
dx_in_root bash /src/test/vm/ab-plot.sh /src/build/ab ||
	dx_die "plotting failed"
# The profiles: a flame graph each, and the functions with the most
# samples of their own.
if ls "$out"/*-profile-*.folded >/dev/null 2>&1; then
	{
		echo
		echo "### Where the receiving host's CPU goes"
		echo
		echo "perf record, cpu-clock samples at 4999 Hz on CPU 1 (the receiver and its queue's NAPI thread) over one timed run per configuration, idle left out; flame graphs in build/ab/SERIES-profile-CONFIG.svg. The functions with the most samples of their own:"
		for f in $(ls "$out"/*-profile-*.folded | sort -V); do
			b=$(basename "$f" .folded)
			echo
			echo "#### ${b/-profile-/ }"
			echo
			echo '```'
			dx_in_root python3 /src/test/flame.py "/src/build/ab/$b.folded" \
				"/src/build/ab/$b.svg" "${b/-profile-/ }" 12 ||
				dx_die "no flame graph of $b"
			echo '```'
		done
	} >>"$out/ab.md"
fi
cat "$out/ab.md"
echo
dx_log "make ab took $((SECONDS - start)) s; output in build/ab: $(cd "$out" && ls ab.csv summary.csv ab.md cpu.svg cmsgs.svg scale.svg 2>/dev/null | xargs)$(ls "$out"/*-profile-*.svg >/dev/null 2>&1 && echo ", flame graphs *-profile-*.svg")"
