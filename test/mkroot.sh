#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make (or reuse) the build root: a Debian trixie root with trixie-backports,
# holding the headers and images of the stock kernels devmemx is tested on,
# the toolchain, and everything the VM runner needs. Reused while this file
# is unchanged; rebuilt when it changes. Needs root on a Debian host.
set -euo pipefail
. "$(dirname "$0")/hostlib.sh"

PACKAGES=(
	build-essential kmod bc cpio rsync python3 python3-yaml python3-jsonschema perl
	dwarves dkms openssl curl xz-utils debhelper dh-dkms man-db groff-base
	libnl-3-dev libnl-genl-3-dev pkgconf
	busybox-static ethtool iproute2 procps
	qemu-system-x86 gnuplot-nox coccinelle libpython3-dev
	flex bison libelf-dev libssl-dev
)
# (coccinelle's spatch loads libpython3.X.so, which only the -dev package
# provides, for the report scripts of make check's coccicheck; flex, bison,
# libelf-dev and libssl-dev build the 7.2-debug kernel.)
# The kernels, by series (the first column of /etc/devmemx-kernels): the
# suite each comes from and the ABI names it takes (a regex after
# "linux-headers-"); the newest of those in that suite's index is picked.
# sid: Debian unstable's newest 7.x (built with sid's gcc); cloud: the 7.3
# cloud flavour (cloud GPU hosts run it).
SERIES=(6.12 7.2 7.3 sid cloud)
declare -A SUITE=([6.12]=trixie [7.2]=trixie-backports [7.3]=trixie-backports
	[sid]=sid [cloud]=trixie-backports)
declare -A ABI=([6.12]='6\.12\.[0-9.+a-z]*-amd64' [7.2]='7\.2\.[0-9.+a-z]*-amd64'
	[7.3]='7\.3\.[0-9.+a-z]*-amd64' [sid]='7\.[0-9]+\.[0-9.+a-z]*-amd64'
	[cloud]='7\.3\.[0-9.+a-z]*-cloud-amd64')

recipe=$(sha256sum "$0" | cut -d' ' -f1)
stamp=$DX_ROOT/etc/devmemx-recipe
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ]; then
	dx_log "build root up to date ($DX_ROOT)"
	exit 0
fi

