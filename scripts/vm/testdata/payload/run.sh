#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest payload of scripts/vm/selftest.sh --boot. hwt.selftest= on the kernel
# command line picks what to do:
#   tap    a fixed TAP stream only (boot-time measurement)
#   tools  also check that the programs the kselftests use work in the guest
#   hang   never finish (the guest deadline must fire)
#   crash  panic the kernel (the host must see the run fail)
# hwt.cpus=N makes "tools" check the number of online CPUs.

mode=tap
cpus=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	hwt.selftest=*) mode=${arg#*=} ;;
	hwt.cpus=*) cpus=${arg#*=} ;;
	esac
done

n=0
# check NAME CMD...: one TAP result; the output of a failing CMD as diagnostics.
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >/tmp/check.out 2>&1; then
		echo "ok $n $name"
	else
		sed 's/^/# /' /tmp/check.out
		echo "not ok $n $name"
	fi
}

trace_cmd() {
	trace-cmd record -e sched:sched_switch -o /tmp/t.dat sleep 0.2 &&
		trace-cmd report -i /tmp/t.dat >/tmp/t.txt &&
		head -n 5 /tmp/t.txt &&
		grep -q 'sched_switch:' /tmp/t.txt
}

echo "TAP version 13"
case $mode in
tap)
	echo "1..2"
	echo "ok 1 a"
	echo "ok 2 b # SKIP x"
	;;
tools)
	echo "1..7"
	check "online cpus ${cpus:-any}" sh -c "[ -z '$cpus' ] || [ \$(nproc) = '$cpus' ]"
	check "tracefs and debugfs mounted" \
		test -e /sys/kernel/tracing/trace_pipe -a -d /sys/kernel/debug/tracing
	check "loopback up" sh -c "ip link show lo | grep -q UP"
	check "su to nobody" sh -c "[ \$(su -s /bin/sh nobody -c 'id -u') = 65534 ]"
	check "hackbench" hackbench -l 10
	check "stress-ng" stress-ng --cpu 1 --timeout 1
	check "trace-cmd record and report" trace_cmd
	;;
hang)
	echo "1..1"
	sleep 100000
	echo "ok 1 woke up"
	;;
crash)
	echo "1..1"
	echo c >/proc/sysrq-trigger
	echo "ok 1 still alive"
	;;
*)
	echo "Bail out! unknown hwt.selftest=$mode"
	;;
esac
