#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The persistent flight recorder across a panic, an oops and warm reboots,
# inside the VM (make check-vm-persist: run.sh --reboot, the area reserved on
# the kernel command line).  The same script runs on every boot and tells
# them apart by what the module finds in the area when it loads:
#   boot 1 (QEMU's RAM is zero): no previous trace; bad parameters are
#     refused; a reload and garbage in the area are no previous trace; then
#     record --persist with numbered user events on every CPU, and panic;
#   boot 2 (the trace ended in a panic): recover it and check it; another
#     layout version and a torn header; release; then record the same way
#     again, oops on the last CPU (hwt_oops.ko; panic_on_oops=0, so the
#     kernel runs on) and warm-reboot (sysrq-b);
#   boot 3 (a trace that did not end in a panic: the oops, if the die
#     notifier wrote its record): recover it and check it; release.
# TAP output, a plan per boot.

hwtrace=/hwt/hwtrace
ko=${HWT_KO:-/hwt/hwtrace.ko}
t=/tmp/persist
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

# The trace goes to reserve_mem= if there is one, else to memmap=.  The
# bad-input checks write through /dev/mem, so they need memmap= (reserve_mem
# is RAM, which /dev/mem refuses): with both, they use the memmap= area.
param=
mparam=
addr=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	memmap=*\$*)
		v=${arg#memmap=}
		addr=${v#*\$}
		mparam="${v%%\$*}@$addr"
		;;
	reserve_mem=*) param=${arg##*:} ;;
	esac
done
[ -n "$param" ] || param=$mparam
echo "TAP version 13"
if [ -z "$param" ]; then
	echo "1..0 # SKIP no memmap=SIZE\$ADDR or reserve_mem= on the kernel command line"
	exit 4
fi

# Load with persist=; the module's messages of this load in $t/dmesg.
load() {
	rmmod hwtrace 2>/dev/null
	dmesg -c >/dev/null
	insmod "$ko" persist="$1"
	rc=$?
	dmesg >$t/dmesg
	return $rc
}

# Write a byte (an octal escape) at OFFSET of the area through /dev/mem.
poke() {
	printf '%b' "$2" | dd of=/dev/mem bs=1 seek=$((addr + $1)) count=1 conv=notrunc 2>/dev/null
}

# Record task, user and general events into the area with record --persist,
# and log numbered user events on every CPU until each has logged more than
# its ring holds (persist_inject).  2 results.
record_injected() {
	rm -f $t/ready.*
	$hwtrace record -q -m cyclic --persist -f task,user,general -o $t/live.hwt \
		>$t/record.out 2>&1 &
	for _ in $(seq 100); do
		$hwtrace ctl version 2>/dev/null | grep -q "tracing: *enabled" && break
		sleep 0.1
	done
	$hwtrace ctl version | grep -q "tracing: *enabled"
	ok $? "record --persist is recording"
	cpus=$(nproc)
	for c in $(seq 0 $((cpus - 1))); do
		/hwt/persist_inject "$c" "$t/ready.$c" &
	done
	for _ in $(seq 600); do
		[ "$(find $t -name 'ready.*' | wc -l)" = "$cpus" ] && break
		sleep 0.1
	done
	[ "$(find $t -name 'ready.*' | wc -l)" = "$cpus" ]
	ok $? "user events injected on all $cpus CPUs"
}

# check_recovered KIND CODE [CPU]: recover the previous boot's trace, which
# ended in KIND (crash records kind=CODE) on CPU (any if not given), and
# check it; the dump is left in $t/dump.txt.  A panic ends every CPU's ring
# with the crash record.  An oops ends only the oopsing CPU's; the others
# stop with it, though a write they had begun may still land (one per
# nesting level, a loss report and its event: at most 8 records after the
# crash record).  9 results.
check_recovered() {
	$hwtrace recover -o $t/crash.hwt 2>$t/recover.err
	ok $? "hwtrace recover -o crash.hwt"
	sed 's/^/# /' $t/recover.err
	$hwtrace dump $t/crash.hwt >$t/dump.txt 2>&1
	ok $? "dump of the recovered trace"
	crash_cpu=$(sed -n "s/^# recovered from the persistent area: boot .* ended in $1 on CPU \([0-9]*\)\$/\1/p" $t/dump.txt)
	[ -n "$crash_cpu" ] && [ "$crash_cpu" = "${3:-$crash_cpu}" ]
	ok $? "the file says: recovered, ended in $1 on CPU ${3:-$crash_cpu} (dump: ${crash_cpu:-not $1})"

	# Per CPU: the numbered user events are consecutive, the crash record
	# is where it belongs.  The first pass finds the crash record's time.
	every=0
	[ "$1" = panic ] && every=1
	awk -v code="$2" -v ccpu="${3:-${crash_cpu:--1}}" -v every=$every '
		$3 !~ /^\[/ { next }
		{ cpu = $3; gsub(/[][]/, "", cpu); cpu += 0 }
		NR == FNR { if ($5 == "crash" && cpu == ccpu) crash_ts = $1; next }
		$5 == "user_event_1" { v = $NF; sub(/.*=/, "", v)
			if (cpu in seq && v != seq[cpu] + 1) { print "# CPU " cpu ": " seq[cpu] " then " v; bad = 1 }
			seq[cpu] = v; users[cpu]++ }
		$5 == "crash" { crashes[cpu]++ }
		crash_ts != "" && $1 + 0 > crash_ts + 0 { after[cpu]++ }
		{ last[cpu] = $0; recs[cpu]++ }
		END {
			if (!(ccpu in recs)) { print "# no records of CPU " ccpu; bad = 1 }
			for (c in recs) {
				printf "# CPU %d: %d records, %d user events, last number %s", c, recs[c], users[c], seq[c]
				if (!every && c != ccpu && crash_ts != "")
					printf ", %d records after the crash record", after[c]
				printf "\n"
				if (!users[c]) { print "# CPU " c ": no user events"; bad = 1 }
				if (every || c == ccpu) {
					if (last[c] !~ (" crash +kind=" code " cpu=" ccpu "$") || crashes[c] != 1) {
						print "# CPU " c " ends with: " last[c]; bad = 1
					}
				} else if (crashes[c] || after[c] > 8) {
					print "# CPU " c ": written on after the crash"; bad = 1
				}
			}
			exit bad
		}' $t/dump.txt $t/dump.txt
	ok $? "every CPU: consecutive user events, the crash record last where it belongs, nothing written after it"
	[ "$(awk '$3 ~ /^\[/ { c[$3] = 1 } END { print length(c) }' $t/dump.txt)" = "$(nproc)" ]
	ok $? "records of all $(nproc) CPUs recovered"
	[ "$(grep -c 'records, [1-9][0-9]* overwritten before' $t/recover.err)" = "$(nproc)" ]
	ok $? "every ring wrapped: the oldest records were overwritten, the newest kept"
	# every task in the window has its name (0 is the idle task)
	awk '{ for (i = 6; i <= NF; i++)
			if ($i ~ /^(pid|prev|next)=[1-9][0-9]*/) {
				if ($i ~ /\(/) named++; else { unnamed++; if (unnamed < 4) print "# no name: " $0 }
			} }
		END { printf "# %d task references named, %d not\n", named, unnamed; exit !(named && !unnamed) }' $t/dump.txt
	ok $? "task names resolve"
	echo "# events in the recovered window:"
	awk '$3 ~ /^\[/ { c[$5]++ } END { for (e in c) printf "#   %8d %s\n", c[e], e }' $t/dump.txt
	grep -m 3 task_schedule $t/dump.txt | sed 's/^/#   /'
	echo "# recovered dump, each CPU's last records:"
	for c in $(seq 0 $(($(nproc) - 1))); do
		grep "\[$(printf %03d "$c")\]" $t/dump.txt | tail -n 4 | sed 's/^/#   /'
	done
	$hwtrace convert -O json -o $t/crash.json $t/crash.hwt >$t/conv.out 2>&1 && [ -s $t/crash.json ]
	ok $? "convert the recovered trace (json)"
	$hwtrace convert -O htf -o $t/crash.htf $t/crash.hwt >$t/conv2.out 2>&1 && [ -s $t/crash.htf ]
	ok $? "convert the recovered trace (htf)"
}

load "$param"
if grep -q "previous boot's trace.*(panic," $t/dmesg; then
	boot=2
elif grep -q "previous boot's trace" $t/dmesg; then
	boot=3
elif grep -q "no previous trace" $t/dmesg; then
	boot=1
else
	echo "1..1"
	cat $t/dmesg | sed 's/^/# /'
	ok 1 "module loaded with persist=$param and said what the area holds"
	exit 1
fi
echo "# boot $boot, persist=$param"

if [ $boot = 1 ]; then
	echo "1..10"
	ok 0 "cold boot: no previous trace"
	$hwtrace recover -o $t/none.hwt 2>$t/rec.err
	[ $? = 1 ] && grep -q "no previous trace" $t/rec.err && [ ! -e $t/none.hwt ]
	ok $? "recover on a cold boot says no previous trace"
	load "$param" && grep -q "this boot's own" $t/dmesg
	ok $? "reload in the same boot: its own trace, recorded afresh"

	if [ -n "$addr" ]; then
		# memory the kernel uses, and a range running past the reservation
		! load 4M@0x1000000 && grep -q "overlaps System RAM" $t/dmesg &&
			! grep -q '^hwtrace ' /proc/modules
		ok $? "persist= on System RAM is refused"
		# beyond the guest's RAM: neither RAM nor reserved
		! load 4M@0x80000000 && grep -q "not reserved memory" $t/dmesg
		ok $? "persist= on memory not reserved is refused"
		rmmod hwtrace 2>/dev/null
		dd if=/dev/urandom of=/dev/mem bs=4096 seek=$((addr / 4096)) count=1024 \
			conv=notrunc 2>/dev/null
		load "$mparam" && grep -q "no previous trace" $t/dmesg
		ok $? "garbage in the area: no previous trace"
	else
		for _ in 1 2 3; do
			ok 0 "# SKIP no memmap= area (/dev/mem cannot reach reserve_mem=, which is RAM)"
		done
	fi
	! load "12x@" && grep -q "persist=12x@" $t/dmesg
	ok $? "a malformed persist= is refused"
	load "$param"
	ok $? "loaded again"

	record_injected
	# the console drains before the crash; run.sh's log check expects it
	echo "# HWT-VM: expected panic"
	sleep 1
	echo c >/proc/sysrq-trigger
	echo "not ok $((n + 1)) the machine did not panic"
	exit 1
fi

if [ $boot = 3 ]; then
	echo "1..12"
	ok 0 "previous boot's trace found at load"
	oops_cpu=$(($(nproc) - 1))
	check_recovered oops 2 $oops_cpu
	# the oopsing kthread was the last task switched in on its CPU
	awk -v cpu="[$(printf %03d $oops_cpu)]" '$3 == cpu && $5 == "task_schedule" { last = $0 }
		END { print "# " last; exit last !~ / next=[0-9]+\(hwt_oops\/[0-9]+\)$/ }' $t/dump.txt
	ok $? "the last task switched in on CPU $oops_cpu is the one that oopsed, by name"
	$hwtrace recover --release &&
		$hwtrace recover -o $t/again.hwt 2>&1 | grep -q "no previous trace"
	ok $? "release: the area records again"
	rmmod hwtrace
	insmod "$ko"
	[ $fails = 0 ]
	exit
fi

# boot 2: the previous boot's trace, which ended in a panic
echo "1..20"
ok 0 "previous boot's trace found at load"
! $hwtrace record -q -m cyclic --persist -o $t/no.hwt -d 1 >$t/rec2.out 2>&1 &&
	grep -q "previous boot's trace" $t/rec2.out
ok $? "record --persist refuses to overwrite the kept trace"
check_recovered panic 1

if [ -n "$addr" ]; then
	rmmod hwtrace
	poke 8 '\002'	# the header's version field
	load "$mparam" && grep -q "layout version 2" $t/dmesg
	ok $? "another layout version: kept, reported"
	$hwtrace recover -o $t/abi.hwt 2>$t/abi.err
	[ $? = 1 ] && grep -q "layout version 2" $t/abi.err
	ok $? "recover names the other layout version"
	rmmod hwtrace
	poke 8 '\001'
	poke 112 '\377'	# a torn header: a reserved field (zero), checksum unchanged
	load "$mparam" && grep -q "corrupt" $t/dmesg
	ok $? "a torn header: corrupt"
	$hwtrace recover -o $t/torn.hwt 2>$t/torn.err
	[ $? = 1 ] && grep -q "corrupt" $t/torn.err
	ok $? "recover says corrupt"
else
	for _ in 1 2 3 4; do
		ok 0 "# SKIP no memmap= area (/dev/mem cannot reach reserve_mem=, which is RAM)"
	done
fi
$hwtrace recover --release 2>/dev/null &&
	$hwtrace recover -o $t/again.hwt 2>&1 | grep -q "no previous trace" &&
	$hwtrace record -q -m cyclic --persist -f user -o $t/after.hwt -- $hwtrace log user_event_2 1 2 &&
	$hwtrace dump $t/after.hwt | grep -q user_event_2
ok $? "release: the area records again"

# The oops: the area records afresh (on 6.12 the trace is still kept in
# reserve_mem=: the checks above released the memmap= area), then the same
# recording, and the last CPU oopses.
load "$param" && { ! grep -q "read-only until released" $t/dmesg || $hwtrace recover --release; } &&
	$hwtrace recover -o $t/none2.hwt 2>&1 | grep -q "no previous trace"
ok $? "the area records afresh for the oops"
record_injected
oops_cpu=$(($(nproc) - 1))
echo 0 >/proc/sys/kernel/panic_on_oops
echo "# HWT-VM: expected oops"
insmod /hwt/hwt_oops.ko cpu=$oops_cpu
# TAINT_DIE: the oops is over
for _ in $(seq 100); do
	[ $(($(cat /proc/sys/kernel/tainted) & 128)) != 0 ] && break
	sleep 0.1
done
[ $(($(cat /proc/sys/kernel/tainted) & 128)) != 0 ] &&
	dmesg | grep -q "CPU: $oops_cpu .*Comm: hwt_oops/$oops_cpu"
ok $? "hwt_oops oopsed on CPU $oops_cpu and the kernel runs on"
# the console drains before the reboot; the other CPUs' injectors run on,
# the oopsing CPU's too: the next boot checks that none of it was written
sleep 1
echo b >/proc/sysrq-trigger
echo "not ok $((n + 1)) the machine did not reboot"
exit 1
