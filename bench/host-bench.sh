#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-host: on this machine's own kernel (real CPUs, BTF, root),
# hackbench under hwtrace's bpf backend, `perf record -a` on the same
# tracepoints with the same memory per CPU, and bpftrace only counting them
# (for scale), against hackbench with no tracer.  RUNS rounds (default 9,
# at least 7), each running every tracer once in turn, so that a slow
# spell of a shared machine falls on all of them alike.  hackbench's work
# moves with the tracer (how its pipes batch decides how often it
# switches), so the rounds also run bench/pingpong.c on one CPU: two
# context switches a round trip, the same work under every tracer.  Never
# part of make check; nothing here judges a time.
#
# Then losses with little memory (HWT_BENCH_LOSS_KB, 64 KiB per CPU) as
# hackbench grows (1, 2, 4, 8 groups): hwtrace's bpf backend with and
# without a real-time drain (-r 50), and perf.
#
# Results: OUTDIR/host.csv and host-loss.csv (every run) and OUTDIR/host.md
# (medians, spread, overhead against no tracer, events and losses, the
# per-run cost of each BPF program, the machine).
#
# usage: bench/host-bench.sh OUTDIR
# env:   HWT_BENCH_RUNS (9), HWT_BENCH_HACKBENCH ("-p -T -g 1 -l 5000":
#        pipes and threads, about 130k traced events a second here; the
#        old default -g 4 -l 200 made 20k a second, too few for any tracer's
#        cost to rise above the run-to-run spread),
#        HWT_BENCH_PINGPONG (200000 round trips),
#        HWT_BENCH_BUF_KB (1024: ring per CPU, perf's mmap per CPU),
#        HWT_BENCH_LOSS_KB (64), HWT_BENCH_LOSS_ROUNDS (3),
#        HWT_BENCH_NOTE (a line for host.md: what else ran on the machine)
set -euo pipefail

cd "$(dirname "$0")/.." || exit 1
outdir=$1
runs=${HWT_BENCH_RUNS:-9}
hb_args=${HWT_BENCH_HACKBENCH:--p -T -g 1 -l 5000}
pp_rounds=${HWT_BENCH_PINGPONG:-200000}
buf_kb=${HWT_BENCH_BUF_KB:-1024}
note=${HWT_BENCH_NOTE:-}
loss_kb=${HWT_BENCH_LOSS_KB:-64}
loss_rounds=${HWT_BENCH_LOSS_ROUNDS:-3}
hwtrace=tools/hwtrace/build/hwtrace
pingpong=build/bench-host/pingpong
tracers="none hwtrace-bpf hwtrace-bpf-r50 perf bpftrace"

