#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The persistent flight recorder across a panic and a warm reboot, inside
# the VM (make check-vm-persist: run.sh --reboot, the area reserved on the
# kernel command line).  The same script runs on both boots and tells them
# apart by what the module finds in the area when it loads:
#   boot 1 (QEMU's RAM is zero): no previous trace; bad parameters are
#     refused; a reload and garbage in the area are no previous trace; then
#     record --persist with numbered user events on every CPU, and panic;
#   boot 2 (QEMU kept the RAM): the previous trace is found; recover it and
#     check it; another layout version and a torn header; release.
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

load "$param"
if grep -q "previous boot's trace" $t/dmesg; then
	boot=2
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
	# the console drains before the crash; run.sh's log check expects it
	echo "# HWT-VM: expected panic"
	sleep 1
	echo c >/proc/sysrq-trigger
	echo "not ok $((n + 1)) the machine did not panic"
	exit 1
fi

# boot 2: the previous boot's trace
echo "1..16"
ok 0 "previous boot's trace found at load"
! $hwtrace record -q -m cyclic --persist -o $t/no.hwt -d 1 >$t/rec2.out 2>&1 &&
	grep -q "previous boot's trace" $t/rec2.out
ok $? "record --persist refuses to overwrite the kept trace"
$hwtrace recover -o $t/crash.hwt 2>$t/recover.err
ok $? "hwtrace recover -o crash.hwt"
sed 's/^/# /' $t/recover.err
$hwtrace dump $t/crash.hwt >$t/dump.txt 2>&1
ok $? "dump of the recovered trace"
panic_cpu=$(sed -n 's/^# recovered from the persistent area: boot .* ended in panic on CPU \([0-9]*\)$/\1/p' $t/dump.txt)
[ -n "$panic_cpu" ]
ok $? "the file says: recovered, ended in a panic (on CPU $panic_cpu)"

# Per CPU: the numbered user events are consecutive, and each CPU's last
# record is the crash record naming the panicking CPU.
awk -v pcpu="$panic_cpu" '
	{ cpu = $3; gsub(/[][]/, "", cpu) }
	$5 == "user_event_1" { v = $NF; sub(/.*=/, "", v)
		if (cpu in seq && v != seq[cpu] + 1) { print "# CPU " cpu ": " seq[cpu] " then " v; bad = 1 }
		seq[cpu] = v; users[cpu]++ }
	$3 ~ /^\[/ { last[cpu] = $0; recs[cpu]++ }
	END {
		for (c in recs) {
			printf "# CPU %s: %d records, %d user events, last number %s\n", c, recs[c], users[c], seq[c]
			if (!users[c]) { print "# CPU " c ": no user events"; bad = 1 }
			if (last[c] !~ / crash +kind=1 cpu=/ || last[c] !~ ("cpu=" pcpu "$")) {
				print "# CPU " c " ends with: " last[c]; bad = 1
			}
		}
		exit bad
	}' $t/dump.txt
ok $? "every CPU: consecutive user events up to the crash record, which is last"
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
echo "# recovered dump tail:"
tail -n 6 $t/dump.txt | sed 's/^/#   /'
$hwtrace convert -O json -o $t/crash.json $t/crash.hwt >$t/conv.out 2>&1 && [ -s $t/crash.json ]
ok $? "convert the recovered trace (json)"
$hwtrace convert -O htf -o $t/crash.htf $t/crash.hwt >$t/conv2.out 2>&1 && [ -s $t/crash.htf ]
ok $? "convert the recovered trace (htf)"

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
rmmod hwtrace
insmod "$ko"
[ $fails = 0 ]
