#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /hwt/run.sh of the debug-kernel VM: the kselftest runner of the normal VM
# (selftests/hwtrace/vm-run.sh, copied to /hwt/tests.sh) and then what only
# a debug kernel can tell, as TAP:
#   - the module unloads after all the tests;
#   - kmemleak finds nothing: boot-time suspects are scanned and cleared
#     first, then after rmmod two scans (objects younger than 5 s are not
#     reported) and the report is printed.  kmemleak's own "new suspected
#     memory leaks" line also reaches the kernel log that check-log.sh reads.

kmemleak=/sys/kernel/debug/kmemleak

if [ -w "$kmemleak" ]; then
	# what the kernel leaked while booting is not ours
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
fi

sh /hwt/tests.sh
rc=$?

echo "TAP version 13"
echo "1..2"
if lsmod | grep -q '^hwtrace '; then
	if rmmod hwtrace; then
		echo "ok 1 rmmod hwtrace after the tests"
	else
		echo "not ok 1 rmmod hwtrace after the tests"
		rc=1
	fi
else
	echo "not ok 1 rmmod hwtrace: not loaded after the tests"
	rc=1
fi

if [ -w "$kmemleak" ]; then
	echo scan >"$kmemleak"
	sleep 6
	echo scan >"$kmemleak"
	cat "$kmemleak" >/tmp/kmemleak
	if [ -s /tmp/kmemleak ]; then
		n=$(grep -c '^unreferenced object' /tmp/kmemleak)
		sed 's/^/# /' /tmp/kmemleak
		echo "not ok 2 kmemleak: $n unreferenced objects"
		rc=1
	else
		echo "ok 2 kmemleak: no leaks"
	fi
else
	echo "ok 2 kmemleak # SKIP no $kmemleak on this kernel"
fi
exit $rc
