#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Step 5 of make bench, on the host: every converter on a synthetic trace of
# EVENTS records (default 10 million), with wall time and peak RSS.
#
# usage: bench/host-convert.sh OUTDIR [EVENTS]
set -euo pipefail

cd "$(dirname "$0")/.." || exit 1
outdir=$1
events=${2:-10000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$outdir" build/bench-host
cc -std=gnu11 -Wall -Wextra -Werror -O2 -o build/bench-host/rusage bench/rusage.c
cc -std=gnu11 -Wall -Wextra -Werror -O2 -Ilibhwt/include -Iinclude/uapi \
	-o build/bench-host/gen_trace bench/gen_trace.c libhwt/build/libhwt.a -lzstd -lz
build/bench-host/gen_trace "$tmp/big.hwt" "$events" 4

echo "format,events,wall,user,sys,maxrss_kb,status" >"$outdir/host-convert.csv"
# ctf writes a directory (out.ctf/)
for fmt in shark htf btf tband json atf perfetto ctf; do
	build/bench-host/rusage tools/hwtrace/build/hwtrace convert -O "$fmt" \
		-o "$tmp/out.$fmt" "$tmp/big.hwt" 2>"$tmp/ru"
	rm -rf "$tmp/out.$fmt"
	sed -n 's/^rusage: wall=\([^ ]*\) user=\([^ ]*\) sys=\([^ ]*\) maxrss_kb=\([^ ]*\) status=\(.*\)/\1,\2,\3,\4,\5/p' "$tmp/ru" |
		sed "s/^/$fmt,$events,/" >>"$outdir/host-convert.csv"
done
