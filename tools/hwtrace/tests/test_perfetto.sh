#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace convert -O perfetto, read back by tools that are not ours: protoc
# (protobuf-compiler) decodes the .pftrace against libhwt/conv/perfetto.proto,
# and perfetto_sched.py rebuilds the per-CPU sched slices from it and
# compares them with the .hwt's context switches as hwtrace dump prints
# them (count and time of every switch, per CPU).  The trace is
# bench/gen_trace.c's (4 CPUs, consistent switches, wakeups, IRQs, timers).
# Then the bad paths: a .hwt cut off converts what it holds (exit 3) into a
# trace that still decodes and matches; a cut .pftrace does not decode; a
# switch missing from the .hwt side is caught.  protoc or /usr/bin/python3
# missing is a failure (scripts/deps.sh build installs them).
#
# Run from tools/hwtrace (make check).  Prints Check's summary line, which
# make check's totals count.
set -u

cd "$(dirname "$0")/.." || exit 1
checks=0
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
proto_dir=../../libhwt/conv
py=/usr/bin/python3

ok() {
	checks=$((checks + 1))
	echo "ok: $1"
}

fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "FAIL: $1"
}

# check MESSAGE COMMAND...: one check, passed when COMMAND succeeds
check() {
	local msg=$1

	shift
	if "$@"; then
		ok "$msg"
	else
		fail "$msg"
	fi
}

summary() {
	echo "$(((checks - failures) * 100 / (checks ? checks : 1)))%: Checks: $checks, Failures: $failures, Errors: 0"
	[ "$failures" -eq 0 ]
	exit
}

decode() {
	protoc --proto_path="$proto_dir" --decode=perfetto.protos.Trace \
		"$proto_dir/perfetto.proto" <"$1" >"$2" 2>"$tmp/protoc.err"
}

if command -v protoc >/dev/null; then
	ok "protoc is installed"
else
	fail "protoc is missing (protobuf-compiler: scripts/deps.sh build)"
	summary
fi
if [ -x "$py" ]; then
	ok "$py is installed"
else
	fail "$py is missing"
	summary
fi

read -ra libs <<<"$(pkg-config --libs libzstd zlib libprotobuf-c)"
if cc -std=gnu11 -O2 -I../../libhwt/include -I../../include/uapi \
	-o "$tmp/gen_trace" ../../bench/gen_trace.c ../../libhwt/build/libhwt.a \
	"${libs[@]}" &&
	"$tmp/gen_trace" "$tmp/t.hwt" 200000 4 >/dev/null; then
	ok "gen_trace wrote a 200000-record trace"
else
	fail "gen_trace"
	summary
fi

# --- the whole trace ----------------------------------------------------------
build/hwtrace convert -O perfetto -o "$tmp/t.pftrace" "$tmp/t.hwt"
rc=$?
check "convert: exit $rc (0)" [ $rc -eq 0 ]
if decode "$tmp/t.pftrace" "$tmp/t.txt"; then
	ok "protoc decodes the trace"
else
	fail "protoc: $(cat "$tmp/protoc.err")"
fi
build/hwtrace dump "$tmp/t.hwt" >"$tmp/t.dump"
if "$py" tests/perfetto_sched.py "$tmp/t.txt" "$tmp/t.dump"; then
	ok "every switch of every CPU, and the slices, as in the .hwt"
else
	fail "the trace's sched slices differ from the .hwt's switches"
fi
n=$(grep -c 'sched_switch {' "$tmp/t.txt")
want=$(grep -c ' task_schedule ' "$tmp/t.dump")
check "$n switches in the trace, $want in the .hwt" [ "$n" -gt 1000 -a "$n" -eq "$want" ]

# --- bad paths ----------------------------------------------------------------
# a switch the trace has but the .hwt does not: the checker must see it
sed '0,/ task_schedule /{/ task_schedule /d}' "$tmp/t.dump" >"$tmp/short.dump"
if "$py" tests/perfetto_sched.py "$tmp/t.txt" "$tmp/short.dump" >/dev/null 2>&1; then
	fail "the checker missed a switch"
else
	ok "the checker fails on a missing switch"
fi
# a .pftrace cut in the middle of a packet does not decode
size=$(stat -c %s "$tmp/t.pftrace")
head -c $((size / 2 + 7)) "$tmp/t.pftrace" >"$tmp/cut.pftrace"
if decode "$tmp/cut.pftrace" "$tmp/cut.txt"; then
	fail "protoc decoded a cut trace"
else
	ok "protoc rejects a cut trace"
fi
# a .hwt cut off: what it holds, exit 3, a valid trace of it
size=$(stat -c %s "$tmp/t.hwt")
head -c $((size * 3 / 5 + 5)) "$tmp/t.hwt" >"$tmp/cut.hwt"
build/hwtrace convert -O perfetto -o "$tmp/cut.pftrace" "$tmp/cut.hwt" 2>"$tmp/err"
rc=$?
check "cut .hwt: exit $rc (3)" [ $rc -eq 3 ]
check "cut .hwt: a warning ($(cat "$tmp/err"))" grep -q "truncated or damaged" "$tmp/err"
if decode "$tmp/cut.pftrace" "$tmp/cut.txt"; then
	ok "cut .hwt: the trace decodes"
else
	fail "cut .hwt: protoc: $(cat "$tmp/protoc.err")"
fi
build/hwtrace dump "$tmp/cut.hwt" >"$tmp/cut.dump" 2>/dev/null
if "$py" tests/perfetto_sched.py "$tmp/cut.txt" "$tmp/cut.dump" >/dev/null; then
	ok "cut .hwt: its switches, all there"
else
	fail "cut .hwt: switches differ"
fi
n=$(grep -c 'sched_switch {' "$tmp/cut.txt")
check "cut .hwt: $n of $want switches" [ "$n" -gt 0 -a "$n" -lt "$want" ]

summary
