# SPDX-License-Identifier: GPL-2.0
# devmemx loads, INFO reports the version and this kernel's features, unloads.
. /dx/tlib.sh

case $DX_SERIES in
7.2) features="rx-page-size" json_features='["rx-page-size"]' ;;
7.3) features="rx-page-size intree-large-niov"
     json_features='["rx-page-size","intree-large-niov"]' ;;
*) fail "no expected features for kernel $DX_KVER" ;;
esac

expect_err 1 'devmemx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
	devmemx info

dx_load
grep -q "devmemx: version $DX_VERSION loaded$" <<<"$(dmesg)" ||
	fail "no load message in dmesg"

got=$(devmemx info)
expect_eq "$got" "version: $DX_VERSION
kernel: $DX_KVER
features: $features" "devmemx info"

got=$(devmemx -j info)
expect_eq "$got" "{\"version\":\"$DX_VERSION\",\"kernel\":\"$DX_KVER\",\"features\":$json_features}" \
	"devmemx -j info"

expect_eq "$(cat /sys/module/devmemx/version)" "$DX_VERSION" "module version"
expect_eq "$(cat /sys/module/devmemx/refcnt)" 0 "module refcount"

dx_unload
expect_err 1 'devmemx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
	devmemx -j info
