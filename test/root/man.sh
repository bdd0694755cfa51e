# SPDX-License-Identifier: GPL-2.0
# The man pages, in the build root: each renders without a warning from man
# or groff (style checks included), and each tool's --help texts and its page
# name the same long options and commands, both ways (and the help's short
# options and devmemx's keyword arguments appear in the page).
# devmemx-review (a python script in tools/review, not built by make -C
# tools) has options only: its page is held to its --help's options.
#
# The tools are built from /src/tools into a scratch directory, so the help
# checked is the source's, whatever build/tools holds. DX_TOOLS=DIR uses
# tools built there instead; DX_MAN_DIR=DIR takes the pages from DIR.
set -uo pipefail

man_dir=${DX_MAN_DIR:-/src/man}
tools=${DX_TOOLS:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0

problem() { echo "$*" >&2; bad=1; }

if [ -z "$tools" ]; then
	tools=$work/tools
	mkdir "$tools"
	if ! make -s -C /src/tools O="$tools" >"$work/make.log" 2>&1; then
		cat "$work/make.log" >&2
		echo "man: cannot build the tools from /src/tools" >&2
		exit 1
	fi
fi

# The page as plain text: no overstrikes or SGR, no hyphenation, ASCII
# hyphens, one line per paragraph line (width $2), spaces squeezed.
render() {
	MANROFFSEQ='' MANWIDTH=${2:-1000} MANROFFOPT='-rHY=0' man -l "$1" 2>/dev/null |
		sed -e 's/.\x08//g' -e 's/\x1b\[[0-9;]*m//g' \
		    -e 's/\xe2\x80\x90/-/g' -e 's/\xe2\x88\x92/-/g' \
		    -e 's/\xc2\xad//g' -e 's/  */ /g' -e 's/ $//'
}

# Section $2 of rendered page $1 (its body, without the heading).
section() {
	awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on' "$1"
}

# Synopsis or usage lines (stdin) of program $1: the commands they name,
# e.g. "devmemx [-j] show [ID]" gives show, "p pools | queues" both.
commands() {
	awk -v p="$1" '
	{
		sub(/^usage:/, "")
		if ($1 != p)
			next
		i = 2
		while (i <= NF && $i ~ /^\[-/)
			i++
		while (i <= NF && $i ~ /^[a-z][a-z0-9-]*$/) {
			print $i
			if ($(i + 1) != "|")
				break
			i += 2
		}
	}' | sort -u
}

# Long options anywhere in stdin.
long_opts() {
	grep -oE -- '(^|[^A-Za-z0-9_-])--[a-z][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

# Short options of usage lines and of "  -x, --long" option lines (stdin).
short_opts() {
	awk -v p="$1" '
	{ sub(/^usage:/, "") }
	$1 == p || /^ +-[A-Za-z], --/ { print }' |
		grep -oE -- '(^|[ [(|])-[A-Za-z]([] ,|)]|$)' | grep -oE -- '-[A-Za-z]' | sort -u
}

# devmemx's keyword arguments as usage lines show them: "dev IFNAME".
keywords() {
	awk -v p="$1" '{ sub(/^usage:/, "") } $1 == p { $1 = ""; print }' |
		grep -oE -- '(^|[ [(])[a-z][a-z0-9-]* [A-Z][A-Z]*' | sed 's/^[ [(]//' | sort -u
}

# Every word of list $2 (lines) must be in list $3; $1 says what is missing.
need() {
	local what=$1 w
	while read -r w; do
		[ -n "$w" ] || continue
		grep -qxF -- "$w" <<<"$3" || problem "$what: $w"
	done <<<"$2"
}

count() { grep -c . <<<"$1"; }

# check_tool TOOL PAGE [BIN]: BIN (default: the built TOOL) has commands;
# given, it is a command of options only (devmemx-review).
check_tool() {
	local tool=$1 page=$2 bin=${3:-$tools/$1} nocmds=${3:+1} name
	local help all_help txt body ex help_cmds man_cmds out rc c n_help=1
	local help_long man_long help_short help_kw
	name=man/$(basename "$page")

	[ -x "$bin" ] || { problem "$tool: no $bin"; return; }

	# (a) the page renders cleanly, and whatis can read its NAME line.
	out=$(MANROFFSEQ='' MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 0 ] || problem "$tool: man -l $name exited $rc"
	[ -z "$out" ] || problem "$tool: man --warnings=w -l $name said:"$'\n'"$out"
	out=$(groff -man -ww -z -rCHECKSTYLE=3 "$page" 2>&1)
	[ -z "$out" ] || problem "$tool: groff -ww -rCHECKSTYLE=3 $name said:"$'\n'"$out"
	lexgrog "$page" | grep -qF -- ": \"$tool - " ||
		problem "$tool: lexgrog finds no \"$tool - ...\" NAME line in $name"

	# (b) the help texts: top level, then each command's own.
	help=$("$bin" --help) || { problem "$tool --help exited $?"; return; }
	all_help=$help
	help_cmds=$(commands "$tool" <<<"$help")
	if [ -n "$nocmds" ]; then
		[ -z "$help_cmds" ] || problem "$tool: --help names commands: $help_cmds"
		help_cmds=
	fi
	[ -n "$help_cmds" ] || [ -n "$nocmds" ] ||
		{ problem "$tool: no commands found in --help"; return; }
	for c in $help_cmds; do
		out=$("$bin" "$c" --help 2>/dev/null) || continue
		n_help=$((n_help + 1))
		all_help+=$'\n'$out
		# Its own usage (devmemx), or the whole one (devmemx-rx).
		case $(commands "$tool" <<<"$out") in
		"$c" | "$help_cmds") ;;
		*) problem "$tool: $c --help names other commands than $c or --help's" ;;
		esac
	done
	help_long=$(long_opts <<<"$all_help")
	help_short=$(short_opts "$tool" <<<"$all_help")
	help_kw=$(keywords "$tool" <<<"$all_help" |
		  awk -v cmds=" $(tr '\n' ' ' <<<"$help_cmds")" 'index(cmds, " " $1 " ") == 0')

	# The page: commands from its SYNOPSIS; options from everything but
	# EXAMPLES and SEE ALSO, and from the EXAMPLES lines that run the tool.
	txt=$work/$tool.txt
	render "$page" >"$txt"
	man_cmds=$(section "$txt" SYNOPSIS | commands "$tool")
	body=$(awk '/^[A-Z]/ { skip = ($0 == "EXAMPLES" || $0 == "SEE ALSO") } !skip' "$txt")
	ex=$(section "$txt" EXAMPLES | sed -e ':a' -e '/\\$/{N; s/\\\n */ /; ba' -e '}' |
	     grep -E "^ *([A-Za-z_]+=\\\$\\()?$tool( |\$)")
	man_long=$(long_opts <<<"$body"$'\n'"$ex")

	need "$tool: option in --help, missing from $name" "$help_long" "$man_long"
	need "$tool: option in $name, missing from --help" "$man_long" "$help_long"
	need "$tool: command in --help, missing from the SYNOPSIS of $name" "$help_cmds" "$man_cmds"
	need "$tool: command in the SYNOPSIS of $name, missing from --help" "$man_cmds" "$help_cmds"
	need "$tool: short option in --help, missing from $name" "$help_short" \
		"$(grep -oE -- '(^|[^A-Za-z0-9-])-[A-Za-z]([^A-Za-z0-9-]|$)' "$txt" |
		   grep -oE -- '-[A-Za-z]' | sort -u)"
	while read -r c; do
		[ -n "$c" ] || continue
		grep -qF -- "$c" "$txt" || problem "$tool: keyword in --help, missing from $name: $c"
	done <<<"$help_kw"

	echo "# $tool: $(count "$help_long") long options, $(count "$help_short") short," \
	     "$(count "$help_cmds") subcommands, $(count "$help_kw") keywords in" \
	     "$n_help --help texts and $name"
}

check_tool devmemx "$man_dir/devmemx.8"
check_tool devmemx-rx "$man_dir/devmemx-rx.8"
check_tool devmemx-review "$man_dir/devmemx-review.8" /src/tools/review/devmemx-review

if [ $bad != 0 ]; then
	echo "man: the man pages and --help disagree or do not render cleanly (see above)" >&2
	exit 1
fi
