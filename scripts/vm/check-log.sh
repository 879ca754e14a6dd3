#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge a VM console log written by scripts/vm/run.sh (markers from
# scripts/vm/init). Prints the TAP counts ("vm: P passed, F failed, S skipped")
# to stdout and every reason for failure, with the log lines around it, to
# stderr. Exit 0 if the run is clean, 1 if not, 2 on usage errors.
#
# usage: scripts/vm/check-log.sh LOG
#
# A run fails when: there is no HWT-VM-DONE line; run.sh exited non-zero; the
# guest deadline fired; a TAP result failed or none were printed; or the kernel
# reported a bug, warning, lockdep splat, stall, hang or kCFI failure.  A test
# that crashes the guest on purpose (run.sh --reboot) prints "# HWT-VM:
# expected panic" first: what the kernel reports from there to the next
# boot's HWT-VM-START is its own doing.  A test that oopses on purpose prints "# HWT-VM: expected
# oops" first: the first oops after it, from its first line ("kernel BUG
# at", or the "...: 0000 [#1]" header: the console shows only what comes
# after oops_begin()) to its "end trace" line, is accepted if it is
# hwt_oops.ko's BUG() (selftests/hwtrace/kmod/hwt_oops.c: its RIP line names
# hwt_oops_thread); any other report counts.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -r "$1" ]; then
	echo "usage: $0 LOG" >&2
	exit 2
fi
log=$1
here=$(dirname "$0")
bad=0

fail() {
	echo "check-log: $log: $*" >&2
	bad=1
}

# Print lines FROM..TO of the log, numbered, as context.
show() {
	awk -v a="$1" -v b="$2" 'NR >= a && NR <= b { sub(/\r$/, ""); printf "%6d| %s\n", NR, $0 }' "$log" >&2
}

done_line=$(grep -a -n -o 'HWT-VM-DONE rc=[0-9]*' "$log" | tail -n 1 || true)
if [ -z "$done_line" ]; then
	fail "no HWT-VM-DONE line: the guest died, hung or never ran /init; log tail:"
	total=$(wc -l <"$log")
	show "$((total - 20))" "$total"
else
	rc=${done_line##*rc=}
	if [ "$rc" != 0 ]; then
		fail "run.sh exited with rc=$rc"
		show "$((${done_line%%:*} - 3))" "${done_line%%:*}"
	fi
fi

if grep -a -q 'HWT-VM: timeout' "$log"; then
	fail "guest timeout (hwt.timeout) fired; tests were killed"
fi

summary=0
counts=$(bash "$here/tap-summary.sh" "$log") || summary=$?
echo "$counts"
if [ "$summary" -ne 0 ]; then
	fail "TAP failures (above)"
elif [[ $counts == *": 0 passed, 0 failed, 0 skipped" ]]; then
	fail "no TAP results"
fi

# Kernel reports. Between HWT-VM-START and the dmesg dump the console carries
# test output, so there only lines with a printk timestamp count (a test may
# print "WARNING:" itself); the dump and the boot messages are all kernel.
# Debian taints the kernel for an unsigned module: that is expected.
report_re='BUG:|WARNING:|Oops|general protection fault|Kernel panic|Call Trace:'
report_re+='|KASAN|UBSAN|kmemleak: .*suspected memory leak|possible recursive locking'
report_re+='|circular locking|INFO: task .* blocked|detected stall|self-detected stall'
report_re+='|soft lockup|hard LOCKUP|watchdog: BUG|kernel BUG at'
# kCFI: an indirect call to a function of another type (a probe whose
# prototype drifted from its tracepoint's).  The oops that follows (a
# warning with CONFIG_CFI_PERMISSIVE) counts too, but this line names it.
report_re+='|CFI failure'
ignore_re='module verification failed'
hits=$(awk -v re="$report_re" -v ign="$ignore_re" '
	{ sub(/\r+$/, "") }
	# the reports of an expected oops that turned out not to be hwt_oops
	function flush() { if (oops == 2) printf "%s", held; oops = 3 }
	/HWT-VM: expected panic/ { crash = 1 }
	/HWT-VM-START/ { tests = 1; crash = 0; flush(); oops = 0 }
	crash { next }
	/HWT-VM: expected oops/ { oops = 1 }
	/HWT-VM-DMESG-BEGIN/ { tests = 0 }
	$0 ~ ign { next }
	tests && $0 !~ /\[ *[0-9]+\.[0-9]+\] / { next }
	oops == 1 && /kernel BUG at|: [0-9a-f]+ \[#[0-9]+\]/ { oops = 2; held = ""; ours = 0 }
	oops == 2 {
		if (/RIP: [0-9a-f]+:hwt_oops_thread\+/) ours = 1
		if ($0 ~ re) held = held NR "\n"
		if (/---\[ end trace/) { if (ours) oops = 3; else flush() }
		next
	}
	$0 ~ re { print NR }
	END { flush() }
' "$log")
if [ -n "$hits" ]; then
	fail "kernel reported problems:"
	# Context around the first reports, without printing a range twice.
	shown=0
	left=10
	for n in $hits; do
		[ "$n" -gt "$shown" ] || continue
		[ $((left--)) -gt 0 ] || { echo "check-log: (more reports not shown)" >&2; break; }
		show "$((n - 2))" "$((n + 15))"
		shown=$((n + 15))
		echo "------" >&2
	done
fi

exit "$bad"
