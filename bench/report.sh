#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the "hwt_bench:" lines of make bench's logs (the end-to-end run,
# the rest, and boots that measure only the write path) into
# bench/results/: a CSV per step and results.md with medians, spreads and
# ratios.
#
# usage: bench/report.sh LOG E2E_LOG OUTDIR [WRITE_LOG...]
set -euo pipefail

log=$1
e2e_log=$2
outdir=$3
shift 3
here=$(dirname "$0")
mkdir -p "$outdir"
kernel=$(sed -n 's/.*HWT-VM-START kernel=\([^ ]*\) .*/\1/p' "$log" | head -n 1)
cpus=$(sed -n 's/.*HWT-VM-START kernel=[^ ]* cpus=\([0-9]*\).*/\1/p' "$log" | head -n 1)

# key=value lines of one step (of LOG), as CSV with a header from the first line
csv() {
	grep -o "hwt_bench: $1 .*" "${2:-$log}" | sed "s/^hwt_bench: $1 //" | awk '
		NR == 1 { for (i = 1; i <= NF; i++) { split($i, kv, "="); h = h (i > 1 ? "," : "") kv[1] }
			  print h }
		{ l = ""; for (i = 1; i <= NF; i++) { split($i, kv, "="); l = l (i > 1 ? "," : "") kv[2] }
		  print l }'
}

# "hwt_bench: round R cpu C NAME PS ps/event CYC cycles/kevent clock CLOCK",
# once from the script and once more in the kernel log the VM dumps at its
# end: "ROUND,CPU,BUFFER,NS,CYCLES,CLOCK" rows of LOG, each once
write_rows() {
	sed -n 's/.*hwt_bench: round \([0-9]*\) cpu \([0-9]*\) \([a-z_]*\) \([0-9]*\) ps\/event \([0-9]*\) cycles\/kevent clock \([a-z]*\).*/\1 \2 \3 \4 \5 \6/p' "$1" |
		awk '!seen[$0]++ { printf "%s,%s,%s,%.3f,%.3f,%s\n", $1, $2, $3, $4 / 1000, $5 / 1000, $6 }'
}
{
	echo "round,cpu,buffer,ns_per_event,cycles_per_event,clock"
	write_rows "$log"
} >"$outdir/write-path.csv"
# every boot's rows (the main one first), its number in front
{
	echo "boot,round,cpu,buffer,ns_per_event,cycles_per_event,clock"
	boot=0
	for l in "$log" "$@"; do
		boot=$((boot + 1))
		write_rows "$l" | sed "s/^/$boot,/"
	done
} >"$outdir/write-boots.csv"
csv e2e "$e2e_log" >"$outdir/e2e.csv"
csv load >"$outdir/load.csv"
csv drain >"$outdir/drain.csv"
csv convert >"$outdir/convert.csv"

# median, min and max of the numbers on stdin, one a line ("- - -": none)
median_spread() {
	sort -g | awk -v OFMT=%.15g '{ v[NR] = $1 }
		END {
			if (!NR) { print "- - -"; exit }
			print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR]
		}'
}

# median and spread of column COL for rows whose column KEY is VAL (and,
# with two or four more arguments, column KEY2 is VAL2 and KEY3 is VAL3)
stats() {
	awk -F, -v key="$2" -v val="$3" -v col="$4" -v key2="${5:-0}" -v val2="${6:-}" \
		-v key3="${7:-0}" -v val3="${8:-}" \
		'NR > 1 && $key == val && (!key2 || $key2 == val2) && (!key3 || $key3 == val3) { print $col }' \
		"$1" | median_spread
}

