# SPDX-License-Identifier: GPL-2.0
"""Count the instructions and cache lines of each buffer's write path.

Run by bench/insn-count.sh as `gdb -batch -nx -x bench/insn-count.py` while
the bench VM (bench/vm-insn.sh in the guest) waits for it.  gdb attaches to
QEMU's gdbstub, breaks on hwt_bench.ko's write functions
(hwt_bench_write_hwtrace, _ring_buffer, _relay) and on its calibration
function, and single-steps each call from its entry to its return, callees
included.  For every instruction it records the function it is in and,
from the registers before it executes, the 64-byte lines of data its memory
operands touch (bench/insn_ops.py): on the task's stack (the 16 KiB
THREAD_SIZE area rsp is in at entry: pushes, pops, calls, rets, spills) or
elsewhere.  QEMU's single-step masks interrupts and timers (qqemu.sstep), so
a call's count is its own path.

Environment (all set by insn-count.sh):
  HWT_INSN_SOCK    the gdbstub's unix socket
  HWT_INSN_LOG     the console log, with the guest's symbols
  HWT_INSN_KO      the hwt_bench.ko the guest loaded (objdump cross-check)
  HWT_INSN_CALLS   calls per buffer the guest makes
  HWT_INSN_OUT     directory for insn.md and insn.csv
  HWT_INSN_HEADER  a line saying what ran (kernel, module, date)
  HWT_INSN_TRACE   if set, a directory for each call's instructions, one
                   file per call (BUFFER-MODE-N.txt): what to diff when a
                   count changes
"""
import base64
import bisect
import gzip
import os
import re
import statistics
import subprocess
import sys
from collections import Counter

import gdb

sys.dont_write_bytecode = True     # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(os.environ.get("HWT_INSN_OPS",
                                                                  "bench/insn_ops.py"))))
import insn_ops  # noqa: E402

THREAD_SIZE = 16384
MAX_STEPS = 200000
BUFFERS = {
    "hwt_bench_write_hwtrace": "hwtrace",
    "hwt_bench_write_ring_buffer": "ring_buffer",
    "hwt_bench_write_relay": "relay",
}
CALIB = "hwt_bench_calib"
BEGIN = "hwt_bench_insn_begin"
GO = "insn_go"
# the write functions each round calls, by hwtrace chunk mode and clock
# (vm-insn.sh's order)
ALL = ["hwt_bench_write_hwtrace", "hwt_bench_write_ring_buffer", "hwt_bench_write_relay"]
ROUNDS = {
    "cyc-tsc": ALL,
    "stop-tsc": ["hwt_bench_write_hwtrace"],
    "cyc-mono": ALL,
    "stop-mono": ["hwt_bench_write_hwtrace"],
}
# what the rows mean, in the table's order
ROWS = [
    ("hwtrace", "cyc-tsc", "CYC chunk (as make bench), TSC"),
    ("hwtrace", "stop-tsc", "STOP chunk, not full, TSC"),
    ("relay", "cyc-tsc", "overwrite, TSC"),
    ("ring_buffer", "cyc-tsc", "overwrite, its own clock"),
    ("hwtrace", "cyc-mono", "CYC chunk, monotonic clock"),
    ("hwtrace", "stop-mono", "STOP chunk, not full, monotonic clock"),
    ("relay", "cyc-mono", "overwrite, monotonic clock"),
    ("ring_buffer", "cyc-mono", "overwrite, its own clock (again)"),
]


class Symbols:
    """Addresses to names, from the guest's /proc/kallsyms (its console copy:
    gzip, base64): Debian's /boot/System.map holds no symbols."""

    def __init__(self, log):
        self.addr = {}
        text = open(log, errors="replace").read()
        b64 = text.split("HWT-INSN-KALLSYMS-BEGIN\n", 1)[1].split("HWT-INSN-KALLSYMS-END", 1)[0]
        table = gzip.decompress(base64.b64decode("".join(b64.split()))).decode()
        syms = []
        for line in table.splitlines():
            f = line.split()
            if len(f) < 3:
                continue
            a = int(f[0], 16)
            syms.append((a, f[2], f[1]))
            if len(f) > 3 or f[2] not in self.addr:     # a module's name wins
                self.addr[f[2]] = a
        syms.sort()
        self.keys = [s[0] for s in syms]
        self.syms = syms

    def name(self, a, text_only=False):
        i = bisect.bisect_right(self.keys, a) - 1
        while i >= 0 and text_only and self.syms[i][2] not in "tTwW":
            i -= 1
        if i < 0:
            return hex(a)
        base, name, _ = self.syms[i]
        off = a - base
        if off > 0x100000:
            return hex(a)
        return f"{name}+{off:#x}" if off else name

    def function(self, pc):
        return self.name(pc, text_only=True).split("+")[0]


def reg(name):
    v = gdb.selected_frame().read_register(name)
    return int(v.cast(gdb.lookup_type("long"))) & insn_ops.MASK


