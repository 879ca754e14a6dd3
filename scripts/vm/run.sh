#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot an initramfs from scripts/vm/mkinitramfs.sh in a TCG guest, copy the
# serial console to stdout and to a log, then judge the log with
# scripts/vm/check-log.sh. Prints "vm: P passed, F failed, S skipped".
# Exit 0 if the run is clean, 1 if not, 2 on usage errors.
#
# usage: scripts/vm/run.sh [--smp N] [--mem MB] [--timeout SEC] [--kernel PATH]
#                          [--cpu MODEL] [--append ARGS] [--log FILE] [--quiet]
#                          [--reboot] [--numa NODES] [--gdb SOCKET] [--icount SHIFT]
#                          -i INITRAMFS
#   --timeout  guest deadline for /hwt/run.sh (default 600); the host kills
#              qemu 120 s after it
#   --append   extra kernel command line arguments
#   --log      console log (default: a new /tmp/hwt-vm.*.log, kept)
#   --quiet    write the console only to the log
#   --reboot   a panic reboots the guest (QEMU keeps its RAM) instead of
#              ending the run: tests that survive a crash (persist_test.sh)
#   --numa     NUMA nodes; CPUs and memory are dealt out evenly (default 1)
#   --gdb      QEMU's gdbstub on the unix socket SOCKET (gdb: target remote
#              SOCKET); the guest runs without waiting for it
#   --icount   the guest's clocks count its instructions, 2^SHIFT ns each,
#              not the host's time (-icount): a debugger's pauses and steps
#              then take none of the guest's time
set -euo pipefail

usage() {
	sed -n 's/^# \{0,1\}//; 9,25p' "$0" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
smp=2
mem=512
timeout=600
kernel=
cpu=
append=
log=
quiet=0
reboot=-no-reboot
initramfs=
numa=1
gdb=
icount=
while [ $# -gt 0 ]; do
	case $1 in
	--quiet) quiet=1; shift; continue ;;
	--reboot) reboot=; shift; continue ;;
	--smp | --mem | --timeout | --kernel | --cpu | --append | --log | --numa | --gdb | --icount | -i)
		[ $# -ge 2 ] || usage ;;
	*) usage ;;
	esac
	case $1 in
	--smp) smp=$2 ;;
	--mem) mem=$2 ;;
	--timeout) timeout=$2 ;;
	--kernel) kernel=$2 ;;
	--cpu) cpu=$2 ;;
	--append) append=$2 ;;
	--log) log=$2 ;;
	--numa) numa=$2 ;;
	--gdb) gdb=$2 ;;
	--icount) icount=$2 ;;
	-i) initramfs=$2 ;;
	esac
	shift 2
done
[ -n "$initramfs" ] || usage
for n in "$smp" "$mem" "$timeout" "$numa"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || usage
done
if [ $((smp % numa)) != 0 ] || [ $((mem % numa)) != 0 ]; then
	usage
fi
# node n: CPUs n*smp/numa.., mem/numa MB each, a socket of its own (a
# shared last-level cache across nodes makes the guest kernel warn)
smp_arg=$smp
numa_args=()
if [ "$numa" -gt 1 ]; then
	per_cpu=$((smp / numa))
	smp_arg="$smp,sockets=$numa,cores=$per_cpu,threads=1"
	for ((n = 0; n < numa; n++)); do
		numa_args+=(-object "memory-backend-ram,id=mem$n,size=$((mem / numa))M"
			-numa "node,nodeid=$n,cpus=$((n * per_cpu))-$(((n + 1) * per_cpu - 1)),memdev=mem$n")
	done
fi
[[ -z $icount || $icount =~ ^[0-9]+$ ]] || usage
debug_args=()
[ -z "$gdb" ] || debug_args=(-gdb "unix:$gdb,server=on,wait=off")
[ -z "$icount" ] || debug_args+=(-icount "shift=$icount")
[ -r "$initramfs" ] || { echo "$0: cannot read $initramfs" >&2; exit 2; }
[ -n "$kernel" ] || kernel=$(bash "$here/../vm-kernel.sh")
[ -n "$log" ] || log=$(mktemp /tmp/hwt-vm.XXXXXX.log)

# Nested KVM hangs on our CI hosts, so always TCG. "max" gives the guest the
# newest CPU features TCG emulates; older qemu builds may lack it.
if [ -z "$cpu" ]; then
	cpu=qemu64
	if qemu-system-x86_64 -accel tcg -cpu help | grep -qw max; then
		cpu=max
	fi
fi

# panic=-1 reboots at once on a panic and -no-reboot (unless --reboot) turns that into a qemu
# exit: the log then lacks HWT-VM-DONE. Oopses do not panic, so the rest of
# the run and the kernel log still reach us.  A soft lockup or a hung task
# does panic, after a backtrace of every CPU: a wedged guest would never
# dump its log, and panic_print=32 replays the whole log to the console.
cmdline="console=ttyS0 loglevel=4 panic=-1 softlockup_panic=1"
cmdline+=" softlockup_all_cpu_backtrace=1 hung_task_panic=1 panic_print=32"
cmdline+=" hwt.timeout=$timeout $append"
host_timeout=$((timeout + 120))

start=$(date +%s)
qrc=0
# -nic none: the guest only needs loopback, and no NIC means no iPXE ROM.
# thread=single: with one host thread per vCPU (QEMU 7.2's default), a vCPU
# can keep running a stale translation of kernel text another vCPU has just
# patched: after text_poke_bp() put the old bytes back, the guest spins on an
# int3 that is no longer in memory (kprobes rewinds to it each time), on all
# CPUs, with soft lockups.  Enabling tracepoints patches text under load, so
# hwtrace's tests hit it within a few runs; one TCG thread never does.
# sed -u keeps the console live; it drops \r and the firmware's terminal
# resets and screen clears.
timeout -k 10 "$host_timeout" \
	qemu-system-x86_64 -accel tcg,thread=single -cpu "$cpu" -smp "$smp_arg" -m "$mem" \
	"${numa_args[@]}" "${debug_args[@]}" \
	-nographic ${reboot:+"$reboot"} -nic none -kernel "$kernel" -initrd "$initramfs" \
	-append "$cmdline" </dev/null 2>&1 |
	sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[^[]//g' |
	if [ "$quiet" = 1 ]; then cat >"$log"; else tee "$log"; fi ||
	qrc=${PIPESTATUS[0]}
secs=$(($(date +%s) - start))

echo "run.sh: ${secs}s, smp $smp, cpu $cpu, log $log" >&2
bad=0
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run.sh: host timeout (${host_timeout}s) fired; qemu killed" >&2
	bad=1
elif [ "$qrc" != 0 ]; then
	echo "run.sh: qemu exited with $qrc" >&2
	bad=1
fi
bash "$here/check-log.sh" "$log" || bad=1
exit "$bad"
