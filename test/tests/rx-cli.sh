# SPDX-License-Identifier: GPL-2.0
# dx-debug: no devmemx-rx's own parsing and its dma-buf making (udmabuf's and the heaps' code), and the netdev family's refusals: no devmemx code runs
# devmemx-rx on its own: help, bad usage, dma-buf making, and the in-tree
# netdev family's refusals on devices that cannot do devmem (no NIC needed).
. /dx/guestlib.sh

rx() { devmemx-rx "$@"; }
recv() { rx recv --port 5201 --expect 1M "$@"; }

lo_err='devmemx-rx: bind to lo: lo has no queue API: in-tree devmem needs a driver with queue management ops (Operation not supported)'

# Help and usage: the whole usage for any --help; no command is bad usage.
help_usage() {
	rx --help | grep -c '^usage: devmemx-rx recv --dev IFNAME --queues LIST --port PORT --expect BYTES$' >/dev/null ||
		fail "--help"
	rx recv --help | grep -c '^       devmemx-rx send --addr IP --port PORT --bytes N | --until-closed$' >/dev/null ||
		fail "recv --help"
	expect_eq "$(rx selftest-pattern)" "pattern: ok" "pattern self-test"
	local rc=0
	rx >/dev/null 2>&1 || rc=$?
	expect_eq "$rc" 2 "no command"
}
dx_case help help_usage

# Bad usage: exit 2, each with its message, before anything is made.
bad_usage() {
	expect_err 2 'devmemx-rx: unknown command "frob" (try: devmemx-rx --help)' rx frob
	expect_err 2 'devmemx-rx: unknown option "--frob" for pools (try: devmemx-rx --help)' rx pools --frob
	expect_err 2 'devmemx-rx: queues takes no argument "extra" (try: devmemx-rx --help)' rx queues extra
	expect_err 2 'devmemx-rx: --dev needs IFNAME' rx qstats --dev
	expect_err 1 'devmemx-rx: no network device "nosuch" (see: ip link)' rx qstats --dev nosuch
	expect_err 2 'devmemx-rx: unknown option "--frob" for recv (try: devmemx-rx --help)' \
		recv --dev lo --queues 0 --frob
	expect_err 2 'devmemx-rx: unknown option "--bytes" for recv (try: devmemx-rx --help)' \
		recv --dev lo --queues 0 --bytes 1M
	expect_err 2 'devmemx-rx: recv needs --dev IFNAME' recv --queues 0
	expect_err 2 'devmemx-rx: recv needs --queues LIST (e.g. --queues 2)' recv --dev lo
	expect_err 2 'devmemx-rx: recv needs --expect BYTES' \
		rx recv --dev lo --queues 0 --port 5201
	expect_err 2 'devmemx-rx: --dev needs an argument' recv --queues 0 --dev
	expect_err 2 'devmemx-rx: bad size "3Q" for --udmabuf: use a number with an optional K, M or G suffix' \
		recv --dev lo --queues 0 --udmabuf 3Q
	expect_err 2 'devmemx-rx: bad size "1MB" for --expect: use a number with an optional K, M or G suffix' \
		rx recv --dev lo --queues 0 --port 5201 --expect 1MB
	expect_err 2 'devmemx-rx: bad queue list "1-" for --queues: use e.g. 2, 2,3 or 2-5' \
		recv --dev lo --queues 1-
	expect_err 2 'devmemx-rx: queue 1 listed twice in --queues "0-2,1"' \
		recv --dev lo --queues 0-2,1
	expect_err 2 'devmemx-rx: bad port "0" for --port: use 1 to 65535' \
		rx recv --dev lo --queues 0 --port 0 --expect 1M
	expect_err 2 'devmemx-rx: unknown provider "foo" for --provider: use netdev or devmemx' \
		recv --dev lo --queues 0 --provider foo
	expect_err 2 'devmemx-rx: --udmabuf size must be a multiple of 2M with --hugetlb' \
		recv --dev lo --queues 0 --udmabuf 3M --hugetlb
	expect_err 2 'devmemx-rx: --dma-heap system needs a SIZE after the heap name' \
		recv --dev lo --queues 0 --dma-heap system
	expect_err 2 'devmemx-rx: bad --rx-page-size "8G": must be below 4G' \
		recv --dev lo --queues 0 --rx-page-size 8G
	expect_err 2 'devmemx-rx: bad --listen address "foo": use an IPv4 or IPv6 address' \
		recv --dev lo --queues 0 --listen foo
	expect_err 2 'devmemx-rx: bad --autorelease "2": use 0 (token array) or 1 (xarray)' \
		recv --dev lo --queues 0 --provider devmemx --autorelease 2
	expect_err 2 "devmemx-rx: --autorelease is devmemx's: add --provider devmemx (in-tree devmem of this kernel has no autorelease)" \
		rx recv --dev lo --queues 0 --port 5201 --expect 1M --autorelease 0
	expect_err 2 'devmemx-rx: send needs --bytes N (or --until-closed)' rx send --addr 127.0.0.1 --port 9
	expect_err 2 'devmemx-rx: bad --addr "host": use an IPv4 or IPv6 address' \
		rx send --addr host --port 9 --bytes 1
	expect_err 2 'devmemx-rx: unexpected argument "x" for send' \
		rx send --addr 127.0.0.1 --port 9 --bytes 1 x
	expect_err 2 'devmemx-rx: bad --sender-tasks "napi/x-,": use task name prefixes, e.g. napi/eth1-,ksoftirqd/0' \
		rx ab --dev lo --queues 0 --sender-tasks napi/x-,
	expect_err 2 'devmemx-rx: lease needs --netkit NETKIT, --dev IFNAME and --queue Q' \
		rx lease --netkit lo --dev lo
	expect_err 2 'devmemx-rx: bad --queue "2-3": use a queue number, e.g. 2' \
		rx lease --netkit lo --dev lo --queue 2-3
	expect_err 2 'devmemx-rx: unknown option "--queues" for lease (try: devmemx-rx --help)' \
		rx lease --netkit lo --dev lo --queues 2
	expect_err 2 'devmemx-rx: redirect needs --dev IFNAME, --netkit NETKIT and --addr ADDR' \
		rx redirect --dev lo --addr 192.0.2.9
	expect_err 2 "devmemx-rx: bad --addr \"2001:db8::9\": use the pod's IPv4 address" \
		rx redirect --dev lo --netkit lo --addr 2001:db8::9
	expect_err 2 'devmemx-rx: unexpected argument "x" for redirect' \
		rx redirect --dev lo --netkit lo --addr 192.0.2.9 x
	expect_err 2 'devmemx-rx: --queue needs an argument' \
		rx lease --netkit lo --dev lo --queue
}
dx_case bad-usage bad_usage