def read_u64(addr):
    return int.from_bytes(gdb.selected_inferior().read_memory(addr, 8).tobytes(), "little")


_disasm = {}


def disasm(pc):
    if pc not in _disasm:
        d = gdb.selected_frame().architecture().disassemble(pc)[0]
        _disasm[pc] = (d["asm"], d["length"])
    return _disasm[pc]


def step_call(syms):
    """Single-step one call from its entry to its return: its figures."""
    sp0 = reg("rsp")
    ret = read_u64(sp0)
    gs_base = reg("gs_base")
    stack = sp0 // THREAD_SIZE
    n = 0
    funcs = Counter()
    data = {}       # line -> the first access to it: pc, asm, what it named
    stk = set()
    prev = None
    trace = []
    while True:
        pc = reg("pc")
        if pc == ret and reg("rsp") > sp0:
            break
        asm, length = disasm(pc)
        if not (pc == prev and insn_ops.is_rep(asm)):  # a rep's next iteration
            n += 1
            funcs[syms.function(pc)] += 1
            trace.append(f"{syms.name(pc)}\t{asm}")
        for ea, size, _ in insn_ops.accesses(asm, pc, length, reg):
            for line in insn_ops.lines(ea, size):
                if ea // THREAD_SIZE == stack:
                    stk.add(line)
                elif line not in data:
                    # a per-CPU variable's symbol is its offset from gs_base
                    what = "per-CPU " + syms.name(ea - gs_base) if "%gs:" in asm \
                        else syms.name(ea)
                    data[line] = (pc, asm, what)
        prev = pc
        if n > MAX_STEPS:
            raise RuntimeError(f"no return after {MAX_STEPS} instructions")
        gdb.execute("stepi", to_string=True)
    return {"insns": n, "data": data, "stack": len(stk), "funcs": funcs, "trace": trace}


