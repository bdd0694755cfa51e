# SPDX-License-Identifier: GPL-2.0
# make ab's scale tables (awk -F, -f ab-scale.awk FILES...): from each
# SERIES-scale-NG.sum.csv (devmemx-rx ab's medians per configuration) the
# figures per size, and the ratios devmemx is judged by; from each
# SERIES-scale-NG.csv beside it (every run), the same bind and unbind
# times and metadata again, recomputed from the raw rows: a table figure
# that is not what the runs measured fails (exit 1, said on stderr).

function median(list,    v, n, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# Equal within 0.1% (the summary prints six significant digits) or 0.01.
function same(a, b) {
	d = a - b
	if (d < 0)
		d = -d
	return d <= 0.01 || d <= 0.001 * (a < 0 ? -a : a)
}
function fmt(v, p) { return v == "" ? "-" : sprintf("%." p "f", v) }
function ratio(a, b) { return a == "" || b == "" || b + 0 == 0 ? "-" : sprintf("%.2f", a / b) }

FNR == 1 {
	for (i in c)
		delete c[i]
	for (i = 1; i <= NF; i++)
		c[$i] = i
	f = FILENAME
	sub(/.*\//, "", f)
	sum = f ~ /\.sum\.csv$/
	# 7.2-scale-256G.sum.csv: series 7.2, 256 GiB
	series = f
	sub(/-scale-.*/, "", series)
	g = f
	sub(/.*-scale-/, "", g)
	sub(/G\..*/, "", g)
	g += 0
	if (!(series in seen_s)) {
		seen_s[series] = 1
		ss[++ns] = series
	}
	if (!((series, g) in seen_g)) {
		seen_g[series, g] = 1
		gs[series, ++ng[series]] = g
	}
	next
}
sum {
	k = series SUBSEP g SUBSEP $c["config"]
	if (!(k in bind)) {
		cfgs[series, g, ++nc[series, g]] = $c["config"]
	}
	bind[k] = $c["bind_ms_per_gib_median"]
	unbind[k] = $c["unbind_ms_per_gib_median"]
	meta[k] = $c["meta_mib_per_gib_median"]
	kmem[k] = $c["kmem_mib_per_gib_median"]
	left[k] = $c["kmem_left_mib_median"]
	next
}
$c["phase"] == "timed" {
	k = series SUBSEP g SUBSEP $c["config"]
	rb[k] = rb[k] " " $c["bind_s"] * 1000
	ru[k] = ru[k] " " $c["unbind_s"] * 1000
	rm[k] = rm[k] " " $c["meta_bytes"] / 1048576
	# Every GiB the row says was bound is the file's.
	if ($c["dmabuf_bytes"] != g * 1073741824) {
		printf "ab-scale: %s: a %s run bound %s bytes, not %d GiB\n", FILENAME,
			$c["config"], $c["dmabuf_bytes"], g > "/dev/stderr"
		bad = 1
	}
}

END {
	print ""
	print "### Scale: bind and unbind time, metadata and kernel memory against the dma-buf"
	print ""
	print "Device memory (devmemx_vram's BAR, no struct pages, 2M sg entries), bound whole on one queue, one binding at a time; medians of 3 timed runs after a verified one. Unbind: from closing the binding until its page pools are gone and MemAvailable is back (within 16 MiB). Metadata: devmemx's own count, in-tree's one struct net_iov per niov (BTF). Kernel memory: MemAvailable's fall over the bind; left after unbind: what it still lacked after."
	print ""
	print "| kernel | dma-buf | configuration | bind ms | bind ms/GiB | unbind ms/GiB | metadata MiB/GiB | kernel memory MiB/GiB | left after unbind MiB |"
	print "|---|---:|---|---:|---:|---:|---:|---:|---:|"
	for (s = 1; s <= ns; s++) {
		S = ss[s]
		for (i = 1; i <= ng[S]; i++) {
			G = gs[S, i]
			for (j = 1; j <= nc[S, G]; j++) {
				C = cfgs[S, G, j]
				k = S SUBSEP G SUBSEP C
				if (!(k in rb)) {
					printf "ab-scale: %s %dG %s: no timed runs in its CSV\n", S, G, C > "/dev/stderr"
					bad = 1
				} else {
					mb = median(rb[k]); mu = median(ru[k]); mm = median(rm[k])
					if (!same(bind[k] * G, mb) || !same(unbind[k] * G, mu) ||
					    (meta[k] != "" && !same(meta[k] * G, mm))) {
						printf "ab-scale: %s %dG %s: the summary says bind %.3f ms, unbind %.3f ms, metadata %.3f MiB; its runs' medians are %.3f, %.3f, %.3f\n",
							S, G, C, bind[k] * G, unbind[k] * G, meta[k] * G, mb, mu, mm > "/dev/stderr"
						bad = 1
					}
				}
				printf "| %s | %dG | %s | %s | %s | %s | %s | %s | %s |\n", S, G, C,
					fmt(bind[k] * G, 1), fmt(bind[k], 2), fmt(unbind[k], 2),
					fmt(meta[k], 3), fmt(kmem[k], 3), fmt(left[k], 1)
			}
		}
	}
	print ""
	print "devmemx against in-tree at the same niov size (medians' ratios; below 1: devmemx takes less):"
	print ""
	print "| kernel | dma-buf | 4K bind | 4K unbind | 4K metadata | 4K kernel memory | 64K bind | 64K unbind | 64K metadata | 64K kernel memory |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (s = 1; s <= ns; s++) {
		S = ss[s]
		for (i = 1; i <= ng[S]; i++) {
			G = gs[S, i]
			line = sprintf("| %s | %dG |", S, G)
			for (z = 4; z <= 64; z *= 16) {
				d = S SUBSEP G SUBSEP "devmemx-" z "K"
				n = S SUBSEP G SUBSEP "netdev-" z "K"
				line = line sprintf(" %s | %s | %s | %s |", ratio(bind[d], bind[n]),
					ratio(unbind[d], unbind[n]), ratio(meta[d], meta[n]),
					ratio(kmem[d], kmem[n]))
			}
			print line
		}
	}
	exit bad + 0
}
