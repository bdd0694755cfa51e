# SPDX-License-Identifier: GPL-2.0
# dx-debug: no make ab's apps set, checking its harness: the policy's bind path is devmemx-policy's, which runs there
# make ab's apps set, short: the kernel's ncdevmem, unchanged, receives
# through devmemx-rx ab --app with no policy (netdev-4K: in-tree) and under
# a 64K policy (policy-64K: devmemx), 4M per run, a verified pass (-v 7)
# and a timed run each. Every run moves its bytes, the verified ones are
# validated by ncdevmem, the policy's runs take fewer cmsgs, the table has
# the policy's ratios, and nothing is left (no policy, no hook, no
# binding). Bytes ncdevmem does not expect fail the run with its message,
# and so does a byte count short of what was sent.
. /dx/guestlib.sh
. /dx/ab-lib.sh

dx_need_review policies
dx_sim_devmem 9000
dx_defer dx_sim_teardown
out=/tmp/ab-apps
rm -rf $out
mkdir -p $out

doit_unhooked() { ! grep -q '^netdev_nl_bind_rx_doit\b' /sys/kernel/debug/tracing/enabled_functions; }

apps() {
	local csv=$out/apps.csv md=$out/apps.md bad n4 n64 c p ph
	(ab_sets apps 4M 1 "" $out) >$out/stdout 2>$out/stderr ||
		fail "ab apps: $(tail -n 20 $out/stderr)"
	[ -s $csv ] || fail "no CSV"
	expect_eq "$(($(wc -l <$csv) - 1))" 4 "CSV rows (two configurations, two runs each)"
	c=$(csv_col cmsgs_dmabuf $csv) p=$(csv_col config $csv) ph=$(csv_col phase $csv)
	# 4M each; the verified pass validated; ncdevmem's cmsgs counted.
	bad=$(awk -F, -v b="$(csv_col bytes $csv)" -v v="$(csv_col verified $csv)" -v c=$c -v ph=$ph \
		'NR > 1 && ($b != 4194304 || $c == 0 || ($ph == "verify") != ($v == 1))' $csv)
	[ -z "$bad" ] || fail "runs without 4M, cmsgs or the verified pass: $bad"
	# Larger niovs under the policy: fewer fragments in the same bytes
	# (ncdevmem's largest at 64K is 30-57K, HW-GRO's coalescing).
	for phase in verify timed; do
		n4=$(awk -F, -v c=$c -v p=$p -v ph=$ph -v x=$phase '$p == "netdev-4K" && $ph == x { print $c }' $csv)
		n64=$(awk -F, -v c=$c -v p=$p -v ph=$ph -v x=$phase '$p == "policy-64K" && $ph == x { print $c }' $csv)
		[ -n "$n4" ] && [ -n "$n64" ] || fail "no $phase run of netdev-4K or policy-64K"
		# 4M at 4K is 1024 fragments at least.
		[ "$n4" -ge 1024 ] || fail "$phase: netdev-4K gave $n4 cmsgs for 4M (4K niovs: 1024 at least)"
		[ $((n64 * 4)) -le "$n4" ] ||
			fail "$phase: policy-64K gave $n64 cmsgs, not a quarter of netdev-4K's $n4 or fewer"
		echo "# $phase: netdev-4K $n4 cmsgs, policy-64K $n64"
	done
	grep -q '^| policy-64K / netdev-4K | receiving host s/GiB | ' $md ||
		fail "no policy-64K / netdev-4K CPU ratio: $(cat $md)"
	grep -q '^| policy-64K / netdev-4K | cmsgs/GiB | ' $md ||
		fail "no policy-64K / netdev-4K cmsgs ratio"
	expect_eq "$(ip netns exec rx devmemx policy show)" "" "policies after the set"
	wait_until 10 doit_unhooked || fail "the doit still hooked after the set"
	dx_wait_idle
}
dx_case apps apps

# ncdevmem -v 7 on the sender's own pattern (not ncdevmem's): the
# verified pass fails with ncdevmem's first complaint, and nothing stays.
wrong_bytes() {
	local rc=0
	shmem_huge
	(AB_FILL= ab_run apps-bad $out --configs policy-64K --queues 2 --bytes 4M --runs 1 \
		--app "ncdevmem -l -f dxsim1 -s 192.0.2.2 -p %p -t 2 -q 1" \
		--app-frags received --app-bytes total_received= --app-verify "-v 7" \
		--app-bad "Failed validation") \
		>$out/bad.out 2>$out/bad.err || rc=$?
	[ $rc != 0 ] || fail "ab --app passed bytes ncdevmem does not expect"
	grep -q '^devmemx-rx: --app said: Failed validation: expected=1, actual=' $out/bad.err ||
		fail "no --app-bad line: $(tail -n 5 $out/bad.err)"
	expect_eq "$(ip netns exec rx devmemx policy show)" "" "policies after the failed run"
	dx_wait_idle
	# The bytes check, on a line that does not count them (ncdevmem's
	# last "recvmsg ret=" is its 0 at the end): the run fails, saying so.
	rc=0
	(AB_FILL=ncdevmem ab_run apps-short $out --configs netdev-4K --queues 2 --bytes 4M --runs 1 \
		--app "ncdevmem -l -f dxsim1 -s 192.0.2.2 -p %p -t 2 -q 1" \
		--app-frags received --app-bytes "recvmsg ret=") \
		>$out/short.out 2>$out/short.err || rc=$?
	[ $rc != 0 ] || fail "ab --app passed a run whose byte count was not what the sender sent"
	grep -qx 'devmemx-rx: --app received 0 bytes (its last recvmsg ret= line), of 4194304 sent' \
		$out/short.err || fail "no bytes message: $(tail -n 5 $out/short.err)"
	dx_wait_idle
}
dx_case wrong-bytes wrong_bytes
