#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In a throwaway copy of the build root: "make deb" builds devmemx-dkms and
# devmemx-tools; installing them builds the modules for 7.2 and 7.3 and skips
# 6.12 with its reason; the dkms kernel hook builds for a kernel whose
# headers arrive later; purging removes everything. Leaves what dkms built
# and the installed modprobe files in build/dkms/ for the VM test
# dkms-modprobe.
. /src/test/rootlib.sh
watched="/usr/src /usr/sbin /usr/share/ynl /usr/include/linux /usr/share/man/man8 /usr/share/bash-completion /etc/modprobe.d /usr/lib/devmemx /var/lib/dkms /lib/modules /var/lib/devmemx /var/cache/devmemx"
snap >/tmp/before

cd /src
make -s in-root-deb >/tmp/deb.log 2>&1 || { cat /tmp/deb.log; fail "make deb"; }
dkms_deb=/src/build/deb/devmemx-dkms_${v}_all.deb tools_deb=/src/build/deb/devmemx-tools_${v}_amd64.deb
[ -f "$dkms_deb" ] && [ -f "$tools_deb" ] || fail "make deb made: $(ls build/deb)"
dpkg-deb -c "$dkms_deb" >/tmp/dkms-deb.txt || fail "dpkg-deb -c $dkms_deb"
grep -q "usr/src/devmemx-$v/dkms.conf" /tmp/dkms-deb.txt || fail "$dkms_deb has no dkms.conf: $(cat /tmp/dkms-deb.txt)"
echo "# make deb: $(cd build/deb && ls ./*.deb | tr '\n' ' ')"
# What dkms's build runs is a dependency: pahole (module/probe.sh).
deps=$(dpkg-deb -f "$dkms_deb" Depends)
grep -qw dwarves <<<"$deps" || fail "devmemx-dkms does not depend on dwarves (pahole): $deps"
# Without pahole the build stops naming the package to install.
mkdir -p /tmp/nopahole
for t in sh cat grep awk uname printf mv rm; do ln -sf "$(command -v $t)" /tmp/nopahole/$t; done
out=$(PATH=/tmp/nopahole sh module/probe.sh /usr/src/linux-headers-"${k72%-amd64}"-common \
	/usr/src/linux-headers-"$k72" /tmp/probed.h) && fail "probe.sh without pahole succeeded"
[ "$out" = "devmemx: cannot build for kernel $k72: pahole is not installed (apt install dwarves); devmemx reads the kernel's struct layouts from its BTF with it" ] ||
	fail "probe.sh without pahole said: $out"
[ ! -e /tmp/probed.h ] || fail "probe.sh without pahole wrote /tmp/probed.h"
echo "# devmemx-dkms depends on $deps; without pahole: $out"

DEBIAN_FRONTEND=noninteractive apt-get install -y "$dkms_deb" "$tools_deb" \
	>/tmp/apt.log 2>&1 || { tail -n 40 /tmp/apt.log; fail "apt install of the packages"; }
for k in "$k72" "$k73"; do
	dkms status -m devmemx -v "$v" -k "$k" | grep -q ": installed" ||
		{ tail -n 40 /tmp/apt.log; fail "$k: not built at install: $(dkms status 2>&1)"; }
	ls /lib/modules/"$k"/updates/dkms/devmemx.ko* /lib/modules/"$k"/updates/dkms/devmemx_sim.ko* \
		>/dev/null || fail "$k: modules missing under updates/dkms"
done
ls /lib/modules/"$k612"/updates/dkms/devmemx* >/dev/null 2>&1 && fail "$k612: a module was installed"
# dkms signs what it builds with its own key (made with openssl on first use),
# the key a Secure Boot user enrolls with mokutil.
[ -f /var/lib/dkms/mok.pub ] || fail "dkms made no signing key (/var/lib/dkms/mok.pub)"
signer=$(modinfo -F signer /lib/modules/"$k72"/updates/dkms/devmemx.ko*)
[ "$signer" = "DKMS module signing key" ] || fail "devmemx.ko's signer: '$signer'"
reason=$(grep -m1 "BUILD_EXCLUSIVE" /tmp/apt.log) ||
	{ tail -n 40 /tmp/apt.log; fail "apt install printed no reason for skipping $k612"; }
