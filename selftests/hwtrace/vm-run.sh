#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /hwt/run.sh inside the test VM: load hwtrace.ko, run the kselftests (all,
# or those listed by hwt.tests=a,b on the kernel command line) and let their
# TAP reach the console.  A test binary that dies or hangs outside its
# harness's own reporting counts as one more failure.

tests="ioctl_test record_test probes_test concurrency_test nmi_test ftrace_compare_test
       cfi_test.sh cli_test.sh bpf_test.sh module_test compat_test fault_test fuzz_ioctl_test
       soak_test soak_cli.sh"
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	hwt.tests=*) tests=$(echo "${arg#hwt.tests=}" | tr , ' ') ;;
	esac
done

if ! insmod /hwt/hwtrace.ko; then
	echo "not ok 1 insmod hwtrace.ko"
	exit 1
fi

rc=0
for t in $tests; do
	HWT_KO=/hwt/hwtrace.ko timeout 900 "/hwt/$t"
	status=$?
	case $status in
	0 | 4) ;;			# passed, or all skipped (KSFT_SKIP)
	1) rc=1 ;;			# failures, already reported as "not ok"
	*) echo "not ok 1 $t # exited with status $status"; rc=1 ;;
	esac
done
exit $rc
