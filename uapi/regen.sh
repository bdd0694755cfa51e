#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate everything derived from uapi/devmemx.yaml, with the kernel's YNL
# generator (from the build root's linux-source), or with --check report
# drift between the spec and the committed files and fail on it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ynl=${YNL_DIR:-/opt/linux}
check=${1:-}

# The generator reads the schema two levels above the spec and names the spec
# by its path below the nearest MAINTAINERS: give it that shape.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/uapi/linux" "$stage/module/generated" "$stage/tools/generated"
touch "$stage/MAINTAINERS"
cp "$ynl/Documentation/netlink/genetlink.yaml" "$stage/"
cp "$top/uapi/devmemx.yaml" "$stage/uapi/"

gen() { # mode header|source out
	(cd "$stage" && python3 "$ynl/tools/net/ynl/pyynl/ynl_gen_c.py" \
		--mode "$1" "--$2" --spec "$stage/uapi/devmemx.yaml" -o "$stage/$3" >/dev/null)
}
gen uapi header uapi/linux/devmemx.h
gen kernel header module/generated/netlink.h
gen kernel source module/generated/netlink.c
(cd "$stage" && python3 "$top/tools/gen-names.py" uapi/devmemx.yaml \
	>tools/generated/devmemx-names.h)

files="uapi/linux/devmemx.h module/generated/netlink.h module/generated/netlink.c
       tools/generated/devmemx-names.h"
rc=0
for f in $files; do
	if [ "$check" = --check ]; then
		diff -u "$top/$f" "$stage/$f" || { echo "$f is out of date with uapi/devmemx.yaml: run make generate" >&2; rc=1; }
	else
		cp "$stage/$f" "$top/$f"
	fi
done
exit $rc
