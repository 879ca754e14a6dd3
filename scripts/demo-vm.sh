#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /hwt/run.sh of the demo VM: record hackbench with the task, irq, timer and
# ipoint families (ipoints mark the workload's start and end), then send the
# trace to the host over the console, base64 between markers.

echo "TAP version 13"
echo "1..1"
hostname hwtrace-demo
insmod /hwt/hwtrace.ko || { echo "not ok 1 insmod hwtrace.ko"; exit 1; }
if /hwt/hwtrace record -q -z -f task,irq,timer,ipoint -b 8M -o /tmp/trace.hwt -- \
	sh -c '/hwt/hwtrace log ipoint 1 0 && hackbench -g 2 -l 50 && /hwt/hwtrace log ipoint 2 0'; then
	echo "ok 1 hwtrace record around hackbench"
else
	echo "not ok 1 hwtrace record around hackbench"
	exit 1
fi
echo "HWT-DEMO-BEGIN"
base64 /tmp/trace.hwt
echo "HWT-DEMO-END"