echo "# apt install: built for $k72 and $k73; $k612: $(sed 's/^ *//' <<<"$reason")"
for f in /usr/sbin/devmemx /usr/sbin/devmemx-rx /etc/modprobe.d/devmemx.conf \
	 /usr/lib/devmemx/modprobe-devmemx /usr/share/man/man8/devmemx.8.gz \
	 /usr/share/man/man8/devmemx-rx.8.gz /usr/share/bash-completion/completions/devmemx \
	 /usr/share/bash-completion/completions/devmemx-rx \
	 /usr/share/ynl/specs/devmemx.yaml /usr/include/linux/devmemx.h \
	 /usr/sbin/devmemx-review /usr/lib/devmemx/review/dxreview/binary.py; do
	[ -e "$f" ] || fail "no $f after apt install"
done
/usr/sbin/devmemx --version | grep -qF "$v" || fail "devmemx --version: $(/usr/sbin/devmemx --version 2>&1)"
/usr/sbin/devmemx-review --help | grep -q '^usage: devmemx-review' ||
	fail "devmemx-review --help: $(/usr/sbin/devmemx-review --help 2>&1)"

# A kernel whose headers arrive after the package: the hook that headers
# packages run builds for it.
dkms uninstall -q "devmemx/$v" -k "$k73" >/dev/null && dkms unbuild -q "devmemx/$v" -k "$k73" >/dev/null ||
	fail "dkms unbuild -k $k73"
ls /lib/modules/"$k73"/updates/dkms/devmemx* >/dev/null 2>&1 && fail "$k73: modules left after unbuild"
/etc/kernel/header_postinst.d/dkms "$k73" >/tmp/hook.log 2>&1 || { cat /tmp/hook.log; fail "the dkms kernel hook for $k73"; }
dkms status -m devmemx -v "$v" -k "$k73" | grep -q ": installed" ||
	{ cat /tmp/hook.log; fail "$k73: the kernel hook did not build devmemx"; }
echo "# the dkms kernel hook built devmemx for $k73"

# For the VM test: what dkms built and what the package installed.
# Every kernel dkms built for at install (7.2, 7.3 and the matrix lane's
# sid and cloud: test/mkroot.sh).
rm -rf build/dkms
for k in $(awk '$3 == "" { print $2 }' /etc/devmemx-kernels); do
	ls /lib/modules/"$k"/updates/dkms/devmemx.ko* >/dev/null 2>&1 || continue
	mkdir -p build/dkms/"$k"
	cp /lib/modules/"$k"/updates/dkms/devmemx*.ko* build/dkms/"$k"/
done
[ -d build/dkms/"$k72" ] && [ -d build/dkms/"$k73" ] || fail "build/dkms lacks $k72 or $k73: $(ls build/dkms)"
cp /etc/modprobe.d/devmemx.conf /usr/lib/devmemx/modprobe-devmemx build/dkms/

# What devmemx-review leaves (its cache; an entry) goes with the purge.
out=$(devmemx-review "$k72" --source /usr/src/linux-source-7.2.tar.xz --source-only -q 2>&1) ||
	fail "the packaged devmemx-review's source side on $k72: $out"
[ -d /var/cache/devmemx/review/source ] || fail "devmemx-review kept nothing in /var/cache/devmemx/review"
echo "release $k72" >/var/lib/devmemx/review/"$k72" 2>/dev/null ||
	{ mkdir -p /var/lib/devmemx/review && echo "release $k72" >/var/lib/devmemx/review/"$k72"; }
DEBIAN_FRONTEND=noninteractive apt-get purge -y devmemx-dkms devmemx-tools >/tmp/purge.log 2>&1 ||
	{ tail -n 40 /tmp/purge.log; fail "apt purge"; }
snap >/tmp/after
if ! diff /tmp/before /tmp/after >/tmp/left; then
	cat /tmp/left
	fail "apt purge left files behind (above)"
fi
echo "# apt purge: nothing left in $watched"
