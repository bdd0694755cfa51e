#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: the profiler of make ab's profile set, as devmemx-rx ab
# --profile-cmd runs it. usage: ab-perf.sh OUT
# perf record (cpu-clock at 4999 Hz on CPU 1, call chains; perf itself on
# CPU 0 at SCHED_FIFO 60) into OUT, started with its events off; once perf has them on
# (its control FIFO answers "ack") this prints "ready", which ab waits for
# before the run: perf takes seconds of a TCG guest's time to start.
# SIGINT (ab's, to the group) ends perf, which writes OUT; exit 0 once it
# has.
set -u
dir=$(mktemp -d)
mkfifo "$dir/ctl" "$dir/ack"
# perf shares CPU 0 with the sender's NAPI thread, at SCHED_FIFO 50: at
# SCHED_OTHER it drained its buffer too seldom and lost most samples (37
# of some 3500 in a 512M run), so it runs at 60, with a buffer that holds
# a whole run's samples.
taskset -c 0 chrt -f 60 perf record -q -C 1 -g -e cpu-clock -F 4999 -m 16M -D -1 \
	--control "fifo:$dir/ctl,$dir/ack" -o "$1" </dev/null &
p=$!
# perf handles SIGINT itself (the group's reaches it); this shell waits on.
trap : INT
echo enable >"$dir/ctl"
read -r a <"$dir/ack"
[ "$a" = ack ] || { echo "ab-perf: perf answered '$a' to enable" >&2; kill $p; exit 1; }
echo ready
while kill -0 $p 2>/dev/null; do wait $p; done
wait $p
rc=$?
rm -rf "$dir"
# perf record, ended by SIGINT, raises it again once OUT is written: 130
[ $rc = 0 ] || [ $rc = 130 ]
