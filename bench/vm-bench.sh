#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# shellcheck disable=SC2046,SC2086 # result triples and commands split on purpose
#
# /hwt/run.sh of the benchmark VM (make bench).  Every result is a line
# starting "hwt_bench:" (on stdout, or in the kernel log for the write path);
# bench/report.sh turns them into tables.  The TAP lines only say whether
# each step ran.

# make bench-insn boots this payload with HWT_BENCH=insn: counts, not timings
if [ "${HWT_BENCH:-}" = insn ]; then
	exec sh /hwt/vm-insn.sh
fi
# make bench boots it more than once: HWT_BENCH=e2e is the end-to-end run
# (one vCPU, the guest's clocks counting its instructions), HWT_BENCH=write
# measures only the write path (step 1, again, in boots of its own), and
# the first boot runs the rest
e2e=0
[ "${HWT_BENCH:-}" != e2e ] || e2e=1
write_only=0
[ "${HWT_BENCH:-}" != write ] || write_only=1

events=${HWT_BENCH_EVENTS:-200000}
rounds=${HWT_BENCH_ROUNDS:-5}
mem_kb=${HWT_BENCH_MEM_KB:-1024}
runs=${HWT_BENCH_RUNS:-9}
loss_runs=${HWT_BENCH_LOSS_RUNS:-5}
hb="hackbench -g 1 -l 100"
pp="/hwt/pingpong 20000"

# the tracepoints of hwtrace's task and irq families, for trace-cmd
tc_events="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new
 -e sched:sched_process_fork -e sched:sched_process_exit -e sched:sched_process_exec
 -e sched:sched_migrate_task -e irq:irq_handler_entry -e irq:irq_handler_exit
 -e irq:softirq_entry -e irq:softirq_exit -e irq:softirq_raise
 -e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit
 -e irq_vectors:reschedule_entry -e irq_vectors:reschedule_exit
 -e irq_vectors:call_function_entry -e irq_vectors:call_function_exit
 -e irq_vectors:call_function_single_entry -e irq_vectors:call_function_single_exit
 -e irq_vectors:irq_work_entry -e irq_vectors:irq_work_exit"

n=0
step() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

hb_time() {
	sed -n 's/^Time: *\([0-9.]*\).*/\1/p' "$1" | tail -n 1
}

# hwtrace FILE BUF_KB ARGS...: record ARGS; prints "TIME EVENTS LOST"
# (HWT_BACKEND=bpf: the libbpf backend instead of the module; RT=PRIO: the
# drain at that SCHED_FIFO priority, -r; NICE=N: at that nice value, -n,
# instead of hwtrace's default, -10 for root)
run_hwtrace() {
	out=$1
	kb=$2
	shift 2
	/hwt/hwtrace record --backend="${HWT_BACKEND:-module}" ${RT:+-r $RT} ${NICE:+-n $NICE} -q -f task,irq \
		-b "${kb}k" -o "$out" -- "$@" >/tmp/hw.out 2>/tmp/hw.err
	ev=$(/hwt/hwtrace stats "$out" | sed -n 's/^records: *\([0-9]*\).*/\1/p')
	lost=$(/hwt/hwtrace stats "$out" | sed -n 's/^lost: *\([0-9]*\).*/\1/p')
	echo "$(hb_time /tmp/hw.out) ${ev:-0} ${lost:-0}"
}

# at_nice N COMMAND...: COMMAND at nice value N, from this shell's 0
# (busybox has renice, not nice)
at_nice() {
	sh -c 'renice -n "$0" -p $$ >/dev/null && exec "$@"' "$@"
}

# trace-cmd FILE BUF_KB ARGS...: same; lost from its "CPU N: X events lost"
# (NICE=N: started at that nice value, for its reader processes too)
run_tracecmd() {
	out=$1
	kb=$2
	shift 2
	# shellcheck disable=SC2086 # the event list is meant to split
	set -- trace-cmd record ${RT:+-r $RT} -b "$kb" -o "$out" $tc_events "$@"
	[ -z "${NICE:-}" ] || set -- at_nice "$NICE" "$@"
	"$@" >/tmp/tc.out 2>&1
	ev=$(trace-cmd report -i "$out" 2>/dev/null | grep -c ': [a-z_]*: ')
	lost=$(sed -n 's/^CPU [0-9]*: \([0-9]*\) events lost.*/\1/p' /tmp/tc.out |
		awk '{ s += $1 } END { print s + 0 }')
	echo "$(hb_time /tmp/tc.out) ${ev:-0} ${lost:-0}"
}

