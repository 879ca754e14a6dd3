#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's test of bench/report.sh: logs made up so that every figure
# in results.md is known in advance (exact lines, medians that differ from
# the lines' reading), then the cases where no ratio or no line exists.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

expect() {
	if grep -qF -- "$1" "$tmp/out/results.md"; then
		echo "ok: $1"
	else
		echo "FAIL: results.md lacks: $1"
		fails=$((fails + 1))
	fi
}

# a line results.md must not have (a regular expression)
reject() {
	if grep -q -- "$1" "$tmp/out/results.md"; then
		echo "FAIL: results.md has: $1"
		fails=$((fails + 1))
	else
		echo "ok: no $1"
	fi
}

# a boot's write path (TSC): hwtrace at PS ps/event, ring_buffer 400, relay 120 ns
write_log() {
	echo "HWT-VM-START kernel=6.1.0-test cpus=2"
	# the kernel log at the end repeats the lines: each must count once
	for _ in 1 2; do
		echo "hwt_bench: round 0 cpu 0 hwtrace $1 ps/event 1000 cycles/kevent clock tsc"
		echo "hwt_bench: round 0 cpu 0 ring_buffer 400000 ps/event 1000 cycles/kevent clock tsc"
		echo "hwt_bench: round 0 cpu 0 relay 120000 ps/event 1000 cycles/kevent clock tsc"
	done
}

main_log() {
	write_log 100000
	echo "hwt_bench: round 1 cpu 0 hwtrace 300000 ps/event 1000 cycles/kevent clock tsc"
	# lost 100, 0, 300: median 100; offered 1000, 800, 500 a second
	echo "hwt_bench: load tracer=hwtrace groups=1 run=1 time=1.000 events=900 lost=100"
	echo "hwt_bench: load tracer=trace-cmd groups=1 run=1 time=1.000 events=700 lost=0"
	echo "hwt_bench: load tracer=hwtrace groups=1 run=2 time=1.000 events=800 lost=0"
	echo "hwt_bench: load tracer=hwtrace groups=1 run=3 time=2.000 events=700 lost=300"
	# CPU per event: hwtrace 1, 2, 4 us (median 2), trace-cmd 8 us: 0.25x
	echo "hwt_bench: drain tracer=hwtrace run=1 events=900 lost=100 user=0.0005 sys=0.0005"
	echo "hwt_bench: drain tracer=trace-cmd run=1 events=1000 lost=0 user=0.004 sys=0.004"
	echo "hwt_bench: drain tracer=hwtrace run=2 events=1000 lost=0 user=0.001 sys=0.001"
	echo "hwt_bench: drain tracer=hwtrace run=3 events=500 lost=0 user=0.001 sys=0.001"
	echo "hwt_bench: convert tool=hwtrace-htf events=1000 wall=0.500 user=0.4 sys=0.1 maxrss_kb=2000 status=0"
}

# e2e W T RUN TIME CTXT
e2e() {
	echo "hwt_bench: e2e workload=$1 tracer=$2 run=$3 time=$4 events=1000 lost=0 ctxt=$5"
}

# hackbench: time = 0.1 s + slope * switches, slopes 2, 2.5, 3 and 4 us; none's
# runs switch most and trace-cmd's least, so the medians' ratio (0.33x) is
# not that of each run against none's line at its own switches (hwtrace
# +9.4/+11.1/+12.5 %, trace-cmd +28.6/+37.5/+44.4 %: 0.30x)
e2e_log() {
	local run=0 x
	for x in 30000 40000 50000; do
		run=$((run + 1))
		e2e pingpong none $run 0.200 40000
		e2e pingpong hwtrace $run 0.210 40100
		e2e pingpong hwtrace-bpf $run 0.220 40100
		e2e pingpong trace-cmd $run 0.240 42000
		for t in none:2:5000 hwtrace:2.5:0 hwtrace-bpf:3:0 trace-cmd:4:-10000; do
			IFS=: read -r name slope shift <<<"$t"
			e2e hackbench "$name" $run "$(awk -v x=$((x + shift)) -v b="$slope" \
				'BEGIN { printf "%.6f", 0.1 + b * x / 1e6 }')" $((x + shift))
		done
	done
}

