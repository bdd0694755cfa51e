#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A test script's name, its cases and what each is, read from the script
# without running it; on the host (run.sh -l, run.sh -t TEST/CASE) and in
# the VM (run-tests.sh: the cases a test should report). One line each,
# NAME TAB DESCRIPTION:
#   TEST       the script's first comment line after its SPDX line
#   TEST/CASE  for each line "dx_case CASE FUNCTION ...", in order: the first
#              line of the comment block right above that line, else of the
#              one right above "FUNCTION() {" (cases of one function with
#              different arguments say each what it is above its dx_case)
# usage: cases.sh SCRIPT...
set -euo pipefail
for f in "$@"; do
	awk -v test="$(basename "$f" .sh)" '
	function comment(line) {
		sub(/^[ \t]*#[ \t]?/, "", line)
		return line
	}
	# The test: its first comment line, past the SPDX line and the
	# runner'"'"'s directives (# dx-lanes:, # dx-boot:).
	!seen_desc && /^#/ && !/SPDX-License-Identifier/ && !/^# dx-[a-z]+:/ &&
	    !/^#!/ && !/^# shellcheck/ && comment($0) != "" {
		seen_desc = 1
		desc = comment($0)
	}
	/^[ \t]*#/ {
		if (!in_block)
			first = comment($0)
		in_block = 1
		next
	}
	{
		line = $0
		if (line ~ /^[ \t]*(function[ \t]+)?[A-Za-z_][A-Za-z0-9_-]*[ \t]*\(\)/) {
			name = line
			sub(/^[ \t]*(function[ \t]+)?/, "", name)
			sub(/[ \t]*\(.*/, "", name)
			if (in_block)
				fdesc[name] = first
		} else if (line ~ /^[ \t]*dx_case[ \t]/) {
			split(line, w, /[ \t]+/)
			i = (w[1] == "") ? 2 : 1
			n++
			cname[n] = w[i + 1]
			cfn[n] = w[i + 2]
			cdesc[n] = in_block ? first : ""
		}
		in_block = 0
	}
	END {
		printf "%s\t%s\n", test, desc
		for (i = 1; i <= n; i++) {
			d = (cdesc[i] != "" || !(cfn[i] in fdesc)) ? cdesc[i] : fdesc[cfn[i]]
			printf "%s/%s\t%s\n", test, cname[i], d
		}
	}' "$f"
done
