#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In a throwaway copy of the build root: "make install" as README says, for
# each kernel of the root; 7.2 and 7.3 get both modules under updates/dkms,
# 6.12 is skipped with its reason; "make uninstall" leaves nothing behind.
. /src/test/rootlib.sh
watched="/usr/src /usr/local /etc/modprobe.d /usr/lib/devmemx /var/lib/dkms /lib/modules"
snap >/tmp/before

cd /src
make -s install KVER="$k72" >/tmp/install.log 2>&1 || { cat /tmp/install.log; fail "make install KVER=$k72"; }
grep -q "devmemx $v installed" /tmp/install.log || { cat /tmp/install.log; fail "make install did not say it installed"; }
# Another kernel: what the dkms kernel hook does when one is installed.
dkms install -q "devmemx/$v" -k "$k73" >/tmp/k73.log 2>&1 || { cat /tmp/k73.log; fail "dkms install -k $k73"; }

for k in "$k72" "$k73"; do
	for m in devmemx devmemx_sim; do
		f=$(ls /lib/modules/"$k"/updates/dkms/"$m".ko* 2>/dev/null) ||
			fail "$k: no $m under updates/dkms: $(ls -R /lib/modules/"$k"/updates 2>&1)"
		[ "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" = "$k" ] || fail "$f: vermagic $(modinfo -F vermagic "$f")"
	done
	[ "$(modinfo -F version /lib/modules/"$k"/updates/dkms/devmemx.ko*)" = "$v" ] ||
		fail "$k: devmemx.ko's version is not $v"
	dkms status -m devmemx -v "$v" -k "$k" | grep -q ": installed" ||
		fail "$k: dkms status: $(dkms status -m devmemx -k "$k")"
done
echo "# make install: devmemx $v built and installed for $k72 and $k73"

# 6.12: skipped, with the reason, and nothing installed.
out=$(dkms install "devmemx/$v" -k "$k612" 2>&1); rc=$?
[ $rc = 77 ] || fail "dkms install -k $k612: exit $rc, expected 77 (skipped): $out"
grep -q "BUILD_EXCLUSIVE" <<<"$out" || fail "dkms install -k $k612 gave no reason: $out"
ls /lib/modules/"$k612"/updates/dkms/devmemx* >/dev/null 2>&1 && fail "$k612: a module was installed"
echo "# 6.12 skipped: $(tr "\n" " " <<<"$out")"

[ -x /usr/local/sbin/devmemx ] && [ -x /usr/local/sbin/devmemx-rx ] || fail "tools not in /usr/local/sbin"
/usr/local/sbin/devmemx --version | grep -qF "$v" || fail "the installed devmemx --version: $(/usr/local/sbin/devmemx --version 2>&1)"
grep -q '^install devmemx /usr/lib/devmemx/modprobe-devmemx' /etc/modprobe.d/devmemx.conf ||
	fail "/etc/modprobe.d/devmemx.conf: $(cat /etc/modprobe.d/devmemx.conf)"
[ -x /usr/lib/devmemx/modprobe-devmemx ] || fail "no /usr/lib/devmemx/modprobe-devmemx"
for f in share/man/man8/devmemx.8 share/man/man8/devmemx-rx.8 \
	 share/bash-completion/completions/devmemx share/bash-completion/completions/devmemx-rx \
	 share/ynl/specs/devmemx.yaml include/linux/devmemx.h; do
	[ -f /usr/local/$f ] || fail "no /usr/local/$f after make install"
done
cmp -s /usr/local/share/ynl/specs/devmemx.yaml /src/uapi/devmemx.yaml ||
	fail "the installed YNL spec differs from uapi/devmemx.yaml"
# devmemx-review as installed finds its library and the reviewed texts:
# the source side of 7.2's review, from the root's linux-source, passes.
[ -L /usr/local/sbin/devmemx-review ] || fail "no /usr/local/sbin/devmemx-review"
out=$(cd / && /usr/local/sbin/devmemx-review "$k72" --source /usr/src/linux-source-7.2.tar.xz \
	--source-only -q --cache /tmp/review-cache 2>&1) ||
	fail "the installed devmemx-review's source side on $k72: $out"
grep -q "^devmemx-review: source: \([0-9]*\) of \1 items as reviewed" <<<"$out" ||
	fail "the installed devmemx-review said: $out"
echo "# make install: devmemx-review $(grep -o 'source: .* reviewed' <<<"$out")"
rm -rf /tmp/review-cache

make -s uninstall >/tmp/uninstall.log 2>&1 || { cat /tmp/uninstall.log; fail "make uninstall"; }
snap >/tmp/after
if ! diff /tmp/before /tmp/after >/tmp/left; then
	cat /tmp/left
	fail "make uninstall left files behind (above)"
fi
echo "# make uninstall: nothing left in $watched"

# Headers without vmlinux (Ubuntu's, say) for a kernel that is not running:
# refused with the reason, never built with another kernel's layouts.
o=/tmp/no-vmlinux
mkdir -p $o/include/config
cp /lib/modules/"$k72"/build/include/config/kernel.release /lib/modules/"$k72"/build/Module.symvers $o/
mv $o/kernel.release $o/include/config/
out=$(/src/module/probe.sh /lib/modules/"$k72"/build $o /tmp/probed.h); rc=$?
want="devmemx: kernel $k72 cannot be served yet: its headers carry no vmlinux (BTF) to read struct layouts from, and it is not the running kernel; boot it and build again (dkms autoinstall)"
[ $rc = 1 ] && [ "$out" = "$want" ] && [ ! -e /tmp/probed.h ] ||
	fail "probe.sh without vmlinux: exit $rc, said '$out'"
echo "# headers without vmlinux, kernel not running: refused with the reason"
