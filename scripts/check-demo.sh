#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, checked: run scripts/demo.sh, then judge what it left in
# out/demo/ as TAP: every file there, the trace read back whole and
# without loss, each conversion valid by the format's own rules as far as
# a stock tool can tell (xmllint against atf.xsd, json.tool, record sizes).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
out=out/demo
hwtrace=tools/hwtrace/build/hwtrace
n=0
failed=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
}

echo "TAP version 13"
echo "1..11"
bash scripts/demo.sh >build/demo-summary.txt 2>&1
tap $? "make demo ran"
sed 's/^/# /' build/demo-summary.txt

missing=0
for f in trace.hwt trace.htf trace.atf trace.btf trace.tband shark/0trace.dat \
	shark/1trace.dat trace.json; do
	[ -s "$out/$f" ] || { echo "# missing or empty: $f"; missing=1; }
done
tap $missing "out/demo holds trace.{hwt,htf,atf,btf,tband,json} and shark/{0,1}trace.dat"

"$hwtrace" stats "$out/trace.hwt" >build/demo-stats.txt 2>&1
tap $? "the trace came back whole (stats reads it without a warning)"
events=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' build/demo-stats.txt | head -n 1)
lost=$(sed -n 's/^lost: *\([0-9]*\) events.*/\1/p' build/demo-stats.txt | head -n 1)
[ "${events:-0}" -gt 1000 ]
tap $? "hackbench gave a real trace (${events:-?} events)"
[ "${lost:-1}" -eq 0 ]
tap $? "nothing lost (${lost:-?})"
grep -q '^task_schedule ' build/demo-stats.txt &&
	grep -q '^interrupt_start ' build/demo-stats.txt
tap $? "task switches and IRQs recorded"

xmllint --noout --schema libhwt/conv/atf.xsd "$out/trace.atf" 2>build/demo-xmllint.txt
tap $? "trace.atf is valid against atf.xsd"
python3 -m json.tool "$out/trace.json" >/dev/null 2>&1
tap $? "trace.json is JSON"
size0=$(stat -c %s "$out/shark/0trace.dat")
size1=$(stat -c %s "$out/shark/1trace.dat")
[ $((size0 % 16)) -eq 0 ] && [ $((size1 % 16)) -eq 0 ] && [ "$size0" -gt 0 ] &&
	[ "$size1" -gt 0 ]
tap $? "shark/{0,1}trace.dat are whole 16-byte records ($size0, $size1 bytes)"
head -n 1 "$out/trace.htf" | grep -q '^#Format HTF'
tap $? "trace.htf starts with #Format HTF"
head -n 1 "$out/trace.btf" | grep -q '^#version'
tap $? "trace.btf starts with #version"
# Trace Compass splits a BTF line at its first 7 commas, no quote handling:
# every data line must come through (integer time, known type, names
# without quotes or whitespace)
bad=$(awk -F, '
	/^#/ || /^$/ { next }
	NF < 7 || $1 !~ /^[0-9]+$/ ||
	$4 !~ /^(STI|T|ISR|R|IB|I|ECU|P|C|SCHED|SIG|SEM|SIM|SYS)$/ { n++; next }
	{ for (i = 2; i <= 7; i++) if ($i ~ /["[:space:]]/) { n++; next } }
	END { print n + 0 }' "$out/trace.btf")
[ "$bad" -eq 0 ]
tap $? "Trace Compass reads every trace.btf line ($bad it would drop or misread)"
exit $failed
