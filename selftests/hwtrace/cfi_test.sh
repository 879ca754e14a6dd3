#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every probe called through its tracepoint's checked iterator.  A
# tracepoint with one probe calls it directly (a static call); with two or
# more it calls each through a function pointer, and on a kCFI kernel (the
# debug kernel of make check-debug) that call traps when the probe's
# prototype is not the tracepoint's.  So ftrace's event for every tracepoint
# hwtrace probes is enabled too, and every family records around hackbench.
# A drifted probe oopses here and the kernel log fails the run: shown by
# hand on the debug kernel with timer_start's probe given 6.12's prototype
# on 6.1 (its build-time check bypassed), "CFI failure at
# __traceiter_timer_start+0x8c/0xd0 (target: probe_timer_start+0x0/0x1250
# [hwtrace]; ...)", an invalid opcode oops in the timer softirq, a panic.
# On other kernels it checks that hwtrace and ftrace share every tracepoint.
# TAP output.

hwtrace=/hwt/hwtrace
tracing=/sys/kernel/tracing
t=/tmp/cfi
# fewer on the debug kernel (check-debug passes it)
loops=${HWT_HACKBENCH_LOOPS:-20}
mkdir -p $t
n=0
fails=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

echo "TAP version 13"
echo "1..5"

[ -d $tracing/events ] || mount -t tracefs nodev $tracing

# the attachable probes: tracepoints, and the kretprobes of the priority
# family (set_user_nice, __sched_setscheduler), which have no event
$hwtrace ctl probes >$t/probes 2>&1
awk 'NR > 1 && $2 == "yes" { print $4 }' $t/probes | sort -u >$t/names
: >$t/enabled
: >$t/missing
while read -r name; do
	found=0
	for d in "$tracing"/events/*/"$name"; do
		[ -f "$d/enable" ] || continue
		echo 1 >"$d/enable" && echo "$d" >>$t/enabled && found=1
	done
	[ $found = 1 ] || echo "$name" >>$t/missing
done <$t/names
[ -s $t/enabled ] && ! grep -vxE 'set_user_nice|__sched_setscheduler' $t/missing
ok $? "ftrace's event on for every tracepoint hwtrace probes ($(wc -l <$t/enabled))"

$hwtrace record -q -f all -b 4M -o $t/all.hwt -- hackbench -g 2 -l "$loops" >$t/record.out 2>&1
ok $? "every family recorded beside ftrace, tracepoints iterating"

while read -r d; do echo 0 >"$d/enable"; done <$t/enabled

# the probes did run (through the iterator) and wrote what they should
$hwtrace dump $t/all.hwt 2>/dev/null | awk '!/^#/ { print $4 }' | sort | uniq -c >$t/families
none=
for fam in task irq timer; do
	grep -q " $fam\$" $t/families || none="$none $fam"
done
[ -z "$none" ]
ok $? "task, irq and timer records written${none:+ (none of:$none)}"

$hwtrace dump $t/all.hwt | grep -q " task_schedule "
ok $? "sched_switch probe ran"

# CONFIG_CFI_PERMISSIVE reports and goes on; the kernel log says so either way
dmesg | grep 'CFI failure' >$t/cfi
sed 's/^/# /' $t/cfi
[ ! -s $t/cfi ]
ok $? "no CFI failure in the kernel log"

sed 's/^/# /' $t/families
[ $fails -eq 0 ]
