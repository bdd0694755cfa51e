#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab-plot.sh DIR: from the medians of make ab's main set (DIR/*main.sum.csv,
# written by devmemx-rx ab --summary), DIR/cpu.svg and DIR/cmsgs.svg: CPU
# and cmsgs per GiB against the niov size, one line per kernel and
# provider, drawn by gnuplot. Runs in the VM and in the build root.
set -euo pipefail

ab_plot() {
	local dir=$1 f col
	command -v gnuplot >/dev/null || { echo "ab-plot: no gnuplot (gnuplot-nox in the build root)" >&2; exit 1; }
	# No main set (ab.sh -S sockets, say): nothing to draw.
	ls "$dir"/*main.sum.csv >/dev/null 2>&1 || return 0
	for f in "$dir"/*.sum.csv; do
		case $f in *main.sum.csv) ;; *) continue ;; esac
		# One data file per provider: size, the receiving host's CPU
		# s/GiB, cmsgs/GiB.
		awk -F, -v d="$dir" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ cpu = $c["host_cpu_s_per_gib_median"]
			  split($1, t, " ")
			  print $c["niov_size"], cpu, $c["cmsgs_per_gib_median"] > (d "/plot-" t[1] "-" $c["provider"] ".dat") }' "$f"
	done
	for col in cpu cmsgs; do
		{
			echo "set terminal svg size 800,500 dynamic background rgb 'white'"
			echo "set output '$dir/$col.svg'"
			echo "set logscale x 2; set xtics (4096, 16384, 32768, 65536); set format x '%.0s%cB'"
			echo "set xlabel 'niov size'; set key outside right"
			if [ $col = cpu ]; then
				echo "set ylabel 'receiving host CPU s per GiB received (medians)'"
				echo "set yrange [0:*]"
			else
				echo "set ylabel 'cmsgs per GiB received (medians)'; set logscale y"
			fi
			printf 'plot'
			local sep=' ' dat
			for dat in "$dir"/plot-*.dat; do
				sort -n -o "$dat" "$dat"
				printf "%s'%s' using 1:%d with linespoints title '%s'" "$sep" "$dat" \
					$([ $col = cpu ] && echo 2 || echo 3) \
					"$(basename "$dat" .dat | sed 's/^plot-//; s/-/ /')"
				sep=', '
			done
			echo
		} >"$dir/$col.gp"
		# Its stderr only when it fails: without a terminal database
		# (the VM has none) it also complains about that.
		gnuplot "$dir/$col.gp" 2>"$dir/$col.err" ||
			{ cat "$dir/$col.err" >&2; echo "ab-plot: gnuplot failed on $col.gp" >&2; exit 1; }
		rm -f "$dir/$col.gp" "$dir/$col.err"
	done
	rm -f "$dir"/plot-*.dat
}

ab_plot "$1"
