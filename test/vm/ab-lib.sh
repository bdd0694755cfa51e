# SPDX-License-Identifier: GPL-2.0
# Inside the VM: the configurations of make ab (and of the ab-short test
# and make demo's short version) and their plots. Needs guestlib.sh and
# dx_sim_devmem (devmemx loaded, the sim up with HDS on).

# The configurations the issue asks of this kernel: in-tree devmem, devmemx
# and io_uring zcrx (its dma-buf areas, one per queue) at each size, and
# devmemx serving ab's own netdev bind-rx under a 64K policy; the token
# array's and the policy's only where this kernel's review passed for them.
ab_configs() {
	local c=netdev-4K,netdev-nodx-4K,devmemx-4K,devmemx-16K,devmemx-32K,devmemx-64K
	[ -n "$(dx_review_failed token-array)" ] || c+=,devmemx-tok-4K,devmemx-tok-64K
	[ -n "$(dx_review_failed policies)" ] || c+=,policy-64K
	[ "$DX_SERIES" = 7.2 ] || c+=,netdev-16K,netdev-64K
	echo "$c,zcrx-4K,zcrx-16K,zcrx-32K,zcrx-64K"
}

# ab_hosts: the sending and the receiving host in one VM. Both sims' NAPI
# runs in threads (threaded NAPI), so that dxsim0's, the sender's side
# (ACKs in, its transmit completions), has tasks of its own that ab can
# count as the sender's (--sender-tasks), as it counts the sender's
# processes. The NAPI threads run at SCHED_FIFO 50 (a threaded IRQ's
# priority): a NIC's receive softirq preempts tasks, and a NAPI thread the
# scheduler let the receiver preempt would hand it the data in smaller
# pieces in some runs than in others (at 4K, 940 recvmsg calls per 512M in
# one run and 3900 in the next, costing 10% more CPU). With two CPUs the
# sender's side runs on CPU 0 and the receiver's on CPU 1 (NAPI threads
# pinned as a real NIC's interrupts are): left to the scheduler, they
# would sometimes share a CPU and sometimes not.
# This places the threads there are now. A queue restart (every bind and
# unbind) gives the queue a new NAPI thread, as mlx5 does, at SCHED_OTHER
# on every CPU: ab_napi_args has ab place the bound queues' after each
# bind. Prints the taskset prefix for the receiver.
ab_hosts() {
	ip netns exec rx sh -c 'echo 1 >/sys/class/net/dxsim1/threaded' &&
		ip netns exec tx sh -c 'echo 1 >/sys/class/net/dxsim0/threaded' ||
		fail "cannot make the sim's NAPI threaded"
	ab_napi_place || fail "cannot place the sim's NAPI threads"
	[ "$(nproc)" -ge 2 ] && echo "taskset -c 1" || true
}