# Refusals before the kernel is asked: no device, no sender task, no family.
before_kernel() {
	expect_err 1 'devmemx-rx: no network device "nope0" (see: ip link)' \
		recv --dev nope0 --queues 0
	# Sender tasks that do not exist, before anything is bound.
	expect_err 1 'devmemx-rx: --sender-tasks napi/nope0-,nope/: no task'"'"'s name starts with any of these (see /proc/*/comm)' \
		rx ab --dev lo --queues 0 --sender-tasks napi/nope0-,nope/
	expect_err 1 'devmemx-rx: generic netlink family "devmemx" not found: is the devmemx module loaded? (modprobe devmemx)' \
		recv --dev lo --queues 0 --provider devmemx
	expect_err 1 'devmemx-rx: --netkit: no network device "nope0" in this namespace (see: ip link)' \
		rx lease --netkit nope0 --dev lo --queue 0
	expect_err 1 'devmemx-rx: --dev: no network device "nope0" in this namespace (see: ip link)' \
		rx redirect --dev nope0 --netkit lo --addr 192.0.2.9
	expect_err 1 "devmemx-rx: --netkit lo is --dev: name the host's end of the pod's pair" \
		rx redirect --dev lo --netkit lo --addr 192.0.2.9
}
dx_case before-kernel before_kernel

