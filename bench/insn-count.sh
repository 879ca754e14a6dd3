#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-insn: instructions and cache lines per event of each buffer's
# write path (hwtrace into a CYC and into a STOP chunk, ring_buffer, relay),
# counted by single-stepping the TCG guest with gdb through QEMU's gdbstub.
# Boots the bench payload (make bench-payload) with HWT_BENCH=insn, so that
# the guest runs bench/vm-insn.sh; once it has printed its symbols, gdb runs
# bench/insn-count.py, which writes OUTDIR/insn.md and insn.csv.  Counts, not
# times: nothing here judges them.  Fails if the counter's cross-check
# (hwt_bench_calib against objdump) or the VM run fails.
#
# usage: bench/insn-count.sh OUTDIR
#   HWT_INSN_CALLS  calls per buffer (default 20)
#   HWT_INSN_TRACE  a directory: each call's instructions there, a file per
#                   call (bench/insn-count.py)
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
calls=${HWT_INSN_CALLS:-20}
build=$top/build
log=$build/bench-insn.log
gdblog=$build/bench-insn-gdb.log
[ -r "$build/bench.cpio.gz" ] || { echo "$0: no $build/bench.cpio.gz: make bench-payload" >&2; exit 2; }
kernel=$(bash "$top/scripts/vm-kernel.sh")
release=${kernel#/boot/vmlinuz-}
mkdir -p "$out"
sock=$(mktemp -u /tmp/hwt-insn.XXXXXX.sock)
start=$(date +%s)

# the VM leads its own process group (setsid): on an early exit, the whole
# of it (run.sh, timeout, qemu, the log's pipe) goes
vm=
trap 'rm -f "$sock"; [ -z "$vm" ] || kill -- "-$vm" 2>/dev/null || true' EXIT

: >"$log"
# --icount 0: the guest's clock counts its instructions (1 ns each), so the
# guest time a call's steps take is the same in every run, whatever gdb and
# the host's load do.  On the host's clock it is long: ring_buffer then
# sometimes takes its time-extend path (events more than 2^27 ns apart, 35
# more instructions), and a tick may set need_resched, which sends the
# write's preempt_enable() down its resched branch (1 or 2 more).  One
# vCPU: QEMU 7.2 hangs bringing up a second under icount.  The paths are per
# CPU: a 2-vCPU run without icount stepped the same instructions but for
# those two branches (HWT_INSN_TRACE, diffed).  The guest's deadline: boot,
# warm-up, and gdb's 15,000 steps of a few ms each.
setsid nice bash "$top/scripts/vm/run.sh" --smp 1 --mem 1024 --timeout 900 --quiet \
	--gdb "$sock" --icount 0 --append "tsc=reliable HWT_BENCH=insn HWT_INSN_CALLS=$calls" \
	--log "$log" -i "$build/bench.cpio.gz" &
vm=$!

# its symbols on the console: the guest now waits for gdb
until grep -q HWT-INSN-KALLSYMS-END "$log"; do
	if ! kill -0 "$vm" 2>/dev/null || [ $(($(date +%s) - start)) -gt 600 ]; then
		echo "$0: the guest never printed its symbols; log $log" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	sleep 1
done

git_rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD -- kmod 2>/dev/null || git_rev="$git_rev+kmod changes"
HWT_INSN_SOCK=$sock HWT_INSN_LOG=$log \
	HWT_INSN_KO=$top/bench/kmod/hwt_bench.ko HWT_INSN_CALLS=$calls \
	HWT_INSN_OPS=$top/bench/insn_ops.py HWT_INSN_OUT=$out HWT_INSN_TRACE=${HWT_INSN_TRACE:-} \
	HWT_INSN_HEADER="Kernel $release, 1 vCPU under QEMU TCG (-icount shift=0, tsc=reliable), hwtrace.ko of $git_rev, $(date -u +%Y-%m-%d)." \
	nice gdb -batch -nx -x "$top/bench/insn-count.py" >"$gdblog" 2>&1 ||
	{ tail -n 20 "$gdblog" >&2; echo "$0: gdb failed; log $gdblog" >&2; exit 1; }

rc=0
wait "$vm" || rc=1
vm=
cat "$out/insn.md"
echo "insn-count: $(($(date +%s) - start)) s, logs $log $gdblog" >&2
exit "$rc"
