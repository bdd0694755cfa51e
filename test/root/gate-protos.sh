#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate's build-time refusal (module/probe.sh): the BTF prototypes of the
# four functions devmemx replaces or hooks, against what its bodies take.
# On 7.2's headers both features' whys are empty; with pfunct made to give
# tcp_recvmsg_dmabuf another prototype, or none, the token array's why says
# so (and policies' stays empty); the same for netdev_nl_bind_rx_doit and
# policies. The gate hands these whys out as they are (gate.c), which
# devmemx-gate cannot reach on a stock kernel.
. /src/test/rootlib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hdr=/usr/src/linux-headers-$k72 common=/usr/src/linux-headers-${k72%-amd64}-common

# whys [SED]: TOK_WHY and POL_WHY of probed.h, pfunct's prototypes edited
# by SED (a fake pfunct first in PATH runs the real one through it).
whys() {
	mkdir -p "$work/bin"
	cat >"$work/bin/pfunct" <<-EOF
		#!/bin/sh
		/usr/bin/pfunct "\$@" | sed -e '${1:-}'
	EOF
	chmod 755 "$work/bin/pfunct"
	rm -f "$work/probed.h"
	PATH=$work/bin:$PATH sh /src/module/probe.sh "$common" "$hdr" "$work/probed.h" ||
		fail "probe.sh on $k72 refused the kernel"
	sed -n 's/^#define DEVMEMX_BTF_\(TOK\|POL\)_WHY "\(.*\)".*/\2/p' "$work/probed.h" | paste -sd'|'
}
expect() { # what want got
	[ "$3" = "$2" ] || fail "$1: probed.h's whys '$3', expected '$2'"
	echo "# $1: '${3%%|*}' '${3#*|}'"
}

expect "7.2 as it is" "|" "$(whys)"
expect "tcp_recvmsg_dmabuf returning long" "tcp_recvmsg_dmabuf: BTF prototype differs|" \
	"$(whys 's/^int tcp_recvmsg_dmabuf(/long tcp_recvmsg_dmabuf(/')"
expect "no tcp_recvmsg_dmabuf in BTF" "no BTF prototype of tcp_recvmsg_dmabuf|" \
	"$(whys '/ tcp_recvmsg_dmabuf(/d')"
expect "sock_devmem_dontneed taking a long" "sock_devmem_dontneed: BTF prototype differs|" \
	"$(whys '/ sock_devmem_dontneed(/s/unsigned int/long/')"
expect "tcp_v4_destroy_sock returning int" "tcp_v4_destroy_sock: BTF prototype differs|" \
	"$(whys 's/^void tcp_v4_destroy_sock(/int tcp_v4_destroy_sock(/')"
expect "netdev_nl_bind_rx_doit's info a void *" "|netdev_nl_bind_rx_doit: BTF prototype differs" \
	"$(whys '/ netdev_nl_bind_rx_doit(/s/struct genl_info \*/void */')"
expect "no netdev_nl_bind_rx_doit in BTF" "|no BTF prototype of netdev_nl_bind_rx_doit" \
	"$(whys '/ netdev_nl_bind_rx_doit(/d')"
