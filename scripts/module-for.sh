#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build hwtrace.ko against another kernel tree (a debug kernel, a newer
# Debian kernel) from a copy of the sources in OUT, so that kmod/'s own
# build products stay as they are.  W=1; any compiler warning fails.
# A tree configured with clang (the kCFI debug kernel) is built with the
# LLVM toolchain its build.sh recorded (scripts/kbuild-llvm.sh).
# Prints the path of the module; the build log is OUT/module.log.
#
# usage: scripts/module-for.sh KERNEL_TREE OUT
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KERNEL_TREE OUT" >&2; exit 2; }
tree=$1
out=$2
cd "$(dirname "$0")/.."

# shellcheck disable=SC2207 # one word or none
llvm=($(bash scripts/kbuild-llvm.sh "$tree"))

bash scripts/dkms-source.sh "$out"
if ! make -C "$tree" "${llvm[@]}" M="$(cd "$out" && pwd)" W=1 -j"$(($(nproc) + 1))" modules \
	>"$out/module.log" 2>&1; then
	tail -n 40 "$out/module.log" >&2
	echo "module-for.sh: build against $tree failed" >&2
	exit 1
fi
if grep -E 'warning:' "$out/module.log" >&2; then
	echo "module-for.sh: warnings building against $tree" >&2
	exit 1
fi
echo "$out/kmod/hwtrace.ko"