die() {
	echo "bench-host: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (the bpf backend, perf -a, bpftrace)"
[ "$runs" -ge 7 ] || die "HWT_BENCH_RUNS=$runs: at least 7 runs"
[ -r /sys/kernel/btf/vmlinux ] || die "no /sys/kernel/btf/vmlinux: the bpf backend needs BTF"
[ -x "$hwtrace" ] || die "$hwtrace missing: make tools"
[ -x "$pingpong" ] || die "$pingpong missing: make bench-host builds it"
for t in perf bpftrace hackbench bpftool python3 taskset; do
	command -v "$t" >/dev/null || die "$t missing: bash scripts/deps.sh bench"
done
perf --version >/dev/null 2>&1 || die "perf does not run here: $(perf --version 2>&1 | head -n 1)"

# perf and bpftrace find tracepoints in tracefs: mount it for the run
tracing=/sys/kernel/tracing
mounted=
if [ ! -d "$tracing/events" ]; then
	mount -t tracefs nodev "$tracing" || die "cannot mount tracefs on $tracing"
	mounted=1
fi
tmp=$(mktemp -d)
stats_was=
cleanup() {
	rm -rf "$tmp"
	if [ -n "$stats_was" ]; then sysctl -q kernel.bpf_stats_enabled="$stats_was"; fi
	if [ -n "$mounted" ]; then umount "$tracing" || true; fi
}
trap cleanup EXIT

# The tracepoints hwtrace's task and irq families attach (and fork, exec and
# rename, always attached), read from the loader's own table, as this
# kernel has them: SYSTEM:NAME.
tps=()
while read -r tp; do
	for d in "$tracing"/events/*/"$tp"; do
		[ -d "$d" ] && tps+=("$(basename "$(dirname "$d")"):$tp")
	done
done < <(sed -n 's/^\tTP("hwt_[a-z_]*", "\([a-z_]*\)", \(HWT_FAM_TASK\|HWT_FAM_INTERRUPT\|ALWAYS\|NAMES\)).*/\1/p' \
	libhwt/bpf/loader.c)
[ ${#tps[@]} -ge 10 ] || die "only ${#tps[@]} tracepoints found in libhwt/bpf/loader.c and $tracing"
# perf may not sample some (the kernel refuses irq_work_exit to perf: its
# own wakeup is an irq_work): those are left out of perf's list and named
perf_ev=()
perf_refused=()
bt_probes=
for tp in "${tps[@]}"; do
	if perf record -a -e "$tp" -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
		perf_ev+=(-e "$tp")
	else
		perf_refused+=("$tp")
	fi
	bt_probes+="${bt_probes:+,}tracepoint:$tp"
done
perf_pages=$((buf_kb / 4))

hb_time() {
	sed -n 's/^Time: *\([0-9.]*\).*/\1/p' "$1" | tail -n 1
}

# the workload of run_one: a command line, its program by its full path
# (bpftrace -c wants one)
work="$(command -v hackbench) $hb_args"
pp_work="$(command -v taskset) -c 0 $PWD/$pingpong $pp_rounds"

# one run of the workload ($work) under tracer $1: prints "TIME EVENTS LOST"
# (LOST "-" where the tracer cannot lose: bpftrace counts in the kernel)
# shellcheck disable=SC2086 # the workload's arguments split on purpose
run_one() {
	local ev=0 lost=0
	case $1 in
	none)
		$work >"$tmp/out" 2>&1
		;;
	hwtrace-bpf | hwtrace-bpf-r50)
		local rt=()
		[ "$1" = hwtrace-bpf-r50 ] && rt=(-r 50)
		"$hwtrace" record --backend=bpf -q "${rt[@]}" -f task,irq -b "${buf_kb}k" \
			-o "$tmp/t.hwt" -- $work >"$tmp/out" 2>"$tmp/err" ||
			die "$1: $(cat "$tmp/err")"
		"$hwtrace" stats "$tmp/t.hwt" >"$tmp/stats"
		ev=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' "$tmp/stats")
		lost=$(sed -n 's/^lost: *\([0-9]*\).*/\1/p' "$tmp/stats")
		;;
	perf)
		perf record -a -m "$perf_pages" "${perf_ev[@]}" -o "$tmp/perf.data" \
			-- $work >"$tmp/out" 2>"$tmp/err" ||
			die "perf: $(tail -n 5 "$tmp/err")"
		perf report -i "$tmp/perf.data" --stats >"$tmp/stats" 2>/dev/null
		# the aggregated SAMPLE line; lost samples as each event counts them
		ev=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' "$tmp/stats" | head -n 1)
		lost=$(awk '/ stats:$/ { per = 1 } per && /LOST_SAMPLES events:/ { s += $3 }
			END { print s + 0 }' "$tmp/stats")
		;;
	bpftrace)
		bpftrace -e "$bt_probes { @n = count(); }" -c "$work" \
			>"$tmp/out" 2>&1 || die "bpftrace: $(tail -n 5 "$tmp/out")"
		ev=$(sed -n 's/^@n: \([0-9]*\)/\1/p' "$tmp/out")
		lost=-
		;;
	esac
	local t
	t=$(hb_time "$tmp/out")
	[ -n "$t" ] || die "$1: no time from $work in: $(tail -n 3 "$tmp/out")"
	echo "$t ${ev:-0} ${lost:-0}"
}

csv=$outdir/host.csv
pp_csv=$outdir/host-pingpong.csv
mkdir -p "$outdir"
echo "tracer,run,time_s,events,lost" >"$csv"
echo "tracer,run,time_s,events,lost" >"$pp_csv"
for run in $(seq 1 "$runs"); do
	for tr in $tracers; do
		read -r t ev lost < <(run_one "$tr")
		echo "$tr,$run,$t,$ev,$lost" >>"$csv"
		echo "bench-host: run $run/$runs $tr: $t s, $ev events, lost $lost" >&2
	done
	for tr in $tracers; do
		read -r t ev lost < <(work=$pp_work run_one "$tr")
		echo "$tr,$run,$t,$ev,$lost" >>"$pp_csv"
		echo "bench-host: pingpong run $run/$runs $tr: $t s, $ev events, lost $lost" >&2
	done
