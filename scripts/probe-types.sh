#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build-time probe type check bites: hwtrace.ko builds against TREE as
# it is, and a copy whose softirq_entry probe takes an int where the
# tracepoint passes an unsigned int (the kind of drift kCFI traps on at run
# time) must fail to build, in a PROBE() entry's type check.  A clang tree
# (the kCFI debug kernel) is built with its LLVM toolchain.
#
# usage: scripts/probe-types.sh KERNEL_TREE OUT
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KERNEL_TREE OUT" >&2; exit 2; }
tree=$1
out=$2
cd "$(dirname "$0")/.."

# shellcheck disable=SC2207 # one word or none
llvm=($(bash scripts/kbuild-llvm.sh "$tree"))

bash scripts/module-for.sh "$tree" "$out" >/dev/null
probes=$out/kmod/probes.c
orig='static void probe_softirq_entry(void \*data, unsigned int vec)'
grep -q "^$orig" "$probes" || { echo "probe-types.sh: no probe_softirq_entry to alter" >&2; exit 1; }
sed -i "s/^$orig/static void probe_softirq_entry(void *data, int vec)/" "$probes"
if make -C "$tree" "${llvm[@]}" M="$(cd "$out" && pwd)" modules >"$out/drift.log" 2>&1; then
	echo "probe-types.sh: a probe of the wrong type built" >&2
	exit 1
fi
# gcc: "note: in expansion of macro 'PROBE'"; clang: "note: expanded from macro 'PROBE'"
if ! grep -Eq "probes.c:[0-9]+:[0-9]+: note: (in expansion of|expanded from) macro [^ ]*PROBE[^_A-Za-z]*\$" \
	"$out/drift.log"; then
	tail -n 20 "$out/drift.log" >&2
	echo "probe-types.sh: the drifted build failed, but not in the PROBE() type check" >&2
	exit 1
fi
echo "probe-types.sh: a drifted probe is a build error"
