#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test runner: runs the tests that need no kernel of their own
# (test/root/: packaging, man pages) in a throwaway copy of the build root
# (and test/host/ on the host: a bare Debian of its own),
# boots each stock kernel once in QEMU (TCG) with our modules, tools and test
# scripts, runs every test of test/tests inside that boot, checks the kernel
# log, checks that 6.12 is refused, and prints one KTAP line per test per
# kernel and a summary line.
#
# usage: run.sh [-k "7.2 7.3 sid cloud"] [-t test,test/case] [-n rounds] [-T timeout-seconds] [-x] [-V] [-B] [-l]
# (-t: tests, or cases of a test as TEST/CASE: those cases only, after the
# test's own setup; -n: each boot runs its tests N times over, results
# named TEST@ROUND, to show a test that fails one run in a few; -x: run the
# tests with bash -x, their output streamed as they go; -V: the VM tests
# only, without the build-root tests and the 6.12 refusal, which do not
# depend on the kernel: make test-debug; -B: the big lane's tests only,
# which run only when asked (this or -t): make test-big; -l: list the tests
# and their cases, each with the first line of its comment, and boot
# nothing). DX_VMS=1|2: the main tests in one VM or two at once (default:
# two on a debug kernel, see boot_pair).
#
# A VM test with named cases (dx_case, test/vm/guestlib.sh) gets one result
# per case, "KERNEL TEST/CASE", before the test's own, which judges its
# setup, its cleanups and what it left behind: a failed case counts once.
set -uo pipefail
. "$(dirname "$0")/hostlib.sh"

kernels="7.2 7.3 sid cloud" only= xtrace= vm_only= list= big_only= rounds=1
while getopts k:t:n:T:xVBl o; do
	case $o in
	k) kernels=$OPTARG ;;
	t) only=$OPTARG ;;
	n) rounds=$OPTARG ;;
	T) export DX_VM_TIMEOUT=$OPTARG ;;
	x) xtrace=dx.xtrace=1 ;;
	V) vm_only=1 ;;
	B) big_only=1 vm_only=1 ;;
	l) list=1 ;;
	*) dx_die "usage: run.sh [-k kernels] [-t tests] [-n rounds] [-T seconds] [-x] [-V] [-B] [-l]" ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || dx_die "-n $rounds: give a number of rounds, 1 or more"
[[ ${DX_VMS:-1} =~ ^[12]$ ]] || dx_die "DX_VMS=$DX_VMS: the main tests run in 1 VM or 2"

