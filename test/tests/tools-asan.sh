# SPDX-License-Identifier: GPL-2.0
# dx-debug: no the tools' sanitizers over cli-usage's and rx-cli's requests and a flow as devmemx-data's
# The CLI and receiver tests again, with devmemx and devmemx-rx built with
# ASan and UBSan (build/tools-asan) first in PATH, and one verified devmemx
# flow: every sanitizer report (memory errors, leaks at exit, undefined
# behaviour) goes to a file under /tmp/asan, and there must be none.
. /dx/guestlib.sh

[ -x /usr/lib/devmemx-asan/devmemx ] || fail "no ASan build of the tools in the initramfs (build/tools-asan)"
export PATH=/usr/lib/devmemx-asan:$PATH
rm -rf /tmp/asan && mkdir -p /tmp/asan
# A leak does not change the exit status (the report is what counts);
# memory errors and undefined behaviour stop the program.
export ASAN_OPTIONS=log_path=/tmp/asan/asan:detect_leaks=1
export LSAN_OPTIONS=exitcode=0
export UBSAN_OPTIONS=log_path=/tmp/asan/ubsan:print_stacktrace=1:halt_on_error=1
reports() { ls /tmp/asan/* >/dev/null 2>&1 && head -n 40 /tmp/asan/*; }
[ "$(command -v devmemx)" = /usr/lib/devmemx-asan/devmemx ] || fail "PATH: $(command -v devmemx)"

for t in cli-usage cli rx-cli; do
	out=$(bash /dx/tests/$t.sh 2>&1) || fail "$t with the ASan tools: $out $(reports)"
done

dx_sim_devmem 9000
trap dx_sim_teardown EXIT
devmem_xfer 4194304 7500 --queues 2 --provider devmemx --rx-page-size 64K --udmabuf 8M --hugetlb
ip netns exec rx devmemx-rx qstats -j >/dev/null || fail "qstats"
trap - EXIT
dx_sim_teardown

! reports >/tmp/reports || fail "sanitizer reports: $(cat /tmp/reports)"
echo "# cli-usage, cli, rx-cli and a 4 MiB devmemx flow with ASan+UBSan tools: no report"
