#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test the VM harness itself; prints TAP, exit 0 if all pass.
#   (default)  the log analyser (check-log.sh, tap-summary.sh) against the
#              sample logs in testdata/: verdict and counts of each
#   --boot     also boot testdata/payload in real guests (smp 2 and 4): TAP
#              and tools (hackbench, trace-cmd, stress-ng) inside, the guest
#              deadline, a kernel panic; logs go to build/vm-selftest/
#
# usage: scripts/vm/selftest.sh [--boot]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
data=$here/testdata
boot=0
case ${1-} in
--boot) boot=1 ;;
"") ;;
*) echo "usage: $0 [--boot]" >&2; exit 2 ;;
esac

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $*"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $*"
}

# Why check-log.sh must reject a log: the words it must print for each reason.
declare -A reason_text=(
	[done]="no HWT-VM-DONE line"
	[rc]="run.sh exited with rc="
	[timeout]="guest timeout"
	[tap]="TAP failures"
	[notap]="no TAP results"
	[kernel]="kernel reported problems"
)

# verdict LOG REASONS SUMMARY: check-log.sh prints SUMMARY, and fails for
# exactly the comma-separated REASONS ("-": passes, stderr empty).
verdict() {
	local log=$1 reasons=$2 want=$3 out err rc=0 r why=
	err=$(mktemp)
	out=$(bash "$here/check-log.sh" "$data/$log" 2>"$err") || rc=$?
	if [ "$out" != "$want" ]; then
		why=" summary '$out'"
	elif [ "$reasons" = - ]; then
		[ "$rc" = 0 ] && [ ! -s "$err" ] || why=" rc $rc"
	else
		[ "$rc" = 1 ] || why=" rc $rc"
		for r in "${!reason_text[@]}"; do
			if [[ ,$reasons, == *",$r,"* ]]; then
				grep -q -F "${reason_text[$r]}" "$err" || why+=" no '$r'"
			else
				! grep -q -F "${reason_text[$r]}" "$err" || why+=" unexpected '$r'"
			fi
		done
	fi
	if [ -z "$why" ]; then
		ok "$log: ${reasons/#-/passes}, $out"
	else
		sed 's/^/# /' "$err"
		not_ok "$log: want ${reasons/#-/pass}, '$want'; got$why"
	fi
	rm -f "$err"
}

analyser_tests=(
	# log                   fails for       summary
	"clean.log              -               vm: 3 passed, 0 failed, 2 skipped"
	"interleaved.log        -               vm: 2 passed, 0 failed, 2 skipped"
	"runner-nested.log      -               vm: 3 passed, 0 failed, 2 skipped"
	"trailing-plan.log      -               vm: 2 passed, 0 failed, 0 skipped"
	"plan-skip-all.log      -               vm: 0 passed, 0 failed, 1 skipped"
	"not-ok.log             rc,tap          vm: 2 passed, 1 failed, 0 skipped"
	"not-ok-rc0.log         tap             vm: 2 passed, 1 failed, 0 skipped"
	"runner-fail.log        tap             vm: 2 passed, 1 failed, 0 skipped"
	"runner-crash.log       tap             vm: 2 passed, 1 failed, 1 skipped"
	"plan-short.log         tap             vm: 2 passed, 1 failed, 0 skipped"
	"bail-out.log           tap             vm: 1 passed, 1 failed, 0 skipped"
	"no-tap.log             notap           vm: 0 passed, 0 failed, 0 skipped"
	"bug-null.log           kernel          vm: 2 passed, 0 failed, 1 skipped"
	"warning.log            kernel          vm: 2 passed, 0 failed, 1 skipped"
	"lockdep.log            kernel          vm: 2 passed, 0 failed, 1 skipped"
	"stall.log              kernel          vm: 2 passed, 0 failed, 1 skipped"
	"hung-task.log          kernel          vm: 2 passed, 0 failed, 1 skipped"
	"cfi-failure.log        kernel          vm: 3 passed, 0 failed, 2 skipped"
	"no-done.log            done,tap        vm: 1 passed, 2 failed, 0 skipped"
	"panic.log              done,tap,kernel vm: 1 passed, 2 failed, 0 skipped"
	"timeout.log            rc,timeout,tap  vm: 1 passed, 2 failed, 0 skipped"
	"expected-panic.log     -               vm: 3 passed, 0 failed, 0 skipped"
	"panic-after-reboot.log kernel          vm: 3 passed, 0 failed, 0 skipped"
	"expected-oops.log      -               vm: 3 passed, 0 failed, 0 skipped"
	"expected-oops-6.12.log -               vm: 3 passed, 0 failed, 0 skipped"
	"oops-twice.log         kernel          vm: 3 passed, 0 failed, 0 skipped"
	"oops-not-ours.log      kernel          vm: 3 passed, 0 failed, 0 skipped"
	"oops-unmarked.log      kernel          vm: 3 passed, 0 failed, 0 skipped"
)

boot_tests=(
	# mode  smp  timeout  rc  summary (or log line that must be there)
	"tap    2    60       0   vm: 1 passed, 0 failed, 1 skipped"
	"tap    4    60       0   vm: 1 passed, 0 failed, 1 skipped"
	"tools  2    120      0   vm: 7 passed, 0 failed, 0 skipped"
	"tools  4    120      0   vm: 7 passed, 0 failed, 0 skipped"
	"hang   2    5        1   HWT-VM-DONE rc=124"
	"crash  2    60       1   Kernel panic - not syncing"
)

echo "TAP version 13"
echo "1..$((${#analyser_tests[@]} + boot * ${#boot_tests[@]}))"

for t in "${analyser_tests[@]}"; do
	read -r log reasons summary <<<"$t"
	verdict "$log" "$reasons" "$summary"
done

if [ "$boot" = 1 ]; then
	out=$here/../../build/vm-selftest
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	bash "$here/mkinitramfs.sh" -o "$out/initramfs.cpio.gz" -p "$data/payload" \
		-b /usr/bin/trace-cmd -b /usr/bin/hackbench -b /usr/bin/stress-ng
	for t in "${boot_tests[@]}"; do
		read -r mode smp timeout want_rc want <<<"$t"
		name="boot $mode, smp $smp"
		log=$out/$mode-smp$smp.log
		rc=0
		start=$(date +%s)
		res=$(bash "$here/run.sh" --quiet --smp "$smp" --timeout "$timeout" \
			--append "hwt.selftest=$mode hwt.cpus=$smp" --log "$log" \
			-i "$out/initramfs.cpio.gz" 2>"$log.check") || rc=$?
		echo "# $name: $(($(date +%s) - start))s wall (boot, run, power off)"
		if [ "$rc" = "$want_rc" ] && { [ "$res" = "$want" ] || grep -q -F "$want" "$log"; }; then
			ok "$name: rc $rc, $want"
		else
			echo "# want rc $want_rc and '$want'; got rc $rc, '$res'; see $log"
			sed 's/^/# /' "$log.check"
			not_ok "$name"
		fi
	done
fi

[ "$failed" = 0 ]