{
	echo "# hwtrace benchmarks"
	echo
	echo "Kernel $kernel, $cpus vCPUs (one in section 2) under QEMU TCG (tsc=reliable; hwtrace clock=tsc but where a row says otherwise), $(date -u +%Y-%m-%d)."
	echo "Host: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $(qemu-system-x86_64 --version | head -n 1)."
	echo "TCG distorts absolute numbers: the ratios between tracers measured in"
	echo "the same boot are the figures that count. Medians with min-max spread."
	echo
	echo "## 1. Write path: one 16-byte record, same memory per CPU"
	echo
	echo "hwtrace and relay stamp records with the clock in the row (relay as a tracer"
	echo "built on it would: hwtrace's); ring_buffer keeps its own (trace_clock_local)."
	echo "Ratios are to ring_buffer measured in the same load of hwt_bench."
	echo
	echo "| buffer | clock | ns/event (median) | min | max | ratio to ring_buffer |"
	echo "| --- | --- | --- | --- | --- | --- |"
	for clock in tsc mono; do
		read -r base _ _ < <(stats "$outdir/write-path.csv" 3 ring_buffer 4 6 $clock)
		for b in hwtrace ring_buffer relay; do
			read -r m lo hi < <(stats "$outdir/write-path.csv" 3 "$b" 4 6 $clock)
			[ "$m" != - ] || continue
			c=$clock
			[ "$b" != ring_buffer ] || c="local ($clock run)"
			awk -v b="$b" -v c="$c" -v m="$m" -v lo="$lo" -v hi="$hi" -v base="$base" \
				'BEGIN { printf "| %s | %s | %.1f | %.1f | %.1f | %.2fx |\n", b, c, m, lo, hi, m / base }'
		done
	done
	if [ "$#" -gt 0 ]; then
		echo
		echo "### The write path in every boot"
		echo
		echo "TCG's timings move from boot to boot; more boots measure the write path"
		echo "alone (the same module, the same steps). Each boot's medians, as ratios."
		echo
		echo "| boot | clock | hwtrace / ring_buffer | relay / ring_buffer | hwtrace / relay |"
		echo "| --- | --- | --- | --- | --- |"
		summary=
		for clock in tsc mono; do
			below=0 boots=0
			for boot in $(seq 1 $(($# + 1))); do
				read -r rb _ _ < <(stats "$outdir/write-boots.csv" 4 ring_buffer 5 1 "$boot" 7 "$clock")
				read -r hw _ _ < <(stats "$outdir/write-boots.csv" 4 hwtrace 5 1 "$boot" 7 "$clock")
				read -r rl _ _ < <(stats "$outdir/write-boots.csv" 4 relay 5 1 "$boot" 7 "$clock")
				if [ "$rb" = - ] || [ "$hw" = - ] || [ "$rl" = - ]; then
					continue
				fi
				awk -v b="$boot" -v c="$clock" -v rb="$rb" -v hw="$hw" -v rl="$rl" \
					'BEGIN { printf "| %s | %s | %.2fx | %.2fx | %.2fx |\n", b, c, hw / rb, rl / rb, hw / rl }'
				boots=$((boots + 1))
				if awk -v hw="$hw" -v rl="$rl" 'BEGIN { exit !(hw < rl) }'; then
					below=$((below + 1))
				fi
			done
			[ $boots = 0 ] || summary+="$clock: hwtrace below relay in $below of $boots boots."$'\n'
		done
		echo
		printf '%s' "$summary"
	fi
	echo
	echo "## 2. End to end: pingpong and hackbench (task + irq families, same memory per CPU)"
	echo
	echo "One vCPU, its clocks counting instructions (-icount 0: 1 ns each), so the"
	echo "host's load is not in these times; tracers in turn, $(tail -n +2 "$outdir/e2e.csv" | cut -d, -f3 | sort -u | wc -l) runs each."
	echo "pingpong (bench/pingpong.c, 20,000 round trips) is the same work for every"
	echo "tracer: two context switches a round.  hackbench -g 1 -l 100"
	echo "is not: how its sockets batch decides how often it switches, and a tracer"
	echo "changes that; its context switches (all of the guest's, from /proc/stat,"
	echo "the tracer's own included) are in the table."
	for w in pingpong hackbench; do
		echo
		echo "### $w"
		echo
		echo "| tracer | time s (median) | min | max | overhead vs none | events (median) | context switches (median) | lost (max) |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
		read -r none _ _ < <(stats "$outdir/e2e.csv" 1 $w 4 2 none)
		for t in none hwtrace hwtrace-bpf trace-cmd; do
			read -r m lo hi < <(stats "$outdir/e2e.csv" 1 $w 4 2 "$t")
			read -r ev _ _ < <(stats "$outdir/e2e.csv" 1 $w 5 2 "$t")
			read -r _ _ lost < <(stats "$outdir/e2e.csv" 1 $w 6 2 "$t")
			read -r cs _ _ < <(stats "$outdir/e2e.csv" 1 $w 7 2 "$t")
			awk -v t="$t" -v m="$m" -v lo="$lo" -v hi="$hi" -v none="$none" -v ev="$ev" \
				-v cs="$cs" -v lost="$lost" \
				'BEGIN { printf "| %s | %.3f | %.3f | %.3f | %+.1f%% | %d | %d | %d |\n", t, m, lo, hi, (m / none - 1) * 100, ev, cs, lost }'
		done
		echo
		read -r hw _ _ < <(stats "$outdir/e2e.csv" 1 $w 4 2 hwtrace)
		read -r tc _ _ < <(stats "$outdir/e2e.csv" 1 $w 4 2 trace-cmd)
		awk -v hw="$hw" -v tc="$tc" -v none="$none" -v w="$w" 'BEGIN {
			if (tc <= none) printf "%s: trace-cmd'"'"'s median was no slower than none: no ratio.\n", w
			else if (hw <= none) printf "%s: hwtrace'"'"'s median was no slower than none: no ratio.\n", w
			else printf "%s: hwtrace'"'"'s overhead is %.2fx trace-cmd'"'"'s (medians of the same boot).\n", w, (hw - none) / (tc - none) }'
		[ $w = hackbench ] || continue
		# the same work for every tracer: each run against what no tracer
		# takes for as many switches (none's line through its runs)
		echo
		echo "Each run's time is close to a line in its context switches, a line per"
		echo "tracer (least squares over its runs; r2 says how close).  No tracer's"
		echo "line says what a run of so many switches takes untraced: each run's"
		echo "overhead is its time against that, on its own work.  A tracer's own"
		echo "switches (its drain's wakeups) count as work, which favours the tracer"
		echo "that switches more."
		echo
		awk -F, 'NR > 1 && $1 == "hackbench" { print $2, $4, $7 }' "$outdir/e2e.csv" |
			awk -v us=hwtrace -v peer=trace-cmd -f "$here/same-work.awk" ||
			echo "(the switches never varied: no lines)"
	done
	echo
	echo "## 3. Loss under load (64 KiB per CPU, hackbench -l 50 with more groups)"
	echo
	echo "Tracers in turn, $(tail -n +2 "$outdir/load.csv" | cut -d, -f3 | sort -u | wc -l) runs each. hwtrace and trace-cmd: as they come"
	echo "(hwtrace's drain at nice -10, its default for root; trace-cmd's at 0); -n0: hwtrace's"
	echo "drain at nice 0 (-n 0); -n10: trace-cmd started at nice -10; -r50: the drain at"
	echo "SCHED_FIFO priority 50."
	echo "Events offered: recorded and lost, over hackbench's time."
	echo
	echo "| groups | tracer | events (median) | lost (median) | lost (min-max) | events/s offered (median) |"
	echo "| --- | --- | --- | --- | --- | --- |"
	for g in $(tail -n +2 "$outdir/load.csv" | cut -d, -f2 | sort -nu); do
		for t in hwtrace trace-cmd hwtrace-n0 trace-cmd-n10 hwtrace-r50 trace-cmd-r50; do
			read -r ev _ _ < <(stats "$outdir/load.csv" 1 "$t" 5 2 "$g")
			read -r lost lo hi < <(stats "$outdir/load.csv" 1 "$t" 6 2 "$g")
			[ "$ev" != - ] || continue
			read -r offered _ _ < <(awk -F, -v t="$t" -v g="$g" \
				'NR > 1 && $1 == t && $2 == g && $4 > 0 { print ($5 + $6) / $4 }' "$outdir/load.csv" | median_spread)
			awk -v g="$g" -v t="$t" -v ev="$ev" -v lost="$lost" -v lo="$lo" -v hi="$hi" -v r="$offered" \
				'BEGIN { printf "| %s | %s | %d | %d | %d-%d | %.0f |\n", g, t, ev, lost, lo, hi, r }'
		done
	done
	if [ "$(wc -l <"$outdir/drain.csv")" -gt 1 ]; then
		echo
		echo "## 3b. The drain's own CPU (64 KiB per CPU, hackbench -g 4 -l 50)"
		echo
		echo "Each tracer records in the background while hackbench runs; CPU: its user and"
		echo "system time (threads, and the reader processes trace-cmd waits for), over the"
		echo "events it recorded or lost.  Tracers in turn, $(tail -n +2 "$outdir/drain.csv" | cut -d, -f2 | sort -u | wc -l) runs each."
		echo
		echo "| tracer | events (median) | CPU s (median) | us of CPU per event (median) | (min-max) |"
		echo "| --- | --- | --- | --- | --- |"
		for t in hwtrace trace-cmd; do
			read -r ev _ _ < <(stats "$outdir/drain.csv" 1 "$t" 3)
			[ "$ev" != - ] || continue
			read -r cpu _ _ < <(awk -F, -v t="$t" 'NR > 1 && $1 == t { print $5 + $6 }' \
				"$outdir/drain.csv" | median_spread)
			read -r us lo hi < <(awk -F, -v t="$t" 'NR > 1 && $1 == t && $3 + $4 > 0 {
				print ($5 + $6) * 1e6 / ($3 + $4) }' "$outdir/drain.csv" | median_spread)
			awk -v t="$t" -v ev="$ev" -v cpu="$cpu" -v us="$us" -v lo="$lo" -v hi="$hi" \
				'BEGIN { printf "| %s | %d | %.3f | %.2f | %.2f-%.2f |\n", t, ev, cpu, us, lo, hi }'
			[ "$t" != hwtrace ] || hw_us=$us
		done
		awk -v a="${hw_us:--}" -v b="${us:--}" 'BEGIN {
			if (a == "-" || b == "-" || b <= 0) print "\nNo ratio: a tracer has no run."
			else printf "\nhwtrace'"'"'s drain takes %.2fx the CPU per event of trace-cmd'"'"'s.\n", a / b }'
	fi
	echo
	echo "## 4. Conversion of a hackbench trace, against trace-cmd report"
	echo
	echo "| tool | events | wall s | events/s | peak RSS KiB |"
	echo "| --- | --- | --- | --- | --- |"
	tail -n +2 "$outdir/convert.csv" | awk -F, '{ printf "| %s | %d | %.3f | %.0f | %d |\n",
		$1, $2, $3, ($3 > 0 ? $2 / $3 : 0), $6 }'
	if [ -s "$outdir/host-convert.csv" ]; then
		echo
		echo "## 5. Host: converters on a synthetic trace (one core, no VM)"
		echo
		echo "| format | events | wall s | user s | events/s (wall) | peak RSS KiB |"
		echo "| --- | --- | --- | --- | --- | --- |"
		tail -n +2 "$outdir/host-convert.csv" | awk -F, '{ printf "| %s | %d | %.3f | %.3f | %.0f | %d |\n",
			$1, $2, $3, $4, ($3 > 0 ? $2 / $3 : 0), $6 }'
	fi
	# make bench-insn's counts (bench/insn-count.sh), without their title
	if [ -s "$outdir/insn.md" ]; then
		echo
		echo "## 6. Write path: instructions and cache lines per event (counted, make bench-insn)"
		tail -n +2 "$outdir/insn.md"
	fi
} >"$outdir/results.md"
cat "$outdir/results.md"
