#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# ctf_counts.py DIR: read a CTF trace with python3-bt2 (Debian's, so
# /usr/bin/python3) and print what test_ctf compares with `hwtrace stats`:
#
#   EVENT <cpu> <hwtrace event name> <count>   one per (cpu, record code)
#   DISCARDED <cpu> <count>                    events_discarded, as bt2 reports
#   STATEDUMP <tid> <name>                     lttng_statedump_process_state
#   COMM <tid> <name>                          every comm a sched_switch names
#   FREE <cpu> <tid>                           sched_process_free (synthesized)
#   SWITCH <cpu> <prev_tid> <prev_prio> <prev_state> <next_tid> <next_prio>
#   PI <tid> <oldprio> <newprio>                   sched_pi_setprio
#
# Each CTF event name maps back to the hwtrace record it came from
# (Documentation/hwtrace-formats.rst, CTF); an event it cannot map fails.
#
# ctf_counts.py DIR --stats FILE also compares with `hwtrace stats` output
# in FILE: the counts per event and per CPU must be equal (exit 1 if not).
import collections
import re
import sys

import bt2

DIRECT = {
    "sched_switch": "task_schedule",
    "sched_wakeup": "task_activate",
    "sched_wakeup_new": "task_activate",
    "sched_process_fork": "task_create",
    "sched_process_exit": "task_end",
    "sched_process_exec": "task_exec",
    "sched_migrate_task": "task_migrate",
    "sched_pi_setprio": "inheritance",
    "irq_handler_entry": "interrupt_start",
    "irq_handler_exit": "interrupt_end",
    "irq_softirq_entry": "softirq_start",
    "irq_softirq_exit": "softirq_end",
    "irq_softirq_raise": "softirq_raise",
    "timer_start": "timer_post",
    "timer_cancel": "timer_delete",
    "timer_expire_entry": "timer_wakeup_start",
    "timer_expire_exit": "timer_wakeup_end",
    "timer_hrtimer_start": "timer_post",
    "timer_hrtimer_cancel": "timer_delete",
    "timer_hrtimer_expire_entry": "timer_wakeup_start",
    "timer_hrtimer_expire_exit": "timer_wakeup_end",
    "power_cpu_frequency": "frequency",
}


def record_name(ev):
    name = ev.name
    if name in DIRECT:
        return DIRECT[name]
    if name == "power_cpu_idle":
        return "idle_exit" if int(ev.payload_field["state"]) == 0xFFFFFFFF else "idle_enter"
    m = re.fullmatch(r"x86_irq_vectors_\w+_(entry|exit)", name)
    if m:
        return "vector_start" if m.group(1) == "entry" else "vector_end"
    m = re.fullmatch(r"hwtrace_event_0x([0-9a-f]{4})", name)
    if m:
        return "unknown(0x%s)" % m.group(1)
    if name.startswith("hwtrace_"):
        return name[len("hwtrace_"):]
    raise SystemExit("ctf_counts: unexpected event %s" % name)


def main():
    counts = collections.Counter()
    discarded = collections.Counter()
    stream_cpu = {}
    for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
        if type(msg) is bt2._PacketBeginningMessageConst:
            stream_cpu[msg.packet.stream.addr] = int(msg.packet.context_field["cpu_id"])
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded[stream_cpu[msg.stream.addr]] += msg.count
        elif type(msg) is bt2._EventMessageConst:
            ev = msg.event
            cpu = int(ev.packet.context_field["cpu_id"])
            if ev.name == "lttng_statedump_process_state":
                print("STATEDUMP %d %s" % (int(ev.payload_field["tid"]),
                                           str(ev.payload_field["name"])))
                continue
            if ev.name == "sched_process_free":
                print("FREE %d %d" % (cpu, int(ev.payload_field["tid"])))
                continue
            if ev.name == "sched_pi_setprio":
                print("PI %d %d %d" % tuple(int(ev.payload_field[f])
                                            for f in ("tid", "oldprio", "newprio")))
            if ev.name == "sched_switch":
                print("SWITCH %d %d %d %d %d %d" % ((cpu,) + tuple(
                    int(ev.payload_field[f]) for f in ("prev_tid", "prev_prio", "prev_state",
                                                       "next_tid", "next_prio"))))
                for who in ("prev", "next"):
                    print("COMM %d %s" % (int(ev.payload_field[who + "_tid"]),
                                          str(ev.payload_field[who + "_comm"])))
            counts[(cpu, record_name(ev))] += 1
    for (cpu, name), n in sorted(counts.items()):
        print("EVENT %d %s %d" % (cpu, name, n))
    for cpu, n in sorted(discarded.items()):
        print("DISCARDED %d %d" % (cpu, n))
    if len(sys.argv) == 4 and sys.argv[2] == "--stats":
        compare(counts, sys.argv[3])


def compare(counts, stats_file):
    by_name, by_cpu = collections.Counter(), collections.Counter()
    for (cpu, name), n in counts.items():
        by_name[name] += n
        by_cpu[cpu] += n
    st_name, st_cpu, table = collections.Counter(), collections.Counter(), None
    with open(stats_file) as f:
        for line in f:
            if line.startswith("event "):
                table = "event"
            elif line.startswith("cpu "):
                table = "cpu"
            elif table == "event":
                m = re.match(r"(\S+)\s+0x[0-9a-f]{4}\s+(\d+)\s", line)
                if m:
                    st_name[m.group(1)] += int(m.group(2))
            elif table == "cpu":
                m = re.match(r"(\d+)\s+(\d+)\s", line)
                if m:
                    st_cpu[int(m.group(1))] = int(m.group(2))
    bad = 0
    for name in sorted(set(by_name) | set(st_name)):
        if by_name[name] != st_name[name]:
            print("MISMATCH %s: stats %d, CTF %d" % (name, st_name[name], by_name[name]))
            bad = 1
    for cpu in sorted(set(by_cpu) | set(st_cpu)):
        if by_cpu[cpu] != st_cpu[cpu]:
            print("MISMATCH cpu %d: stats %d, CTF %d" % (cpu, st_cpu[cpu], by_cpu[cpu]))
            bad = 1
    if not st_name:
        print("MISMATCH: no event table in %s" % stats_file)
        bad = 1
    if bad:
        sys.exit(1)


main()