# ab_napi_place: ab_hosts's placing of the sim's NAPI threads there are
# now; false, saying why, when one cannot be placed or there are none (a
# thread that went meanwhile, its queue restarted, is not one).
ab_napi_place() {
	local p n=0 c comm cpus
	cpus=$(nproc)
	for p in /proc/[0-9]*; do
		comm=$(cat $p/comm 2>/dev/null)
		case $comm in
		napi/dxsim1-*) c=1 ;;
		napi/dxsim0-*) c=0 ;;
		*) continue ;;
		esac
		if ! chrt -f -p 50 ${p#/proc/} >/dev/null; then
			[ ! -e $p ] && continue
			echo "cannot make $comm SCHED_FIFO" >&2
			return 1
		fi
		if [ $cpus -ge 2 ] && ! taskset -pc $c ${p#/proc/} >/dev/null; then
			[ ! -e $p ] && continue
			echo "cannot pin $comm to CPU $c" >&2
			return 1
		fi
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { echo "no NAPI threads of dxsim0 or dxsim1" >&2; return 1; }
}

# ab_napi_args: what ab_hosts does to dxsim1's NAPI threads, as devmemx-rx
# ab's options that do it again to each bound queue's new thread after
# each bind.
ab_napi_args() {
	echo "--napi-fifo 50$([ "$(nproc)" -ge 2 ] && echo " --napi-cpus 1")"
}

# ab_run NAME OUTDIR [devmemx-rx ab args...]: one runner invocation in
# netns rx, the sender in netns tx, the hosts as ab_hosts sets them; files
# OUTDIR/NAME.{csv,sum.csv,md}. The dma-buf: AB_BUF's options (default
# a 64M hugetlb udmabuf; empty: the caller's args name one). AB_FILL: the
# sender's --fill in verified runs. AB_NS, AB_DEV, AB_ADDR: the runner's
# netns, device and address (rx, dxsim1, 192.0.2.2); AB_BOUND_CMD: what
# places the NAPI threads after each bind, instead of ab_napi_args's
# options (a leased queue's are the physical device's).
ab_run() {
	local name=$1 out=$2 pin buf=${AB_BUF---udmabuf 64M --hugetlb} napi
	shift 2
	pin=$(ab_hosts) || exit 1
	if [ -n "${AB_BOUND_CMD:-}" ]; then
		napi=(--bound-cmd "$AB_BOUND_CMD")
	else
		read -ra napi <<<"$(ab_napi_args)"
	fi
	ip netns exec "${AB_NS:-rx}" $pin devmemx-rx ab --dev "${AB_DEV:-dxsim1}" \
		--sender "${pin:+taskset -c 0 }/sbin/ip netns exec tx devmemx-rx send --addr ${AB_ADDR:-192.0.2.2} --timeout 120${AB_FILL:+ --fill $AB_FILL}" \
		--sender-tasks napi/dxsim0- "${napi[@]}" \
		--load-cmd "insmod /dx/modules/devmemx.ko dmabuf_devmem_ops=0x$(dx_ops_addr) $(dx_tok_params)" \
		--unload-cmd "rmmod devmemx" $buf \
		--tag "$DX_SERIES $name" --csv "$out/$name.csv" \
		--summary "$out/$name.sum.csv" --md "$out/$name.md" "$@" ||
		fail "devmemx-rx ab ($name) failed"
}

# ab_lease OUTDIR BYTES RUNS SEED [args...]: in-tree 4K and devmemx 64K
# received in a pod through a queue leased from dxsim1 (lease-lib.sh): ab
# runs in the pod's namespace and binds its netkit's queue; the host steers
# the flow to the physical queue (--no-flow-rule) and devmemx-rx redirect
# hands it to the pod. The pod's device has no NAPI: after each bind
# --bound-cmd places dxsim1's, the bind having restarted its queue. Netkit has no
# device time or queue stats: those columns are the pod's, empty. Its own
# cleanups, in a subshell.
ab_lease() {
	local out=$1 bytes=$2 runs=$3 seed=$4
	shift 4
	(
		. /dx/lease-lib.sh
		DX_DEFERS=() DX_DEFER_TRAP=1
		trap _dx_exit EXIT
		nk_pod
		nk_steer 7400
		AB_NS=nkns AB_DEV=nkc AB_ADDR=$POD \
		AB_BOUND_CMD="bash -c '. /dx/ab-lib.sh; ab_napi_place'" \
			ab_run lease "$out" --configs netdev-4K,devmemx-64K --queues "$Q" \
			--no-flow-rule --listen "$POD" --port 7400 --bytes "$bytes" \
			--runs "$runs" ${seed:+--seed $seed} "$@"
	) || fail "ab's lease set failed"
}

# ab_unverified CSV BYTES: the rows of ab's CSV whose run did not move
# BYTES verified, without a mismatch.
ab_unverified() {
	awk -F, -v b="$(csv_col bytes "$1")" -v m="$(csv_col mismatches "$1")" \
		-v v="$(csv_col verified "$1")" -v n="$2" \
		'NR > 1 && ($b != n || $m != 0 || $v != 1)' "$1"
}

# ab_sets LIST BYTES RUNS SEED OUTDIR [extra args...]: main (every
# configuration, one flow), flows4 (four flows over queues 2 and 3),
# grooff (devmemx 4K and 64K with rx-gro-hw off), apps (an unchanged
# application with devmemx's policy off and on: ab_apps), scale (bind and unbind
# time, metadata and kernel memory of device memory from 1G to 256G; make
# ab boots it a VM of its own), sockets (token memory and CPU of 1, 16 and
# 64 sockets holding their tokens in batches), profile (where the
# receiving host's CPU goes: ab_profile), lease (in-tree 4K and devmemx
# 64K in a pod, through a leased queue: ab_lease).
ab_sets() {
	local sets=$1 bytes=$2 runs=$3 seed=$4 out=$5 s
	shift 5
	for s in ${sets//,/ }; do
		case $s in
		main) ab_run main "$out" --configs "$(ab_configs)" --queues 2 \
			--bytes "$bytes" --runs "$runs" ${seed:+--seed $seed} "$@" ;;
		flows4) ab_run flows4 "$out" --configs "$(ab_configs)" --queues 2,3 \
			--flows 4 --bytes "$bytes" --runs "$runs" ${seed:+--seed $seed} "$@" ;;
		grooff)
			ip netns exec rx ethtool -K dxsim1 rx-gro-hw off
			ab_run grooff "$out" --configs devmemx-4K,devmemx-64K --queues 2 \
				--bytes "$bytes" --runs "$runs" ${seed:+--seed $seed} "$@"
			ip netns exec rx ethtool -K dxsim1 rx-gro-hw on ;;
		scale) ab_scale "$out" "$@" ;;
		sockets) ab_sockets "$out" "$bytes" "$runs" "$seed" "$@" ;;
		apps) ab_apps "$out" "$bytes" "$runs" "$seed" "$@" ;;
		lease) ab_lease "$out" "$bytes" "$runs" "$seed" "$@" ;;
		profile) ab_profile "$out" "$bytes" "$seed" "$@" ;;
		*) fail "unknown ab set $s" ;;
		esac
	done
}

