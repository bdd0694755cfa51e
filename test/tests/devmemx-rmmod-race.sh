# SPDX-License-Identifier: GPL-2.0
# rmmod devmemx against a loop of binds. Requests run without a module
# reference, so rmmod can pass its reference check while a bind is under
# way; that bind must not publish a binding on a module that is going (its
# text would be freed under the binding). Each rmmod that succeeds leaves
# nothing behind: no page pool with a dma-buf on the sim's queues, and the
# next load binds the same queue again.
# One story, so no named cases: the bind after the race checks what the
# race left.
. /dx/guestlib.sh

dx_sim_devmem
dx_defer dx_sim_teardown
stop=/tmp/binder.stop
rm -f $stop /tmp/binder.errs
# The binder stopped, devmemx loaded, nothing bound.
cleanup() {
	touch $stop
	wait
	grep -q '^devmemx ' /proc/modules || dx_load
	ip netns exec rx devmemx unbind all >/dev/null
}
dx_defer cleanup

# Binds and unbinds queue 2 until told to stop; counts the outcomes. A
# 32M dma-buf of 4K pages takes a while to map and carve: the window in
# which rmmod meets a bind under way is wide.
binder() {
	local n=0 ok=0 going=0 other=0 err
	while [ ! -e $stop ]; do
		n=$((n + 1))
		if err=$(ip netns exec rx devmemx bind dev dxsim1 queues 2 \
			--udmabuf 32M --persist 2>&1 >/dev/null); then
			ok=$((ok + 1))
		elif [[ $err == *"devmemx is being unloaded"* ]]; then
			going=$((going + 1))
		else
			other=$((other + 1))
			echo "$err" >>/tmp/binder.errs
		fi
		ip netns exec rx devmemx unbind all >/dev/null 2>&1 || true
	done
	echo "$n $ok $going $other" >/tmp/binder.out
}
binder &

# rmmod spins: it goes through the moment the last binding is freed, when
# the binder may already be in its next bind. A bind under way holds the
# module from its start, so rmmod fails then (or, once rmmod is through,
# the bind is refused: "devmemx is being unloaded").
# 20 cycles (8 on the debug kernel, where each costs tens of seconds).
want=20
[ -z "$DX_DEBUG" ] || want=8
cycles=0 tries=0 end=$((SECONDS + 150 * DX_SLOW))
while [ $cycles -lt $want ] && [ $SECONDS -lt $end ]; do
	tries=$((tries + 1))
	spin=$((SECONDS + 2))
	until rmmod devmemx 2>/dev/null || [ $SECONDS -ge $spin ]; do :; done
	if ! grep -q '^devmemx ' /proc/modules; then
		cycles=$((cycles + 1))
		# A binding published by the module that went would still hold
		# queue 2's page pool.
		expect_eq "$(dmabuf_pools rx)" 0 "page pools with a dma-buf after rmmod $cycles"
		dx_load
		# Let the binder bind a few times before the next rmmod.
		sleep 0.$((RANDOM % 5 + 4))
	fi
done
touch $stop
wait
read -r n ok going other </tmp/binder.out
[ "$cycles" -ge 5 ] || fail "only $cycles of $tries rmmods succeeded against the binder"
[ "$ok" -gt 0 ] || fail "no bind succeeded: $(head -n 3 /tmp/binder.errs)"
echo "# $cycles rmmod/load cycles ($tries tries) against $n binds: $ok bound, $going refused with \"devmemx is being unloaded\", $other failed as the family went or came"
[ ! -s /tmp/binder.errs ] || echo "# e.g. $(sort /tmp/binder.errs | uniq -c | sort -rn | head -n 2 | tr '\n' ';')"

# The queue is free and works: a bind after all that.
ip netns exec rx devmemx bind dev dxsim1 queues 2 size 64K --udmabuf 2M --hugetlb \
	--persist >/dev/null || fail "bind after the race"
expect_eq "$(ip netns exec rx devmemx unbind all)" "unbound: 1" "unbind after the race"
