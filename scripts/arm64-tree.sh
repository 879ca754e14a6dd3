#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel tree to build hwtrace.ko for arm64 against (compile check of the
# module's other architecture: its generic-timer clock): Debian's
# linux-source-6.1, arm64 defconfig, modules_prepare, with the Debian cross
# compiler.  Cached outside the repository like the debug kernel, keyed by
# the source package version, the compiler and this recipe.  Prints the
# tree; progress and errors go to stderr.
#
# usage: scripts/arm64-tree.sh
set -euo pipefail

recipe=1
cross=aarch64-linux-gnu-
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${HWT_ARM64_CACHE:-/var/cache/hwtrace/arm64-tree}

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
[ -n "$srcver" ] || srcver=$(sha256sum "$tarball" | cut -d' ' -f1)
ccver=$(${cross}gcc -dumpfullversion)
key=$(printf 'source %s\ngcc %s\nrecipe %s\n' "$srcver" "$ccver" "$recipe" |
	sha256sum | cut -c1-16)
dir=$cache/$key
if [ -e "$dir/.done" ]; then
	echo "$dir/linux"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -e "$dir/.done" ]; then
	echo "$dir/linux"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/linux"
echo "arm64-tree.sh: preparing an arm64 tree in $dir" >&2
tar -xf "$tarball" -C "$dir/linux" --strip-components=1 linux-source-6.1
if ! make -C "$dir/linux" ARCH=arm64 CROSS_COMPILE=$cross defconfig modules_prepare \
	-j"$(($(nproc) + 1))" >"$dir/prepare.log" 2>&1; then
	tail -n 30 "$dir/prepare.log" >&2
	echo "arm64-tree.sh: modules_prepare failed" >&2
	exit 1
fi
touch "$dir/.done"
echo "$dir/linux"