# The in-tree netdev family refuses devices without devmem: lo (and the
# dma-buf options' checks and sources on the way).
lo_refused() {
	local holder
	# lo has no queue API: the kernel refuses with EOPNOTSUPP and only points at
	# the ifindex attribute (no extack message), so devmemx-rx explains.
	expect_err 1 "$lo_err" recv --dev lo --queues 0
	expect_err 1 "$lo_err" recv --dev lo --queues 0 --udmabuf 4M
	expect_err 1 "$lo_err" recv --dev lo --queues 0 --dma-heap system 4M
	# queue-create: lo cannot take a leased queue.
	expect_err 1 'devmemx-rx: lease of queue 0 of lo to lo: Device does not support queue creation (Invalid argument)' \
		rx lease --netkit lo --dev lo --queue 0
	expect_err 1 "devmemx-rx: /dev/dma_heap/nope: No such file or directory (see: ls /dev/dma_heap)" \
		recv --dev lo --queues 0 --dma-heap nope 4M
	expect_err 2 'devmemx-rx: --hugetlb goes with --udmabuf, not --vram' \
		recv --dev lo --queues 0 --vram 4M --hugetlb
	expect_err 2 'devmemx-rx: --revocable goes with --vram' \
		recv --dev lo --queues 0 --udmabuf 4M --revocable
	expect_err 2 'devmemx-rx: --pid PID and --fd FD go together' \
		recv --dev lo --queues 0 --pid $$
	expect_err 2 'devmemx-rx: --hugetlb goes with --udmabuf, not --pid/--fd' \
		recv --dev lo --queues 0 --pid $$ --fd 0 --hugetlb
	sleep 60 </dev/null &
	holder=$!
	dx_defer dx_stop $holder
	expect_err 1 "devmemx-rx: fd 0 of process $holder is not a dma-buf (it is /dev/null)" \
		recv --dev lo --queues 0 --pid $holder --fd 0
	expect_err 2 'devmemx-rx: --p2pdma goes with --vram' \
		recv --dev lo --queues 0 --dma-heap system 4M --p2pdma
	expect_err 2 'devmemx-rx: --vram-dev goes with --vram' \
		recv --dev lo --queues 0 --udmabuf 4M --vram-dev /dev/null
	expect_err 2 'devmemx-rx: --tail-first goes with --vram' \
		recv --dev lo --queues 0 --udmabuf 4M --tail-first
	expect_err 2 'devmemx-rx: --tail-first needs a --vram size of whole GiBs, 2G or more' \
		recv --dev lo --queues 0 --vram 1G --tail-first
	expect_err 2 'devmemx-rx: --tail-first needs a --vram size of whole GiBs, 2G or more' \
		recv --dev lo --queues 0 --vram 3000M --tail-first
	expect_err 2 'devmemx-rx: --vfio 0000:00:01.0 needs a SIZE after the PCI function' \
		recv --dev lo --queues 0 --vfio 0000:00:01.0
	expect_err 1 'devmemx-rx: no PCI function 0000:99:00.0 (see /sys/bus/pci/devices; a BDF is written 0000:01:00.0)' \
		recv --dev lo --queues 0 --vfio 0000:99:00.0 4M
	expect_err 1 'devmemx-rx: 0000:00:00.0 is not bound to vfio-pci: echo vfio-pci > /sys/bus/pci/devices/0000:00:00.0/driver_override, unbind its driver, echo 0000:00:00.0 > /sys/bus/pci/drivers_probe' \
		recv --dev lo --queues 0 --vfio 0000:00:00.0 4M
	expect_err 1 'devmemx-rx: /dev/devmemx_vram: No such file or directory (load devmemx_vram: it needs a QEMU ivshmem-plain device)' \
		recv --dev lo --queues 0 --vram 4M
}
dx_case lo-refused lo_refused

# udmabuf's size limit (64 MiB by default on 7.2, none on 7.3): set it to 64.
udmabuf_limit() {
	local lim=/sys/module/udmabuf/parameters/size_limit_mb
	dx_defer sh -c "echo $(cat $lim) >$lim"
	echo 64 >$lim
	expect_err 1 'devmemx-rx: a udmabuf of 128 MiB is over udmabuf.size_limit_mb=64: raise it (udmabuf.size_limit_mb= on the kernel command line, or /sys/module/udmabuf/parameters/size_limit_mb) or use a smaller --udmabuf' \
		recv --dev lo --queues 0 --udmabuf 128M
	expect_err 1 "$lo_err" recv --dev lo --queues 0 --udmabuf 64M
}
dx_case udmabuf-limit udmabuf_limit

