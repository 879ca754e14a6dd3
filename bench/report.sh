#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the "hwt_bench:" lines of a benchmark VM log into bench/results/:
# write-path.csv (every measurement) and write-path.md (median and spread
# per buffer, and the ratio of each median to ring_buffer's).
#
# usage: bench/report.sh LOG OUTDIR
set -euo pipefail

log=$1
outdir=$2
mkdir -p "$outdir"
kernel=$(sed -n 's/.*HWT-VM-START kernel=\([^ ]*\) cpus=\([0-9]*\).*/\1/p' "$log" | head -n 1)
cpus=$(sed -n 's/.*HWT-VM-START kernel=[^ ]* cpus=\([0-9]*\).*/\1/p' "$log" | head -n 1)

# "hwt_bench: round R cpu C NAME PS ps/event CYC cycles/kevent"
echo "round,cpu,buffer,ns_per_event,cycles_per_event" >"$outdir/write-path.csv"
sed -n 's/.*hwt_bench: round \([0-9]*\) cpu \([0-9]*\) \([a-z_]*\) \([0-9]*\) ps\/event \([0-9]*\) cycles\/kevent.*/\1 \2 \3 \4 \5/p' "$log" |
	awk '{ printf "%s,%s,%s,%.3f,%.3f\n", $1, $2, $3, $4 / 1000, $5 / 1000 }' >>"$outdir/write-path.csv"

{
	echo "# Write path: one 16-byte record"
	echo
	echo "Kernel $kernel, $cpus vCPUs under QEMU TCG, $(date -u +%Y-%m-%d)."
	echo "TCG distorts absolute numbers; the ratios to ring_buffer, measured in"
	echo "the same boot on the same CPUs with the same memory, are the figures"
	echo "that count. Median and spread (min-max) over every round and CPU."
	echo
	echo "| buffer | median ns/event | min | max | median cycles/event | ratio to ring_buffer |"
	echo "| --- | --- | --- | --- | --- | --- |"
	tail -n +2 "$outdir/write-path.csv" | awk -F, '
		{ n[$3]++; ns[$3, n[$3]] = $4; cy[$3, n[$3]] = $5 }
		function median(a, b, k,   i, j, t, v) {
			for (i = 1; i <= k; i++) v[i] = a[b, i]
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			lo = v[1]; hi = v[k]
			return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		}
		END {
			base = median(ns, "ring_buffer", n["ring_buffer"])
			split("hwtrace ring_buffer relay", order, " ")
			for (o = 1; o <= 3; o++) {
				b = order[o]
				if (!n[b]) continue
				m = median(ns, b, n[b]); l = lo; h = hi
				c = median(cy, b, n[b])
				printf "| %s | %.1f | %.1f | %.1f | %.1f | %.2fx |\n", b, m, l, h, c, m / base
			}
		}'
} >"$outdir/write-path.md"
cat "$outdir/write-path.md"