def objdump_count(ko, func):
    """Instructions of func in ko up to its first return (objdump -dr)."""
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", ko], check=True,
                         capture_output=True, text=True).stdout
    body = out.split(f"<{func}>:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    n = 0
    for i, line in enumerate(body):
        if not re.match(r"^\s+[0-9a-f]+:\t", line):
            continue
        n += 1
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if re.search(r"\tret", line) or "__x86_return_thunk" in nxt:
            return n
    raise RuntimeError(f"no return in {func}")


def med(v):
    return statistics.median(v) if v else 0


def fmt(x):
    return f"{x:g}"


def span(v):
    m, lo, hi = med(v), min(v), max(v)
    return fmt(m) if lo == hi else f"{fmt(m)} ({lo}-{hi})"


def report(out, calls, results, calib, calib_want, sstep, syms):
    rows = []
    with open(os.path.join(out, "insn.csv"), "w") as f:
        f.write("buffer,mode,call,instructions,lines_nonstack,lines_stack\n")
        for (buf, mode), rs in results.items():
            for i, r in enumerate(rs):
                f.write(f"{buf},{mode},{i},{r['insns']},{len(r['data'])},{r['stack']}\n")
    md = ["# Write path: instructions and cache lines per event", ""]
    md += [os.environ.get("HWT_INSN_HEADER", ""), ""]
    md += [f"Counted by single-stepping the guest through QEMU's gdbstub (`make bench-insn`,",
           "bench/insn-count.py): each buffer's write function (hwt_bench.ko's",
           "`hwt_bench_write_<buffer>`, one 16-byte record) from its entry to its return,",
           "callees included (the clock read, ring_buffer's and relay's internals), after",
           "a warm-up that wraps CYC, ring_buffer and relay twice (a STOP chunk: an eighth",
           f"of it, no consumer). {calls} calls per buffer, need_resched clear; QEMU's",
           f"single-step masks interrupts and timers (qqemu.sstep={sstep}) and the guest's",
           "clock counts instructions (-icount), so a call's count is its own path and the",
           "same in every run; a rare slow path (a page or sub-buffer switch) shows as the max.",
           "Cache lines: distinct 64-byte lines touched by memory operands, on the task's",
           "stack (push/pop/call/ret, spills) or not. Counts, not times: medians, (min-max)",
           "when the calls differ. hwtrace and relay are measured with each clock hwtrace",
           "offers: the TSC (rdtsc_ordered inline, hwtrace's default where the TSC is",
           "invariant; chosen with clock=tsc here, as TCG flags no invariant TSC) and the",
           "monotonic clock (ktime_get_mono_fast_ns, a call); ring_buffer keeps its own",
           "(trace_clock_local). The breakdown below shows each function's share.", ""]
    md += ["| buffer | mode | instructions (median) | min | max | cache lines, non-stack | stack |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for buf, mode, desc in ROWS:
        rs = results.get((buf, mode), [])
        if not rs:
            md.append(f"| {buf} | {desc} | - | - | - | - | - |")
            continue
        ins = [r["insns"] for r in rs]
        md.append(f"| {buf} | {desc} | {fmt(med(ins))} | {min(ins)} | {max(ins)} | "
                  f"{span([len(r['data']) for r in rs])} | {span([r['stack'] for r in rs])} |")
        rows.append((buf, mode, desc, rs))
    if calib:
        got = [r["insns"] for r in calib]
        md += ["", f"Cross-check: `{CALIB}` ({len(calib)} calls), {calib_want} instructions in",
               f"`objdump -d hwt_bench.ko` (up to its return): counted {span(got)}; cache lines",
               f"non-stack {span([len(r['data']) for r in calib])} (want 2: two words 64 bytes apart),",
               f"stack {span([r['stack'] for r in calib])} (want 1: its ret)."]
    md += ["", "### The median call, function by function", "",
           "Instructions per function, and the first instruction to touch each non-stack line",
           "(what the line holds, when a symbol covers it)."]
    for buf, mode, desc, rs in rows:
        m = sorted(rs, key=lambda r: r["insns"])[(len(rs) - 1) // 2]
        md += ["", f"**{buf}, {desc}**: {m['insns']} instructions, {len(m['data'])} non-stack lines, "
               f"{m['stack']} stack lines", ""]
        md.append("- " + ", ".join(f"{fn} {c}" for fn, c in m["funcs"].items()))
        for line, (pc, asm, what) in m["data"].items():
            what = "" if "0x" in what.split("+")[0] else f" ({what.split('+')[0]})"
            asm = re.sub(r"\s+", " ", asm.split("#")[0].strip())
            md.append(f"- line {line * insn_ops.LINE:#x}{what}: {syms.name(pc)} `{asm}`")
    with open(os.path.join(out, "insn.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def main():
    env = os.environ
    calls = int(env.get("HWT_INSN_CALLS", "20"))
    syms = Symbols(env["HWT_INSN_LOG"])
    for name in list(BUFFERS) + [CALIB, BEGIN, GO]:
        if name not in syms.addr:
            raise RuntimeError(f"{name} not in the guest's symbols")
    calib_want = objdump_count(env["HWT_INSN_KO"], CALIB)

    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("target remote " + env["HWT_INSN_SOCK"])
    sstep = gdb.execute("maintenance packet qqemu.sstep", to_string=True)
    sstep = re.search(r'received: "([^"]*)"', sstep).group(1)
    if int(sstep, 16) & 6 != 6:
        raise RuntimeError(f"QEMU's single-step lets interrupts or timers in ({sstep})")
    # the write functions' breakpoints go in only for a round's calls: the
    # warm-up before them calls the same functions a hundred thousand times
    gdb.execute(f"hbreak *{syms.addr[BEGIN]:#x}", to_string=True)
    gdb.selected_inferior().write_memory(syms.addr[GO], (1).to_bytes(4, "little"))

    results = {}
    calib = []
    for _ in ROUNDS:
        gdb.execute("set scheduler-locking off")
        gdb.execute("continue", to_string=True)
        if reg("pc") != syms.addr[BEGIN]:
            raise RuntimeError(f"stopped at {syms.name(reg('pc'))}, not at {BEGIN}")
        mode = gdb.selected_inferior().read_memory(reg("rdi"), 16).tobytes()
        mode = mode.split(b"\0")[0].decode()
        names = [CALIB] + ROUNDS[mode]
        print(f"insn-count: {calls} calls of {', '.join(names)} into a {mode} chunk",
              file=sys.stderr)
        at = {syms.addr[n]: n for n in names}
        bps = [gdb.Breakpoint(f"*{a:#x}", type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
               for a in at]
        left = calls * len(names)
        while left:
            gdb.execute("set scheduler-locking off")
            gdb.execute("continue", to_string=True)
            name = at.get(reg("pc"))
            if name is None:
                raise RuntimeError(f"stopped at {syms.name(reg('pc'))}, not at a breakpoint")
            # only this vCPU runs while it steps
            gdb.execute("set scheduler-locking on")
            r = step_call(syms)
            if name == CALIB:
                calib.append(r)
            else:
                rs = results.setdefault((BUFFERS[name], mode), [])
                rs.append(r)
                if env.get("HWT_INSN_TRACE"):
                    path = os.path.join(env["HWT_INSN_TRACE"],
                                        f"{BUFFERS[name]}-{mode}-{len(rs) - 1}.txt")
                    with open(path, "w") as f:
                        f.write("\n".join(r["trace"]) + "\n")
            left -= 1
        for b in bps:
            b.delete()
    gdb.execute("delete")
    gdb.execute("set scheduler-locking off")
    gdb.execute("detach")
    report(env["HWT_INSN_OUT"], calls, results, calib, calib_want, sstep, syms)
    if any(r["insns"] != calib_want for r in calib):
        raise RuntimeError(f"the counter is off: {CALIB} has {calib_want} instructions")


try:
    main()
except Exception as e:  # gdb -batch ends with 0 unless told otherwise
    print(f"insn-count: {e}", file=sys.stderr)
    try:
        gdb.execute("kill", to_string=True)     # the VM: nothing left to wait for
    except gdb.error:
        pass
    os._exit(1)