# drain_cpu TRACER: TRACER records in the background, wrapped by rusage
# (which passes it the SIGINT that stops it), while hackbench -g 4 runs;
# prints "EVENTS LOST USER SYS": its CPU time counts its threads and the
# reader processes it waits for, not the traced workload
drain_cpu() {
	case $1 in
	hwtrace) /hwt/rusage /hwt/hwtrace record -q -f task,irq -b 64k -o /tmp/drain.hwt \
			>/dev/null 2>/tmp/ru & ;;
	trace-cmd) /hwt/rusage trace-cmd record -b 64 -o /tmp/drain.dat $tc_events \
			>/tmp/tc.out 2>&1 & ;;
	esac
	pid=$!
	sleep 2	# both are recording by then, in this guest
	hackbench -g 4 -l 50 >/dev/null 2>&1
	kill -INT $pid
	wait $pid
	case $1 in
	hwtrace)
		ev=$(/hwt/hwtrace stats /tmp/drain.hwt | sed -n 's/^records: *\([0-9]*\).*/\1/p')
		lost=$(/hwt/hwtrace stats /tmp/drain.hwt | sed -n 's/^lost: *\([0-9]*\).*/\1/p')
		ru=/tmp/ru ;;
	trace-cmd)
		ev=$(trace-cmd report -i /tmp/drain.dat 2>/dev/null | grep -c ': [a-z_]*: ')
		lost=$(sed -n 's/^CPU [0-9]*: \([0-9]*\) events lost.*/\1/p' /tmp/tc.out |
			awk '{ s += $1 } END { print s + 0 }')
		ru=/tmp/tc.out ;;
	esac
	user=$(sed -n 's/^rusage: .* user=\([0-9.]*\) .*/\1/p' $ru)
	sys=$(sed -n 's/^rusage: .* sys=\([0-9.]*\) .*/\1/p' $ru)
	echo "${ev:-0} ${lost:-0} ${user:-0} ${sys:-0}"
}

ctxt() {
	sed -n 's/^ctxt //p' /proc/stat
}

echo "TAP version 13"
if [ $e2e = 1 ]; then echo "1..2"; elif [ $write_only = 1 ]; then echo "1..1"; else echo "1..6"; fi
# clock=tsc: the clock hwtrace takes by default on a CPU whose TSC is
# invariant; TCG flags none, but the guest trusts its TSC (tsc=reliable), and
# trace-cmd's default clock (local: sched_clock) is the TSC here too
insmod /hwt/hwtrace.ko clock=tsc || { echo "not ok 1 insmod hwtrace.ko"; exit 1; }

# End to end: no tracer, hwtrace (module, bpf) and trace-cmd in turn, the
# same memory per CPU, around pingpong (the same events for every tracer)
# and hackbench (what its work is depends on the run: context switches
# counted from /proc/stat).  The guest's clock counts instructions (make
# bench boots this run with -icount), so the host's load is not in the times.
if [ $e2e = 1 ]; then
	ok=0
	for run in $(seq 1 $runs); do
		for w in pingpong hackbench; do
			cmd=$pp
			[ $w = pingpong ] || cmd=$hb
			c0=$(ctxt)
			$cmd >/tmp/none.out 2>&1 || ok=1
			c1=$(ctxt)
			echo "hwt_bench: e2e workload=$w tracer=none run=$run time=$(hb_time /tmp/none.out) events=0 lost=0 ctxt=$((c1 - c0))"
			for t in hwtrace hwtrace-bpf trace-cmd; do
				c0=$(ctxt)
				case $t in
				hwtrace) set -- $(run_hwtrace /tmp/e2e.hwt "$mem_kb" $cmd) ;;
				hwtrace-bpf) set -- $(HWT_BACKEND=bpf run_hwtrace /tmp/e2e.hwt "$mem_kb" $cmd) ;;
				trace-cmd) set -- $(run_tracecmd /tmp/e2e.dat "$mem_kb" $cmd) ;;
				esac
				c1=$(ctxt)
				[ -n "$1" ] || ok=1
				echo "hwt_bench: e2e workload=$w tracer=$t run=$run time=$1 events=$2 lost=$3 ctxt=$((c1 - c0))"
			done
		done
	done
	step $ok "pingpong and hackbench under no tracer, hwtrace (module, bpf) and trace-cmd"
	step 0 "done"
	exit 0
