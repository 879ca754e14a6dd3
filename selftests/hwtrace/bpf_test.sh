#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace record --backend=bpf inside the VM: the BPF programs load on this
# kernel (CO-RE), record hackbench with names and nothing lost, and agree
# with the module: both record the same workload at once, on the same
# clock (CLOCK_MONOTONIC), with the task, irq, timer, signal, cpu and prio
# families.  The events of the workload's tasks (whose whole lives lie
# inside both windows: task, prio and signal events by pid) must match kind
# by kind exactly, and so must their names with their tgids; the events of
# any context inside each CPU's bpf window (IRQs, softirqs, vectors, timers,
# idle, frequency, and prio and signal events of any task) may differ by
# EDGE_SLACK per CPU (an event at an edge is stamped on either side).
# Then --backend=auto, and the errors a user meets.  TAP output.

hwtrace=/hwt/hwtrace
t=/tmp/bpf
EDGE_SLACK=2
mkdir -p $t
n=0
fails=0
ncpu=$(grep -c '^processor' /proc/cpuinfo)

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

# kinds DUMP PIDS WINDOWS: "kind count" of DUMP (hwtrace dump output): task,
# prio and signal events of the pids listed in PIDS, and the events of any
# context inside each CPU's window (WINDOWS lines: "cpu t0 t1"); timers by
# kind (0 wheel, 1 hrtimer: the ids are each backend's own keyed hash),
# prio and signal events of any task as any_*.
kinds() {
	awk -v pids="$2" -v win="$3" '
	function num(s, key,   i) {
		i = index(s, " " key "=")
		if (!i)
			return -1
		s = substr(s, i + length(key) + 2)
		match(s, /^[0-9]+/)
		return substr(s, 1, RLENGTH) + 0
	}
	BEGIN {
		while ((getline l < pids) > 0)
			P[l] = 1
		while ((getline l < win) > 0) {
			split(l, a, " ")
			W0[a[1]] = a[2]
			W1[a[1]] = a[3]
		}
		split("switch_prev switch_next activate activate_new create end exec migrate " \
		      "set_priority inheritance signal signal_deliver " \
		      "interrupt_start interrupt_end softirq_raise softirq_start softirq_end " \
		      "vector_start vector_end timer_post_0 timer_post_1 timer_delete_0 " \
		      "timer_delete_1 timer_wakeup_start_0 timer_wakeup_start_1 " \
		      "timer_wakeup_end_0 timer_wakeup_end_1 idle_enter idle_exit frequency " \
		      "any_set_priority any_inheritance any_signal any_signal_deliver", K, " ")
		for (i in K)
			c[K[i]] = 0
	}
	/^#/ { next }
	{
		cpu = substr($3, 2, length($3) - 2) + 0
		ev = $5
		pid = num($0, "pid")
		inwin = (cpu in W0) && $1 >= W0[cpu] && $1 <= W1[cpu]
	}
	ev == "task_schedule" {
		c["switch_prev"] += (num($0, "prev") in P)
		c["switch_next"] += (num($0, "next") in P)
	}
	ev == "task_activate" && (pid in P) { c[index($0, " new") ? "activate_new" : "activate"]++ }
	ev == "task_create" && (pid in P) { c["create"]++ }
	ev == "task_end" && (pid in P) { c["end"]++ }
	ev == "task_exec" && (pid in P) { c["exec"]++ }
	ev == "task_migrate" && (pid in P) { c["migrate"]++ }
	ev ~ /^(set_priority|inheritance|signal|signal_deliver)$/ {
		if (pid in P)
			c[ev]++
		if (inwin)
			c["any_" ev]++
	}
	!inwin { next }
	ev ~ /^(interrupt|softirq|vector)_(start|end)$/ || ev == "softirq_raise" { c[ev]++ }
	ev ~ /^idle_(enter|exit)$/ || ev == "frequency" { c[ev]++ }
	ev ~ /^timer_/ { c[ev "_" num($0, "kind")]++ }
	END {
		for (i = 1; i in K; i++)
			print K[i], c[K[i]]
	}' "$1"
}

