# SPDX-License-Identifier: GPL-2.0
# The gate (module/gate.c, doc/review.md): each way it refuses the token
# array and policies, through INFO (state and why, text and JSON), the
# kernel log and the refusals of autorelease 0 and of POLICY-SET, each
# leaving nothing and the rest of devmemx working: no review for the
# release, another Debian version, a function whose review failed or whose
# size differs, a wrong or missing address, a malformed review=, and the
# override (review_release) that passes every check but may never make a
# kernel ready. A review entry for this very kernel, as devmemx-review
# writes it, makes both ready; and the built-in table alone answers for
# the kernels the project reviewed.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
rxx() { ip netns exec rx "$@"; }
# The running kernel's Debian version (uname -v: "... Debian V (date)");
# the debug build has none, and its entries here get a stand-in.
debian=$(uname -v | sed -n 's/.* Debian \([^ ]*\) .*/\1/p')
nodeb="no Debian version in uname -v"
[ -n "$debian" ] || debian=0-dxdebug
no=" (Operation not supported)"

# sizes_of NAME...: "NAME:0xSIZE" each, comma-separated: the size
# kallsyms gives (up to the next symbol's address), as the review does.
# One read of /proc/kallsyms, kept for the test (seconds each on TCG).
sizes_of() {
	local n a b out=
	[ -s /tmp/dx-gate-sizes ] ||
		awk 'want && $1 != at { print want, at, $1; want = "" }
		     NF == 3 && ($3 == "tcp_recvmsg_dmabuf" || $3 == "sock_devmem_dontneed" ||
				 $3 == "tcp_v4_destroy_sock" || $3 == "netdev_nl_bind_rx_doit") &&
		     !seen[$3]++ { want = $3; at = $1 }' /proc/kallsyms >/tmp/dx-gate-sizes
	for n in "$@"; do
		read -r a b < <(awk -v n="$n" '$1 == n { print $2, $3 }' /tmp/dx-gate-sizes)
		[ -n "$b" ] || fail "no size for $n in /proc/kallsyms"
		out+="${out:+,}$n:$(printf '0x%x' $((16#$b - 16#$a)))"
	done
	echo "$out"
}
TOKFNS="tcp_recvmsg_dmabuf sock_devmem_dontneed tcp_v4_destroy_sock"
# logged LINE: the kernel said LINE (whole, its time stamp aside) since
# the case began.
logged() { dmesg_new | sed 's/^\[[^]]*\] //' | grep -cxF -- "$1" >/dev/null; }
sizes=$(sizes_of $TOKFNS netdev_nl_bind_rx_doit)

# state FEATURE STATE WHY: INFO's FEATURE (token-array, policies) and its
# why, as text and as JSON.
state() {
	local got
	got=$(devmemx info | sed -n "s/^$1\(-why\)\{0,1\}: //p")
	expect_eq "$got" "$2
$3" "devmemx info: $1"
	got=$(devmemx -j info | grep -o "\"$1\":\"[^\"]*\",\"$1-why\":\"[^\"]*\"")
	expect_eq "$got" "\"$1\":\"$2\",\"$1-why\":\"$3\"" "devmemx -j info: $1"
}

reload() {
	dx_wait_idle
	dx_unload
	dx_defer dx_load
	dx_defer dx_unload
	dx_load "$@"
}

# left_nothing REF WHAT: no binding, no policy, the module's count REF, no
# live object, nothing hooked.
left_nothing() {
	expect_eq "$(rxx devmemx -j show)" "" "the dump after $2"
	expect_eq "$(rxx devmemx policy show)" "" "policies after $2"
	expect_eq "$(cat /sys/module/devmemx/refcnt)" "$1" "module refcount after $2"
	expect_eq "$(dx_live)" "0 0 0" "live objects after $2"
	expect_eq "$(grep -cE '^(tcp_recvmsg_dmabuf|sock_devmem_dontneed|tcp_v4_destroy_sock|netdev_nl_bind_rx_doit)\b' \
		/sys/kernel/debug/tracing/enabled_functions)" 0 "functions hooked after $2"
}