# ab_apps OUTDIR BYTES RUNS SEED [args...]: an application nobody here
# wrote, unchanged: the kernel's ncdevmem binds queue 2 through netdev's
# bind-rx itself, receives and exits, each run. netdev-4K: no policy, the
# kernel serves it (in-tree 4K); policy-64K: devmemx's policy at 64K on
# queue 2, so devmemx serves the same request. ncdevmem prints a line per
# dma-buf fragment ("received frag_page=..."), its cmsgs, and one per
# recvmsg with its total so far (which must reach what was sent); it
# copies each fragment out of the dma-buf and, without -v, writes every
# byte to its standard output (ab discards it): per-byte CPU in both
# configurations. The verified pass adds -v 7 (the sender sends its
# pattern). kperf is not here: doc/ab.md says why.
# Its udmabuf is a plain memfd: with transparent huge pages for shmem it
# has 64K-contiguous runs however fragmented memory is (shmem_huge).
ab_apps() {
	local out=$1 bytes=$2 runs=$3 seed=$4 thp=/sys/kernel/mm/transparent_hugepage/shmem_enabled old
	shift 4
	old=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $thp)
	echo always >$thp || fail "apps: cannot set $thp to always"
	AB_FILL=ncdevmem ab_run apps "$out" --configs netdev-4K,policy-64K --queues 2 \
		--bytes "$bytes" --runs "$runs" ${seed:+--seed $seed} \
		--app "ncdevmem -l -f dxsim1 -s 192.0.2.2 -p %p -t 2 -q 1" \
		--app-frags received --app-bytes total_received= --app-verify "-v 7" \
		--app-bad "Failed validation" "$@"
	echo "$old" >$thp
}

# ab_profile OUTDIR BYTES SEED [args...]: where the receiving host's CPU
# goes, per configuration: one timed run under perf record (ab-perf.sh:
# cpu-clock samples at 4999 Hz on CPU 1, where the receiver and its
# queue's NAPI thread run; kernel and user call chains), folded
# into OUTDIR/profile-CONFIG.folded: a line per call chain, "task;outer;
# ...;inner COUNT", NAPI threads as napi/dxsim1, idle time left out. make
# ab draws each as a flame graph (test/flame.py).
ab_profile() {
	local out=$1 bytes=$2 seed=$3 c n all lost
	shift 3
	command -v perf >/dev/null ||
		fail "profile: no perf in the VM (make ab SETS=profile puts linux-perf in the build root)"
	[ "$(nproc)" -ge 2 ] || fail "profile: needs two CPUs (the receiver's is CPU 1)"
	for c in netdev-4K devmemx-4K devmemx-tok-4K zcrx-4K devmemx-64K devmemx-tok-64K zcrx-64K; do
		ab_run "profile-$c" "$out" --configs "$c" --queues 2 --bytes "$bytes" \
			--runs 1 ${seed:+--seed $seed} "$@" \
			--profile-cmd "exec bash /dx/ab-perf.sh /tmp/perf-%c.data"
		# --no-inline: perf asks addr2line (not in the VM) for inlined
		# frames and died of SIGPIPE a few hundred samples in
		perf script --no-inline -F comm,ip,sym -i "/tmp/perf-$c.data" >/tmp/perf-script.out \
			2>/tmp/perf-script.err ||
			fail "profile: perf script $c: exit $?: $(tail -n 3 /tmp/perf-script.err)"
		ab_fold </tmp/perf-script.out >"$out/profile-$c.folded"
		all=$(grep -c '^[^ 	]' /tmp/perf-script.out || true)
		lost=$(perf report -D -i "/tmp/perf-$c.data" 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
		rm -f "/tmp/perf-$c.data" /tmp/perf-script.out /tmp/perf-script.err
		n=$(awk '{ n += $NF } END { print n + 0 }' "$out/profile-$c.folded")
		[ "$n" -gt 0 ] || fail "profile: no busy sample of $c on CPU 1 (of $all)"
		echo "# profile $c: $n busy samples on CPU 1, of $all; $lost lost records"
	done
}

# ab_fold: perf script's samples (-F comm,ip,sym: the task, then a frame a
# line, innermost first; a blank line after each) as folded stacks.
ab_fold() {
	awk 'function out() {
		if (task != "" && task !~ /^swapper/)
			n[stack]++
		task = ""
	}
	/^[^ \t]/ {
		out()
		task = $0
		gsub(/^[ \t]+|[ \t]+$/, "", task)
		sub(/-[0-9]+$/, "", task)
		stack = task
		nf = 0
		next
	}
	/^[ \t]*$/ { out(); next }
	{
		f = $0
		sub(/^[ \t]*[0-9a-f]+ /, "", f)
		sub(/\+0x[0-9a-f]+$/, "", f)
		gsub(/;/, ":", f)
		fr[++nf] = f == "" ? "[unknown]" : f
		# innermost first: the stack is rebuilt outermost first at out()
		stack = task
		for (i = nf; i >= 1; i--)
			stack = stack ";" fr[i]
	}
	END { out(); for (s in n) print s, n[s] }'
}