# What each test is, and its cases (test/vm/cases.sh reads the scripts).
cases_sh() { bash "$DX_TOP/test/vm/cases.sh" "$@"; }
if [ -n "$list" ]; then
	cases_sh "$DX_TOP"/test/tests/*.sh |
		awk -F '\t' '{ printf "%-36s %s\n", $1, $2 }'
	for k in root host; do
		cases_sh "$DX_TOP"/test/$k/*.sh |
			awk -F '\t' -v k=$k '{ printf "%-36s %s\n", $1 " (" k ")", $2 }'
	done
	printf '%-36s %s\n' "refused-6.12 (root)" "6.12 must be refused at build time, with a reason that names what is missing."
	exit 0
fi

# Kernel log lines that fail a run, whatever the tests said; the second line
# is what the debug kernel's checkers say (KASAN, lockdep, RCU, DEBUG_OBJECTS,
# UBSAN, kmemleak), where they do not say WARNING or BUG.
BAD_LOG='WARNING:|BUG:|kernel BUG|Oops|refcount_t|use-after-free|general protection|Kernel panic|Call Trace:|unregister_netdevice: waiting'
BAD_LOG+='|KASAN:|possible circular locking|suspicious RCU|ODEBUG:|UBSAN:|suspected memory leak|DEBUG_LOCKS_WARN|INFO: task .* blocked'
# A device write that reached no memory: the sim's (fabric.c) or an IOMMU's.
BAD_LOG+='|DMA fault: |DMAR: \[DMA'
# What the debug kernel says at boot about its checks, not about a problem.
BENIGN_LOG='RCU callback double-/use-after-free debug is enabled'
# The kernel reports a failed allocation with a stack trace (warn_alloc);
# those of dx-failnth (devmemx-fail-nth) are faults it injected. Each such
# report, from its first line to the end of its trace, is left out.
injected_faults_out() {
	awk '/ dx-failnth: (page allocation failure|vmalloc error):/ { skip = 60 }
	     !skip { print }
	     skip { skip = /<\/TASK>/ ? 0 : skip - 1 }'
}

# A test that plants a fault whose report is the point (the sim's bad_ref)
# brackets it with "dx-plant: begin WHAT" and "dx-plant: end" in the kernel
# log, and checks the report itself. Between the two, and only there, a
# WARNING raised in one of the functions named here, from its line to the
# end of its trace (at most 80 lines), is left out; anything else still
# counts. The end of the test (run-tests.sh) closes a bracket left open.
PLANTED_WARN='WARNING: .* (devmemx_mp_release_netmem|devmemx_niov_destroy)([.][a-z0-9_.]+)?[+]'
planted_out() {
	awk -v w="$PLANTED_WARN" '/dx-plant: begin / { on = 1 }
	     /dx-plant: end$|dx-test: ended / { on = 0; skip = 0 }
	     on && !skip && $0 ~ w { skip = 80 }
	     !skip { print; next }
	     { skip = /---\[ end trace/ ? 0 : skip - 1 }'
}

n=0 passed=0 failed=0 skipped=0
report() { # ok|fail|skip name [reason]
	n=$((n + 1))
	case $1 in
	ok) passed=$((passed + 1)); echo "ok $n $2" ;;
	skip) skipped=$((skipped + 1)); echo "ok $n $2 # SKIP ${3:-no reason given}" ;;
	*) failed=$((failed + 1)); echo "not ok $n $2" ;;
	esac
}

list() { (cd "$DX_TOP/test/$1" && ls ./*.sh | sed 's|^\./||; s|\.sh$||'); }
pick() { # dir: its tests that -t selects (all without -t), a test whose
	# cases it names too
	local t
	for t in $(list "$1"); do
		[ -z "$only" ] || [[ ",$only," == *",$t,"* ]] || [[ ",$only," == *",$t/"* ]] &&
			echo "$t"
	done
}
# What a VM boot runs of the tests TEST...: a test -t names, or names no
# case of, whole; of the others, the cases -t names (TEST/CASE).
vm_sel() {
	local t c
	for t in "$@"; do
		if [ -z "$only" ] || [[ ",$only," == *",$t,"* ]]; then
			echo "$t"
		else
			for c in ${only//,/ }; do
				[[ $c != "$t/"* ]] || echo "$c"
			done
		fi
	done
}
all_tests=$(pick tests)
root_tests= host_tests=
[ -n "$vm_only" ] || root_tests=$(pick root) host_tests=$(pick host)
if [ -n "$only" ]; then
	for t in ${only//,/ }; do
		case $t in
		*/*)
			[ -f "$DX_TOP/test/tests/${t%%/*}.sh" ] ||
				dx_die "no test ${t%%/*} in test/tests (cases are VM tests')"
			cases_sh "$DX_TOP/test/tests/${t%%/*}.sh" | cut -f1 | grep -qxF "$t" ||
				dx_die "no case ${t#*/} in ${t%%/*}; run.sh -l lists them" ;;
		*)
			[ -f "$DX_TOP/test/tests/$t.sh" ] || [ -f "$DX_TOP/test/root/$t.sh" ] ||
				[ -f "$DX_TOP/test/host/$t.sh" ] ||
				[ "$t" = refused-6.12 ] || dx_die "no test $t in test/tests, test/root or test/host" ;;
		esac
	done
fi