# labels DUMP PIDS: "pid(comm)", or "pid(comm/tgid)" for a thread, of each
# pid listed in PIDS as DUMP names it
labels() {
	awk -v pids="$2" '
	BEGIN {
		while ((getline l < pids) > 0)
			P[l] = 1
	}
	/^#/ { next }
	{
		s = $0
		while (match(s, / (pid|prev|next)=[0-9]+\([^)]*\)/)) {
			m = substr(s, RSTART + 1, RLENGTH - 1)
			s = substr(s, RSTART + RLENGTH)
			sub(/^[a-z]+=/, "", m)
			p = m
			sub(/\(.*/, "", p)
			if (p in P)
				L[p] = m
		}
	}
	END {
		for (p in L)
			print L[p]
	}' "$1" | sort
}

# unpaired DUMP: switches whose prev is not the CPU's previous next (the id
# record at start names the first one)
unpaired() {
	awk '
	function num(s, key,   i) {
		i = index(s, " " key "=")
		s = substr(s, i + length(key) + 2)
		match(s, /^[0-9]+/)
		return substr(s, 1, RLENGTH) + 0
	}
	/^#/ { next }
	{ cpu = $3 }
	$5 == "id" { last[cpu] = num($0, "pid") }
	$5 == "task_schedule" {
		if ((cpu in last) && last[cpu] != num($0, "prev"))
			bad++
		last[cpu] = num($0, "next")
	}
	END { print bad + 0 }' "$1"
}

# unnamed DUMP: pids in switches without a name ("pid=N(" is named, 0 is idle)
unnamed() {
	grep task_schedule "$1" | grep -Ec '(prev|next)=[1-9][0-9]*( |$)'
}

echo "TAP version 13"
echo "1..22"

! HWTRACE_BTF=/nonexistent $hwtrace record --backend=bpf -q -d 1 -o $t/nobtf.hwt \
	>$t/nobtf.out 2>&1 && grep -q 'no BTF' $t/nobtf.out
ok $? "no kernel BTF: clear error"

# A kernel without BTF (the debug kernel of make check-debug) cannot load
# the programs: the error above is all a user gets there.
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	for i in $(seq 2 22); do
		echo "ok $i # SKIP no /sys/kernel/btf/vmlinux on this kernel"
	done
	exit 0
fi

# --- the bpf backend alone ---------------------------------------------------
# hackbench reports on the serial console: its IRQs fall in the window
$hwtrace record --backend=bpf -q -f task,irq,timer,mutex,signal,cpu,prio -o $t/bpf.hwt \
	-- sh -c 'exec hackbench -g 1 -l 20 >/dev/console' >$t/bpf.out 2>&1