done

# Losses at loss_kb per CPU, by hackbench groups (the tracers in turn)
loss_csv=$outdir/host-loss.csv
echo "tracer,groups,run,time_s,events,lost" >"$loss_csv"
for run in $(seq 1 "$loss_rounds"); do
	for g in 1 2 4 8; do
		for tr in hwtrace-bpf hwtrace-bpf-r50 perf; do
			read -r t ev lost < <(work="$(command -v hackbench) -g $g -l 200" buf_kb=$loss_kb \
				perf_pages=$((loss_kb / 4)) run_one "$tr")
			echo "$tr,$g,$run,$t,$ev,$lost" >>"$loss_csv"
			echo "bench-host: loss run $run/$loss_rounds $tr $g groups: $ev events, lost $lost" >&2
		done
	done
done

# What one run of each BPF program costs (kernel.bpf_stats_enabled: the
# kernel times every run), read by bpftool while the tracer is still
# attached, from a command run under it.  A pass of its own: the stats
# add two clock reads per run, which the rounds above must not pay.
# shellcheck disable=SC2016 # $1 is python's
costs() {
	python3 -c '
import json, sys
path, label, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def ours(n):
    return any(n.startswith(w[:-1]) if w.endswith("*") else n == w[:15] for w in names)
rows = [p for p in json.load(open(path)) if p.get("run_cnt") and ours(p.get("name", ""))]
for p in sorted(rows, key=lambda p: -p["run_cnt"]):
    print("| %s | %s | %d | %.1f |" % (label, p["name"], p["run_cnt"], p["run_time_ns"] / p["run_cnt"]))
' "$@"
}
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q kernel.bpf_stats_enabled=1
# a script: bpftrace -c splits its command at spaces, quotes or not
echo "$work >/dev/null; bpftool -j prog show >$tmp/progs.json" >"$tmp/show.sh"
"$hwtrace" record --backend=bpf -q -f task,irq -b "${buf_kb}k" -o "$tmp/t.hwt" \
	-- /bin/sh "$tmp/show.sh" 2>"$tmp/err" || die "hwtrace: $(cat "$tmp/err")"
costs "$tmp/progs.json" hwtrace-bpf 'hwt_*' >"$tmp/costs"
bpftrace -e "$bt_probes { @n = count(); }" -c "/bin/sh $tmp/show.sh" >"$tmp/out" 2>&1 ||
	die "bpftrace: $(tail -n 5 "$tmp/out")"
# bpftrace names its programs after their tracepoints
costs "$tmp/progs.json" bpftrace "${tps[@]#*:}" >>"$tmp/costs"
sysctl -q kernel.bpf_stats_enabled="$stats_was"
stats_was=

