# SPDX-License-Identifier: GPL-2.0
# Shared by the host-side scripts: where things live, how to enter the root.

DX_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DX_CACHE=${DX_CACHE:-$DX_TOP/.cache}
DX_ROOT=$DX_CACHE/root
DX_BUILD=$DX_TOP/build

dx_die() { echo "devmemx: $*" >&2; exit 1; }
dx_log() { echo "devmemx: $*" >&2; }

# The Debian mirror this host already uses, read from its apt configuration.
dx_mirror() {
	local uri
	uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	      tr ' ' '\n' | grep -E '/debian/?$' | head -n1)
	[ -n "$uri" ] || uri=$(grep -hE '^deb[[:space:]]' /etc/apt/sources.list \
			/etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' |
			grep -E '/debian/?$' | head -n1)
	[ -n "$uri" ] || dx_die "no Debian mirror found in /etc/apt (sources.list or *.sources)"
	echo "${uri%/}"
}

# Remove a tree that an interrupted mmdebstrap or chroot may have left
# mounts in: unmount them first, and never cross into another filesystem.
dx_rm_tree() {
	local m
	[ -e "$1" ] || return 0
	findmnt -rn -o TARGET | { grep -F "$(realpath "$1")/" || true; } |
		sort -r | while read -r m; do umount -l "$m"; done
	rm -rf --one-file-system "$1"
}

# Kernel releases picked when the root was made: "7.2 <kver>" per line.
dx_kernels() {
	[ -f "$DX_ROOT/etc/devmemx-kernels" ] || dx_die "no build root; run: make root"
	cat "$DX_ROOT/etc/devmemx-kernels"
}

dx_kver() {
	dx_kernels | awk -v s="$1" '$1 == s { print $2 }'
}

# Run a command inside the root, with the project at /src (and the debug
# kernels' cache, .cache/debug, at /opt/debug when it exists). Mounts live in a
# private mount namespace and vanish with it. With DX_SCRATCH set, the root is
# a throwaway overlay over the real one (written to a directory under
# .cache that is removed after), so what the command installs or changes
# there is gone after: packaging tests install into it.
dx_in_root() {
	local scratch= rc
	if [ -n "${DX_SCRATCH:-}" ]; then
		scratch=$(mktemp -d "$DX_CACHE/scratch.XXXXXX")
	fi
	unshare --mount --propagation private -- /bin/sh -ec '
		R=$1; T=$2; S=$3; D=$4; shift 4
		if [ -n "$S" ]; then
			mkdir -p "$S/upper" "$S/work" "$S/merged"
			mount -t overlay overlay \
				-o "lowerdir=$R,upperdir=$S/upper,workdir=$S/work" "$S/merged"
			R=$S/merged
		fi
		mount -t proc proc "$R/proc"
		mount --rbind /sys "$R/sys"
		mount --rbind /dev "$R/dev"
		mkdir -p "$R/src"
		mount --bind "$T" "$R/src"
		if [ -d "$D" ]; then
			mkdir -p "$R/opt/debug"
			mount --bind "$D" "$R/opt/debug"
		fi
		exec chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"' sh "$DX_ROOT" "$DX_TOP" "$scratch" \
			"$DX_CACHE/debug" "$@"
	rc=$?
	[ -z "$scratch" ] || rm -rf --one-file-system "$scratch"
	return $rc
}

