# SPDX-License-Identifier: GPL-2.0
# dx-debug: no the gate decides at load from the release and symbol sizes, and the debug kernel's release is not reviewed (info checks that it says so there); its refusals run the paths of devmemx-errors' ones
# The token array's gate (doc/token-array.md, increment A): on a reviewed
# kernel INFO says ready and autorelease 0 is refused, by bind and dry run,
# with its message and nothing left; autorelease 1 binds and show says
# xarray. An unreviewed release, another release's Debian version and a
# wrong or missing symbol address each make the token array unavailable,
# say why, and leave the rest of devmemx working.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
unbind_all() { rxx devmemx unbind all >/dev/null && dx_wait_idle; }

# The running kernel's Debian version (uname -v: "... Debian V (date)").
debian=$(uname -v | sed -n 's/.* Debian \([^ ]*\) .*/\1/p')
case $DX_SERIES in
7.2) other=7.3.4+deb13-amd64 ;;
7.3) other=7.2.12+deb13-amd64 ;;
*) fail "no other reviewed release for kernel $DX_KVER" ;;
esac
no=" (Operation not supported)"

# token_array STATE WHY: INFO's token-array and its why, as text and JSON.
token_array() {
	local got
	got=$(devmemx info | sed -n 's/^token-array\(-why\)\{0,1\}: //p')
	expect_eq "$got" "$1
$2" "devmemx info: token-array"
	got=$(devmemx -j info | sed 's/.*"page-pools":[0-9]*,//')
	expect_eq "$got" "\"token-array\":\"$1\",\"token-array-why\":\"$2\"}" \
		"devmemx -j info: token-array"
}

# reload PARAMS...: devmemx again with PARAMS after the loader's (the
# case's cleanup loads it as the tests do).
reload() {
	dx_wait_idle
	dx_unload
	dx_defer dx_load
	dx_defer dx_unload
	dx_load "$@"
}

# left_nothing REF WHAT: after WHAT, no binding (dump empty), the module's
# reference count REF, no live niov and no dma-buf page pool.
left_nothing() {
	expect_eq "$(rxx devmemx -j show)" "" "the dump after $2"
	expect_eq "$(cat /sys/module/devmemx/refcnt)" "$1" "module refcount after $2"
	expect_eq "$(dx_live)" "0 0 0" "live objects after $2"
	expect_eq "$(dmabuf_pools rx)" 0 "dma-buf page pools after $2"
}

# refused MESSAGE: autorelease 0 refused with MESSAGE by bind (held and
# persistent), the dry run, size auto and devmemx-rx, each leaving nothing.
refused() {
	local ref
	ref=$(cat /sys/module/devmemx/refcnt)
	expect_err 1 "devmemx: bind to dxsim1: $1$no" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 0
	left_nothing "$ref" "a refused bind"
	expect_err 1 "devmemx: bind to dxsim1: $1$no" \
		rxx devmemx bind dev dxsim1 queues 2 size 64K --udmabuf 4M --hugetlb autorelease 0 --persist
	left_nothing "$ref" "a refused bind --persist"
	expect_err 1 "devmemx: dry run of a bind to dxsim1: $1$no" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 0 --dry-run
	left_nothing "$ref" "a refused dry run"
	expect_err 1 "devmemx: dry run of a bind to dxsim1: $1$no" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M size auto autorelease 0
	left_nothing "$ref" "a refused size auto"
	expect_err 1 "devmemx-rx: bind to dxsim1: $1$no" \
		rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 5301 --expect 1M \
		--udmabuf 4M --provider devmemx --autorelease 0 --timeout 5
	left_nothing "$ref" "a refused devmemx-rx recv"
}

# still_binds: autorelease 1 and no autorelease bind, and show says xarray.
still_binds() {
	local id got
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M autorelease 1 --persist | json_ids)
	[ -n "$id" ] || fail "bind with autorelease 1"
	dx_defer unbind_all
	got=$(rxx devmemx show "$id" | grep '^autorelease:')
	expect_eq "$got" "autorelease: xarray" "show after autorelease 1"
	rxx devmemx -j show "$id" | grep -c '"exporter":"udmabuf","autorelease":"xarray","held-by":' >/dev/null ||
		fail "devmemx -j show: no \"autorelease\":\"xarray\": $(rxx devmemx -j show "$id")"
	id=$(rxx devmemx -j bind dev dxsim1 queues 3 --udmabuf 4M --persist | json_ids)
	[ -n "$id" ] || fail "bind without autorelease"
	got=$(rxx devmemx show "$id" | grep '^autorelease:')
	expect_eq "$got" "autorelease: xarray" "show after a bind without autorelease"
	unbind_all
}

