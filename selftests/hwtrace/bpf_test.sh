#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace record --backend=bpf inside the VM: the BPF programs load on this
# kernel (CO-RE), record hackbench with names and nothing lost, and agree
# with the module: both record the same hackbench at once, on the same
# clock (CLOCK_MONOTONIC), and the events of hackbench's child tasks (whose
# whole lives lie inside both windows) must match kind by kind exactly;
# IRQ and softirq events inside each CPU's bpf window may differ by
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

# kinds DUMP PIDS WINDOWS: "kind count" of DUMP (hwtrace dump output): task
# events of the pids listed in PIDS, and IRQ events inside each CPU's window
# (WINDOWS lines: "cpu t0 t1").
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
		      "interrupt_start interrupt_end softirq_start softirq_end vector_start " \
		      "vector_end", K, " ")
		for (i in K)
			c[K[i]] = 0
	}
	/^#/ { next }
	{
		cpu = substr($3, 2, length($3) - 2) + 0
		ev = $5
		pid = num($0, "pid")
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
	ev ~ /^(interrupt|softirq|vector)_(start|end)$/ && (cpu in W0) && $1 >= W0[cpu] && $1 <= W1[cpu] { c[ev]++ }
	END {
		for (i = 1; i in K; i++)
			print K[i], c[K[i]]
	}' "$1"
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
echo "1..19"

! HWTRACE_BTF=/nonexistent $hwtrace record --backend=bpf -q -d 1 -o $t/nobtf.hwt \
	>$t/nobtf.out 2>&1 && grep -q 'no BTF' $t/nobtf.out
ok $? "no kernel BTF: clear error"

# A kernel without BTF (the debug kernel of make check-debug) cannot load
# the programs: the error above is all a user gets there.
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	for i in $(seq 2 19); do
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

# --- module and bpf recording the same hackbench at once ----------------------
$hwtrace ctl clock mono >/dev/null 2>&1
$hwtrace record --backend=module -q -f task,irq -o $t/mod2.hwt >$t/mod2.out 2>&1 &
outer=$!
i=0
while [ $i -lt 600 ] && ! $hwtrace ctl version 2>/dev/null | grep -q 'tracing: *enabled'; do
	sleep 0.1
	i=$((i + 1))
done
$hwtrace record --backend=bpf -q -f task,irq -o $t/bpf2.hwt \
	-- sh -c 'exec hackbench -g 1 -l 50 >/dev/console' >$t/bpf2.out 2>&1
rc_bpf=$?
kill -INT $outer
wait $outer
rc_mod=$?
[ $rc_bpf -eq 0 ] && [ $rc_mod -eq 0 ]
ok $? "module and bpf recorded hackbench at once (rc bpf $rc_bpf, module $rc_mod)"

$hwtrace dump $t/bpf2.hwt >$t/bpf2.txt 2>&1
$hwtrace dump $t/mod2.hwt >$t/mod2.txt 2>&1
grep ' task_create' $t/bpf2.txt | grep '(hackbench' |
	sed 's/.* pid=\([0-9]*\).*/\1/' | sort -u >$t/pids
awk '/^#/ { next } $5 == "trace_start" { s[$3] = $1 } $5 == "trace_stop" { e[$3] = $1 }
	END { for (c in s) print substr(c, 2, length(c) - 2) + 0, s[c], e[c] }' \
	$t/bpf2.txt >$t/windows
kinds $t/bpf2.txt $t/pids $t/windows >$t/k.bpf
kinds $t/mod2.txt $t/pids $t/windows >$t/k.mod
echo "# $(wc -l <$t/pids) hackbench child tasks; per kind: module bpf"
bad=0
while read -r kind got; do
	want=$(awk -v k="$kind" '$1 == k { print $2 }' $t/k.mod)
	slack=0
	case $kind in
	interrupt_* | softirq_* | vector_*) slack=$((EDGE_SLACK * ncpu)) ;;
	esac
	d=$((got - want))
	[ $d -lt 0 ] && d=$((-d))
	echo "#   $kind $want $got"
	[ $d -le $slack ] || bad=$((bad + 1))
done <$t/k.bpf
[ "$(wc -l <$t/pids)" -gt 0 ] && [ $bad -eq 0 ]
ok $? "per-kind counts agree with the module ($bad kinds differ)"
head -n 1 $t/mod2.txt | grep -q ', 0 lost' && head -n 1 $t/bpf2.txt | grep -q ', 0 lost'
ok $? "neither backend lost an event"

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
