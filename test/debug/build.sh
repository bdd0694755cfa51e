#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the build root: the 7.2-debug kernel. Debian's linux-source-7.2
# (the source of the stock 7.2 kernel) with x86_64_defconfig, merged with
# test/debug/7.2-debug.config (what the suite needs, KASAN, lockdep,
# kmemleak, UBSAN, DEBUG_OBJECTS, fault injection; the rest trimmed). Built
# in DIR (default /opt/debug/7.2, where dx_in_root mounts .cache/debug/7.2)
# unless DIR/key says it was built from the same source, config and script;
# then registered in the root: /boot/vmlinuz-KVER, and "7.2-debug KVER
# DIR/out" in /etc/devmemx-kernels (the Makefile builds modules against
# DIR/out; nothing goes to /lib/modules, where dkms would find it).
set -euo pipefail
dir=${1:-/opt/debug/7.2}
frag=/src/test/debug/7.2-debug.config
tarball=/usr/src/linux-source-7.2.tar.xz
say() { echo "devmemx: [7.2-debug] $*" >&2; }
die() { say "$*"; exit 1; }

[ -f "$tarball" ] || die "no $tarball in the build root (make root)"
key=$( { dpkg-query -W -f '${Version}\n' linux-source-7.2; cat "$frag" "$0"; } |
	sha256sum | cut -d' ' -f1)
out=$dir/out
if [ "$(cat "$dir/key" 2>/dev/null)" = "$key" ] && [ -f "$out/arch/x86/boot/bzImage" ]; then
	say "built before from the same source and config"
elif [ "$(cat "$dir/key.partial" 2>/dev/null)" = "$key" ]; then
	# An interrupted build of the same source and config: make resumes it.
	start=$SECONDS
	say "resuming the interrupted build (log: .cache/debug/7.2/build.log)"
	make -C "$dir/src" O="$out" -j"$(nproc)" bzImage modules >>"$dir/build.log" 2>&1 ||
		{ tail -n 30 "$dir/build.log" >&2; die "the build failed; log: .cache/debug/7.2/build.log"; }
	mv "$dir/key.partial" "$dir/key"
	say "built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
else
	start=$SECONDS
	rm -rf "$dir/src" "$out" "$dir/key" "$dir/key.partial"
	mkdir -p "$dir/src" "$out"
	say "unpacking linux-source-7.2 $(dpkg-query -W -f '${Version}' linux-source-7.2)"
	tar -xJf "$tarball" -C "$dir/src" --strip-components=1
	say "config: x86_64_defconfig + test/debug/7.2-debug.config"
	make -s -C "$dir/src" O="$out" x86_64_defconfig >"$dir/build.log" 2>&1
	"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" \
		>>"$dir/build.log" 2>&1
	make -s -C "$dir/src" O="$out" olddefconfig >>"$dir/build.log" 2>&1
	# Every line of the fragment must have taken: Kconfig drops a request
	# whose dependencies are not met without a word.
	missed=$(grep -E '^(# )?CONFIG_' "$frag" | while IFS= read -r want; do
		opt=$(sed -E 's/^# //; s/[= ].*//' <<<"$want")
		have=$(grep -E "^(# )?$opt[= ]" "$out/.config" || true)
		case $want in
		"# "*) [ -z "$have" ] || [ "$have" = "$want" ] ;;
		*) [ "$have" = "$want" ] ;;
		esac || echo "  wanted: $want; got: ${have:-nothing}"
	done)
	[ -z "$missed" ] || die "the config did not take:"$'\n'"$missed"
	say "building bzImage and modules with $(nproc) jobs (log: .cache/debug/7.2/build.log)"
	echo "$key" >"$dir/key.partial"
	make -C "$dir/src" O="$out" -j"$(nproc)" bzImage modules >>"$dir/build.log" 2>&1 ||
		{ tail -n 30 "$dir/build.log" >&2; die "the build failed; log: .cache/debug/7.2/build.log"; }
	mv "$dir/key.partial" "$dir/key"
	say "built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
fi

kver=$(make -s -C "$dir/src" O="$out" kernelrelease)
cp "$out/arch/x86/boot/bzImage" "/boot/vmlinuz-$kver"
sed -i '/^7\.2-debug /d' /etc/devmemx-kernels
echo "7.2-debug $kver $out" >>/etc/devmemx-kernels
say "$kver ready"
