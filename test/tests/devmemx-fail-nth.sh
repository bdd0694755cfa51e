# SPDX-License-Identifier: GPL-2.0
# fail-nth (needs fault injection: the 7.2-debug kernel): BIND-RX of devmemx
# (4K and 64K niovs) and of the kernel's own devmem, devmemx's UNBIND and
# the socket release that ends its binding; for the token array (the debug
# build's test entry makes it ready there), its first bind, which hooks the
# token path, and a connection's first recvmsg and first DONTNEED (a failed
# one leaves its bytes queued or its tokens held, and the retry gets them:
# dx-failnth checks); netdev's bind-rx under a policy (which devmemx
# serves) and its release; each run once per allocation it
# makes with that allocation failed (test/helpers/dx-failnth.c), until it
# completes with none failed. Every step must end in a clean error or a
# success, and with no binding, niov or page pool left once its socket is
# closed; afterwards the module's use count is what it was, the device
# still moves verified data with both providers, and the kernel log is
# clean (run.sh, which excuses the kernel's reports of the allocations
# dx-failnth made fail; kmemleak scans at the end of the boot).
. /dx/guestlib.sh

[ -e /proc/self/fail-nth ] ||
	skip "this kernel has no fault injection (CONFIG_FAULT_INJECTION); it runs on 7.2-debug: make test-debug"
dbg=/sys/kernel/debug
[ -d $dbg/failslab ] && [ -d $dbg/fail_page_alloc ] ||
	fail "fault injection without failslab and fail_page_alloc in $dbg"

dx_sim_devmem
trap dx_sim_teardown EXIT
uses=$(awk '$1 == "devmemx" { print $3 }' /proc/modules)

# Fail sleeping allocations too (GFP_KERNEL: most of them), of any order,
# and quietly: a stack dump per injected fault would fill the log.
for a in failslab fail_page_alloc; do
	echo N >$dbg/$a/ignore-gfp-wait
	echo 0 >$dbg/$a/verbose
done
echo N >$dbg/fail_page_alloc/ignore-gfp-highmem
echo 0 >$dbg/fail_page_alloc/min-order

failnth() { # ERRNOS what...: ERRNOS the failures allowed, e.g. ENOMEM|ENOBUFS
	local allowed=$1 out
	shift
	out=$(ip netns exec rx dx-failnth dxsim1 2 "$@" 2>&1) || fail "dx-failnth $*: $out"
	sed 's/^/# /' <<<"$out"
	# Every failure is one the request can meet when memory runs out: no
	# busy queue (a binding a step left), no bad argument.
	if bad=$(grep -E '^dx-failnth: +[0-9]+ +(fault|no fault), E' <<<"$out" |
		grep -vE ", ($allowed)(:|\$)"); then
		fail "dx-failnth $*: failures other than ${allowed//|/, }:"$'\n'"$bad"
	fi
	grep -qE '^dx-failnth: .*: [0-9]+ steps, [1-9][0-9]* faults injected$' <<<"$out" ||
		fail "dx-failnth $*: no fault was injected: $out"
}

oom='ENOMEM|ENOBUFS'
failnth "$oom" bind devmemx 4096
failnth "$oom" bind devmemx 65536
failnth "$oom" unbind devmemx 65536
failnth "$oom" release devmemx 65536
# In-tree devmem's bind-rx for contrast. Not its release: when the queue's
# restart without the binding fails there, the kernel WARNs
# (__net_mp_close_rxq(), net/core/netdev_rx_queue.c) and the queue keeps
# the binding until it restarts; devmemx retries the restart every second.
# It answers a few of the failed allocations with EINVAL (no message).
failnth "$oom|EINVAL" bind netdev

tok=$(devmemx info | sed -n 's/^token-array: //p')
[ "$tok" = ready ] ||
	fail "token array $tok: $(devmemx info | sed -n 's/^token-array-why: //p') (test/kbuild.sh gives a test build its entry)"
port=7320
rule=$(ip netns exec rx ethtool -N dxsim1 flow-type tcp4 dst-port $port action 2 |
	sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
[ -n "$rule" ] || fail "no ntuple rule for port $port"
failnth "$oom" bind tokens 4096
failnth "$oom" recv tokens 4096 $port
failnth "$oom" recv tokens 65536 $port
failnth "$oom" dontneed tokens 4096 $port
ip netns exec rx ethtool -N dxsim1 delete "$rule"

# netdev's bind-rx served under a 64K policy on queue 2 (the debug build's
# test entry makes policies ready there), and its socket's release.
pol=$(devmemx info | sed -n 's/^policies: //p')
[ "$pol" = ready ] ||
	fail "policies $pol: $(devmemx info | sed -n 's/^policies-why: //p') (test/kbuild.sh gives a test build its entry)"
ip netns exec rx devmemx policy dev dxsim1 size 64K queues 2 >/dev/null ||
	fail "policy dev dxsim1 size 64K queues 2"
# (At 64K: a dma-buf of one huge page; dx-failnth's 4K one is 4K pieces.)
failnth "$oom" bind policy 65536
failnth "$oom" release policy 65536
expect_eq "$(ip netns exec rx devmemx policy dev dxsim1 off)" "bindings: 0" "policy off after fail-nth"

for a in failslab fail_page_alloc; do
	echo Y >$dbg/$a/ignore-gfp-wait
done
dx_wait_idle
expect_eq "$(awk '$1 == "devmemx" { print $3 }' /proc/modules)" "$uses" "devmemx's use count"
expect_eq "$(dmabuf_pools rx)" 0 "page pools with a binding after fail-nth"
devmem_xfer 1048576 7310 --queues 2
devmem_xfer 1048576 7311 --queues 3 --provider devmemx --udmabuf 8M --hugetlb --rx-page-size 64K
trap - EXIT
dx_sim_teardown