# Reviewed: INFO says ready, and names the review.
reviewed_info() {
	token_array ready "reviewed for $DX_KVER; no hooks in this build"
	expect_eq "$(devmemx -j info | sed -n 's/.*"hooks":\([0-9]*\),.*/\1/p')" 6 "hooks"
}
dx_case reviewed-info reviewed_info

# Reviewed: autorelease 0 is refused, not in this build yet; nothing left.
reviewed_refuses() {
	refused "autorelease 0: the token array is not in this build yet"
}
dx_case reviewed-refuses reviewed_refuses

# Reviewed: autorelease 1 (and none) binds, and a verified flow arrives.
reviewed_xarray() {
	still_binds
	devmem_xfer $((1 << 20)) 5302 --queues 2 --provider devmemx --autorelease 1 \
		--udmabuf 4M
	dx_wait_idle
}
dx_case reviewed-xarray reviewed_xarray

# An unreviewed release (tokens_release=): unavailable, and why.
unreviewed() {
	reload tokens_release=7.2.99-amd64
	token_array unavailable "not reviewed for 7.2.99-amd64"
	dmesg_new | grep -c "devmemx: no token array: not reviewed for 7.2.99-amd64$" >/dev/null ||
		fail "no kernel log line for the unreviewed release"
	refused "autorelease 0: not reviewed for 7.2.99-amd64: use autorelease 1"
	still_binds
}
dx_case unreviewed unreviewed

# The other series' release: listed, but not with this kernel's Debian version.
other_release() {
	reload tokens_release="$other"
	token_array unavailable "not reviewed for Debian $debian"
	dmesg_new | grep -c "devmemx: no token array: not reviewed for Debian $debian$" >/dev/null ||
		fail "no kernel log line for the other series' release"
	refused "autorelease 0: not reviewed for Debian $debian: use autorelease 1"
	still_binds
}
dx_case other-release other_release

# A wrong tcp_recvmsg_dmabuf= (sock_devmem_dontneed's address): unavailable.
wrong_address() {
	local addr
	addr=$(dx_sym_addr sock_devmem_dontneed)
	reload tcp_recvmsg_dmabuf=0x"$addr"
	token_array unavailable "tcp_recvmsg_dmabuf: wrong address"
	dmesg_new | grep -c "devmemx: tcp_recvmsg_dmabuf=0x$addr is not the address of tcp_recvmsg_dmabuf$" >/dev/null ||
		fail "no kernel log line for the wrong address"
	refused "autorelease 0: tcp_recvmsg_dmabuf: wrong address: use autorelease 1"
	still_binds
}
dx_case wrong-address wrong_address

# Loaded without the token array's addresses (insmod by hand): unavailable.
no_address() {
	dx_wait_idle
	dx_unload
	dx_defer dx_load
	dx_defer dx_unload
	insmod /dx/modules/devmemx.ko dmabuf_devmem_ops=0x"$(dx_ops_addr)"
	token_array unavailable "no tcp_recvmsg_dmabuf= (modprobe gives it)"
	dmesg_new | grep -c "devmemx: no token array: no tcp_recvmsg_dmabuf= (modprobe gives it)$" >/dev/null ||
		fail "no kernel log line for the missing addresses"
	refused "autorelease 0: no tcp_recvmsg_dmabuf= (modprobe gives it): use autorelease 1"
	still_binds
}
dx_case no-address no_address

# Bad values: the CLI's and devmemx-rx's usage errors.
bad_usage() {
	expect_err 2 'devmemx: bad autorelease "2": use 0 (token array) or 1 (xarray)' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 2
	expect_err 2 'devmemx: bad autorelease "xarray": use 0 (token array) or 1 (xarray)' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease xarray
	expect_err 2 'devmemx: autorelease needs 0|1' \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease
	expect_err 2 'devmemx-rx: bad --autorelease "01": use 0 (token array) or 1 (xarray)' \
		rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 5303 --expect 1M \
		--provider devmemx --autorelease 01
	expect_err 2 "devmemx-rx: --autorelease is devmemx's: add --provider devmemx (in-tree devmem of this kernel has no autorelease)" \
		rxx devmemx-rx recv --dev dxsim1 --queues 2 --port 5303 --expect 1M \
		--autorelease 1
	expect_eq "$(dx_live)" "0 0 0" "live objects after bad usage"
}
dx_case bad-usage bad_usage

dx_wait_idle
expect_eq "$(dx_live)" "0 0 0" "live objects at the end"
