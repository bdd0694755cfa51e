#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On a bare trixie (mmdebstrap's apt variant, not the build root) with only
# what apt pulls in for the backports kernels' headers: the packages install
# and dkms builds devmemx for 7.2 and 7.3 (every tool the build runs is a
# dependency); with pahole taken away, the build stops naming the package to
# install. Then, the packages purged, make install from the checkout with
# exactly the prerequisites README.md lists, for both kernels. Runs on the
# host; its apt and dkms output goes to build/bare.log.
set -uo pipefail
. "$(dirname "$0")/../hostlib.sh"
fail() { echo "FAIL: $*"; exit 1; }

v=$(cat "$DX_TOP/VERSION")
k72=$(dx_kver 7.2) k73=$(dx_kver 7.3)
bare=$DX_CACHE/bare log=$DX_BUILD/bare.log
mkdir -p "$DX_BUILD"
: >"$log"
trap 'dx_rm_tree "$bare"' EXIT
# in_bare CMD...: CMD in the bare root (its own mounts, gone after),
# output to the log.
in_bare() {
	echo "+ $*" >>"$log"
	DX_ROOT=$bare dx_in_root env DEBIAN_FRONTEND=noninteractive "$@" >>"$log" 2>&1
}
# What the log says after the last command, for a failure.
log_tail() { tail -n 25 "$log" | sed 's/^/  | /'; }

mirror=$(dx_mirror)
dx_rm_tree "$bare"
mmdebstrap --variant=apt --mode=root --components=main \
	--aptopt='Acquire::Retries "3"' trixie "$bare" \
	"deb $mirror trixie main" "deb $mirror trixie-backports main" >>"$log" 2>&1 ||
	{ log_tail; fail "mmdebstrap of a bare trixie"; }

# What a user of the backports kernels has: their headers, and whatever
# apt pulls in with them (recommends too, as apt does by default).
in_bare apt-get update -q || { log_tail; fail "apt-get update in the bare root"; }
in_bare apt-get install -y -q "linux-headers-$k72/trixie-backports" \
	"linux-headers-$k73/trixie-backports" || { log_tail; fail "apt install of the headers"; }
before=$(DX_ROOT=$bare dx_in_root dpkg-query -W -f '${Package}\n' | sort)

# The packages (make deb, in the build root, if the root test deb has not).
dkms_deb=devmemx-dkms_${v}_all.deb tools_deb=devmemx-tools_${v}_amd64.deb
if [ ! -f "$DX_BUILD/deb/$dkms_deb" ] || [ ! -f "$DX_BUILD/deb/$tools_deb" ]; then
	dx_in_root make -s -C /src in-root-deb >>"$log" 2>&1 || { log_tail; fail "make deb"; }
fi
cp "$DX_BUILD/deb/$dkms_deb" "$DX_BUILD/deb/$tools_deb" "$bare/tmp/"
in_bare apt-get install -y -q "/tmp/$dkms_deb" "/tmp/$tools_deb" ||
	{ log_tail; fail "apt install of the packages on the bare root"; }
for k in "$k72" "$k73"; do
	DX_ROOT=$bare dx_in_root dkms status -m devmemx -v "$v" -k "$k" | grep -q ": installed" ||
		{ log_tail; fail "$k: not built by apt install on the bare root"; }
	ls "$bare/lib/modules/$k/updates/dkms/devmemx.ko"* "$bare/lib/modules/$k/updates/dkms/devmemx_sim.ko"* \
		>/dev/null 2>&1 || fail "$k: modules missing under updates/dkms"
done
# dkms signs what it builds (Secure Boot) with a key it makes with openssl,
# which the package recommends: a bare root has none of its own.
signer=$(DX_ROOT=$bare dx_in_root sh -c "modinfo -F signer /lib/modules/$k72/updates/dkms/devmemx.ko*")
[ "$signer" = "DKMS module signing key" ] || { log_tail; fail "devmemx.ko's signer on the bare root: '$signer'"; }
pulled=$(comm -13 <(echo "$before") <(DX_ROOT=$bare dx_in_root dpkg-query -W -f '${Package}\n' | sort) |
	grep -vx 'devmemx-dkms\|devmemx-tools' | wc -l)
echo "# bare trixie + the 7.2 and 7.3 headers: apt install of the packages pulled in $pulled more and built for $k72 and $k73"

# Without pahole (taken away behind dpkg's back: on trixie dwarves is a
# transitional package for pahole) a build for 7.2 stops, naming the
# package; installing that mends it.
in_bare dkms remove -m devmemx -v "$v" -k "$k72" || { log_tail; fail "dkms remove for $k72"; }
in_bare dpkg --remove --force-depends dwarves pahole ||
	{ log_tail; fail "dpkg --remove dwarves pahole"; }
in_bare dkms install -m devmemx -v "$v" -k "$k72" &&
	fail "dkms install without pahole succeeded"
msg="devmemx: cannot build for kernel $k72: pahole is not installed (apt install dwarves); devmemx reads the kernel's struct layouts from its BTF with it"
# dkms points to its make.log, where Kbuild stops with it ("*** MSG.  Stop.").
cat "$bare/var/lib/dkms/devmemx/$v/build/make.log" >>"$log" 2>/dev/null
grep -qF "*** $msg.  Stop." "$bare/var/lib/dkms/devmemx/$v/build/make.log" ||
	{ log_tail; fail "dkms build without pahole did not say: $msg"; }
echo "# without pahole: $msg"
# What the message says to do mends it.
in_bare apt-get install -y -q pahole dwarves || { log_tail; fail "apt install pahole dwarves"; }
in_bare dkms install -m devmemx -v "$v" -k "$k72" ||
	{ log_tail; fail "dkms install after pahole came back"; }

# make install from the checkout, with exactly what README.md says it needs.
in_bare apt-get purge -y -q devmemx-dkms devmemx-tools || { log_tail; fail "apt purge"; }
in_bare apt-get autoremove --purge -y -q || { log_tail; fail "apt autoremove"; }
left=$(cd "$bare/var/lib/dkms" && find . -mindepth 1 ! -name 'mok.*' ! -type d)
[ -z "$left" ] || fail "dkms state left after purge: $left"
line=$(grep -m1 '^apt install dkms ' "$DX_TOP/README.md") ||
	fail "README.md has no line 'apt install dkms ...' for make install"
pkgs=${line#apt install }
[ "${pkgs% linux-headers-\$(uname -r)}" != "$pkgs" ] ||
	fail "README.md's '$line' does not end with the headers"
pkgs=${pkgs% linux-headers-\$(uname -r)}
in_bare apt-get install -y -q $pkgs || { log_tail; fail "apt install $pkgs (README's list)"; }
mkdir -p "$bare/tmp/devmemx"
tar -C "$DX_TOP" --exclude=./build --exclude=./.cache --exclude=./.git -cf - . |
	tar -C "$bare/tmp/devmemx" -xf -
for k in "$k72" "$k73"; do
	in_bare make -C /tmp/devmemx install KVER="$k" ||
		{ log_tail; fail "make install KVER=$k with only: $pkgs"; }
	DX_ROOT=$bare dx_in_root dkms status -m devmemx -v "$v" -k "$k" | grep -q ": installed" ||
		{ log_tail; fail "$k: not built by make install"; }
done
for f in /usr/local/sbin/devmemx /usr/local/sbin/devmemx-rx; do
	[ -x "$bare$f" ] || fail "no $f after make install"
done
echo "# make install with README's list only ($pkgs): built for $k72 and $k73"
