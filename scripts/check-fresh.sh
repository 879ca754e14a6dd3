#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-fresh`: README's promise, tested as a new user meets it.  In a
# pristine Debian 12 root (scripts/fresh-root.sh: debootstrap minbase, the
# machine's Debian archive, nothing else), with a clean clone of this
# repository's HEAD, install the one prerequisite README names (make) and
# run README's commands: `make demo`, then `make check`.  Both must install
# everything else they need themselves.
#
# Prints make check's own output and ends with one line, "N passed, M
# failed": make check's totals plus make demo as one more test.  Logs and
# times: build/fresh/.  The root is removed afterwards (HWT_FRESH_KEEP=1
# keeps it for a look).
#
# Environment: HWT_FRESH_ROOT (default /var/tmp/hwtrace-fresh).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
root=${HWT_FRESH_ROOT:-/var/tmp/hwtrace-fresh}
out=$top/build/fresh
fresh=$top/scripts/fresh-root.sh
rm -rf "$out"
mkdir -p "$out"

# timed NAME CMD...: run CMD, log to $out/NAME.log, note its wall time
timed() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	echo "$name: $(($(date +%s) - start)) s, exit $rc" >>"$out/times.txt"
	return "$rc"
}

bash "$fresh" destroy "$root" || exit 1
if ! timed root bash "$fresh" create "$root"; then
	cat "$out/root.log"
	echo "0 passed, 1 failed"
	exit 1
fi
git clone -q --no-local "$top" "$root/root/hwtrace" || exit 1

# README: "apt-get install make", then the two commands.
timed prereq bash "$fresh" run "$root" bash -c \
	'apt-get update -q && apt-get install -y -q --no-install-recommends make'
timed demo bash "$fresh" run "$root" bash -c 'cd /root/hwtrace && make demo'
demo_rc=$?
timed check bash "$fresh" run "$root" bash -c 'cd /root/hwtrace && make check'
check_rc=$?

cat "$out/check.log"
cp -r "$root/root/hwtrace/build/check" "$out/check-logs" 2>/dev/null
echo "--- fresh root: wall times"
cat "$out/times.txt"
if [ "$demo_rc" -ne 0 ]; then
	echo "--- make demo failed in the fresh root:"
	tail -n 40 "$out/demo.log"
fi
[ "${HWT_FRESH_KEEP:-0}" = 1 ] || bash "$fresh" destroy "$root"

read -r p f < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' \
	"$out/check.log" | tail -n 1)
[ -n "${p-}" ] || { p=0; f=1; }
if [ "$check_rc" -ne 0 ] && [ "$f" -eq 0 ]; then
	f=1
fi
if [ "$demo_rc" -eq 0 ]; then
	p=$((p + 1))
else
	f=$((f + 1))
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
