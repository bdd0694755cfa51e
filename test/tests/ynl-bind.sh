# SPDX-License-Identifier: GPL-2.0
# Binding from your own code (doc/own-code.md): doc/examples/ynl-bind.c,
# built on the C client the kernel's YNL generator makes from
# uapi/devmemx.yaml and on the kernel's libynl, binds a udmabuf it made to
# dxsim1; devmemx's CLI sees the binding with the size asked; the binding
# ends when the program's socket closes. A refusal reaches the program as
# the kernel's extack message.
. /dx/guestlib.sh

dx_sim_devmem
trap dx_sim_teardown EXIT
rxx() { ip netns exec rx "$@"; }

coproc YB { ip netns exec rx ynl-bind dxsim1 2 $((8 << 20)) 4096 2>&1; }
yb_pid=$YB_PID yb_in=${YB[1]}
read -r -u "${YB[0]}" line || fail "ynl-bind printed nothing"
set -- $line
[ "$1 $3 $4 $5 $6 $7 $8" = "id niov-size 4096 niov-count 2048 bytes-wasted 0" ] || fail "ynl-bind: $line"
id=$2
echo "# ynl-bind: $line"
rxx devmemx show "$id" >/tmp/show || fail "show $id: $(cat /tmp/show)"
for want in 'dev: dxsim1' 'queues: id=2,buf-size=4K' 'niov-size: 4K' 'niov-count: 2048' 'state: bound'; do
	grep -qx "$want" /tmp/show || fail "show lacks '$want': $(cat /tmp/show)"
done
# Its socket closes with the program: the binding ends.
eval "exec $yb_in>&-"
wait "$yb_pid" || fail "ynl-bind exited $?"
dx_wait_idle

# A refusal: the kernel's message, through YNL.
rc=0
out=$(rxx ynl-bind dxsim1 9 $((1 << 20)) </dev/null 2>&1) || rc=$?
expect_eq "$rc $out" "1 ynl-bind: bind-rx: Kernel error: 'queue 9 out of range: dxsim1 has 4 RX queues'" \
	"ynl-bind to a queue dxsim1 lacks"
expect_eq "$(dx_live)" "0 0 0" "devmemx's live objects after the refusal"