# refused TOKWHY POLWHY: both features unavailable, saying so in INFO and
# the kernel log; autorelease 0 and POLICY-SET refused with those whys,
# leaving nothing; an autorelease 1 bind still works.
refused() {
	local tok=$1 pol=$2 ref tokmsg polmsg id
	state token-array unavailable "$tok"
	state policies unavailable "$pol"
	logged "devmemx: no token array: $tok" ||
		fail "no kernel log line: no token array: $tok"
	logged "devmemx: no policies: $pol" ||
		fail "no kernel log line: no policies: $pol"
	tokmsg="autorelease 0: $tok: use autorelease 1"
	[ ${#tokmsg} -le 79 ] ||
		tokmsg="autorelease 0: no token array here (see devmemx info): use autorelease 1"
	polmsg="no policies here: $pol"
	[ ${#polmsg} -le 79 ] || polmsg="no policies here (see devmemx info)"
	ref=$(cat /sys/module/devmemx/refcnt)
	expect_err 1 "devmemx: bind to dxsim1: $tokmsg$no" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 0
	expect_err 1 "devmemx: dry run of a bind to dxsim1: $tokmsg$no" \
		rxx devmemx bind dev dxsim1 queues 2 --udmabuf 4M autorelease 0 --dry-run
	expect_err 1 "devmemx: policy on dxsim1: $polmsg$no" \
		rxx devmemx policy dev dxsim1 size 64K
	left_nothing "$ref" "the refusals"
	id=$(rxx devmemx -j bind dev dxsim1 queues 2 --udmabuf 4M autorelease 1 --persist | json_ids)
	[ -n "$id" ] || fail "an autorelease 1 bind beside the refusals"
	rxx devmemx unbind all >/dev/null
	dx_wait_idle
}

# ready: both features ready, and the entry's release named.
ready() {
	state token-array ready "reviewed for $DX_KVER"
	state policies ready "reviewed for $DX_KVER"
}

# As the suite loads devmemx (the build root's review of this kernel
# passed to the module as the loader passes it): both ready, or skipped
# with the review's reason where it failed here.
as_loaded() {
	dx_need_review token-array
	dx_need_review policies
	ready
}
dx_case as-loaded as_loaded

# The built-in table alone (no review=): on a kernel the project reviewed
# the built-in entry, logged; elsewhere no entry, naming the command.
builtin_only() {
	reload review=
	if logged "devmemx: review: the built-in entry for $DX_KVER (Debian $debian)"; then
		ready
	elif [ -n "$DX_DEBUG" ]; then
		logged "devmemx: review: the test entry of this build ($(uname -v))" ||
			fail "the debug build did not take its test entry"
		ready
	else
		refused "no review of this kernel: run devmemx-review" \
			"no review of this kernel: run devmemx-review"
	fi
}
dx_case builtin-only builtin_only

# This kernel's entry as devmemx-review writes it, given by review= alone
# (the built-in table has no such release: review_release looks it up):
# every function passes, and the borrowed name still refuses.
override() {
	local why="review_release is not this kernel's"
	[ -z "$DX_DEBUG" ] || why=$nodeb
	reload review="0.0.0-dxtest,$debian,$sizes" review_release=0.0.0-dxtest
	logged "devmemx: review: looking up release 0.0.0-dxtest (review_release)" ||
		fail "no kernel log line for review_release"
	refused "$why" "$why"
}
dx_case override override

# No entry for the release looked up.
unreviewed() {
	reload review_release=0.0.0-none
	refused "no review of this kernel: run devmemx-review" \
		"no review of this kernel: run devmemx-review"
}
dx_case unreviewed unreviewed

# An entry for the release, of another Debian version.
other_debian() {
	local why="not reviewed for Debian $debian: run devmemx-review"
	[ -z "$DX_DEBUG" ] || why=$nodeb
	reload review="0.0.0-dxtest,0.0-1,$sizes" review_release=0.0.0-dxtest
	refused "$why" "$why"
}
dx_case other-debian other_debian

# An entry without the token array's functions (their review failed
# there): the token array unavailable; policies pass every check of the
# gate but the override's.
review_failed() {
	local tok="tcp_recvmsg_dmabuf: its review failed" pol="review_release is not this kernel's"
	[ -z "$DX_DEBUG" ] || tok=$nodeb pol=$nodeb
	reload review="0.0.0-dxtest,$debian,$(sizes_of netdev_nl_bind_rx_doit)" \
		review_release=0.0.0-dxtest
	refused "$tok" "$pol"
}
dx_case review-failed review_failed

# An entry with no function (both features' reviews failed there).
none_passed() {
	local tok="tcp_recvmsg_dmabuf: its review failed" pol="netdev_nl_bind_rx_doit: its review failed"
	[ -z "$DX_DEBUG" ] || tok=$nodeb pol=$nodeb
	reload review="0.0.0-dxtest,$debian" review_release=0.0.0-dxtest
	refused "$tok" "$pol"
}
dx_case none-passed none_passed

# An entry whose sizes are not this kernel's.
other_size() {
	local tok="tcp_recvmsg_dmabuf: $(sizes_of tcp_recvmsg_dmabuf | sed 's/.*://') bytes, not 0x10"
	local pol="netdev_nl_bind_rx_doit: $(sizes_of netdev_nl_bind_rx_doit | sed 's/.*://') bytes, not 0x10"
	[ -z "$DX_DEBUG" ] || tok=$nodeb pol=$nodeb
	reload review="0.0.0-dxtest,$debian,tcp_recvmsg_dmabuf:0x10,$(sizes_of sock_devmem_dontneed tcp_v4_destroy_sock),netdev_nl_bind_rx_doit:0x10" \
		review_release=0.0.0-dxtest
	refused "$tok" "$pol"
}
dx_case other-size other_size

# A wrong address (another function's) for each feature's private function,
# the entry this kernel's own.
wrong_address() {
	local a b
	a=$(dx_sym_addr sock_devmem_dontneed) b=$(dx_sym_addr tcp_recvmsg_dmabuf)
	dx_need_review token-array
	dx_need_review policies
	reload tcp_recvmsg_dmabuf=0x"$a" netdev_nl_bind_rx_doit=0x"$b"
	logged "devmemx: tcp_recvmsg_dmabuf=0x$a is not the address of tcp_recvmsg_dmabuf" ||
		fail "no kernel log line for the wrong tcp_recvmsg_dmabuf="
	logged "devmemx: netdev_nl_bind_rx_doit=0x$b is not the address of netdev_nl_bind_rx_doit" ||
		fail "no kernel log line for the wrong netdev_nl_bind_rx_doit="
	refused "tcp_recvmsg_dmabuf: wrong address" "netdev_nl_bind_rx_doit: wrong address"
}
dx_case wrong-address wrong_address

# Loaded without the addresses (insmod by hand, the entry given).
no_address() {
	dx_need_review token-array
	dx_need_review policies
	dx_wait_idle
	dx_unload
	dx_defer dx_load
	dx_defer dx_unload
	# shellcheck disable=SC2046 # dx_review_param: one word
	insmod /dx/modules/devmemx.ko dmabuf_devmem_ops=0x"$(dx_ops_addr)" $(dx_review_param)
	refused "no tcp_recvmsg_dmabuf= (modprobe gives it)" \
		"no netdev_nl_bind_rx_doit= (modprobe gives it)"
}
dx_case no-address no_address

# A review= that does not parse: ignored, with a log line; the kernel
# then stands as if there were none (as the built-in table has it).
malformed() {
	reload review="0.0.0-dxtest,$debian,tcp_recvmsg_dmabuf" review_release=0.0.0-dxtest
	logged "devmemx: review=0.0.0-dxtest,$debian,tcp_recvmsg_dmabuf: not RELEASE,DEBIAN[,FUNCTION:SIZE...] of known functions: ignored" ||
		fail "no kernel log line for a malformed review="
	refused "no review of this kernel: run devmemx-review" \
		"no review of this kernel: run devmemx-review"
}
dx_case malformed malformed

# The loader (module/modprobe-devmemx --review): an entry of this kernel's
# release becomes review=, its functions in its order; one of another
# build (build id), one others may write and one root does not own are
# ignored, each with a word on stderr; no entry, no parameter.
loader() {
	local d=/tmp/dx-review f rel=$DX_KVER got err
	d=$(mktemp -d) f=$d/$rel
	dx_defer rm -rf "$d"
	printf '%s\n' "# a test entry" "release $rel" "debian $debian" \
		"function sock_devmem_dontneed 0x340" "function netdev_nl_bind_rx_doit 0x5f0" \
		"source tcp_recvmsg_dmabuf 0123456789abcdef" "failed token-array a reason" >"$f"
	chmod 644 "$f"
	got=$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)
	expect_eq "$got" "review=$rel,$debian,sock_devmem_dontneed:0x340,netdev_nl_bind_rx_doit:0x5f0" \
		"the loader's review= from an entry"
	echo "build-id 00" >>"$f"
	got=$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>/dev/null)
	err=$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1 >/dev/null)
	expect_eq "$got" "" "the loader's review= from another build's entry"
	case $err in
	"devmemx: $f is the review of another build of $rel (build id 00, running "*"): run devmemx-review again") ;;
	*) fail "the loader on another build's entry said: $err" ;;
	esac
	sed -i '/^build-id/d' "$f"
	chmod 664 "$f"
	expect_eq "$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)" \
		"devmemx: $f is writable by others than root: ignored (chmod 644 $f)" "the loader on a group-writable entry"
	chmod 646 "$f"
	expect_eq "$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)" \
		"devmemx: $f is writable by others than root: ignored (chmod 644 $f)" "the loader on a world-writable entry"
	chmod 644 "$f"
	chown 65534 "$f"
	expect_eq "$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)" \
		"devmemx: $f is not root's: ignored" "the loader on an entry root does not own"
	# every feature failed: the entry still stands, with no function
	chown 0 "$f"
	sed -i '/^function/d' "$f"
	expect_eq "$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)" "review=$rel,$debian" \
		"the loader's review= from an entry without functions"
	rm "$f"
	expect_eq "$(DEVMEMX_REVIEW_DIR=$d /dx/modprobe-devmemx --review 2>&1)" "" "the loader without an entry"
	# The running kernel's build id, as the loader reads it, is the one
	# devmemx-review recorded from the -dbg image (where the root made one).
	if [ -f "$DX_REVIEW_FILE" ] && grep -q '^build-id ' "$DX_REVIEW_FILE"; then
		[ -n "$(dx_review_param)" ] || fail "the loader took no review= from $DX_REVIEW_FILE: $(/dx/modprobe-devmemx --review 2>&1)"
	fi
}
dx_case loader loader
