# SPDX-License-Identifier: GPL-2.0
# Shared by the tests in test/root/ (sourced; they run inside the build root).
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
kver() { awk -v s="$1" '$1 == s { print $2 }' /etc/devmemx-kernels; }
v=$(cat /src/VERSION)
k72=$(kver 7.2) k73=$(kver 7.3) k612=$(kver 6.12)
# snap: every path under $watched, sorted (dkms's signing key excepted: it
# stays, as on a host), to compare before installing and after removing.
snap() { find $watched -path /var/lib/dkms/mok.\* -prune -o -print 2>/dev/null | sort; }
