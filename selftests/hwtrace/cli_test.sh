#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The hwtrace command against the real module, inside the VM: record in
# every mode around hackbench, read the files back, convert to every format,
# drive the FTrace calls from the shell, inject, snapshot, and the errors a
# user meets (no permission, no module).  TAP output.

hwtrace=/hwt/hwtrace
t=/tmp/cli
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
echo "1..24"

for mode in stream stop cyclic chain; do
	$hwtrace record -q -m $mode -b 4M -f task,irq,timer,ipoint -o $t/$mode.hwt \
		-- hackbench -g 1 -l 20 >$t/$mode.out 2>&1
	ok $? "record -m $mode around hackbench"
done

$hwtrace stats $t/stream.hwt >$t/stats.txt 2>&1
ok $? "stats"
grep -q task_schedule $t/stats.txt
ok $? "stats counts task_schedule"
! grep -Eiq 'lost[^0-9]*[1-9]' $t/stream.out
ok $? "stream mode lost nothing (per-CPU summary)"

$hwtrace dump $t/stream.hwt >$t/dump.txt 2>&1
ok $? "dump"
grep task_schedule $t/dump.txt | grep -q hackbench
ok $? "dump names hackbench tasks in switches"
[ "$(grep -c . $t/dump.txt)" -ge "$($hwtrace stats $t/stream.hwt | sed -n 's/^ *records[^0-9]*\([0-9][0-9]*\).*/\1/p' | head -n 1)" ]
ok $? "dump prints every record"

for fmt in htf atf btf tband shark json; do
	$hwtrace convert -O $fmt -o $t/trace.$fmt $t/stream.hwt >$t/conv-$fmt.out 2>&1 &&
		[ -s $t/trace.$fmt ]
	ok $? "convert -O $fmt"
done

# the FTrace calls from the shell, and an injected event in a recording
id=$($hwtrace ctl chunk create 64k 4k stop 2>/dev/null)
[ -n "$id" ] && $hwtrace ctl table | grep -q .
ok $? "ctl chunk create and table"
$hwtrace ctl chunk delete "$id"
ok $? "ctl chunk delete"

$hwtrace record -q -f user -o $t/user.hwt -- $hwtrace log user_event_3 7 12345 >/dev/null 2>&1 &&
	$hwtrace dump $t/user.hwt | grep user_event_3 | grep -q 12345
ok $? "log injects a user event into a recording"

$hwtrace ctl chunk create 1M 4k cyc >/dev/null && $hwtrace ctl chunk select 0 &&
	$hwtrace ctl filter user off && $hwtrace ctl enable && $hwtrace log user_event_1 1 42 &&
	$hwtrace snapshot -o $t/snap.hwt && $hwtrace ctl disable &&
	$hwtrace dump $t/snap.hwt | grep user_event_1 | grep -q 42
ok $? "snapshot of a cyclic chunk"
$hwtrace ctl chunk select -1 >/dev/null 2>&1
$hwtrace ctl chunk flags 0 cyc,free >/dev/null 2>&1
$hwtrace ctl chunk delete 0 >/dev/null 2>&1

$hwtrace record -q -f nosuchfamily -o $t/x.hwt -d 1 >$t/badfam.out 2>&1
[ $? -eq 2 ] && grep -q timer $t/badfam.out
ok $? "unknown family: usage error listing the valid ones"

! su nobody -s /bin/sh -c "$hwtrace ctl version" >$t/perm.out 2>&1 &&
	grep -iq perm $t/perm.out
ok $? "non-root: clear permission error"

rmmod hwtrace
! $hwtrace ctl version >$t/nomod.out 2>&1 && grep -q insmod $t/nomod.out
ok $? "no module: says how to load it"
insmod /hwt/hwtrace.ko

# every counter of the module's version answer, the ABI 1.1 ones included
$hwtrace ctl version >$t/version.out 2>&1 &&
	grep -q '^CPUs: *[0-9]* possible, [0-9]* online$' $t/version.out &&
	grep -q '^names lost: *[0-9][0-9]*$' $t/version.out &&
	grep -q '^prio missed: *[0-9][0-9]*$' $t/version.out
ok $? "ctl version: CPUs possible and online, names lost, prio missed"

[ $fails -eq 0 ]