[ "$(id -u)" = 0 ] || dx_die "making the build root needs root"
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v curl >/dev/null || need+=(curl)
command -v xz >/dev/null || need+=(xz-utils)
[ -f /usr/share/keyrings/debian-archive-trixie-stable.gpg ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
	dx_log "installing host packages: ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

mirror=$(dx_mirror)
dx_rm_tree "$DX_ROOT.new"
mkdir -p "$DX_CACHE"
# The steps print one line each; what mmdebstrap, apt and dpkg say goes to
# the log, shown (its tail) only when a step fails.
log=$DX_CACHE/root.log
: >"$log"
step() { # n what; then the command
	local n=$1 what=$2
	shift 2
	dx_log "[$n/5] $what"
	"$@" >>"$log" 2>&1 || {
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		dx_die "making the build root failed at step $n ($what); whole log: $log"
	}
}
dx_log "making the build root from $mirror (log: $log)"
step 1 "bootstrapping Debian trixie with the toolchain (mmdebstrap, a few minutes)" \
	mmdebstrap --variant=buildd --mode=root --components=main \
	--aptopt='Acquire::Retries "3"' \
	--include="$(IFS=,; echo "${PACKAGES[*]}")" \
	trixie "$DX_ROOT.new" \
	"deb $mirror trixie main" "deb $mirror trixie-backports main"

# Pick the newest ABI of each series from its suite's package index (not
# apt-cache search, which mixes the suites: sid's 7.2 is newer than
# backports'), and say so.
newest() { # suite series
	cat "$DX_ROOT"/var/lib/apt/lists/*_dists_"$1"_main_binary-amd64_Packages 2>/dev/null |
		sed -n 's/^Package: linux-headers-//p' | grep -xE "${ABI[$2]}" | sort -V | tail -n1
}
DX_ROOT=$DX_ROOT.new
# sid, for its kernel only: its Release file here is expired
# (check-valid-until=no), and it is pinned low, so that nothing comes from
# it but what the sid kernel's packages pull (gcc-16, its libraries,
# linux-kbuild).
echo "deb [check-valid-until=no] $mirror sid main" >"$DX_ROOT/etc/apt/sources.list.d/sid.list"
printf 'Package: *\nPin: release n=sid\nPin-Priority: 50\n' >"$DX_ROOT/etc/apt/preferences.d/sid"
step 2 "reading the package index (trixie, trixie-backports, sid)" dx_in_root apt-get update -q
: >"$DX_ROOT/etc/devmemx-kernels"
pkgs=() sid_pkgs=()
for series in "${SERIES[@]}"; do
	kver=$(newest "${SUITE[$series]}" "$series")
	[ -n "$kver" ] || dx_die "no linux-headers-${ABI[$series]} in ${SUITE[$series]}"
	dx_log "      kernel $series: $kver (${SUITE[$series]})"
	echo "$series $kver" >>"$DX_ROOT/etc/devmemx-kernels"
	if [ "${SUITE[$series]}" = sid ]; then
		sid_pkgs+=("linux-headers-$kver" "linux-image-$kver")
	else
		pkgs+=("linux-headers-$kver/${SUITE[$series]}" "linux-image-$kver/${SUITE[$series]}")
	fi
done
# checkpatch.pl, the YNL generator and the kernel's devmem reference client
# (ncdevmem) come from the kernel source. ncdevmem and its YNL library need
# the 7.3 uapi (trixie's linux-libc-dev is 6.12).
pkgs+=(linux-base/trixie-backports linux-source-7.2/trixie-backports
	linux-libc-dev/trixie-backports)
# INITRD=No: the VM runner packs its own initramfs.
step 3 "installing the kernels' headers and images, and linux-source-7.2" \
	dx_in_root env DEBIAN_FRONTEND=noninteractive INITRD=No apt-get install -y -q \
	--no-install-recommends "${pkgs[@]}"
# Then sid's, after the others, with sid as the target release: its
# headers need gcc-16, which needs sid's libgcc-s1, libcc1-0, libstdc++6
# ... (at pin 50 apt would not upgrade those, and "pkg/sid" reaches only
# a package's own dependencies); what the first install put in (linux-base,
# initramfs-tools) stays trixie's. Not by source package either: apt would
# upgrade linux-source-7.2 (source linux, as sid's kernel) to sid's, and
# /opt/linux and the 7.2-debug kernel are backports' 7.2 (linux-libc-dev,
# 7.3 in backports, is newer than sid's 7.2 and stays).
step 4 "installing sid's kernel (${sid_pkgs[*]})" \
	dx_in_root env DEBIAN_FRONTEND=noninteractive INITRD=No apt-get install -y -q \
	--no-install-recommends -t sid -o APT::Get::Upgrade-By-Source-Package=false \
	"${sid_pkgs[@]}"
# What came from sid (the pin lets in only what its kernel pulls): the
# installed versions no other suite has.
from_sid=$(dx_in_root apt list --installed 2>/dev/null |
	sed -n 's|^\([^/]*\)/unstable,now .*|\1|p' | paste -sd' ')
dx_log "      from sid (pinned at 50): ${from_sid:-nothing}"
src=$(ls "$DX_ROOT"/usr/src/linux-source-7.2.tar.xz)
mkdir -p "$DX_ROOT/opt/linux"
tar -xJf "$src" -C "$DX_ROOT/opt/linux" --strip-components=1 --wildcards \
	'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/checker-valid.sh' \
	'*/scripts/const_structs.checkpatch' '*/tools/net/ynl/*' \
	'*/Documentation/netlink/*' '*/MAINTAINERS' \
	'*/tools/scripts/Makefile.arch' 'linux-source-7.2/include/uapi/*' \
	'*/tools/testing/selftests/drivers/net/hw/ncdevmem.c' \
	'*/tools/testing/selftests/drivers/net/hw/iou-zcrx.c' \
	'*/scripts/coccinelle/*'
# (The tarball stays: test/debug/build.sh builds the 7.2-debug kernel from it.)
# Kbuild runs sparse (C=1/C=2) only after scripts/checker-valid.sh says it
# works; Debian's headers packages lack that script, so without it sparse
# silently never runs. Put the source's copy into each headers tree.
for d in "$DX_ROOT"/usr/src/linux-headers-*-common; do
	[ -e "$d/scripts/checker-valid.sh" ] ||
		install -m 755 "$DX_ROOT/opt/linux/scripts/checker-valid.sh" "$d/scripts/"
done

# Three come from sid: the 7.x headers need a sparse that knows
# __typeof_unqual__ (trixie's 0.6.4 does not; only its self-contained binary
# is taken, its package's dependencies are not in trixie), setting
# hds-thresh needs ethtool >= 6.15 (trixie has 6.14), and the kernel's zcrx
# client (iou-zcrx) needs a liburing with zcrx (trixie's 2.9 has none; sid's
# liburing-dev is unpacked in /opt/liburing, and iou-zcrx linked statically
# with its liburing.a). devmemx-rx itself uses no liburing.
dx_log "[5/5] sparse, ethtool and liburing from sid"
curl -fsS "$mirror/dists/sid/main/binary-amd64/Packages.xz" | xz -dc \
	>"$DX_ROOT/tmp/sid-packages"
sid_deb() { # package -> downloads it to $DX_ROOT/tmp/$1.deb
	local f
	f=$(awk -v p="$1" '$0 == "Package: " p { s = 1 } s && /^Filename:/ { print $2; s = 0 }' \
		"$DX_ROOT/tmp/sid-packages")
	[ -n "$f" ] || dx_die "no package $1 in sid"
	dx_log "      from sid: $f"
	curl -fsS -o "$DX_ROOT/tmp/$1.deb" "$mirror/$f"
}
sid_deb sparse
mkdir -p "$DX_ROOT/opt/sparse"
dpkg-deb --fsys-tarfile "$DX_ROOT/tmp/sparse.deb" |
	tar -xO ./usr/bin/sparse >"$DX_ROOT/opt/sparse/sparse"
chmod 755 "$DX_ROOT/opt/sparse/sparse"
sid_deb ethtool
sid_deb liburing-dev
mkdir -p "$DX_ROOT/opt/liburing"
dpkg-deb -x "$DX_ROOT/tmp/liburing-dev.deb" "$DX_ROOT/opt/liburing"
dx_in_root dpkg -i /tmp/ethtool.deb >>"$log" 2>&1 || dx_die "cannot install sid's ethtool; log: $log"
rm -f "$DX_ROOT"/tmp/*.deb "$DX_ROOT/tmp/sid-packages"
dx_in_root apt-get clean >>"$log" 2>&1
echo "$recipe" >"$DX_ROOT/etc/devmemx-recipe"
dx_rm_tree "${DX_ROOT%.new}"
mv "$DX_ROOT" "${DX_ROOT%.new}"
dx_log "build root ready: $(du -sh "${DX_ROOT%.new}" | cut -f1)"
