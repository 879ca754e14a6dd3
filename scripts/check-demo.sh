#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, checked: run scripts/demo.sh, then judge what it left in
# out/demo/ as TAP: every file there, the trace read back whole and
# without loss, each conversion valid by the format's own rules as far as
# a stock tool can tell (xmllint against atf.xsd, json.tool, record sizes,
# protoc against libhwt/conv/perfetto.proto, the Perfetto trace's sched
# slices against the .hwt's switches, babeltrace2 and python3-bt2 for the
# CTF directory).
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
echo "1..17"
bash scripts/demo.sh >build/demo-summary.txt 2>&1
tap $? "make demo ran"
sed 's/^/# /' build/demo-summary.txt

missing=0
for f in trace.hwt trace.htf trace.atf trace.btf trace.tband shark/0trace.dat \
	shark/1trace.dat trace.json trace.pftrace; do
	[ -s "$out/$f" ] || { echo "# missing or empty: $f"; missing=1; }
done
if ! [ -s "$out/ctf/metadata" ] || ! [ -s "$out/ctf/channel0_0" ]; then
	echo "# missing or empty: ctf/metadata, ctf/channel0_0"
	missing=1
fi
tap $missing "out/demo holds trace.{hwt,htf,atf,btf,tband,json,pftrace}, shark/{0,1}trace.dat and ctf/"

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
protoc --proto_path=libhwt/conv --decode=perfetto.protos.Trace \
	libhwt/conv/perfetto.proto <"$out/trace.pftrace" >build/demo-pftrace.txt \
	2>build/demo-protoc.txt
tap $? "protoc decodes trace.pftrace"
"$hwtrace" dump "$out/trace.hwt" >build/demo-dump.txt 2>&1 &&
	/usr/bin/python3 tools/hwtrace/tests/perfetto_sched.py \
		build/demo-pftrace.txt build/demo-dump.txt >build/demo-sched.txt 2>&1
tap $? "trace.pftrace has every switch of every CPU of trace.hwt"
sed 's/^/# /' build/demo-sched.txt
size0=$(stat -c %s "$out/shark/0trace.dat")
size1=$(stat -c %s "$out/shark/1trace.dat")
[ $((size0 % 16)) -eq 0 ] && [ $((size1 % 16)) -eq 0 ] && [ "$size0" -gt 0 ] &&
	[ "$size1" -gt 0 ]
tap $? "shark/{0,1}trace.dat are whole 16-byte records ($size0, $size1 bytes)"
head -n 1 "$out/trace.htf" | grep -q '^#Format HTF'
tap $? "trace.htf starts with #Format HTF"
head -n 1 "$out/trace.btf" | grep -q '^#version'
tap $? "trace.btf starts with #version"
babeltrace2 "$out/ctf" >build/demo-babeltrace.txt 2>build/demo-babeltrace.err &&
	[ ! -s build/demo-babeltrace.err ]
tap $? "babeltrace2 reads ctf/ without a warning"
sed 's/^/# /' build/demo-babeltrace.err
# the reader's event counts per CPU and per record code are hwtrace stats'
/usr/bin/python3 tools/hwtrace/tests/ctf_counts.py "$out/ctf" \
	--stats build/demo-stats.txt >build/demo-ctf-counts.txt 2>&1
tap $? "python3-bt2 counts in ctf/ equal hwtrace stats (per CPU, per event)"
grep -v '^COMM \|^EVENT \|^STATEDUMP \|^SWITCH \|^PI \|^FREE ' build/demo-ctf-counts.txt |
	sed 's/^/# /'
grep -q '^STATEDUMP ' build/demo-ctf-counts.txt
tap $? "ctf/ names the tasks alive at the start (lttng_statedump_process_state)"
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
