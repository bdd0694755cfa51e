# SPDX-License-Identifier: GPL-2.0
# dx-matrix: loads with the ops address of this kernel, refuses a wrong one; INFO's features and the token-array and policy gates for this release
# devmemx loads (and refuses to without the ops address, or with a wrong
# one), INFO reports the version, this kernel's features, its hooks, no
# live objects, the token array (devmemx-tokens) and policies
# (devmemx-policy); it unloads.
. /dx/guestlib.sh

case $DX_SERIES in
7.2) features="rx-page-size" json_features='["rx-page-size"]' ;;
7.3) features="rx-page-size intree-large-niov"
     json_features='["rx-page-size","intree-large-niov"]' ;;
*) fail "no expected features for kernel $DX_KVER" ;;
esac
# The gate (devmemx-gate tests its refusals): both features ready where
# this kernel's review passed (the build root's devmemx-review, or the
# built-in table; the debug build has the test entry test/kbuild.sh gave
# it); where the build root's review failed for one, the gate says so.
tok=ready tok_why="reviewed for $DX_KVER"
pol=ready pol_why="reviewed for $DX_KVER"
if [ -n "$(dx_review_failed token-array)" ]; then
	tok=unavailable tok_why="tcp_recvmsg_dmabuf: its review failed"
fi
if [ -n "$(dx_review_failed policies)" ]; then
	pol=unavailable pol_why="netdev_nl_bind_rx_doit: its review failed"
fi

expect_err 1 'devmemx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
	devmemx info

expect_err 22 "insmod: can't insert '/dx/modules/devmemx.ko': Invalid argument" \
	insmod /dx/modules/devmemx.ko
grep -q "devmemx: load with dmabuf_devmem_ops=0x<address from /proc/kallsyms>: modprobe does this with devmemx's modprobe.conf" <<<"$(dmesg)" ||
	fail "no message for a load without the ops address"
wrong=$(awk '$3 == "mp_dmabuf_devmem_init" { print $1 }' /proc/kallsyms)
expect_err 22 "insmod: can't insert '/dx/modules/devmemx.ko': Invalid argument" \
	insmod /dx/modules/devmemx.ko dmabuf_devmem_ops=0x"$wrong"
grep -q "devmemx: dmabuf_devmem_ops=0x$wrong is not the address of dmabuf_devmem_ops" <<<"$(dmesg)" ||
	fail "no message for a wrong ops address"

dx_load
grep -q "devmemx: version $DX_VERSION loaded$" <<<"$(dmesg)" ||
	fail "no load message in dmesg"
# The test entry says so when it is taken, and only on the debug build.
if grep -qF "devmemx: review: the test entry of this build ($(uname -v))" <<<"$(dmesg)"; then
	[ -n "$DX_DEBUG" ] || fail "a stock kernel took a test entry"
else
	[ -z "$DX_DEBUG" ] || fail "no kernel log line for the debug build's test entry"
fi

got=$(devmemx info)
expect_eq "$got" "version: $DX_VERSION
kernel: $DX_KVER
features: $features
hooks: 6
bindings: 0
niovs: 0
page-pools: 0
token-array: $tok
token-array-why: $tok_why
token-sockets: 0
token-bytes: 0
policies: $pol
policies-why: $pol_why" "devmemx info"

got=$(devmemx -j info)
expect_eq "$got" "{\"version\":\"$DX_VERSION\",\"kernel\":\"$DX_KVER\",\"features\":$json_features,\"hooks\":6,\"bindings\":0,\"niovs\":0,\"page-pools\":0,\"token-array\":\"$tok\",\"token-array-why\":\"$tok_why\",\"token-sockets\":0,\"token-bytes\":0,\"policies\":\"$pol\",\"policies-why\":\"$pol_why\"}" \
	"devmemx -j info"

expect_eq "$(cat /sys/module/devmemx/version)" "$DX_VERSION" "module version"
expect_eq "$(cat /sys/module/devmemx/refcnt)" 0 "module refcount"

dx_unload
expect_err 1 'devmemx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
	devmemx -j info
