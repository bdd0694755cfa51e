# SPDX-License-Identifier: GPL-2.0
# dx-matrix: what a user of this kernel meets: dkms's build (the root test deb) loaded by modprobe with addresses from /proc/kallsyms
# What dkms built in the root test deb, installed where dkms installs it,
# with the package's modprobe.d file and loader: "modprobe devmemx" loads it
# (the ops address and the token array's read from /proc/kallsyms), a
# binding moves verified data, "modprobe -r" unloads; with
# kernel.kptr_restrict=2 the load is refused with a message that says what
# to do, and nothing is loaded.
. /dx/guestlib.sh

[ -z "$DX_DEBUG" ] ||
	skip "dkms builds for Debian's packaged kernels; the 7.2-debug kernel is not one"
d=/lib/modules/$(uname -r)/updates/dkms
ko=$(ls "$d"/devmemx.ko* 2>/dev/null) ||
	fail "no dkms-built devmemx in $d: the root test deb leaves it in build/dkms (run.sh -t deb,dkms-modprobe)"
expect_eq "$(modinfo -n devmemx)" "$ko" "modinfo -n devmemx"
expect_eq "$(modinfo -F version devmemx)" "$(cat /dx/VERSION)" "the dkms-built devmemx's version"
grep -qx 'install devmemx /usr/lib/devmemx/modprobe-devmemx $CMDLINE_OPTS' /etc/modprobe.d/devmemx.conf ||
	fail "/etc/modprobe.d/devmemx.conf: $(cat /etc/modprobe.d/devmemx.conf)"

kr=$(cat /proc/sys/kernel/kptr_restrict)
trap 'echo "$kr" >/proc/sys/kernel/kptr_restrict' EXIT
echo 2 >/proc/sys/kernel/kptr_restrict
expect_err 1 "devmemx: /proc/kallsyms shows this user no addresses (kernel.kptr_restrict = 2); load devmemx as root with kernel.kptr_restrict at 0 or 1: sysctl kernel.kptr_restrict=1
modprobe: ERROR: Error running install command '/usr/lib/devmemx/modprobe-devmemx ' for module devmemx: retcode 1
modprobe: ERROR: could not insert 'devmemx': Invalid argument" modprobe devmemx
grep -q "^devmemx " /proc/modules && fail "devmemx loaded with kptr_restrict=2"

echo 1 >/proc/sys/kernel/kptr_restrict
modprobe devmemx || fail "modprobe devmemx with kptr_restrict=1"
expect_eq "$(cat /sys/module/devmemx/parameters/dmabuf_devmem_ops)" "$(printf %u 0x"$(dx_ops_addr)")" \
	"the ops address modprobe passed"
for f in tcp_recvmsg_dmabuf sock_devmem_dontneed netdev_nl_bind_rx_doit; do
	expect_eq "$(cat /sys/module/devmemx/parameters/$f)" "$(printf %u 0x"$(dx_sym_addr $f)")" \
		"the $f address modprobe passed"
done
devmemx -j info >/tmp/info.json || fail "devmemx info"
expect_eq "$(jget version /tmp/info.json)" "$(cat /dx/VERSION)" "devmemx info's version"
tok=ready
[ -z "$(dx_review_failed token-array)" ] || tok=unavailable
expect_eq "$(jget token-array /tmp/info.json)" $tok "devmemx info's token-array"

DX_MODPROBE=1 sim_setup 4 9000
ip netns exec rx ethtool -G dxsim1 tcp-data-split on hds-thresh 0
ip netns exec rx ethtool -X dxsim1 equal 2
devmem_xfer 4194304 7300 --queues 2 --provider devmemx --rx-page-size 64K --udmabuf 8M --hugetlb
echo "# dkms-built devmemx from modprobe: $(jget bytes /tmp/rx.json) bytes verified, largest fragment $(jget frag_max /tmp/rx.json)"
ip netns del tx
ip netns del rx
modprobe -r devmemx_sim || fail "modprobe -r devmemx_sim"
dx_wait_idle
modprobe -r devmemx || fail "modprobe -r devmemx"
grep -q "^devmemx" /proc/modules && fail "left loaded: $(grep ^devmemx /proc/modules)"
exit 0
