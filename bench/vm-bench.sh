#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /hwt/run.sh of the benchmark VM (make bench).  Results are kernel log and
# stdout lines starting "hwt_bench:", collected on the host by report.sh.
# The TAP lines only say whether each step ran.

events=${HWT_BENCH_EVENTS:-200000}
rounds=${HWT_BENCH_ROUNDS:-5}
mem_kb=${HWT_BENCH_MEM_KB:-1024}

echo "TAP version 13"
echo "1..1"
insmod /hwt/hwtrace.ko || { echo "not ok 1 insmod hwtrace.ko"; exit 1; }
if /hwt/write_path /hwt/hwt_bench.ko "$events" "$mem_kb" "$rounds"; then
	echo "ok 1 write path: hwtrace, ring_buffer, relay"
else
	echo "not ok 1 write path"
fi
dmesg | grep 'hwt_bench: ' | sed 's/^\[[ 0-9.]*\] //'