# the table of medians of CSV (host.csv's columns), each tracer against
# none, and hwtrace-bpf's overhead against perf's; NAME names the workload
overheads() {
	echo "| tracer | time s (median) | min | max | overhead vs none | events (median) | lost (median) | lost (max) |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F, -v order="$tracers" -v name="$2" '
	NR > 1 { n[$1]++; t[$1, n[$1]] = $3; e[$1, n[$1]] = $4; l[$1, n[$1]] = $5 }
	function median(a, k, m,    i, j, v, x) {
		for (i = 1; i <= m; i++) v[i] = a[k, i] + 0
		for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	function extreme(a, k, m, big,    i, r) {
		r = a[k, 1] + 0
		for (i = 2; i <= m; i++) if (big ? a[k, i] + 0 > r : a[k, i] + 0 < r) r = a[k, i] + 0
		return r
	}
	END {
		split(order, o, " ")
		base = median(t, "none", n["none"])
		for (i = 1; i in o; i++) {
			k = o[i]; m = n[k]
			tm = median(t, k, m)
			lm = l[k, 1] == "-" ? "-" : sprintf("%d", median(l, k, m))
			lx = l[k, 1] == "-" ? "-" : sprintf("%d", extreme(l, k, m, 1))
			printf "| %s | %.3f | %.3f | %.3f | %+.1f%% | %d | %s | %s |\n", k, tm,
				extreme(t, k, m, 0), extreme(t, k, m, 1), (tm / base - 1) * 100,
				median(e, k, m), lm, lx
			over[k] = tm / base - 1
		}
		print ""
		if (over["perf"] <= 0 || over["hwtrace-bpf"] <= 0)
			printf "%s: hwtrace-bpf %+.1f%%, perf %+.1f%%: one no slower than none, no ratio.\n",
				name, over["hwtrace-bpf"] * 100, over["perf"] * 100
		else
			printf "%s: hwtrace-bpf'"'"'s overhead is %.2fx perf'"'"'s (%+.1f%% against %+.1f%%, medians).\n",
				name, over["hwtrace-bpf"] / over["perf"], over["hwtrace-bpf"] * 100, over["perf"] * 100
	}' "$1"
}

# --- host.md --------------------------------------------------------------
cpu=$(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -n 1)
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
virt=$(systemd-detect-virt 2>/dev/null || true)
{
	echo "# hwtrace bpf backend on the host (make bench-host)"
	echo
	echo "$(uname -sr), $(nproc) CPUs ($cpu), $mem RAM${virt:+, virtualized: $virt}, $(date -u +%Y-%m-%d)."
	echo "hackbench $hb_args; $runs rounds, each tracer once per round in turn"
	echo "($tracers); ${buf_kb} KiB per CPU for hwtrace's rings and perf's mmap."
	echo "Tracepoints (${#tps[@]}, hwtrace's task and irq families): ${tps[*]}."
	[ ${#perf_refused[@]} -eq 0 ] ||
		echo "perf cannot sample ${perf_refused[*]} (the kernel refuses it): perf records the rest."
	echo "bpftrace only counts them (one per-CPU counter): a floor, not a recorder."
	[ -z "$note" ] || { echo; echo "$note"; }
	echo
	overheads "$csv" hackbench
	echo
	echo "Overhead: the median time under a tracer against the median with none,"
	echo "from the same rounds. Events: what each tracer recorded (hwtrace: records"
	echo "in the file, its start/stop and name records included; perf: samples"
	echo "written). Lost: hwtrace's per-CPU lost counters (and events the kernel ran"
	echo "no program for); perf's lost samples. Every run: host.csv."
	echo
	echo "## The same work: pingpong"
	echo
	echo "hackbench's work moves with the tracer: how its pipes batch decides how"
	echo "often it switches.  bench/pingpong.c $pp_rounds, both processes on CPU 0,"
	echo "is two context switches a round trip under every tracer; in the same"
	echo "rounds, after hackbench.  Every run: host-pingpong.csv."
	echo
	overheads "$pp_csv" pingpong
	echo
	echo "## Losses with ${loss_kb} KiB per CPU (hackbench -g N -l 200)"
	echo
	echo "$loss_rounds rounds; hwtrace's rings and perf's mmap both ${loss_kb} KiB per CPU."
	echo
	echo "| tracer | groups | events (median) | lost (median) | lost (max) |"
	echo "| --- | --- | --- | --- | --- |"
	awk -F, 'NR > 1 { k = $1 "," $2; n[k]++; e[k, n[k]] = $5; l[k, n[k]] = $6
		if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
	function median(a, k, c,    i, j, v, x) {
		for (i = 1; i <= c; i++) v[i] = a[k, i] + 0
		for (i = 2; i <= c; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
	}
	END {
		for (i = 1; i <= m; i++) {
			k = order[i]; split(k, f, ","); mx = 0
			for (j = 1; j <= n[k]; j++) if (l[k, j] + 0 > mx) mx = l[k, j] + 0
			printf "| %s | %s | %d | %d | %d |\n", f[1], f[2], median(e, k, n[k]), median(l, k, n[k]), mx
		}
	}' "$loss_csv"
	echo
	echo "## What one run of each BPF program costs (kernel.bpf_stats_enabled)"
	echo
	echo "One more hackbench under each, with the kernel timing every program run"
	echo "(the trampoline's cost is not in it); programs that ran, most runs first."
	echo
	echo "| tracer | program | runs | ns per run |"
	echo "| --- | --- | --- | --- |"
	cat "$tmp/costs"
} >"$outdir/host.md"
cat "$outdir/host.md"
