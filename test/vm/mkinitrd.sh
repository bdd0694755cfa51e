#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the build root: pack an initramfs for one kernel with busybox, bash,
# our modules and tools, and the tests; with "perf", also the root's perf
# (make ab's profile set). usage: mkinitrd.sh KVER OUT [perf]
set -euo pipefail
kver=$1 out=$2 perf=${3:-}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"	# the VM's /: mktemp's 0700 would lock out other users

# A binary and every library it links, at the same paths.
add_bin() {
	local f
	for f in "$1" $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$stage$f" ] && continue
		mkdir -p "$stage$(dirname "$f")"
		cp -L "$f" "$stage$f"
	done
}

mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,root,etc,dx/modules,usr/bin,usr/sbin}
cp /bin/busybox "$stage/bin/busybox"
for f in /bin/bash /usr/sbin/ethtool /sbin/ip /src/build/tools/devmemx \
	 /src/build/tools/devmemx-rx; do
	add_bin "$f"
done
ln -sf /sbin/ip "$stage/bin/ip" 2>/dev/null || true
# chrt (util-linux; busybox has none): make ab's NAPI threads
add_bin /usr/bin/chrt
cp /usr/bin/chrt "$stage/usr/bin/chrt"
# make ab's plots (gnuplot-nox in the build root)
if [ -x /usr/bin/gnuplot ]; then
	add_bin "$(readlink -f /usr/bin/gnuplot)"
	ln -sf "$(readlink -f /usr/bin/gnuplot)" "$stage/usr/bin/gnuplot"
fi
if [ "$perf" = perf ]; then
	[ -x /usr/bin/perf ] || { echo "mkinitrd: no perf in the build root" >&2; exit 1; }
	add_bin /usr/bin/perf
fi
cp /src/build/tools/devmemx "$stage/usr/bin/devmemx"
cp /src/build/tools/devmemx-rx "$stage/usr/bin/devmemx-rx"
# A test helper: attaches a pass-all XDP program (test/helpers/xdp-pass.c).
add_bin /src/build/tools/dx-xdp-pass
cp /src/build/tools/dx-xdp-pass "$stage/usr/bin/dx-xdp-pass"
# The netlink fuzzer (test/helpers/dx-fuzz.c).
add_bin /src/build/tools/dx-fuzz
cp /src/build/tools/dx-fuzz "$stage/usr/bin/dx-fuzz"
# fail-nth driver (test/helpers/dx-failnth.c).
add_bin /src/build/tools/dx-failnth
cp /src/build/tools/dx-failnth "$stage/usr/bin/dx-failnth"
# One raw request with a given ifindex (test/helpers/dx-req.c).
add_bin /src/build/tools/dx-req
cp /src/build/tools/dx-req "$stage/usr/bin/dx-req"
# A dma-buf of device memory held as an application holds one
# (test/helpers/dx-vram.c).
add_bin /src/build/tools/dx-vram
cp /src/build/tools/dx-vram "$stage/usr/bin/dx-vram"
# vfio-pci's dma-buf exporter (test/helpers/dx-vfio.c, uses tools/lib).
add_bin /src/build/tools/dx-vfio
cp /src/build/tools/dx-vfio "$stage/usr/bin/dx-vfio"
# vfio-pci and what it needs, for devmemx-vfio: decompressed, for insmod.
mkdir -p "$stage/dx/kmods"
for m in virt/lib/irqbypass drivers/vfio/vfio drivers/vfio/vfio_iommu_type1 \
	drivers/vfio/pci/vfio-pci-core drivers/vfio/pci/vfio-pci; do
	f=/lib/modules/$kver/kernel/$m.ko.xz
	[ ! -f "$f" ] || xz -dc "$f" >"$stage/dx/kmods/${m##*/}.ko"
done
# The tools built with ASan and UBSan (test tools-asan puts them first in
# PATH).
if [ -x /src/build/tools-asan/devmemx ]; then
	mkdir -p "$stage/usr/lib/devmemx-asan"
	for f in devmemx devmemx-rx; do
		add_bin /src/build/tools-asan/$f
		cp /src/build/tools-asan/$f "$stage/usr/lib/devmemx-asan/"
	done
fi
# The kernel's reference devmem client, linked statically.
cp /src/build/tools/ncdevmem "$stage/usr/bin/ncdevmem"
# The kernel's io_uring zcrx client (static, with sid's liburing).
cp /src/build/tools/iou-zcrx "$stage/usr/bin/iou-zcrx"
# A client of devmemx made with the kernel's YNL generator (static too).
cp /src/build/tools/ynl-bind "$stage/usr/bin/ynl-bind"
find /src/build/"$kver" -name "*.ko" -exec cp {} "$stage/dx/modules/" \;
# kmod's modprobe, for what dkms built (the root test deb leaves its modules
# and the installed modprobe files in build/dkms): installed where dkms and
# the package put them, so "modprobe devmemx" goes the way it goes on a host.
# kmod opens liblzma only when it meets a compressed module.
add_bin /usr/bin/kmod
add_bin /lib/x86_64-linux-gnu/liblzma.so.5
for t in modprobe depmod modinfo; do
	ln -sf /usr/bin/kmod "$stage/sbin/$t"
done
if [ -d /src/build/dkms/"$kver" ]; then
	mkdir -p "$stage/lib/modules/$kver/updates/dkms" "$stage/etc/modprobe.d" \
		"$stage/usr/lib/devmemx"
	cp /src/build/dkms/"$kver"/*.ko* "$stage/lib/modules/$kver/updates/dkms/"
	cp /src/build/dkms/devmemx.conf "$stage/etc/modprobe.d/"
	cp /src/build/dkms/modprobe-devmemx "$stage/usr/lib/devmemx/"
	cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} \
		"$stage/lib/modules/$kver/"
	depmod -b "$stage" "$kver"
fi
# The loader (it makes review= from the entry below) and this kernel's
# review, where the build root made one (make all: devmemx-review), both
# where a host has them.
cp /src/module/modprobe-devmemx "$stage/dx/modprobe-devmemx"
if [ -f /src/build/review/"$kver" ]; then
	install -D -m 644 /src/build/review/"$kver" "$stage/var/lib/devmemx/review/$kver"
fi
cp /src/test/vm/init "$stage/init"
cp /src/test/vm/*.sh "$stage/dx/"
cp -r /src/test/tests "$stage/dx/tests"
cp /src/VERSION "$stage/dx/VERSION"
# The mlx5 runbook, whose marked blocks test runbook runs.
cp /src/doc/mlx5.md "$stage/dx/mlx5.md"
echo "root:x:0:0:root:/root:/bin/bash" >"$stage/etc/passwd"
echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh" >>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
chmod +x "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
