# SPDX-License-Identifier: GPL-2.0
# dx-debug: no make ab's harness, checking its measurement: its receive paths are devmemx-data's, sim-devmem's and sim-zcrx's
# make ab, short: devmemx-rx ab over every configuration make ab runs on
# this kernel (and four flows), 4M per run, one verified pass and one
# verified timed run each: every configuration binds, moves verified data
# and unbinds; the CSV, the table and the SVG plots come out and parse.
. /dx/guestlib.sh
. /dx/ab-lib.sh

dx_sim_devmem 9000
trap dx_sim_teardown EXIT
# In-tree niovs other than 4K only where the kernel's netdev bind-rx takes
# rx-page-size (asked from its netlink policy): 7.3 runs them below.
case $(uname -r) in
7.2.*)
	expect_err 2 "devmemx-rx: netdev-16K: this kernel's in-tree devmem takes no niov size (netdev bind-rx has no rx-page-size; Linux 7.3 has it)" \
		ip netns exec rx devmemx-rx ab --dev dxsim1 --queues 2 --configs devmemx-16K,netdev-16K ;;
esac
out=/tmp/ab-short
rm -rf $out
mkdir -p $out
(ab_sets main,flows4 4M 1 "" $out --verify) >$out/stdout 2>$out/stderr ||
	fail "ab: $(tail -n 20 $out/stderr)"

ncfg=$(ab_configs | tr ',' '\n' | wc -l)
for set in main flows4; do
	csv=$out/$set.csv
	[ -s $csv ] || fail "$set: no CSV"
	# Every row has the header's columns; every configuration ran a
	# verified pass and a timed run of 4M, all verified, none mismatching.
	awk -F, 'NR == 1 { n = NF; next } NF != n { exit 1 }' $csv ||
		fail "$set: ragged CSV"
	expect_eq "$(($(wc -l <$csv) - 1))" $((ncfg * 2)) "$set: CSV rows"
	bad=$(ab_unverified $csv 4194304)
	[ -z "$bad" ] || fail "$set: runs that did not move 4M of verified data: $bad"
	# The sender's side ran in dxsim0's NAPI threads (--sender-tasks),
	# and its time, like the device's, is known for every run (the VM's
	# clock is finer than the tick: test vm-clock).
	bad=$(awk -F, -v t="$(csv_col tx_tasks_ns $csv)" -v d="$(csv_col device_ns $csv)" \
		'NR > 1 && !($t > 0 && $d > 0)' $csv)
	[ -z "$bad" ] || fail "$set: runs without the sender tasks' or the device's time: $bad"
	for c in $(ab_configs | tr ',' ' '); do
		for phase in verify timed; do
			grep -q ",$c,[a-z-]*,[0-9]*,$phase," $csv || fail "$set: no $phase run of $c"
		done
	done
	# devmemx reports its metadata; in-tree's comes from BTF; a policy's
	# binding is devmemx's, and netdev's reply says nothing of it.
	meta=$(csv_col meta_source $csv) prov=$(csv_col provider $csv)
	awk -F, -v m=$meta -v p=$prov 'NR > 1 && ($p ~ /^devmemx(-tok)?$/) != ($m == "devmemx") { exit 1 }
		NR > 1 && $p == "policy" && $m != "none" { exit 1 }
		NR > 1 && $p !~ /^(devmemx|policy)/ && $m != "btf" { exit 1 }' $csv ||
		fail "$set: metadata sources: $(cut -d, -f$prov,$meta $csv | tr '\n' ' ')"
	# The table: one row per configuration, the ratios, in the file and
	# on stdout.
	md=$out/$set.md
	for c in $(ab_configs | tr ',' ' '); do
		grep -q "^| $c | 1 |" $md || fail "$set: no table row for $c: $(cat $md)"
	done
	grep -q '^| devmemx-4K / netdev-4K | ' $md || fail "$set: no devmemx-4K / netdev-4K ratio"
	grep -q '^| devmemx-64K / devmemx-4K | cmsgs/GiB | ' $md || fail "$set: no cmsgs ratio"
	grep -q '^| netdev-4K / netdev-nodx-4K | ' $md || fail "$set: no loaded/unloaded ratio"
	if [[ ,$(ab_configs), == *,policy-64K,* ]]; then
		grep -q '^| policy-64K / devmemx-64K | receiving host s/GiB | ' $md ||
			fail "$set: no policy-64K / devmemx-64K ratio"
	fi
	for sz in 4K 64K; do
		grep -q "^| devmemx-$sz / zcrx-$sz | receiving host s/GiB | " $md ||
			fail "$set: no devmemx-$sz / zcrx-$sz ratio"
		vs_list="devmemx zcrx"
		# in-tree at 64K: 7.3 only (ab_configs)
		[ $sz = 4K ] || [ "$DX_SERIES" != 7.2 ] && vs_list+=" netdev"
		[[ ,$(ab_configs), == *,devmemx-tok-$sz,* ]] || vs_list=
		for vs in $vs_list; do
			grep -q "^| devmemx-tok-$sz / $vs-$sz | receiving host s/GiB | " $md ||
				fail "$set: no devmemx-tok-$sz / $vs-$sz ratio"
		done
	done
	# zcrx placed every byte itself: no copy fallback (cmsgs_linear
	# counts zcrx's copies), and its buffers were the size asked for.
	bad=$(awk -F, -v p=$prov -v l="$(csv_col cmsgs_linear $csv)" \
		-v f="$(csv_col frag_max $csv)" -v s="$(csv_col niov_size $csv)" \
		-v c="$(csv_col cmsgs_dmabuf $csv)" \
		'NR > 1 && $p == "zcrx" && ($l != 0 || $f > $s || $c < 4194304 / $s)' $csv)
	[ -z "$bad" ] || fail "$set: zcrx runs with copies, or frags larger than the buffer size: $bad"
	# One timed run a configuration: every ratio has no interval, and its
	# verdict says that one run cannot tell.
	bad=$(awk -F' *[|] *' '$6 ~ /^(<=|>=) [0-9.]+$/ {
			n++; if ($5 != "-" || $7 != "cannot tell (one run)") print
		}
		END { if (n < 4) print "only " n + 0 " ratio rows" }' $md)
	[ -z "$bad" ] || fail "$set: a verdict of one run that claims more: $bad"
	expect_eq "$(awk -F, 'END { print NR }' $out/$set.sum.csv)" $((ncfg + 1)) "$set: summary rows"
done
grep -q '^| devmemx-64K / devmemx-4K | ' $out/stdout || fail "no table on stdout"

# Every binding went away: no devmemx binding, no page pool with a dma-buf.
dx_wait_idle
wait_until 10 bash -c '! ip netns exec rx devmemx-rx pools -j | grep -q "dmabuf\|io-uring"' ||
	fail "page pools with a binding or zcrx left: $(pools rx)"
grep -q '^devmemx ' /proc/modules || fail "devmemx not loaded again after the netdev-nodx runs"

bash /dx/ab-plot.sh $out || fail "ab-plot failed"
for p in cpu cmsgs; do
	svg=$out/$p.svg
	[ -s $svg ] || fail "no $p.svg"
	grep -q '<svg' $svg && tail -n 3 $svg | grep -c '</svg>' >/dev/null || fail "$p.svg is not an SVG document"
	# a line per provider drawn: at least three polylines/paths
	[ "$(grep -c '<path' $svg)" -ge 3 ] || fail "$p.svg has no lines"
done
grep -v '^$' $out/main.md | sed 's/^/# /'
