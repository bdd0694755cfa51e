# SPDX-License-Identifier: GPL-2.0
# dx-debug: no nothing is loaded: no kernel code of ours runs
# The devmemx CLI's commands without the module: help, bad usage (exit 2),
# size and list parsing, unknown devices, dma-buf sources (made, or taken
# from another process) and the missing family (exit 1). Nothing is loaded.
. /dx/guestlib.sh

nofam='devmemx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)'
bind() { devmemx bind dev lo queues 0 "$@"; }

# The whole usage: every command's synopsis, each command's help.
whole_help() {
	local help line opt rc=0
	help=$(devmemx --help) || fail "--help exited $?"
	for line in \
		'usage: devmemx [-j] bind dev IFNAME queues LIST [size SIZE | size auto [max-waste W]]' \
		'                    (--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE | --pid PID --fd FD)' \
		'                    [autorelease 0|1] [--persist | --dry-run]' \
		'       devmemx [-j] unbind ID|all' \
		'       devmemx [-j] show [ID]' \
		'       devmemx [-j] caps dev IFNAME [queue N]' \
		'       devmemx [-j] policy [show | dev IFNAME (size SIZE [queues LIST] | off)]' \
		'       devmemx [-j] info' \
		'       devmemx help [COMMAND]' \
		'       devmemx --help | --version'; do
		grep -qxF -- "$line" <<<"$help" || fail "--help lacks: $line"
	done
	for opt in 'dev IFNAME' 'queues LIST' 'size SIZE' '--udmabuf SIZE' '--hugetlb' \
		'--dma-heap NAME SIZE' '--pid PID --fd FD' '--persist' 'size auto' 'max-waste W' \
		'--dry-run' 'autorelease 0|1'; do
		grep -qF -- "  $opt " <<<"$help" || fail "--help does not explain $opt"
	done
	expect_eq "$(devmemx help)" "$help" "help"
	expect_eq "$(devmemx help --help)" "$help" "help --help"
	devmemx >/dev/null 2>&1 || rc=$?
	expect_eq "$rc" 2 "no command"
	expect_eq "$(devmemx 2>&1 >/dev/null)" "$help" "usage on stderr without a command"
}
dx_case help whole_help

# section CMD: CMD's section of a usage (stdin), to the next one or a blank.
section() {
	awk -v s="$1:" '$1 == s { on = 1; print; next }
		on && (/^$/ || /^[a-z]+: /) { exit } on'
}