echo "KTAP version 1"
# In the build root, each in its own throwaway overlay (DX_SCRATCH): what a
# test installs there is gone after it. A test prints "# " lines to keep;
# the tail of its output shows when it fails.
# test/host/: on the host itself, for what needs a root of its own (a bare
# Debian the test makes with mmdebstrap).
for t in $root_tests $(printf 'host/%s\n' $host_tests | grep -vx host/); do
	start=$SECONDS
	case $t in
	host/*)
		t=${t#host/}
		kind=host
		out=$(bash "$DX_TOP/test/host/$t.sh" 2>&1) ;;
	*)
		kind=root
		out=$(DX_SCRATCH=1 dx_in_root bash "/src/test/root/$t.sh" 2>&1) ;;
	esac
	rc=$?
	grep '^# ' <<<"$out"
	echo "# $kind $t: $((SECONDS - start)) s"
	if [ $rc = 0 ]; then
		report ok "$kind $t"
	else
		report fail "$kind $t"
		grep -v '^# ' <<<"$out" | tail -n 30 | sed 's/^/# | /'
	fi
done

# A test whose script has a line "# dx-boot: ARGS" needs a kernel command
# line of its own: it gets a boot of its own, with ARGS added.
boot_args() { sed -n 's/^# dx-boot: //p' "$DX_TOP/test/tests/$1.sh"; }
# The lanes a test runs in, from its line "# dx-lanes: LANE..." (default
# main). Each lane is one boot per kernel: main is the plain machine
# (dma-direct); iommu is a q35 machine with a strict virtual IOMMU, where
# the sim's DMA device is QEMU's edu function, so the NIC sees IOVAs. Its
# ivshmem sits behind a root port of its own (an IOMMU group vfio-pci can
# take), and its CPU is an AMD Zen, on which the kernel lets p2pdma map
# one PCI function's BAR for another through the host bridge (q35's is on
# no list: drivers/pci/p2pdma.c cpu_supports_p2pdma). Its ivshmem memory
# is 64M: its tests use 16M, and the GPU-sized BAR (64G) is the main
# lane's, where no IOMMU has to map it. The edu sits behind a PCIe switch
# (QEMU's x3130 and xio3130 ports: no ACS) with a second ivshmem, 64M: the
# kernel maps that pair with bus addresses the switch routes, past the
# IOMMU (PCI_P2PDMA_MAP_BUS_ADDR); the two share an IOMMU group, which is
# why vfio takes the first ivshmem, alone behind its root port.
#
# The big lane holds GPU-sized memory: a 256G BAR (a B200's or MI300X's
# 192 GB and an MI355X's 288 GB show as BARs of that size and more; QEMU's
# default machine places it at 512G, as make ab-scale's) and 8G of memory,
# enough for a 4K binding of all of it (4 GiB of net_iovs, and in-tree's
# gen_pool chunks: 0.5 GiB) beside the root in RAM, with the sixteenth of
# memory devmemx leaves free. It runs only when asked (-B, make test-big,
# or -t naming its tests): a 4K bind of 256G takes seconds, but the boot
# and the memory are more than every run needs.
lanes() { sed -n 's/^# dx-lanes: //p' "$DX_TOP/test/tests/$1.sh" | grep . || echo main; }
# The debug lane leaves out a test whose script says "# dx-debug: no WHY":
# one whose kernel paths the lane's other tests run too, so the checkers
# (KASAN, lockdep, kmemleak, ...) would see nothing new, while the lane's
# 3-6x slower kernel would cost it minutes. It reports as a skip giving
# WHY; -t naming the test runs it there anyway.
debug_no() { sed -n 's/^# dx-debug: no //p' "$DX_TOP/test/tests/$1.sh"; }
# debug_keep SERIES TESTS...: $kept, the tests SERIES runs of TESTS; on a
# debug kernel the others are reported as skipped.
debug_keep() {
	local series=$1 t why
	shift
	kept=
	for t in "$@"; do
		why=$(debug_no "$t")
		if [[ $series != *-debug ]] || [ -z "$why" ] || [[ ",$only," == *",$t,"* ]] ||
			[[ ",$only," == *",$t/"* ]]; then
			kept="$kept $t"
		else
			report skip "$series $t" "not in the debug lane: $why"
		fi
	done
}
# The matrix lane: kernels that follow the archive, beside the two the
# suite is written for (MATRIX_SERIES, series of /etc/devmemx-kernels that
# test/mkroot.sh picks: sid is Debian unstable's newest 7.x, built with
# another compiler; cloud is the 7.3 cloud flavour, another config). A new
# kernel changes the code devmemx reaches into (the provider's hooks, the
# token array's and the policies' reviewed functions, the lease path) and
# the packaging it meets (dkms), not the sim or the tools: such a kernel
# runs, in its main boot, only the tests whose script has a line
# "# dx-matrix: WHY" (WHY: what of a new kernel it exercises), and no
# IOMMU, big or own-boot lane, to keep CI's time. -t selects on these
# kernels as on any other.
MATRIX_SERIES="sid cloud"
matrix_why() { sed -n 's/^# dx-matrix: //p' "$DX_TOP/test/tests/$1.sh"; }
# matrix_keep SERIES TESTS...: $kept, the tests SERIES runs of TESTS: on a
# matrix kernel without -t, those of the matrix lane ($matrix set); elsewhere
# all.
matrix_keep() {
	local series=$1 t
	shift
	kept=$* matrix=
	[[ " $MATRIX_SERIES " == *" $series "* ]] && [ -z "$only" ] || return 0
	kept= matrix=1
	for t in "$@"; do
		[ -z "$(matrix_why "$t")" ] || kept="$kept $t"
	done
}
IOMMU_QEMU="-machine q35 -cpu EPYC-Rome -device intel-iommu
	-device pcie-root-port,id=dxrp1,bus=pcie.0,chassis=1,slot=1
	-device pcie-root-port,id=dxrp2,bus=pcie.0,chassis=2,slot=2
	-device x3130-upstream,id=dxup,bus=dxrp2
	-device xio3130-downstream,id=dxdn1,bus=dxup,chassis=3,slot=0
	-device xio3130-downstream,id=dxdn2,bus=dxup,chassis=4,slot=0
	-device edu,bus=dxdn1"
IOMMU_ARGS="intel_iommu=on iommu.strict=1"
BIG_MEM=8G BIG_VRAM=256G
main_tests= own_boot= iommu_tests= big_tests=
for t in $all_tests; do
	case " $(lanes "$t") " in
	*" big "*)
		# Asked for by -B or by name only.
		[ -n "$big_only" ] || [[ ",$only," == *",$t,"* ]] || [[ ",$only," == *",$t/"* ]] &&
			big_tests="$big_tests $t"
		continue ;;
	esac
	[ -z "$big_only" ] || continue
	if [ -n "$(boot_args "$t")" ]; then
		own_boot="$own_boot $t"
		continue
	fi
	case " $(lanes "$t") " in *" main "*) main_tests="$main_tests $t" ;; esac
	case " $(lanes "$t") " in *" iommu "*) iommu_tests="$iommu_tests $t" ;; esac
done

# progress FILE LABEL TOTAL: while a long boot (the debug lane's, the big
# lane's) runs, a line on stderr for each test it finishes, as make ab
# prints its runs: "devmemx: [7.2-debug 5/31] devmemx-life ok, 12 min in".
progress() {
	local file=$1 label=$2 total=$3 seen=0 start=$SECONDS
	local -a res
	while sleep 15; do
		mapfile -t res < <(tr -d '\r' 2>/dev/null <"$file" |
			awk '$1 == "DX-RESULT" && $3 !~ /\// && $3 !~ /^vm-/ { print $3, $2 }')
		while [ $seen -lt ${#res[@]} ]; do
			echo "devmemx: [$label $((seen + 1))/$total] ${res[$seen]}, $(((SECONDS - start) / 60)) min in" >&2
			seen=$((seen + 1))
		done
	done
}

# boot SERIES TESTS [ARGS [LANE [SHARD]]]: one VM of SERIES runs TESTS,
# then its shutdown and its kernel log are judged. Boots with ARGS name
# their results "SERIES [ARGS] ..." and keep their files in
# build/vm/SERIES-TEST; a lane's boot "SERIES [LANE] ..." and
# build/vm/SERIES-LANE; a shard's (the debug lane's second VM, see
# boot_pair) "SERIES [vm SHARD] ..." and build/vm/SERIES-vmSHARD, its tests'
# results named as in the first. With boot_bg set, the VM runs in the
# background: boot_wait judges it.
boot() {
	local series=$1 tests=$2 args=${3:-} lane=${4:-} shard=${5:-} label=$1 name=$1 out start
	local machine= who=$1 mem= vram= vram_bus=
	if [ "$lane" = big ]; then
		label="$series [$lane]"
		who=$label
		name=$series-$lane
		mem=$BIG_MEM vram=$BIG_VRAM
	elif [ -n "$lane" ]; then
		label="$series [$lane]"
		who=$label
		name=$series-$lane
		machine="$IOMMU_QEMU -object memory-backend-file,id=dxvram2,size=64M,mem-path=/src/build/vm/$name/vram2.img,share=on -device ivshmem-plain,memdev=dxvram2,bus=dxdn2"
		vram=64M vram_bus=dxrp1
	elif [ -n "$args" ]; then
		label="$series [$args]"
		name=$series-${tests// /}
	elif [ -n "$shard" ]; then
		label="$series [vm $shard]"
		name=$series-vm$shard
	fi
	# The debug lane's BAR is 1G, not 64G: with DEBUG_OBJECTS_FREE, every
	# memunmap of the BAR (each rmmod of the sim, whose fabric maps it, and
	# of devmemx_vram) walks the whole range for live objects, 70 s for 64G
	# under TCG, which made the sim's teardown most of the lane.
	[[ $series != *-debug ]] || [ -n "$vram" ] || vram=1G
	out=$DX_BUILD/vm/$name
	mkdir -p "$out"	# (and build/vm, which a fresh clone lacks)
	start=$SECONDS
	tests=$(echo $tests)
	if [ -n "${boot_bg:-}" ]; then
		# Its stdout after the first VM's; its progress (stderr) as it comes.
		boot_vm >"$DX_BUILD/vm/$name.out" &
		bg_pid=$! bg_who=$who bg_label=$label bg_name=$name bg_tests=$tests
		return
	fi
	boot_vm
	boot_judge "$who" "$label" "$out" "$tests"
}

# boot_vm: boot()'s VM, with its variables; its exit in $out/vm.rc.
boot_vm() {
	local vm_rc watch=
	# The debug kernel runs several times slower; its whole lane took 93
	# min in one run and would have taken over 130 in the next.
	local limit=$((1500 * rounds))
	[[ $series != *-debug ]] || limit=$((10800 * rounds))
	limit=${DX_VM_TIMEOUT:-$limit}
	if [[ $series == *-debug ]] || [ "$lane" = big ]; then
		rm -f "$out/results.log"
		progress "$out/results.log" "$label" "$(($(wc -w <<<"$tests") * rounds))" &
		watch=$!
	fi
	DX_VM_NAME=$name DX_VM_TIMEOUT=$limit DX_QEMU_MACHINE=$machine DX_QEMU_MEM=$mem \
		DX_QEMU_VRAM_BUS=$vram_bus DX_QEMU_VRAM_SIZE=$vram \
		dx_boot "$series" run-tests.sh "dx.tests=$(vm_sel $tests | paste -sd,)" dx.rounds=$rounds $args $xtrace
	vm_rc=$?
	[ -z "$watch" ] || { kill "$watch"; wait "$watch"; } 2>/dev/null
	echo $vm_rc >"$out/vm.rc"
	echo "# kernel $label: VM ran $((SECONDS - start)) s, exit $vm_rc"
}

# boot_wait: judge the VM boot_bg started, once it has ended.
boot_wait() {
	wait "$bg_pid"
	cat "$DX_BUILD/vm/$bg_name.out"
	boot_judge "$bg_who" "$bg_label" "$DX_BUILD/vm/$bg_name" "$bg_tests"
}

# boot_judge WHO LABEL OUT TESTS: report a VM's results, its shutdown and
# its kernel log.
boot_judge() {
	local who=$1 label=$2 out=$3 tests=$4 vm_rc t seen= line bad
	vm_rc=$(cat "$out/vm.rc" 2>/dev/null) || vm_rc=unknown
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"DX-RESULT "*)
			set -- $line
			seen="$seen ${3%@*}"
			report "$2" "$who $3" "${*:4}" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$out/results.log"

	for t in $tests; do
		[[ " $seen " == *" $t "* ]] && continue
		report fail "$who $t"
		echo "# did not report: the VM died or timed out (exit $vm_rc); see $out/console.log"
	done

	if grep -q '^DX-END' "$out/results.log" && [ "$vm_rc" = 0 ]; then
		report ok "$label vm-shutdown"
	else
		report fail "$label vm-shutdown"
		echo "# the VM did not finish its run (exit $vm_rc); see $out/console.log"
		if [ -s "$out/console.log" ]; then
			tail -n 20 "$out/console.log"
		else
			cat "$out/qemu.log" # QEMU did not start the kernel
		fi | sed 's/^/# /'
	fi
	if ! [ -s "$out/console.log" ]; then
		report fail "$label dmesg-clean"
		echo "# no kernel log: $out/console.log is missing or empty"
	elif bad=$(tr -d '\r' <"$out/console.log" | injected_faults_out | planted_out | grep -E "$BAD_LOG" |
		grep -vF "$BENIGN_LOG"); then
		report fail "$label dmesg-clean"
		sed 's/^/# /' <<<"$bad" | head -n 40
	else
		report ok "$label dmesg-clean"
	fi
}

# boot_pair SERIES TESTS: TESTS in two VMs at once, every other test in
# each; the second VM's results come after the first's. The debug lane's
# main boot runs so (DX_VMS=1: in one VM; DX_VMS=2 pairs a stock kernel's
# too, for an experiment): a debug kernel's VM keeps about one host CPU
# busy, its tests being one shell command after another, so two fill a
# 2-core host.
boot_pair() {
	local series=$1 t i=0 one= two=
	shift
	for t in "$@"; do
		if [ $((i++ % 2)) = 0 ]; then one="$one $t"; else two="$two $t"; fi
	done
	boot_bg=1 boot "$series" "$two" "" "" 2
	boot "$series" "$one"
	boot_wait
}

[ -n "$all_tests" ] || kernels=
for series in $kernels; do
	kver=$(dx_kver "$series")
	[ -n "$kver" ] || dx_die "no kernel $series in the build root"
	echo "# kernel $series: $kver"
	matrix_keep "$series" $main_tests
	[ -z "$matrix" ] ||
		echo "# kernel $series: the matrix lane:$kept (not run here: $(($(wc -w <<<"$all_tests") - $(wc -w <<<"$kept"))) other tests, the IOMMU, big and own-boot lanes)"
	debug_keep "$series" $kept
	vms=1
	[[ $series != *-debug ]] || vms=2
	vms=${DX_VMS:-$vms}
	if [ -z "$kept" ]; then
		:
	elif [ "$vms" = 2 ] && [ $(wc -w <<<"$kept") -ge 2 ]; then
		boot_pair "$series" $kept
	else
		boot "$series" "$kept"
	fi
	# The debug kernel has no ACPI, so no DMAR table: no IOMMU.
	[ -z "$iommu_tests" ] || [[ $series == *-debug ]] || [ -n "$matrix" ] ||
		boot "$series" "$iommu_tests" "$IOMMU_ARGS" iommu
	matrix_keep "$series" $own_boot
	debug_keep "$series" $kept
	for t in $kept; do
		boot "$series" "$t" "$(boot_args "$t")"
	done
	# Not on the debug kernel: DEBUG_OBJECTS_FREE's walk of each memunmap
	# of a 256G BAR would take minutes (see the 1G BAR in boot()).
	[ -z "$big_tests" ] || [[ $series == *-debug ]] || [ -n "$matrix" ] ||
		boot "$series" "$big_tests" "" big
done

# 6.12 must be refused at build time, with a reason that names what is missing.
if [ -z "$vm_only" ] && { [ -z "$only" ] || [[ ",$only," == *",refused-6.12,"* ]]; }; then
	kver=$(dx_kver 6.12)
	msg=$(dx_in_root make -s -C "/lib/modules/$kver/build" M=/src/module \
		MO=/src/build/"$kver"/module modules 2>&1)
	rc=$?
	want="devmemx: kernel $kver cannot be served: netdev_rx_queue_restart is not exported; QCFG_RX_PAGE_SIZE (drivers taking RX buffers larger than PAGE_SIZE) is missing; devmemx needs Linux 7.2 or later"
	if [ $rc != 0 ] && grep -qF "$want" <<<"$msg" && ! ls "$DX_TOP"/module/*.o >/dev/null 2>&1; then
		report ok "6.12 refused-6.12"
	else
		report fail "6.12 refused-6.12"
		echo "# build exit $rc; expected the message: $want"
		sed 's/^/# /' <<<"$msg" | head -n 20
	fi
fi

# The kernels whose review (make all: devmemx-review in the build root)
# failed for a feature: their token-array or policy tests were skipped,
# saying so; here is why, once per kernel.
for series in $kernels; do
	kver=$(dx_kver "$series")
	f=$DX_BUILD/review/$kver
	[ -f "$f" ] || continue
	awk -v k="$kver" '$1 == "failed" { $1 = ""; print "# review of " k " failed for" $0 }' "$f"
done
echo "1..$n"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
