#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: record hackbench with hwtrace in the VM, bring the trace back
# and convert it to every format into out/demo/, then summarise.
set -euo pipefail

cd "$(dirname "$0")/.." || exit 1
out=out/demo
log=build/demo.log
hwtrace=tools/hwtrace/build/hwtrace
rm -rf "$out" build/demo
mkdir -p "$out" build/demo

cp kmod/hwtrace.ko "$hwtrace" build/demo/
cp scripts/demo-vm.sh build/demo/run.sh
bash scripts/vm/mkinitramfs.sh -o build/demo.cpio.gz -p build/demo -b /usr/bin/hackbench
bash scripts/vm/run.sh --smp 2 --mem 1024 --timeout 900 --quiet --log "$log" \
	-i build/demo.cpio.gz

sed -n '/^HWT-DEMO-BEGIN$/,/^HWT-DEMO-END$/p' "$log" | sed '1d;$d' |
	base64 -d >"$out/trace.hwt"
for fmt in htf atf btf tband json; do
	"$hwtrace" convert -O "$fmt" -o "$out/trace.$fmt" "$out/trace.hwt"
done
# Perfetto's own extension: ui.perfetto.dev opens it by dragging it there
"$hwtrace" convert -O perfetto -o "$out/trace.pftrace" "$out/trace.hwt"
# CTF is a directory: babeltrace2 out/demo/ctf, or Trace Compass
"$hwtrace" convert -O ctf -o "$out/ctf" "$out/trace.hwt"
# S.Ha.R.K.: one file per CPU, 0trace.dat, 1trace.dat, ...
"$hwtrace" convert -O shark -o "$out/shark" "$out/trace.hwt"

"$hwtrace" stats "$out/trace.hwt" | sed -n '1,12p'
echo
echo "files in $out:"
for f in "$out"/* "$out"/ctf/* "$out"/shark/*; do
	[ -f "$f" ] || continue
	printf '  %-24s %10d bytes\n' "${f#"$out"/}" "$(stat -c %s "$f")"
done