# A command's own usage: help CMD, CMD --help and CMD -h print it, exactly.
cmd_help() {
	local want c
	want="usage: devmemx [-j] unbind ID|all

unbind: end binding ID, or every binding; print how many ended.

SIZE takes a K, M or G suffix (powers of 1024). ID is a binding id as bind
and show print it (the dmabuf_id of the devmem cmsgs).

options:
  -j, --json     print JSON (one object per line)
  -h, --help     print this help (after a command: that command's)
  -V, --version  print the CLI's version

Exit status: 0 on success, 1 when a request failed (the kernel's reason is
printed as is), 2 on bad usage."
	expect_eq "$(devmemx help unbind)" "$want" "help unbind"
	expect_eq "$(devmemx unbind -h)" "$want" "unbind -h"
	expect_eq "$(devmemx -j unbind --help)" "$want" "unbind --help"
	# Each other command's: its synopsis first, its section of --help
	# (which the bash completion reads) after a blank line.
	expect_eq "$(devmemx bind --help | head -4)" \
		"$(devmemx --help | head -3; echo)" "bind --help: synopsis"
	expect_eq "$(devmemx caps dev lo --help | sed -n '1p;3p')" \
		"usage: devmemx [-j] caps dev IFNAME [queue N]
caps: what IFNAME (and its RX queue N) offers for large niovs: the RX buffer" "caps --help"
	for c in bind show caps info; do
		expect_eq "$(devmemx "$c" --help)" "$(devmemx help "$c")" "$c --help"
		expect_eq "$(devmemx help "$c" | section "$c")" \
			"$(devmemx --help | section "$c")" "help $c: its section of --help"
	done
	expect_err 2 'devmemx: unknown command "frob" (try: devmemx --help)' devmemx help frob
	expect_err 2 'devmemx: unexpected argument "show" for help' devmemx help bind show
}
dx_case cmd-help cmd_help

# Bad usage: exit 2, before the module is asked.
bad_usage() {
	expect_err 2 'devmemx: unknown command "frob" (try: devmemx --help)' devmemx frob
	expect_err 2 'devmemx: info takes no arguments' devmemx info extra
	expect_err 2 'devmemx: bind needs dev IFNAME' devmemx bind queues 0 --udmabuf 4M
	expect_err 2 'devmemx: bind needs queues LIST (e.g. queues 2)' \
		devmemx bind dev lo --udmabuf 4M
	expect_err 2 'devmemx: bind needs a dma-buf: --udmabuf SIZE, --dma-heap NAME SIZE or --pid PID --fd FD' \
		bind
	expect_err 2 'devmemx: bind takes one dma-buf: --udmabuf SIZE, --dma-heap NAME SIZE or --pid PID --fd FD' \
		bind --udmabuf 4M --dma-heap system 4M
	expect_err 2 'devmemx: bind takes one dma-buf: --udmabuf SIZE, --dma-heap NAME SIZE or --pid PID --fd FD' \
		bind --udmabuf 4M --pid 1 --fd 0
	expect_err 2 'devmemx: unknown argument "--frob" for bind (try: devmemx --help)' \
		bind --udmabuf 4M --frob
	expect_err 2 'devmemx: unknown argument "4M" for bind (try: devmemx --help)' \
		bind --udmabuf 4M 4M
	expect_err 2 'devmemx: dev needs IFNAME' devmemx bind dev
	expect_err 2 'devmemx: queues needs LIST' devmemx bind dev lo queues
	expect_err 2 'devmemx: size needs SIZE' bind --udmabuf 4M size
	expect_err 2 'devmemx: --dma-heap needs NAME SIZE' bind --dma-heap system
	expect_err 2 'devmemx: --pid PID needs --fd FD' bind --pid 1
	expect_err 2 'devmemx: --fd FD needs --pid PID' bind --fd 3
	expect_err 2 'devmemx: bad number "0" for --pid (1 to 2147483647)' bind --pid 0 --fd 3
	expect_err 2 'devmemx: bad number "x" for --fd (0 to 2147483647)' bind --pid 1 --fd x
	# Decimal, or hex after 0x; a leading 0 does not make it octal (in octal
	# this one would fit).
	expect_err 2 'devmemx: bad number "03777777777" for --fd (0 to 2147483647)' bind --pid 1 --fd 03777777777
	expect_err 2 'devmemx: bad number "0x80000000" for --fd (0 to 2147483647)' bind --pid 1 --fd 0x80000000
	expect_err 2 'devmemx: --hugetlb goes with --udmabuf, not --dma-heap' \
		bind --dma-heap system 4M --hugetlb
	expect_err 2 'devmemx: --hugetlb goes with --udmabuf, not --pid' \
		bind --pid 1 --fd 3 --hugetlb
	expect_err 2 'devmemx: bad queue list "1-" for queues: use e.g. 2, 2,3 or 2-5' \
		devmemx bind dev lo queues 1- --udmabuf 4M
	expect_err 2 'devmemx: bad queue list "a" for queues: use e.g. 2, 2,3 or 2-5' \
		devmemx bind dev lo queues a --udmabuf 4M
	expect_err 2 'devmemx: queue 1 listed twice in queues "0-2,1"' \
		devmemx bind dev lo queues 0-2,1 --udmabuf 4M
	expect_err 2 'devmemx: too many queues in queues "0-300" (at most 256)' \
		devmemx bind dev lo queues 0-300 --udmabuf 4M

	expect_err 2 'devmemx: unbind needs a binding id or all' devmemx unbind
	expect_err 2 'devmemx: bad binding id "x": use a number from devmemx show, or all' \
		devmemx unbind x
	expect_err 2 'devmemx: bad binding id "-1": use a number from devmemx show, or all' \
		devmemx unbind -1
	expect_err 2 'devmemx: bad binding id "4294967296": use a number from devmemx show, or all' \
		devmemx unbind 4294967296
	expect_err 2 'devmemx: bad binding id "037777777777": use a number from devmemx show, or all' \
		devmemx unbind 037777777777
	expect_err 2 'devmemx: unexpected argument "2" for unbind' devmemx unbind 1 2
	expect_err 2 'devmemx: bad binding id "all": use a number from devmemx show' \
		devmemx show all
	expect_err 2 'devmemx: unexpected argument "2" for show' devmemx show 1 2
	expect_err 2 'devmemx: policy needs dev IFNAME' devmemx policy size 64K
	expect_err 2 'devmemx: policy dev lo needs size SIZE, or off' devmemx policy dev lo
	expect_err 2 'devmemx: policy: off takes no size' devmemx policy dev lo off size 64K
	expect_err 2 'devmemx: policy: off takes no queues (it ends the device'"'"'s policy)' \
		devmemx policy dev lo off queues 2
	expect_err 1 'devmemx: no network device "nope0" (see: ip link)' \
		devmemx policy dev nope0 size 64K
	expect_err 2 'devmemx: caps needs dev IFNAME' devmemx caps
	expect_err 2 'devmemx: caps needs dev IFNAME' devmemx caps queue 0
	expect_err 2 'devmemx: bad number "x" for queue (0 to 4294967295)' \
		devmemx caps dev lo queue x
	expect_err 2 'devmemx: unknown argument "queues" for caps (try: devmemx --help)' \
		devmemx caps dev lo queues 0
}
dx_case bad-usage bad_usage

# Sizes: a number with an optional K, M or G suffix, page-aligned dma-bufs.
sizes() {
	expect_err 2 'devmemx: bad size "3Q" for --udmabuf: use a number with an optional K, M or G suffix' \
		bind --udmabuf 3Q
	expect_err 2 'devmemx: bad size "4MB" for --udmabuf: use a number with an optional K, M or G suffix' \
		bind --udmabuf 4MB
	expect_err 2 'devmemx: bad size "-4M" for --udmabuf: use a number with an optional K, M or G suffix' \
		bind --udmabuf -4M
	expect_err 2 'devmemx: bad size "99999999999G" for --udmabuf: use a number with an optional K, M or G suffix' \
		bind --udmabuf 99999999999G
	expect_err 2 'devmemx: bad size "x" for --dma-heap: use a number with an optional K, M or G suffix' \
		bind --dma-heap system x
	expect_err 2 'devmemx: bad size "64kB" for size: use a number with an optional K, M or G suffix' \
		bind --udmabuf 4M size 64kB
	expect_err 2 'devmemx: bad size "4G": must be below 4G' \
		bind --udmabuf 4M size 4G
	expect_err 2 'devmemx: the dma-buf size must not be 0' bind --udmabuf 0
	expect_err 2 'devmemx: the dma-buf size must be a multiple of the page size (4K)' \
		bind --udmabuf 5000
	expect_err 2 'devmemx: --udmabuf size must be a multiple of 2M with --hugetlb' \
		bind --udmabuf 3M --hugetlb
}
dx_case sizes sizes

# Unknown devices: exit 1.
unknown_devices() {
	expect_err 1 'devmemx: no network device "nope0" (see: ip link)' \
		devmemx caps dev nope0
	expect_err 1 'devmemx: no network device "nope0" (see: ip link)' \
		devmemx caps dev nope0 queue 1
	expect_err 1 'devmemx: no network device "nope0" (see: ip link)' \
		devmemx bind dev nope0 queues 0 --udmabuf 4M
	expect_err 1 'devmemx: no network device "nope0" (see: ip link)' \
		devmemx -j bind dev nope0 queues 0 --pid 1 --fd 0
}
dx_case unknown-devices unknown_devices

# Dma-buf sources: made, or taken from another process.
dmabuf_sources() {
	local lim=/sys/module/udmabuf/parameters/size_limit_mb holder
	expect_err 1 'devmemx: /dev/dma_heap/nope: No such file or directory (see: ls /dev/dma_heap)' \
		bind --dma-heap nope 4M
	dx_defer sh -c "echo $(cat $lim) >$lim"
	echo 64 >$lim
	expect_err 1 'devmemx: a udmabuf of 128 MiB is over udmabuf.size_limit_mb=64: raise it (udmabuf.size_limit_mb= on the kernel command line, or /sys/module/udmabuf/parameters/size_limit_mb) or use a smaller --udmabuf' \
		bind --udmabuf 128M

	# Another process's fd: it must exist, be ours to take, and be a dma-buf.
	sleep 60 </dev/null &
	holder=$!
	dx_defer dx_stop $holder
	expect_err 1 'devmemx: pidfd_open of process 4000000: No such process' \
		bind --pid 4000000 --fd 0
	expect_err 1 "devmemx: pidfd_getfd of fd 99 of process $holder: Bad file descriptor (no such fd in that process)" \
		bind --pid $holder --fd 99
	expect_err 1 "devmemx: fd 0 of process $holder is not a dma-buf (it is /dev/null)" \
		bind --pid $holder --fd 0
	expect_err 1 "devmemx: pidfd_getfd of fd 0 of process $holder: Operation not permitted (taking another process's fd needs ptrace access to it: run as its user or with CAP_SYS_PTRACE (see kernel.yama.ptrace_scope))" \
		su -s /bin/sh nobody -c "devmemx bind dev lo queues 0 --pid $holder --fd 0"
}
dx_case dmabuf-sources dmabuf_sources

# The family is missing: exit 1 after the arguments checked out.
no_family() {
	expect_err 1 "$nofam" devmemx info
	expect_err 1 "$nofam" devmemx -j show
	expect_err 1 "$nofam" devmemx show 7
	expect_err 1 "$nofam" devmemx unbind 7
	expect_err 1 "$nofam" devmemx unbind all
	expect_err 1 "$nofam" devmemx caps dev lo
	expect_err 1 "$nofam" devmemx caps dev lo queue 0
	expect_err 1 "$nofam" bind --udmabuf 4M
	expect_err 1 "$nofam" bind --udmabuf 4M size 64K --persist
	expect_err 1 "$nofam" bind --udmabuf 4M --hugetlb
	expect_err 1 "$nofam" bind --dma-heap system 4M
	expect_err 1 'devmemx-rx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
		devmemx-rx recv --dev lo --queues 0 --port 5201 --expect 1M --provider devmemx --rx-page-size 64K
}
dx_case no-family no_family
