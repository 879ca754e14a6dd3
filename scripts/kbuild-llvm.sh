#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The LLVM= argument an external module build against TREE needs: none for
# a gcc tree; for a tree configured with clang (the kCFI debug kernel), the
# toolchain suffix its scripts/debug-kernel/build.sh recorded ("llvm -16" in
# TREE/../info), else LLVM=1.
#
# usage: scripts/kbuild-llvm.sh KERNEL_TREE
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 KERNEL_TREE" >&2; exit 2; }
grep -qx 'CONFIG_CC_IS_CLANG=y' "$1/.config" 2>/dev/null || exit 0
suffix=$(sed -n 's/^llvm //p' "$1/../info" 2>/dev/null)
echo "LLVM=${suffix:-1}"