# Boot kernel series $1 in QEMU (TCG) with a fresh initramfs; the VM runs
# $2 (a script under /dx) and powers off. Output lands in build/vm/$1 (or
# build/vm/$DX_VM_NAME): console.log (the kernel log), results.log (the
# script's output).
# usage: dx_boot SERIES SCRIPT [kernel args...]; returns QEMU's exit status.
# DX_QEMU_MACHINE (a lane's machine, e.g. q35 with an IOMMU) comes before
# every device, DX_QEMU_VRAM_BUS names the bus of the ivshmem function and
# DX_QEMU_VRAM_SIZE the size of its memory (default 64G); DX_QEMU_MEM the
# VM's memory (default 2G); DX_QEMU_EXTRA (opt-in, e.g. make ab's instruction counting)
# adds QEMU flags;
# DX_VM_CPUS (default 2) sets the CPU count; DX_BOOT_ARGS adds kernel
# arguments (for an experiment: rcupdate.rcu_expedited=1, ...);
# DX_INITRD_PERF=1 puts the root's perf in the initramfs.
dx_boot() {
	local series=$1 script=$2 kver out name cpus=${DX_VM_CPUS:-2} debug= khz
	shift 2
	# kmemleak on the debug kernel: 7.2's SLUB hands objects out of per-CPU
	# sheaves, kmalloc'd arrays of pointers to free objects, and leaves an
	# object's pointer in its slot when it hands it out; kmemleak scans the
	# sheaves and takes that for a reference, so no leak is ever reported
	# (a planted kmalloc per bind was not). Caches with a debug flag have no
	# sheaves (slub_debug=U: record the allocating and freeing callers). And
	# zero what is allocated: a reused object still holds the free-list
	# pointer it had while free, another stale reference.
	#
	# Its clock: with no ACPI there is no HPET or PM timer, the TSC is
	# calibrated against the PIT alone (which TCG's timing often defeats),
	# and a TSC on a non-Intel CPU with several sockets counts as
	# unsynchronized: the kernel fell back to jiffies, 1 ms steps for every
	# time the tests measure. TCG's TSC is the host's, one counter for
	# all CPUs: the kernel is told so, and told its rate.
	if [[ $series == *-debug ]]; then
		debug="init_on_alloc=1 slub_debug=U tsc=reliable"
		if grep -qw constant_tsc /proc/cpuinfo; then
			khz=$(dx_in_root /src/build/tools/dx-tsc-khz) ||
				dx_die "cannot measure the host's TSC rate"
			debug+=" tsc_early_khz=$khz"
		fi
	fi
	kver=$(dx_kver "$series")
	[ -n "$kver" ] || dx_die "no kernel $series in the build root"
	name=${DX_VM_NAME:-$series}
	out=$DX_BUILD/vm/$name
	mkdir -p "$out"
	rm -f "$out"/{console.log,results.log}
	dx_in_root /src/test/vm/mkinitrd.sh "$kver" "/src/build/vm/$name/initrd.img" \
		${DX_INITRD_PERF:+perf} ||
		dx_die "cannot pack the initramfs for $kver"
	# Device memory as a GPU has it: ivshmem-plain's BAR2 is a file here,
	# sparse and fresh each boot (only what is written takes disk), memory
	# the guest kernel has no struct page for (the test exporter
	# devmemx_vram hands it out). 64G by default, a GPU's size (an H100
	# holds 80G; a BAR is a power of two): the guest's firmware puts it
	# above 4G. DX_QEMU_VRAM_SIZE sets another.
	rm -f "$out"/vram*.img
	# Two CPUs (DX_VM_CPUS). A kernel without ACPI (the debug one) finds
	# them in the BIOS's MP table, which has one entry per socket: one
	# socket each.
	dx_in_root timeout "${DX_VM_TIMEOUT:-1500}" qemu-system-x86_64 -m "${DX_QEMU_MEM:-2G}" \
		-smp $cpus,sockets=$cpus,cores=1,threads=1 \
		-display none -monitor none -no-reboot \
		-kernel "/boot/vmlinuz-$kver" \
		-initrd "/src/build/vm/$name/initrd.img" \
		-serial "file:/src/build/vm/$name/console.log" \
		-serial "file:/src/build/vm/$name/results.log" \
		-append "console=ttyS0 ignore_loglevel panic=-1 udmabuf.size_limit_mb=1024 hugepages=64 dx.cpus=$cpus dx.run=$script $debug ${DX_BOOT_ARGS:-} $*" \
		${DX_QEMU_MACHINE:-} \
		-object "memory-backend-file,id=dxvram,size=${DX_QEMU_VRAM_SIZE:-64G},mem-path=/src/build/vm/$name/vram.img,share=on" \
		-device "ivshmem-plain,memdev=dxvram${DX_QEMU_VRAM_BUS:+,bus=$DX_QEMU_VRAM_BUS}" \
		${DX_QEMU_EXTRA:-} >"$out/qemu.log" 2>&1
}