ok $? "record --backend=bpf around hackbench"
sed 's/^/# /' $t/bpf.out
# the x86 vector tracepoints, and fexit on set_user_nice and __sched_setscheduler
! grep -q 'not available on this kernel' $t/bpf.out
ok $? "every probe of every family is available on this kernel"
$hwtrace dump $t/bpf.hwt >$t/bpf.txt 2>&1
ok $? "dump the bpf trace"
head -n 1 $t/bpf.txt | grep -q 'clock mono at 1000000 ticks/ms.*backend bpf, 0 lost'
ok $? "header: backend bpf, CLOCK_MONOTONIC, nothing lost"
! grep -Eiq 'lost[^0-9]*[1-9]' $t/bpf.out && ! grep -q 'LOST' $t/bpf.out
ok $? "nothing lost at moderate load (per-CPU summary)"
grep task_schedule $t/bpf.txt | grep -q hackbench && grep -q 'interrupt_start.*irq=[0-9]*(' $t/bpf.txt
ok $? "hackbench switches and named IRQs recorded"
u=$(unnamed $t/bpf.txt)
echo "# unnamed pids in switches: $u"
[ "$u" -eq 0 ]
ok $? "every pid in a switch is named"
# each CPU's trace: cycles_per_msec, trace_start, id first, trace_stop last
bad=$(awk '/^#/ { next } { c = $3; k[c]++ }
	k[c] == 1 && $5 != "cycles_per_msec" { bad++ }
	k[c] == 2 && $5 != "trace_start" { bad++ }
	k[c] == 3 && $5 != "id" { bad++ }
	{ last[c] = $5 }
	END { for (c in last) if (last[c] != "trace_stop") bad++; print bad + 0 }' $t/bpf.txt)
[ "$bad" -eq 0 ] && [ "$(grep -c ' trace_start' $t/bpf.txt)" -eq "$ncpu" ]
ok $? "per CPU: start records first, trace_stop last ($bad misplaced)"
p=$(unpaired $t/bpf.txt)
echo "# unpaired switches: $p"
[ "$p" -eq 0 ]
ok $? "per CPU, each switch's prev is the previous switch's next"
# an id is stable within the trace: a timer posted is seen expiring by its id
awk '$5 == "timer_post" { p[$NF] = 1 } $5 == "timer_wakeup_start" && ($NF in p) { both++ }
	END { exit !(both > 0) }' $t/bpf.txt
ok $? "timers carry stable keyed-hash ids (posted and expiring under one id)"
$hwtrace convert -O btf -o $t/bpf.btf $t/bpf.hwt >$t/conv.out 2>&1 && [ -s $t/bpf.btf ]
ok $? "the bpf trace converts like a module trace"

# --- module and bpf recording the same workload at once ------------------------
# The workload: hackbench in processes; a renice of it and of a sleep, then
# SIGTERM to the sleep (set_user_nice, signal generated and delivered);
# trace-cmd -r 1, whose per-CPU recorders sched_setscheduler() themselves
# to SCHED_FIFO 1 (__sched_setscheduler, priority 98); hackbench in threads
# (names with a tgid of their own process).
FAMS=task,irq,timer,signal,cpu,prio
cat >$t/work.sh <<EOF
hackbench -g 1 -l 50 >/dev/console &
h=\$!
sleep 30 &
s=\$!
echo \$s >$t/sleep.pid
renice 5 -p \$h \$s >/dev/null
kill -TERM \$s
if command -v trace-cmd >/dev/null; then
	trace-cmd record -q -r 1 -e sched:sched_process_exec -o $t/tc.dat sleep 0.2 >$t/tc.out 2>&1
fi
wait \$h
hackbench -T -g 1 -l 10 >/dev/console
EOF
rm -f $t/sleep.pid
$hwtrace ctl clock mono >/dev/null 2>&1
$hwtrace record --backend=module -q -f $FAMS -o $t/mod2.hwt >$t/mod2.out 2>&1 &
outer=$!
i=0
while [ $i -lt 600 ] && ! $hwtrace ctl version 2>/dev/null | grep -q 'tracing: *enabled'; do
	sleep 0.1
	i=$((i + 1))
done
$hwtrace record --backend=bpf -q -f $FAMS -o $t/bpf2.hwt -- sh $t/work.sh >$t/bpf2.out 2>&1
rc_bpf=$?
kill -INT $outer
wait $outer
rc_mod=$?
[ $rc_bpf -eq 0 ] && [ $rc_mod -eq 0 ]
ok $? "module and bpf recorded the workload at once (rc bpf $rc_bpf, module $rc_mod)"

$hwtrace dump $t/bpf2.hwt >$t/bpf2.txt 2>&1
$hwtrace dump $t/mod2.hwt >$t/mod2.txt 2>&1
# the workload's tasks: hackbench's processes and threads, trace-cmd's, the sleep
{
	grep ' task_create' $t/bpf2.txt | grep -E '\((hackbench|trace-cmd)' |
		sed 's/.* pid=\([0-9]*\).*/\1/'
	cat $t/sleep.pid 2>/dev/null
} | sort -u >$t/pids
awk '/^#/ { next } $5 == "trace_start" { s[$3] = $1 } $5 == "trace_stop" { e[$3] = $1 }
	END { for (c in s) print substr(c, 2, length(c) - 2) + 0, s[c], e[c] }' \
	$t/bpf2.txt >$t/windows
kinds $t/bpf2.txt $t/pids $t/windows >$t/k.bpf
kinds $t/mod2.txt $t/pids $t/windows >$t/k.mod
echo "# $(wc -l <$t/pids) tasks of the workload; per kind: module bpf"
bad=0
while read -r kind got; do
	want=$(awk -v k="$kind" '$1 == k { print $2 }' $t/k.mod)
	slack=0
	case $kind in
	interrupt_* | softirq_* | vector_* | timer_* | idle_* | frequency | any_*)
		slack=$((EDGE_SLACK * ncpu)) ;;
	esac
	d=$((got - want))
	[ $d -lt 0 ] && d=$((-d))
	echo "#   $kind $want $got"
	[ $d -le $slack ] || bad=$((bad + 1))
