# SPDX-License-Identifier: GPL-2.0
# dx-debug: no the CLI's own parsing: no request reaches the kernel
# The CLI's own behaviour: help, version, bad usage.
. /dx/guestlib.sh

devmemx --help | grep -c '^usage: devmemx \[-j\] bind dev IFNAME queues LIST \[size SIZE | size auto \[max-waste W\]\]$' >/dev/null ||
	fail "--help"
expect_eq "$(devmemx --version)" "devmemx $DX_VERSION" "--version"
expect_err 2 'devmemx: unknown command "frob" (try: devmemx --help)' devmemx frob
rc=0; devmemx >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 2 "no command"
expect_err 2 'devmemx: info takes no arguments' devmemx info extra
