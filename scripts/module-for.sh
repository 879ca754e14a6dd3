#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build hwtrace.ko against another kernel tree (a debug kernel, a newer
# Debian kernel) from a copy of the sources in OUT, so that kmod/'s own
# build products stay as they are.  W=1; any compiler warning fails.
# A tree configured with clang (the kCFI debug kernel) is built with the
# LLVM toolchain its build.sh recorded next to it (info: "llvm -16").
# With MODULE_DIR, the out-of-tree module there (a test module such as
# selftests/hwtrace/hwt_oops) instead of hwtrace.ko, the same way.
# Prints the path of the module; the build log is OUT/module.log.
#
# usage: scripts/module-for.sh KERNEL_TREE OUT [MODULE_DIR]
set -euo pipefail

[ $# -eq 2 ] || [ $# -eq 3 ] ||
	{ echo "usage: $0 KERNEL_TREE OUT [MODULE_DIR]" >&2; exit 2; }
tree=$1
out=$2
mod_dir=${3-}
[ -z "$mod_dir" ] || mod_dir=$(realpath "$mod_dir")
cd "$(dirname "$0")/.."

llvm=()
if grep -qx 'CONFIG_CC_IS_CLANG=y' "$tree/.config" 2>/dev/null; then
	suffix=$(sed -n 's/^llvm //p' "$tree/../info" 2>/dev/null)
	llvm=(LLVM="${suffix:-1}")
fi

if [ -n "$mod_dir" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp "$mod_dir"/Kbuild "$mod_dir"/*.[ch] "$out/"
	ko=$out/$(basename "$mod_dir").ko
else
	bash scripts/dkms-source.sh "$out"
	ko=$out/kmod/hwtrace.ko
fi
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
echo "$ko"
