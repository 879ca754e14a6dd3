#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: every kselftest of the normal VM run, on the debug
# kernel (clang-16 with kCFI, KASAN, lockdep, UBSAN, kmemleak, fault
# injection; see debug.config), then rmmod and a kmemleak scan (vm-run.sh
# here).
#
#   1. scripts/debug-kernel/build.sh: the kernel, cached outside the repo
#   2. hwtrace.ko against that kernel's tree (scripts/module-for.sh, in
#      build/debug/mod)
#   3. the kselftests (build/debug/selftests) and the rest of what
#      `make vm-payload` puts in the VM (script tests, the hwtrace CLI), an
#      initramfs with trace-cmd, hackbench and stress-ng, and the VM:
#      scripts/vm/run.sh --kernel
#   4. the verdict: scripts/vm/check-log.sh on the console log, in which only
#      the stack dumps vmalloc prints for allocations fault_test failed on
#      purpose (between its "hwt-fault-injection: begin/end" kernel log
#      lines, right after a "vmalloc error:" line) are marked as expected.
#
# Prints "vm-debug: P passed, F failed, S skipped" and the times; exit 0
# only if the run is clean.  Logs: build/debug/.
#
# Environment: HWT_DEBUG_TESTS=a,b (only these kselftests), HWT_SOAK_SECS,
# HWT_FUZZ_SECS, HWT_HACKBENCH_LOOPS (default 20; passed to the tests), HWT_DEBUG_SMP (default 2),
# HWT_DEBUG_MEM (MB, default 2048), HWT_DEBUG_TIMEOUT (guest deadline, s,
# default 2400), HWT_DEBUG_CACHE (see build.sh).
set -euo pipefail

cd "$(dirname "$0")/../.."
top=$(pwd)
here=$top/scripts/debug-kernel
out=$top/build/debug
smp=${HWT_DEBUG_SMP:-2}
mem=${HWT_DEBUG_MEM:-2048}
timeout=${HWT_DEBUG_TIMEOUT:-2400}
start=$(date +%s)

bash scripts/deps.sh build vm lint debug

echo "check-debug: debug kernel" >&2
t0=$(date +%s)
kdir=$(bash "$here/build.sh")
build_secs=$(($(date +%s) - t0))
tree=$kdir/linux
cold=$(sed -n 's/^build_seconds //p' "$kdir/info")
echo "check-debug: kernel $kdir ($(sed -n 's/^release //p' "$kdir/info"), built once in ${cold}s; this run ${build_secs}s)" >&2

rm -rf "$out"
mkdir -p "$out/payload"

echo "check-debug: hwtrace.ko against $tree" >&2
ko=$(bash scripts/module-for.sh "$tree" "$out/mod")
# one path per line, none with blanks; a failed build stops here (set -e)
test_kos=$(bash scripts/test-modules-for.sh "$tree" "$out/mod")

echo "check-debug: kselftests" >&2
bash scripts/lint-src.sh build/linux-src
make -C selftests/hwtrace KSFT_DIR="$top/build/linux-src/tools/testing/selftests" \
	OUT="$out/selftests" >"$out/selftests.log" 2>&1 || {
	tail -n 40 "$out/selftests.log" >&2
	echo "check-debug: kselftest build failed" >&2
	exit 1
}

# the CLI, for the script tests among the kselftests
make tools >"$out/tools.log" 2>&1 || {
	tail -n 40 "$out/tools.log" >&2
	echo "check-debug: tools build failed" >&2
	exit 1
}

# The payload of `make vm-payload`, with vm-run.sh as tests.sh under ours.
# shellcheck disable=SC2086 # the list splits on purpose
cp "$ko" $test_kos "$out"/selftests/* selftests/hwtrace/*.sh \
	tools/hwtrace/build/hwtrace "$out/payload/"
mv "$out/payload/vm-run.sh" "$out/payload/tests.sh"
cp "$here/vm-run.sh" "$out/payload/run.sh"
bash scripts/vm/mkinitramfs.sh -o "$out/vm.cpio.gz" -p "$out/payload" \
	-b /usr/bin/trace-cmd -b /usr/bin/hackbench -b /usr/bin/stress-ng

# Kernel parameters without a dot reach /init's environment, and so the tests.
# hackbench is 20 times slower under KASAN and TCG: fewer loops, same checks.
append="HWT_HACKBENCH_LOOPS=${HWT_HACKBENCH_LOOPS:-20}"
[ -z "${HWT_DEBUG_TESTS-}" ] || append+=" hwt.tests=$HWT_DEBUG_TESTS"
[ -z "${HWT_SOAK_SECS-}" ] || append+=" HWT_SOAK_SECS=$HWT_SOAK_SECS"
[ -z "${HWT_FUZZ_SECS-}" ] || append+=" HWT_FUZZ_SECS=$HWT_FUZZ_SECS"

echo "check-debug: VM, smp $smp, ${mem} MB" >&2
t0=$(date +%s)
# run.sh judges the raw log; the verdict that counts is the one below.
bash scripts/vm/run.sh --kernel "$kdir/bzImage" --smp "$smp" --mem "$mem" \
	--timeout "$timeout" --append "${append# }" --log "$out/vm.log" \
	-i "$out/vm.cpio.gz" >/dev/null 2>"$out/run.err" || true
vm_secs=$(($(date +%s) - t0))
grep '^run.sh:' "$out/run.err" >&2 || true

# Mark the expected allocation-failure dumps (see the top of this file), and
# what the kernel reported before hwtrace was first loaded (a TCG guest has
# shown a KASAN report from its own early boot): not ours, shown, not judged.
loaded=$(sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\] hwtrace: ready.*/\1/p' "$out/vm.log" | head -n 1)
awk -v t="${loaded:-0}" '
	/^\[ *[0-9]+\.[0-9]+\] / {
		ts = substr($0, 2, index($0, "]") - 2) + 0
		if (ts < t + 0 && /BUG:|WARNING:|KASAN|UBSAN|Call Trace:|circular|lockdep/) {
			if (/BUG:|WARNING:|KASAN:|UBSAN:|circular/)
				print "  " substr($0, index($0, "]") + 2) >"/dev/stderr"
			gsub(/BUG:|WARNING:|KASAN|UBSAN|Call Trace:|circular|lockdep/, "(boot)")
		}
	}
	/hwt-fault-injection: begin/ { win = 1 }
	/hwt-fault-injection: end/ { win = 0; armed = 0 }
	win && /vmalloc error:/ { armed = 1 }
	win && armed && /Call Trace:/ {
		sub(/Call Trace:/, "Call-Trace (expected: injected allocation failure):")
		armed = 0
	}
	{ print }
' "$out/vm.log" >"$out/vm-judged.log" 2>"$out/boot-reports.log"
if [ -s "$out/boot-reports.log" ]; then
	echo "check-debug: the kernel reported problems before hwtrace was loaded (not judged):" >&2
	sort -u "$out/boot-reports.log" | head -n 5 >&2
	echo "check-debug: (the whole log: $out/vm.log)" >&2
fi

rc=0
bash scripts/vm/check-log.sh "$out/vm-judged.log" >/dev/null 2>"$out/check-log.err" || rc=1
sed "s|$out/vm-judged.log|vm.log|" "$out/check-log.err" >&2
bash scripts/vm/tap-summary.sh -l vm-debug "$out/vm-judged.log" 2>/dev/null || true
echo "check-debug: kernel ${build_secs}s (cold build ${cold}s), VM ${vm_secs}s, total $(($(date +%s) - start))s"
exit "$rc"
