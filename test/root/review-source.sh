#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# devmemx-review's source side (tools/review) on Debian's 7.2 source in the
# root: 7.2.12 passes every item; a token changed in a copy of
# tcp_recvmsg_dmabuf fails with that change's diff; a comment or
# whitespace changed passes; a missing item fails with its message;
# --accept stores a new text, which then passes; a stored text whose name
# is not its hash stops the review.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
review=/src/tools/review/devmemx-review
tarball=/usr/src/linux-source-7.2.tar.xz
kver=7.2.12+deb13-amd64 debver=7.2.12-1~bpo13+1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME ARGS...: the review of 7.2.12 (source only) into $work/NAME.out,
# its exit status in $work/NAME.rc.
run() {
	local name=$1
	shift
	python3 "$review" "$kver" --debian "$debver" --cache "$work/cache" \
		--source-only "$@" >"$work/$name.out" 2>&1
	echo $? >"$work/$name.rc"
}
rc() { cat "$work/$1.rc"; }
has() { grep -qxF -- "$2" "$work/$1.out" || { sed 's/^/    /' "$work/$1.out"; fail "$1: no line '$2'"; }; }

# 1. The reviewed kernel's own source passes, item by item.
run stock --source "$tarball"
[ "$(rc stock)" = 0 ] || { cat "$work/stock.out"; fail "7.2.12's source does not pass"; }
items=$(grep -c '^pass ' "$work/stock.out")
has stock "devmemx-review: source: $items of $items items as reviewed ($(sed -n 's/.*reviewed (\(.*\))$/\1/p' "$work/stock.out"))"
has stock "pass tcp_recvmsg_dmabuf 1d76a933c3673303"
has stock "devmemx-review: token-array: source passed"
has stock "devmemx-review: policies: source passed"
echo "# 7.2.12: $items items pass"

# A tree of the files the review reads, from the extraction the cache kept.
fresh() {
	rm -rf "$work/tree"
	cp -r "$(ls -d "$work"/cache/source/tar-*)" "$work/tree"
}

# 2. One token changed in tcp_recvmsg_dmabuf: that item fails, its diff
# shows the change against the reviewed text.
fresh
sed -i 's/frag_offset = net_iov_virtual_addr(niov) +$/frag_offset = net_iov_virtual_addr(niov) -/' \
	"$work/tree/net/ipv4/tcp.c"
run token --source "$work/tree"
[ "$(rc token)" = 1 ] || fail "a changed token: exit $(rc token), not 1"
has token "FAIL tcp_recvmsg_dmabuf: differs from every reviewed text"
has token "--- reviewed/tcp_recvmsg_dmabuf/1d76a933c3673303.txt"
has token "+++ $kver (Debian $debver) net/ipv4/tcp.c:2501"
has token "-frag_offset = net_iov_virtual_addr(niov) +"
has token "+frag_offset = net_iov_virtual_addr(niov) -"
has token "devmemx-review: token-array: source failed: source of tcp_recvmsg_dmabuf differs from every reviewed text"
has token "devmemx-review: policies: source passed"
[ "$(grep -c '^FAIL' "$work/token.out")" = 1 ] || fail "a changed token: more than its item failed"
echo "# a changed token fails with its diff"

# 3. Comments and whitespace only (a comment holding a brace at column 0,
# a line comment, blank lines, spaces for tabs, trailing blanks): passes.
fresh
sed -i -e 's|^\t\tif (skb_frags_readable(skb)) {$|\t\t/* a comment\n}\n */ if  (skb_frags_readable(skb))   {   // and another\n\n|' \
	-e 's|^\t\t\t\tfrag_offset = net_iov_virtual_addr(niov) +$|        frag_offset  =  net_iov_virtual_addr(niov)\t+  \t|' \
	"$work/tree/net/ipv4/tcp.c"
grep -q '^}$' <(sed -n '/^static int tcp_recvmsg_dmabuf/,/skb_frags_readable/p' "$work/tree/net/ipv4/tcp.c") ||
	fail "the comment planted no brace at column 0"
run blank --source "$work/tree"
[ "$(rc blank)" = 0 ] || { cat "$work/blank.out"; fail "comments and whitespace: exit $(rc blank), not 0"; }
echo "# comments and whitespace pass"

# 4. An item missing: a function's definition gone (renamed; its call
# stays), a file gone.
fresh
sed -i 's/^static void tcp_release_user_frags(/static void tcp_drop_user_frags(/' \
	"$work/tree/net/ipv4/tcp_ipv4.c"
rm "$work/tree/net/core/scm.c"
run missing --source "$work/tree"
[ "$(rc missing)" = 1 ] || fail "missing items: exit $(rc missing), not 1"
has missing "FAIL tcp_release_user_frags: missing (net/ipv4/tcp_ipv4.c: function tcp_release_user_frags not found)"
has missing "FAIL put_cmsg_notrunc: missing (net/core/scm.c is not in the source)"
has missing "devmemx-review: token-array: source failed: source of tcp_release_user_frags missing (net/ipv4/tcp_ipv4.c: function tcp_release_user_frags not found)"
echo "# missing items fail with their message"

# 5. --accept: the changed text is written into a copy of the store (the
# checkout's is not touched), and the review then passes.
cp -r /src/tools/review/reviewed "$work/reviewed"
before=$(find /src/tools/review/reviewed -type f | wc -l)
fresh
sed -i 's/frag_offset = net_iov_virtual_addr(niov) +$/frag_offset = net_iov_virtual_addr(niov) -/' \
	"$work/tree/net/ipv4/tcp.c"
run accept --source "$work/tree" --accept "$work/reviewed"
[ "$(rc accept)" = 0 ] || { cat "$work/accept.out"; fail "--accept: exit $(rc accept), not 0"; }
new=$(sed -n 's|^devmemx-review: accepted \(.*/tcp_recvmsg_dmabuf/[0-9a-f]\{16\}\.txt\)$|\1|p' "$work/accept.out")
[ -f "$new" ] || fail "--accept named no new text of tcp_recvmsg_dmabuf"
has accept "devmemx-review: accepted 1 new texts into $work/reviewed"
[ "$(sha256sum <"$new" | cut -c1-16).txt" = "${new##*/}" ] || fail "$new: its name is not its hash"
grep -qxF 'frag_offset = net_iov_virtual_addr(niov) -' "$new" || fail "$new: not the new text"
run again --source "$work/tree" --reviewed "$work/reviewed"
[ "$(rc again)" = 0 ] || fail "after --accept the review fails: exit $(rc again)"
h=${new##*/}
has again "pass tcp_recvmsg_dmabuf ${h%.txt}"
[ "$(find /src/tools/review/reviewed -type f | wc -l)" = "$before" ] || fail "the checkout's store changed"
echo "# --accept stores the new text and it passes"

# 6. A stored text that is not what its name says stops the review.
echo "x" >>"$new"
run tampered --source "$work/tree" --reviewed "$work/reviewed"
[ "$(rc tampered)" = 2 ] || fail "a tampered store: exit $(rc tampered), not 2"
grep -qF "${new##*/}: its text hashes to" "$work/tampered.out" || fail "a tampered store: not named"
echo "# a tampered store is refused"
