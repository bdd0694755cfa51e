# SPDX-License-Identifier: GPL-2.0
# The netlink fuzzer (test/helpers/dx-fuzz.c): seeded requests to devmemx
# (every command, unknown ones, mutated attributes, racing fds) and to the
# netdev family's bind-rx while devmemx is loaded, then again under a
# policy (doc/policy.md), which sends the latter to devmemx. Every request answered;
# afterwards no binding, niov or page pool is left, and the device still
# moves verified data with both providers. The seed is printed: replay a
# failure in the VM with "dx-fuzz dxsim1 SEED COUNT" inside netns rx.
. /dx/guestlib.sh

dx_sim_devmem
trap dx_sim_teardown EXIT
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
count=3000
[ -z "$DX_DEBUG" ] || count=600
echo "# seed $seed, $count requests"
out=$(ip netns exec rx dx-fuzz dxsim1 "$seed" "$count" 2>&1) ||
	fail "dx-fuzz (seed $seed): $out"
echo "# $out"
binds=$(sed -n 's/.*(\([0-9]*\) binds).*/\1/p' <<<"$out")
[ "${binds:-0}" -gt 0 ] || fail "no bind succeeded in $count requests (seed $seed): $out"
# A policy the fuzzer set outlives it: off (it prints its bindings).
pol_off() {
	if ip netns exec rx devmemx policy | grep -qx 'dev: dxsim1'; then
		ip netns exec rx devmemx policy dev dxsim1 off >/dev/null
	fi
}
pol_off
# Again, a third as long, under a 64K policy on dxsim1: the netdev family's
# bind-rx requests are devmemx's (until the fuzzer's own POLICY-DEL).
# Not where this kernel's review failed for policies (devmemx-gate).
why=$(dx_review_failed policies)
if [ -n "$why" ]; then
	echo "# no run under a policy: the review of $DX_KVER failed: $why"
	exit 0
fi
ip netns exec rx devmemx policy dev dxsim1 size 64K || fail "policy dev dxsim1 size 64K"
out=$(ip netns exec rx dx-fuzz dxsim1 "$((seed + 1))" "$((count / 3))" 2>&1) ||
	fail "dx-fuzz under a policy (seed $((seed + 1))): $out"
echo "# under a policy: $out"
pol_off
# Persistent bindings outlive the fuzzer's sockets.
ip netns exec rx devmemx unbind all >/dev/null
dx_wait_idle
expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after the fuzzer"
devmem_xfer 1048576 7300 --queues 2
devmem_xfer 1048576 7301 --queues 3 --provider devmemx --udmabuf 8M --hugetlb --rx-page-size 64K
trap - EXIT
dx_sim_teardown
