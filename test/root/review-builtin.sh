#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The built-in table (module/reviewed.h) and the build root's reviews (make
# all: build/review/KVER) agree: for each kernel of the root the table
# lists by release and Debian version, devmemx-review passed both features
# and found the sizes the table holds. Prints each kernel's review.
. /src/test/rootlib.sh

# The table's entries, one line each: RELEASE DEBIAN SIZE SIZE SIZE SIZE.
table=$(tr -d '\n\t' </src/module/reviewed.h | grep -o '{ "[^"]*", "[^"]*", NULL, *{[^}]*} }' |
	sed 's/[{}",]/ /g; s/NULL//' | awk '{ $1 = $1; print }')
[ -n "$table" ] || fail "no entries read from module/reviewed.h"
seen=0
for f in /src/build/review/*; do
	[ -f "$f" ] || continue
	k=$(basename "$f")
	rel=$(awk '$1 == "release" { print $2 }' "$f")
	deb=$(awk '$1 == "debian" { print $2 }' "$f")
	[ "$rel" = "$k" ] || fail "$f: release '$rel'"
	failed=$(awk '$1 == "failed" { $1 = ""; print substr($0, 2) }' "$f" | paste -sd';')
	got=$(for fn in tcp_recvmsg_dmabuf sock_devmem_dontneed tcp_v4_destroy_sock netdev_nl_bind_rx_doit; do
		awk -v f="$fn" '$1 == "function" && $2 == f { print $3 }' "$f"
	done | paste -sd' ')
	echo "# review of $k (Debian $deb): ${failed:-passed}; sizes ${got:-none}"
	want=$(awk -v r="$rel" -v d="$deb" '$1 == r && $2 == d { print $3, $4, $5, $6 }' <<<"$table")
	[ -n "$want" ] || continue
	seen=$((seen + 1))
	[ -z "$failed" ] || fail "$k is in module/reviewed.h, and its review failed: $failed"
	[ "$got" = "$want" ] || fail "$k: the review's sizes '$got', module/reviewed.h's '$want'"
done
# None where the archive has moved past the kernels the table lists.
echo "# $seen kernels of the root in the built-in table: their reviews agree"
