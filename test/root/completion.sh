#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bash completion (tools/bash-completion/devmemx): for each subcommand of
# both tools it offers exactly the long options the usage lines of --help
# give that subcommand, the keywords of devmemx's bind, caps and unbind,
# and devices, providers and heaps for the arguments that take them.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
export PATH=/src/build/tools:$PATH
. /src/tools/bash-completion/devmemx

# complete WORDS...: what TAB offers after WORDS (the last one is the word
# being completed), sorted, one line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_devmemx
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# usage_opts TOOL SUB: the long options in SUB's usage lines.
usage_opts() {
	"$1" --help | awk -v t="$1" -v s="$2" '
		/^$/ { exit }
		{ line = $0; sub(/^usage: /, "", line); sub(/^ +/, "", line) }
		line ~ "^" t " " { split(line, w, / +/); cur = (w[2] == "[-j]" ? w[3] : w[2]) }
		cur == s { while (match(line, /--[a-z][a-z0-9-]*/)) {
				print substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) } }' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

n=0
for t in devmemx devmemx-rx; do
	if [ $t = devmemx ]; then subs="bind unbind show caps info"; else subs="recv send ab pools queues qstats"; fi
	for s in $subs; do
		want=$(usage_opts $t $s)
		got=$(complete_words $t $s -- | tr ' ' '\n' | grep -v '^--help$' | tr '\n' ' ' | sed 's/ $//')
		[ "$got" = "$want" ] || fail "$t $s --<TAB>: offers '$got', its usage has '$want'"
		n=$((n + 1))
	done
done

expect() { # want words...
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || fail "'$*<TAB>': offers '$got', expected '$want'"
	n=$((n + 1))
}
expect "--help --json --version -j bind caps help info policy show unbind" devmemx ""
expect "bind caps info policy show unbind" devmemx help ""
expect "" devmemx help bind ""
expect "-j" devmemx -j
expect "--help ab pools qstats queues recv send" devmemx-rx ""
expect "dev" devmemx bind d
expect "queues" devmemx bind dev lo q
expect "--udmabuf" devmemx bind dev lo queues 2 --ud
expect "all" devmemx unbind a
expect "dev queue" devmemx caps ""
expect "dev off queues show size" devmemx policy ""
expect "lo" devmemx bind dev l
expect "lo" devmemx-rx recv --dev l
expect "devmemx" devmemx-rx recv --provider d
expect "pattern zero" devmemx-rx send --fill ""
expect "0 1" devmemx bind dev lo queues 2 autorelease ""
expect "autorelease" devmemx bind dev lo queues 2 au
expect "0 1" devmemx-rx recv --autorelease ""
expect "dmabuf host" devmemx-rx ab --zcrx-area ""
expect "netdev,devmemx,zcrx" devmemx-rx ab --providers netdev,devmemx,z
echo "# bash completion: $n cases, the options of every subcommand of both tools as their usage lines give them"
