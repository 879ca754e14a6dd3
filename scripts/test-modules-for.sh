#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kselftests' helper modules (selftests/hwtrace/kmod/) against a
# kernel tree, next to the hwtrace.ko that scripts/module-for.sh built for
# it in MOD_OUT (its Module.symvers resolves hwtrace_log()), from a copy in
# MOD_OUT/tests.  W=1; any warning fails.  Prints the paths of the modules.
#
# usage: scripts/test-modules-for.sh KERNEL_TREE MOD_OUT
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KERNEL_TREE MOD_OUT" >&2; exit 2; }
tree=$1
mod=$(cd "$2" && pwd)
cd "$(dirname "$0")/.."

# shellcheck disable=SC2207 # one word or none
llvm=($(bash scripts/kbuild-llvm.sh "$tree"))

out=$mod/tests
rm -rf "$out"
mkdir -p "$out/selftests/hwtrace" "$out/kmod" "$out/include/uapi/linux"
cp -r selftests/hwtrace/kmod "$out/selftests/hwtrace/"
cp kmod/hwtrace_log.h "$out/kmod/"
cp include/uapi/linux/hwtrace.h "$out/include/uapi/linux/"
dir=$out/selftests/hwtrace/kmod
if ! make -C "$tree" "${llvm[@]}" M="$dir" KBUILD_EXTRA_SYMBOLS="$mod/Module.symvers" \
	W=1 modules >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "test-modules-for.sh: build against $tree failed" >&2
	exit 1
fi
if grep -E 'warning:' "$out/build.log" >&2; then
	echo "test-modules-for.sh: warnings building against $tree" >&2
	exit 1
fi
ls "$dir"/*.ko