fi

# 1. write path, in the kernel, with each clock hwtrace offers (relay the same)
ok=0
for clock in tsc mono; do
	/hwt/write_path /hwt/hwt_bench.ko "$events" "$mem_kb" "$rounds" $clock || ok=1
	rmmod hwt_bench || ok=1
done
step $ok "write path: hwtrace, ring_buffer, relay; TSC and monotonic clock"
dmesg | grep 'hwt_bench: ' | sed 's/^\[[ 0-9.]*\] //'
[ $write_only = 0 ] || exit 0

# 2. a hackbench trace from each tracer, for step 4's conversions
ok=0
set -- $(run_hwtrace /tmp/e2e.hwt "$mem_kb" $hb)
[ -n "$1" ] || ok=1
set -- $(run_tracecmd /tmp/e2e.dat "$mem_kb" $hb)
[ -n "$1" ] || ok=1
step $ok "a hackbench trace from hwtrace and trace-cmd"

# 3. loss under load: small buffers, more and more hackbench groups; each
# tracer as it comes (hwtrace's drain at nice -10, trace-cmd's at 0), both
# at nice 0 and both at -10, and both at real-time priority (-r 50), in
# turn, loss_runs times: one run's loss says little
load() {
	case $1 in
	hwtrace) run_hwtrace /tmp/load.hwt 64 hackbench -g "$2" -l 50 ;;
	hwtrace-n0) NICE=0 run_hwtrace /tmp/load.hwt 64 hackbench -g "$2" -l 50 ;;
	hwtrace-r50) RT=50 run_hwtrace /tmp/load.hwt 64 hackbench -g "$2" -l 50 ;;
	trace-cmd) run_tracecmd /tmp/load.dat 64 hackbench -g "$2" -l 50 ;;
	trace-cmd-n10) NICE=-10 run_tracecmd /tmp/load.dat 64 hackbench -g "$2" -l 50 ;;
	trace-cmd-r50) RT=50 run_tracecmd /tmp/load.dat 64 hackbench -g "$2" -l 50 ;;
	esac
}
ok=0
for run in $(seq 1 $loss_runs); do
	for g in 1 2 4 8; do
		for t in hwtrace hwtrace-n0 hwtrace-r50 trace-cmd trace-cmd-n10 trace-cmd-r50; do
			set -- $(load $t $g)
			# a tracer that failed records nothing and hackbench says no time
			[ $# = 3 ] && [ "$2" -gt 0 ] || ok=1
			echo "hwt_bench: load tracer=$t groups=$g run=$run time=$1 events=$2 lost=$3"
		done
	done
done
step $ok "loss under load"

# 3b. the drain's own CPU per event, each tracer in turn
ok=0
for run in $(seq 1 $loss_runs); do
	for t in hwtrace trace-cmd; do
		set -- $(drain_cpu $t)
		[ "$1" -gt 0 ] || ok=1
		echo "hwt_bench: drain tracer=$t run=$run events=$1 lost=$2 user=$3 sys=$4"
	done
done
step $ok "the drain's CPU time per event"

# 4. conversion of the last hackbench recordings, against trace-cmd report
ev=$(/hwt/hwtrace stats /tmp/e2e.hwt | sed -n 's/^records: *\([0-9]*\).*/\1/p')
ok=0
for fmt in htf atf btf tband shark json perfetto ctf; do
	# shark and ctf write a directory (tmpfs), the others one file
	out=/dev/null
	case $fmt in shark | ctf) rm -rf /tmp/$fmt; out=/tmp/$fmt ;; esac
	/hwt/rusage /hwt/hwtrace convert -O $fmt -o $out /tmp/e2e.hwt 2>/tmp/ru || ok=1
	echo "hwt_bench: convert tool=hwtrace-$fmt events=$ev $(grep rusage: /tmp/ru | cut -d' ' -f2-)"
done
ev=$(trace-cmd report -i /tmp/e2e.dat 2>/dev/null | grep -c ': [a-z_]*: ')
/hwt/rusage sh -c 'trace-cmd report -i /tmp/e2e.dat >/dev/null 2>&1' 2>/tmp/ru || ok=1
echo "hwt_bench: convert tool=trace-cmd-report events=$ev $(grep rusage: /tmp/ru | cut -d' ' -f2-)"
step $ok "conversion against trace-cmd report"
step 0 "done"
