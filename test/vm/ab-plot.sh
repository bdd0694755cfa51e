#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab-plot.sh DIR: from the medians of make ab's main set (DIR/*main.sum.csv,
# written by devmemx-rx ab --summary), DIR/cpu.svg and DIR/cmsgs.svg: CPU
# and cmsgs per GiB against the niov size, one line per kernel and
# provider; from the scale set's (DIR/*scale-NG.sum.csv), DIR/scale.svg:
# bind time against the dma-buf's size, log-log, one line per kernel and
# configuration. Drawn by gnuplot; runs in the VM and in the build root.
set -euo pipefail

# gp DIR NAME: gnuplot DIR/NAME.gp (its stderr only when it fails: without
# a terminal database, the VM has none, it also complains about that).
gp() {
	gnuplot "$1/$2.gp" 2>"$1/$2.err" ||
		{ cat "$1/$2.err" >&2; echo "ab-plot: gnuplot failed on $2.gp" >&2; exit 1; }
	rm -f "$1/$2.gp" "$1/$2.err"
}

# The scale set: bind ms (the median per GiB times the GiBs) against GiB.
ab_plot_scale() {
	local dir=$1 f g series dat sep=' '
	ls "$dir"/*scale-*G.sum.csv >/dev/null 2>&1 || return 0
	rm -f "$dir"/scale-*.dat
	for f in "$dir"/*scale-*G.sum.csv; do
		g=${f##*scale-}
		g=${g%G.sum.csv}
		# SERIES-scale-NG.sum.csv on the host, scale-NG.sum.csv in the VM
		series=$(basename "$f")
		case $series in scale-*) series= ;; *) series=${series%%-scale-*} ;; esac
		awk -F, -v d="$dir" -v g="$g" -v s="$series" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["bind_ms_per_gib_median"] != "" {
			  print g, $c["bind_ms_per_gib_median"] * g >> (d "/scale-" (s == "" ? "" : s "-") $c["config"] ".dat") }' "$f"
	done
	{
		echo "set terminal svg size 800,500 dynamic background rgb 'white'"
		echo "set output '$dir/scale.svg'"
		echo "set logscale xy 2; set xtics (1, 16, 64, 128, 256); set format y '%g'"
		echo "set xlabel 'dma-buf bound (GiB of device memory)'; set ylabel 'bind ms (medians)'"
		echo "set key outside right"
		printf 'plot'
		for dat in "$dir"/scale-*.dat; do
			sort -n -o "$dat" "$dat"
			printf "%s'%s' using 1:2 with linespoints title '%s'" "$sep" "$dat" \
				"$(basename "$dat" .dat | sed 's/^scale-//; s/-/ /')"
			sep=', '
		done
		echo
	} >"$dir/scale.gp"
	gp "$dir" scale
	rm -f "$dir"/scale-*.dat
}

ab_plot() {
	local dir=$1 f col
	command -v gnuplot >/dev/null || { echo "ab-plot: no gnuplot (gnuplot-nox in the build root)" >&2; exit 1; }
	ab_plot_scale "$dir"
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
		gp "$dir" $col
	done
	rm -f "$dir"/plot-*.dat
}

ab_plot "$1"
