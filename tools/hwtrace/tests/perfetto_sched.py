#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Rebuild per-CPU scheduling slices from a Perfetto trace and compare them
with the .hwt's context switches.

usage: perfetto_sched.py DECODED DUMP

DECODED is `protoc --decode=perfetto.protos.Trace` of the .pftrace (text
format), DUMP is `hwtrace dump` of the .hwt it came from.  Every
task_schedule record of a CPU must be exactly one sched_switch of that CPU's
bundles, at the same time (ns, floored as the converter does), with the same
prev and next pid, in the same order; the slices both describe (start, end,
pid running) must then be equal.  Also checked: bundles hold at most 1024
events, and timestamps never go back within a CPU.  Exit status 0 when all
holds, 1 otherwise (the first differences are printed).
"""
import re
import sys

BUNDLE_MAX = 1024


def parse_decoded(path):
    """Per CPU: [(ns, prev, next)] of sched_switch, in file order."""
    switches = {}
    last_ts = {}
    errors = []
    stack = []
    cpu = ev = None
    nevents = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.endswith("{"):
                name = s[:-1].strip()
                stack.append(name)
                if name == "ftrace_events":
                    cpu, nevents = None, 0
                elif name == "event" and stack[-2:-1] == ["ftrace_events"]:
                    ev = {}
                    nevents += 1
                continue
            if s == "}":
                name = stack.pop()
                if name == "event" and stack[-1:] == ["ftrace_events"]:
                    if cpu is None:
                        errors.append("an event before its bundle's cpu")
                        cpu = -1
                    ts = ev.get("timestamp", -1)
                    if ts < last_ts.get(cpu, 0):
                        errors.append(f"cpu{cpu}: time goes back at {ts}")
                    last_ts[cpu] = ts
                    if ev.get("switch"):
                        switches.setdefault(cpu, []).append(
                            (ts, ev.get("prev_pid", 0), ev.get("next_pid", 0)))
                    ev = None
                elif name == "ftrace_events" and nevents > BUNDLE_MAX:
                    errors.append(f"cpu{cpu}: a bundle of {nevents} events")
                continue
            m = re.match(r"(\w+): (-?\d+)$", s)
            if not m:
                continue
            key, val = m.group(1), int(m.group(2))
            where = stack[-1] if stack else ""
            if where == "ftrace_events" and key == "cpu":
                cpu = val
            elif where == "event" and ev is not None and key == "timestamp":
                ev["timestamp"] = val
            elif where == "sched_switch" and ev is not None:
                ev["switch"] = True
                ev[key] = val
    if stack:
        errors.append("unbalanced text")
    return switches, errors


def parse_dump(path):
    """Per CPU: [(ns, prev, next)] of task_schedule records."""
    switches = {}
    cpm = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                m = re.search(r"at (\d+) ticks/ms", line)
                if m:
                    cpm = int(m.group(1)) or 1000000
                continue
            m = re.match(r"\s*(\d+)\s+\S+\s+\[(\d+)\]\s+\S+\s+task_schedule\s+"
                         r"prev=(\d+).*? state=\S+ next=(\d+)", line)
            if m:
                ticks, cpu, prev, nxt = (int(g) for g in m.groups())
                switches.setdefault(cpu, []).append(
                    (ticks * 1000000 // cpm, prev, nxt))
    if cpm is None:
        sys.exit(f"{path}: no clock in the dump header")
    return switches


def slices(sw):
    """(start, end, pid) between consecutive switches of one CPU."""
    return [(a[0], b[0], a[2]) for a, b in zip(sw, sw[1:])]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    got, errors = parse_decoded(sys.argv[1])
    want = parse_dump(sys.argv[2])
    for cpu in sorted(set(got) | set(want)):
        g, w = got.get(cpu, []), want.get(cpu, [])
        if len(g) != len(w):
            errors.append(f"cpu{cpu}: {len(g)} switches in the trace, "
                          f"{len(w)} in the .hwt")
        for i, (a, b) in enumerate(zip(g, w)):
            if a != b:
                errors.append(f"cpu{cpu}: switch {i}: trace {a}, .hwt {b}")
                break
        if slices(g) != slices(w):
            errors.append(f"cpu{cpu}: the sched slices differ")
        else:
            print(f"cpu{cpu}: {len(g)} switches, {len(slices(g))} slices match")
    if not want:
        errors.append("no switch in the .hwt")
    for e in errors[:20]:
        print("perfetto_sched:", e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