done <$t/k.bpf
[ "$(wc -l <$t/pids)" -gt 0 ] && [ $bad -eq 0 ]
ok $? "per-kind counts agree with the module ($bad kinds differ)"
echo "# module: $(head -n 1 $t/mod2.txt)"
echo "# bpf: $(head -n 1 $t/bpf2.txt)"
head -n 1 $t/mod2.txt | grep -q ', 0 lost' && head -n 1 $t/bpf2.txt | grep -q ', 0 lost'
ok $? "neither backend lost an event"

# Counts that agree at 0 prove nothing: the workload's prio and signal
# events are there, from both functions the prio family traces on return.
sp=$(cat $t/sleep.pid 2>/dev/null)
# count DUMP EVENT PAR1 PID: records "EVENT PAR1 pid=PID" (PAR1 "": any)
count() {
	awk -v ev="$2" -v p1="$3" -v pid="$4" '
	$5 == ev && (p1 == "" || $6 == p1) && $7 ~ "^pid=" pid "([(]|$)" { n++ }
	END { print n + 0 }' "$1"
}
nice=$(count $t/bpf2.txt set_priority prio=125 "$sp")
sig=$(count $t/bpf2.txt signal signal=15 "$sp")
# a fatal signal makes the whole group exit: it is delivered as SIGKILL
dlv=$(count $t/bpf2.txt signal_deliver "" "$sp")
fifo=$(grep -c 'set_priority  *prio=98 pid=[0-9]*(trace-cmd' $t/bpf2.txt)
echo "# sleep $sp: renice $nice, SIGTERM $sig, delivered $dlv; trace-cmd's SCHED_FIFO 1: $fifo"
tc=0
if command -v trace-cmd >/dev/null; then
	[ "$fifo" -ge 1 ]
	tc=$?
	[ $tc -eq 0 ] || sed 's/^/# trace-cmd: /' $t/tc.out
fi
[ -n "$sp" ] && [ "$nice" -eq 1 ] && [ "$sig" -eq 1 ] && [ "$dlv" -eq 1 ] && [ $tc -eq 0 ]
ok $? "the workload's prio and signal events are there (set_user_nice, __sched_setscheduler, SIGTERM)"

labels $t/bpf2.txt $t/pids >$t/l.bpf
labels $t/mod2.txt $t/pids >$t/l.mod
threads=$(grep -c '/' $t/l.bpf)
echo "# $(wc -l <$t/l.bpf) tasks named, $threads of them threads (comm/tgid)"
diff $t/l.mod $t/l.bpf | sed 's/^/# /'
cmp -s $t/l.mod $t/l.bpf && [ "$(wc -l <$t/l.bpf)" -eq "$(wc -l <$t/pids)" ] &&
	[ "$threads" -gt 0 ]
ok $? "the workload's tasks have the module's names and tgids"

# --- modes -------------------------------------------------------------------
$hwtrace record --backend=bpf -q -m cyclic -b 64k -f task -o $t/cyc.hwt \
	-- hackbench -g 1 -l 20 >$t/cyc.out 2>&1 &&
	$hwtrace dump $t/cyc.hwt | grep -q task_schedule
ok $? "bpf -m cyclic keeps the last BUFSIZE"
$hwtrace record --backend=bpf -q -m chain -d 1 -o $t/chain.hwt >$t/chain.out 2>&1
[ $? -eq 2 ] && grep -q 'chain' $t/chain.out
ok $? "bpf -m chain: refused as a usage error"

# --- auto and errors -----------------------------------------------------------
$hwtrace record --backend=auto -q -d 1 -f task -o $t/auto-mod.hwt >$t/auto-mod.out 2>&1 &&
	grep -q 'backend: module' $t/auto-mod.out
ok $? "auto takes the module when it is loaded"
rmmod hwtrace
$hwtrace record --backend=auto -q -d 1 -f task -o $t/auto.hwt >$t/auto.out 2>&1 &&
	grep -q 'backend: bpf' $t/auto.out &&
	$hwtrace dump $t/auto.hwt | head -n 1 | grep -q 'backend bpf'
ok $? "auto takes bpf when the module is not loaded, and says so"
insmod /hwt/hwtrace.ko

! su nobody -s /bin/sh -c "$hwtrace record --backend=bpf -q -d 1 -o /tmp/nobody.hwt" \
	>$t/perm.out 2>&1 && grep -q 'CAP_BPF' $t/perm.out
ok $? "non-root: says which capabilities are missing"
sed 's/^/# /' $t/perm.out

[ $fails -eq 0 ]