# ab_scale OUTDIR [args...]: bind and unbind time, metadata and kernel
# memory against the dma-buf's size: device memory as a GPU's (devmemx_vram
# exports the BAR, no struct pages, 2M sg entries) of 1, 16, 64, 128 and
# 256G, as large as the BAR holds (make ab boots this set with a 256G one),
# in-tree 4K, devmemx 4K and 64K (on 7.3 also in-tree 64K). 1M moved per
# run, 3 timed runs after the verified one, which also warms the memory
# the binds take (QEMU backs the guest's memory on first touch). Bindings
# are made one at a time: memory for the largest 4K one (256G: 4 GiB of
# net_iovs) is all the VM needs.
ab_scale() {
	local out=$1 g bar cfgs=netdev-4K,devmemx-4K,devmemx-64K
	shift
	[ "$DX_SERIES" = 7.2 ] || cfgs+=,netdev-64K
	insmod /dx/modules/devmemx_vram.ko || fail "scale: cannot load devmemx_vram"
	bar=$(dmesg | sed -n 's/.*devmemx_vram .*: \/dev\/devmemx_vram: \([0-9]*\) MiB of device memory at .*/\1/p' | tail -n 1)
	[ -n "$bar" ] || fail "scale: devmemx_vram found no device memory: $(dmesg | grep devmemx_vram | tail -n 3)"
	echo "# scale: $bar MiB of device memory; $(awk '/^MemTotal:|^MemAvailable:/ { printf "%s %d MiB ", $1, $2 / 1024 }' /proc/meminfo)"
	for g in 1 16 64 128 256; do
		[ $((g << 10)) -le "$bar" ] ||
			{ echo "scale: the BAR holds $bar MiB; stopping before ${g}G" >&2; break; }
		AB_BUF= ab_run "scale-${g}G" "$out" --configs "$cfgs" --queues 2 \
			--bytes 1M --runs 3 --vram "${g}G" "$@"
	done
	# The last binding's memory may still be on its way back (in-tree
	# frees it in a worker), holding the dma-buf and so the exporter.
	ab_vram_out() { rmmod devmemx_vram 2>/dev/null; }
	wait_until 120 ab_vram_out ||
		fail "scale: devmemx_vram still in use 120 s after the last run"
}

# ab_sockets OUTDIR BYTES RUNS SEED [args...]: many sockets. 1, 16 and 64
# flows (64: the sim's ntuple rules, a rule a flow) over queues 2 and 3,
# each returning its tokens in batches of 1M, in-tree 4K, devmemx 4K and
# 64K: the kernel's memory for the tokens all flows hold at once (each
# configuration's first run) and CPU per GiB (the timed runs). A 256M
# dma-buf: 64 flows holding 1M each may take a quarter of it.
ab_sockets() {
	local out=$1 bytes=$2 runs=$3 seed=$4 n
	shift 4
	echo 136 >/proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 136 ] ||
		fail "sockets: only $(cat /proc/sys/vm/nr_hugepages) of 136 huge pages"
	for n in 1 16 64; do
		ab_run "sockets-$n" "$out" --configs netdev-4K,devmemx-4K,devmemx-64K,devmemx-tok-4K,devmemx-tok-64K \
			--queues 2,3 --flows $n --hold-bytes 1M --bytes "$bytes" \
			--runs "$runs" ${seed:+--seed $seed} --udmabuf 256M --hugetlb "$@"
	done
	echo 64 >/proc/sys/vm/nr_hugepages
}