# Huge pages: none reserved, then two (the VM boots with some reserved).
huge_pages() {
	dx_defer sh -c "echo $(cat /proc/sys/vm/nr_hugepages) >/proc/sys/vm/nr_hugepages"
	echo 0 >/proc/sys/vm/nr_hugepages
	expect_err 1 'devmemx-rx: UDMABUF_CREATE: Cannot allocate memory (not enough free 2M huge pages for 4 MiB: echo N > /proc/sys/vm/nr_hugepages)' \
		recv --dev lo --queues 0 --udmabuf 4M --hugetlb
	echo 2 >/proc/sys/vm/nr_hugepages
	expect_err 1 "$lo_err" recv --dev lo --queues 0 --udmabuf 4M --hugetlb
}
dx_case huge-pages huge_pages

# netkit has the queue API but no DMA device: the kernel's own extack.
netkit_refused() {
	local nk_err
	ip link add nk0 type netkit peer name nk1 || fail "cannot make a netkit pair"
	dx_defer ip link del nk0
	nk_err="devmemx-rx: bind to nk0: Device doesn't support DMA (Operation not supported)"
	expect_err 1 "$nk_err" recv --dev nk0 --queues 0 --udmabuf 4M
	expect_err 1 'devmemx-rx: bind to nk0: a queue in --queues does not exist on nk0 (see: ethtool -l nk0) (Invalid argument)' \
		recv --dev nk0 --queues 3 --udmabuf 4M
	case $DX_SERIES in
	7.2) expect_err 1 "devmemx-rx: bind to nk0: Unknown attribute type (Invalid argument): this kernel's in-tree devmem has no rx-page-size (it came in 7.3): drop --rx-page-size or use --provider devmemx" \
		recv --dev nk0 --queues 0 --udmabuf 4M --rx-page-size 16K ;;
	*) expect_err 1 "$nk_err" recv --dev nk0 --queues 0 --udmabuf 4M --rx-page-size 16K ;;
	esac
}
dx_case netkit netkit_refused

# The sender: no listener, IPv4 and IPv6, within its --timeout.
sender_refused() {
	local start
	start=$(date +%s)
	expect_err 1 'devmemx-rx: cannot connect to 127.0.0.1 port 9: Connection refused (gave up after 1 s: is the receiver running?)' \
		rx send --addr 127.0.0.1 --port 9 --bytes 1M --timeout 1
	[ $(($(date +%s) - start)) -le 3 ] || fail "send --timeout 1 took too long"
	expect_err 1 'devmemx-rx: cannot connect to ::1 port 9: Connection refused (gave up after 1 s: is the receiver running?)' \
		rx send --addr ::1 --port 9 --bytes 1M --timeout 1
}
dx_case sender-refused sender_refused

# The stream itself, taken by a plain listener that comes up after the sender
# started; the digests come from an independent implementation of the pattern.
stream_sum() { # seed-args... -> sha256 of 1000003 bytes sent in 7777-byte writes
	local pid
	rx send --addr 127.0.0.1 --port 5202 --bytes 1000003 --chunk 7777 \
		--timeout 10 "$@" >/tmp/sent.json &
	pid=$!
	sleep 1
	timeout 20 nc -l -p 5202 </dev/null >/tmp/got
	wait $pid || fail "send $* exited $?"
	expect_eq "$(jget bytes_sent /tmp/sent.json)" 1000003 "send $* output"
	grep -q '"retrans":[0-9]*,.*"rwnd_limited_us":[0-9]*,' /tmp/sent.json ||
		fail "send $*: no TCP_INFO figures in $(cat /tmp/sent.json)"
	sha256sum </tmp/got | cut -d' ' -f1
	rm -f /tmp/got /tmp/sent.json
}
# The stream's bytes, with the default seed and with another.
stream() {
	expect_eq "$(stream_sum)" df3ccadff939159ddeed8aeaaf24167468019fbabd842cbe8331509c3583aacc \
		"stream, default seed"
	expect_eq "$(stream_sum --seed 7)" 8a5d1db09322bb6c8f767221f4fb46a86c57596354dad538e6c4f519105f1ec7 \
		"stream, seed 7"
}
dx_case stream stream
