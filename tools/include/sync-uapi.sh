#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keep tools/include/uapi in step with the kernel's uapi headers, the way the
# kernel's own tools/include/uapi is kept: the tools compile against these
# copies, so they build where linux-libc-dev is older than the kernel driven.
#
# usage: sync-uapi.sh [--check] [DIR]
#   DIR: a kernel source tree or a linux-headers-*-common directory (holding
#        include/uapi), or an include/uapi directory itself. Default: the
#        newest /usr/src/linux-headers-*/include/uapi.
#   without --check: copy the headers from DIR;
#   --check: print a warning for each copy that differs from DIR's (exit 0).
set -euo pipefail

# The headers the tools need that older linux-libc-dev (6.12) lacks.
FILES="linux/netdev.h linux/vfio.h linux/io_uring.h linux/io_uring/zcrx.h"

here=$(cd "$(dirname "$0")/uapi" && pwd)
check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
dir=${1:-}

if [ -z "$dir" ]; then
	dir=$(ls -d /usr/src/linux-headers-*/include/uapi 2>/dev/null |
	      sort -V | tail -n1)
	if [ -z "$dir" ]; then
		[ -n "$check" ] && exit 0
		echo "sync-uapi: no /usr/src/linux-headers-*: name a kernel tree" >&2
		exit 1
	fi
elif [ -d "$dir/include/uapi" ]; then
	dir=$dir/include/uapi
fi

for f in $FILES; do
	if [ ! -f "$dir/$f" ]; then
		echo "sync-uapi: warning: $dir/$f does not exist" >&2
		[ -n "$check" ] && continue
		exit 1
	fi
	if [ -n "$check" ]; then
		cmp -s "$dir/$f" "$here/$f" ||
			echo "sync-uapi: warning: tools/include/uapi/$f differs from $dir/$f (refresh: tools/include/sync-uapi.sh $dir)" >&2
	else
		mkdir -p "$(dirname "$here/$f")"
		cp "$dir/$f" "$here/$f"
		echo "sync-uapi: $f from $dir"
	fi
done
