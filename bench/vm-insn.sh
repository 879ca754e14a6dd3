#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make bench-insn (bench/insn-count.sh on the host, which
# boots the bench payload with HWT_BENCH=insn): vm-bench.sh runs this
# instead of the timings.  hwt_bench.ko is loaded in its insn mode, the
# guest's /proc/kallsyms goes to the console (gzip, base64: the host has no
# symbols of Debian's kernel, its System.map is empty) between
# HWT-INSN-KALLSYMS-BEGIN and -END, then the guest waits until gdb
# (bench/insn-count.py) has set its breakpoints and hwt_bench's insn_go, and
# makes the calls gdb steps through: into a CYC chunk (with ring_buffer and
# relay) and into a STOP chunk that does not fill, with hwtrace's (and
# relay's) clock the TSC and then the monotonic clock.

calls=${HWT_INSN_CALLS:-20}
mem_kb=${HWT_BENCH_MEM_KB:-1024}
go=/sys/module/hwt_bench/parameters/insn_go

echo "TAP version 13"
echo "1..6"
if insmod /hwt/hwtrace.ko && insmod /hwt/hwt_bench.ko insn="$calls" mem_kb="$mem_kb"; then
	echo "ok 1 hwtrace.ko and hwt_bench.ko insn=$calls loaded"
else
	echo "not ok 1 hwtrace.ko and hwt_bench.ko insn=$calls loaded"
	exit 1
fi

echo "HWT-INSN-KALLSYMS-BEGIN"
gzip -c /proc/kallsyms | base64
echo "HWT-INSN-KALLSYMS-END"

# the guest's clock stands still while gdb holds it: 600 polls are its budget
i=0
while [ "$(cat $go)" = 0 ] && [ $i -lt 600 ]; do
	sleep 1
	i=$((i + 1))
done
if [ "$(cat $go)" = 0 ]; then
	echo "not ok 2 gdb attached (insn_go still 0 after ${i}s)"
	exit 1
fi
echo "ok 2 gdb attached"

rc=0
n=2
for run in "cyc tsc" "stop tsc" "cyc mono" "stop mono"; do
	# shellcheck disable=SC2086 # "MODE CLOCK" splits on purpose
	set -- $run
	n=$((n + 1))
	if /hwt/write_path -i "$1" "$mem_kb" "$2"; then
		echo "ok $n $calls calls per buffer into a $1 chunk, clock $2"
	else
		echo "not ok $n $calls calls per buffer into a $1 chunk, clock $2"
		rc=1
	fi
done
rmmod hwt_bench
exit $rc
