#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build, lint, host unit tests (plain and under ASan/UBSan),
# a fuzz smoke run, the kselftests in the VM (on 2 and 4 vCPUs, and on
# Debian 12's newer 6.12 kernel), and make demo with its output checked.
# Every suite runs even if an earlier one failed; logs go to build/check/.
# The last line totals them all: "N passed, M failed".
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
out=build/check
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0

# count P F: add a suite's results to the totals
count() {
	passed=$((passed + $1))
	failed=$((failed + $2))
	printf '%-24s %4d passed, %d failed\n' "$name" "$1" "$2"
}

# step NAME CMD...: a build or lint step is one test, passed if CMD succeeds.
step() {
	name=$1
	shift
	"$@" >"$out/$name.log" 2>&1
	verdict $?
}

# step_clean NAME CMD...: a compile step, passed if CMD succeeds and printed
# no compiler warning or error (W=1, sparse).
step_clean() {
	local rc
	name=$1
	shift
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -E 'warning:|error:' "$out/$name.log" >/dev/null; then
		rc=1
	fi
	verdict "$rc"
}

# verdict RC: count the step $name, showing its log's tail if it failed
verdict() {
	if [ "$1" -eq 0 ]; then
		count 1 0
	else
		count 0 1
		tail -n 30 "$out/$name.log" | sed "s/^/  $name: /"
	fi
}

# check_suite NAME CMD...: Check programs; totals from their summary lines
# ("100%: Checks: N, Failures: F, Errors: E").  A failing command with no
# failed check (a crash, a build error) still counts as one failure.
check_suite() {
	local p f rc
	name=$1
	shift
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	read -r p f < <(awk '/^[0-9]+%: Checks: /{ gsub(",", ""); c += $3; e += $5 + $7 }
		END { print c - e, e + 0 }' "$out/$name.log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	count "$p" "$f"
	if [ "$f" -ne 0 ]; then
		grep -E '^[^:]+:[0-9]+:[EF]:|FAILED|error' "$out/$name.log" | head -n 30 | sed "s/^/  $name: /"
	fi
}

# tap_suite NAME CMD...: TAP output; counted by scripts/vm/tap-summary.sh.
# A failing command with no failed test (a kernel warning in the VM log, a
# timeout) still counts as one failure.
tap_suite() {
	local line p f rc
	name=$1
	shift
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	line=$(bash scripts/vm/tap-summary.sh -l "$name" "$out/$name.log" 2>/dev/null | tail -n 1)
	p=$(sed -n 's/.*: \([0-9]*\) passed.*/\1/p' <<<"$line")
	f=$(sed -n 's/.*, \([0-9]*\) failed.*/\1/p' <<<"$line")
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	count "$p" "$f"
	if [ "$rc" -ne 0 ]; then
		# failed tests, then check-log's verdicts with the kernel's
		# reports and the log tail around them
		grep -E '^not ok|^# .*:[0-9]+:' "$out/$name.log" | head -n 30 | sed "s/^/  $name: /"
		grep -E '^check-log|^ *[0-9]+\| |^------' "$out/$name.log" | head -n 120 | sed "s/^/  $name: /"
	fi
}

# What make check needs, installed as README promises (a no-op when present)
step deps bash scripts/deps.sh build vm lint
kdir=$(bash scripts/kdir.sh)
# the module from clean, so that any W=1 warning shows and fails the step
step_clean build bash -c "make -C '$kdir' M='$PWD' clean >/dev/null &&
	make all KDIR='$kdir'"
# the module's arm64 code (its clock) compiles, W=1 clean, with the cross compiler
# shellcheck disable=SC2016 # the inner shell expands it
step build-arm64 bash -c 'tree=$(bash scripts/arm64-tree.sh) &&
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- bash scripts/module-for.sh "$tree" build/arm64'
# a probe whose type differs from its tracepoint's is a build error
step probe-types bash scripts/probe-types.sh "$kdir" build/probe-types
step event-table bash -o pipefail -c \
	'bash libhwt/gen-events.sh include/uapi/linux/hwtrace.h | diff -u libhwt/events.inc -'
step checkpatch make lint
# sparse must have run (its CHECK lines), not only the compiler
step_clean sparse bash -c "make module-sparse KDIR='$kdir' &&
	grep -q '^  CHECK ' '$out/sparse.log'"
step shellcheck bash -c 'shellcheck scripts/*.sh scripts/vm/*.sh scripts/vm/init \
	scripts/debug-kernel/*.sh .ci/run selftests/hwtrace/*.sh bench/*.sh \
	tools/hwtrace/tests/*.sh &&
	shellcheck -s bash tools/hwtrace/hwtrace.bash-completion'
# make bench-insn's parser of memory operands, on sample instructions
step insn-ops python3 -B bench/insn_ops.py
# make bench's report, on made-up logs whose figures are known
step bench-report bash bench/report-selftest.sh
tap_suite vm-harness bash scripts/vm/selftest.sh
check_suite unit make -C libhwt check
check_suite unit-asan-ubsan make -C libhwt check SAN=1
check_suite tools make -C tools/hwtrace check
# kmod's write path (ring.c, overflow.c, ring.h, record.h) on simulated CPUs
check_suite kmod-model make -C tests/kmod check
check_suite kmod-model-asan-ubsan make -C tests/kmod check SAN=1
step fuzz-smoke make -C libhwt fuzz-smoke
tap_suite vm-smp2 make check-vm-smp2 KDIR="$kdir"
tap_suite vm-smp4 make check-vm-smp4 KDIR="$kdir"
tap_suite vm-numa make check-vm-numa KDIR="$kdir"
tap_suite vm-6.12 make check-vm-newer KDIR="$kdir"
tap_suite vm-persist make check-vm-persist KDIR="$kdir"
tap_suite vm-persist-6.12 make check-vm-persist-newer KDIR="$kdir"
tap_suite demo bash scripts/check-demo.sh

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