main_log >"$tmp/bench.log"
e2e_log >"$tmp/e2e.log"
bash "$here/report.sh" "$tmp/bench.log" "$tmp/e2e.log" "$tmp/out" >/dev/null
expect "| hwtrace | tsc | 200.0 | 100.0 | 300.0 | 0.50x |"
expect "| relay | tsc | 120.0 | 120.0 | 120.0 | 0.30x |"
[ "$(wc -l <"$tmp/out/write-path.csv")" = 5 ] || { echo "FAIL: write-path.csv has duplicate rows"; fails=$((fails + 1)); }
expect "| none | 0.200 | 0.200 | 0.200 | +0.0% | 1000 | 40000 | 0 |"
expect "pingpong: hwtrace's overhead is 0.25x trace-cmd's (medians of the same boot)."
expect "hackbench: hwtrace's overhead is 0.33x trace-cmd's (medians of the same boot)."
expect "| none | 35000-55000 | 2.000 | 1.000 | +0.0% | +0.0% | +0.0% |"
expect "| hwtrace | 30000-50000 | 2.500 | 1.000 | +11.1% | +9.4% | +12.5% |"
expect "| hwtrace-bpf | 30000-50000 | 3.000 | 1.000 | +22.2% | +18.8% | +25.0% |"
expect "| trace-cmd | 20000-40000 | 4.000 | 1.000 | +37.5% | +28.6% | +44.4% |"
expect "At the same work: hwtrace's overhead is 0.30x trace-cmd's (+11.1% against +37.5%, medians of each run against none's line)."
expect "| 1 | hwtrace | 800 | 100 | 0-300 | 800 |"
expect "| 1 | trace-cmd | 700 | 0 | 0-0 | 700 |"
expect "Tracers in turn, 3 runs each"
expect "| hwtrace | 900 | 0.002 | 2.00 | 1.00-4.00 |"
expect "| trace-cmd | 1000 | 0.008 | 8.00 | 8.00-8.00 |"
expect "hwtrace's drain takes 0.25x the CPU per event of trace-cmd's."

# no ratio: trace-cmd no slower than none; no lines: the switches never varied
e2e_log | sed -e '/workload=pingpong tracer=trace-cmd/s/time=0.240/time=0.190/' \
	-e '/workload=hackbench/s/ctxt=[0-9]*/ctxt=40000/' >"$tmp/e2e.log"
bash "$here/report.sh" "$tmp/bench.log" "$tmp/e2e.log" "$tmp/out" >/dev/null
expect "pingpong: trace-cmd's median was no slower than none: no ratio."
expect "(the switches never varied: no lines)"
reject "overhead vs none at the same work"	# no table without none's line
# no ratio either when hwtrace's median is below none's (not a negative one)
e2e_log | sed -e '/workload=pingpong tracer=hwtrace /s/time=0.210/time=0.190/' >"$tmp/e2e.log"
bash "$here/report.sh" "$tmp/bench.log" "$tmp/e2e.log" "$tmp/out" >/dev/null
expect "pingpong: hwtrace's median was no slower than none: no ratio."
# and none at the same work: each trace-cmd run faster than none's line
e2e_log | sed -e '/workload=hackbench tracer=trace-cmd/s/time=[0-9.]*/time=0.120/' >"$tmp/e2e.log"
bash "$here/report.sh" "$tmp/bench.log" "$tmp/e2e.log" "$tmp/out" >/dev/null
expect "At the same work: trace-cmd no slower than none, no ratio."
reject "At the same work: hwtrace's overhead"
reject "The write path in every boot"	# no write-path boots: no table

# two more boots of the write path alone: boot 2 below relay (80 against
# 120 ns), boot 3 not (130 against 120, its mono rows missing); the main
# boot (1) has hwtrace at 200, relay at 120
write_log 80000 >"$tmp/write-2.log"
write_log 130000 >"$tmp/write-3.log"
bash "$here/report.sh" "$tmp/bench.log" "$tmp/e2e.log" "$tmp/out" "$tmp/write-2.log" \
	"$tmp/write-3.log" >/dev/null
expect "| 1 | tsc | 0.50x | 0.30x | 1.67x |"
expect "| 2 | tsc | 0.20x | 0.30x | 0.67x |"
expect "| 3 | tsc | 0.33x | 0.30x | 1.08x |"
expect "tsc: hwtrace below relay in 1 of 3 boots."
expect "| hwtrace | tsc | 200.0 | 100.0 | 300.0 | 0.50x |"	# the main boot's alone
[ "$(wc -l <"$tmp/out/write-boots.csv")" = 11 ] || { echo "FAIL: write-boots.csv: not 4 + 3 + 3 rows"; fails=$((fails + 1)); }
reject "^mono: "	# no mono rows: no mono line

if [ "$fails" -gt 0 ]; then
	echo "report-selftest: $fails failed"
	exit 1
fi
echo "report-selftest: all passed"
