# SPDX-License-Identifier: GPL-2.0
# Helpers for the test scripts, sourced inside the VM.
set -euo pipefail

DX_VERSION=$(cat /dx/VERSION)
DX_KVER=$(uname -r)
DX_SERIES=$(echo "$DX_KVER" | cut -d. -f1-2)

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }

expect_eq() { # got want what
	[ "$1" == "$2" ] || fail "$3: expected '$2', got '$1'"
}

# expect_err STATUS MESSAGE CMD...: CMD exits with STATUS and prints exactly
# MESSAGE on stderr.
expect_err() {
	local want_rc=$1 want_msg=$2 rc=0 err
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = "$want_rc" ] || fail "$*: exit $rc, expected $want_rc (stderr: $err)"
	[ "$err" == "$want_msg" ] || fail "$*: stderr '$err', expected '$want_msg'"
}

dx_load() { insmod /dx/modules/devmemx.ko "$@"; }
dx_unload() { rmmod devmemx; }
