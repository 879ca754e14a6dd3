#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the hwtrace debug kernel: Debian's linux-source-6.1 with
# x86_64_defconfig + kvm_guest.config + scripts/debug-kernel/debug.config
# (KASAN, lockdep, UBSAN, kmemleak, fault injection, kCFI, ...), built with
# clang-16 (LLVM=-16: kCFI needs clang >= 16; modules built against the
# tree must use the same toolchain, see scripts/module-for.sh), and cache it
# outside the repository, keyed by a hash of the fragment, the source
# package version, the compiler and this script's recipe version:
#
#   CACHE/KEY/bzImage   the kernel the VM boots
#   CACHE/KEY/linux     the build tree: make -C CACHE/KEY/linux M=DIR modules
#   CACHE/KEY/info      what was built from what, and how long it took
#
# CACHE is $HWT_DEBUG_CACHE, default /var/cache/hwtrace/debug-kernel.  A
# cached kernel is reused at once; a build that did not finish is redone.
# Prints CACHE/KEY on stdout; progress and errors go to stderr.
#
# usage: scripts/debug-kernel/build.sh [-j JOBS] [--key]
#   -j JOBS  parallel make jobs (default: CPUs + 1)
#   --key    only print CACHE/KEY (built or not) and exit
set -euo pipefail

# Bump when the build steps change in a way the fragment does not show.
recipe=2

# The toolchain of the kernel and of every module built against it.
llvm=-16

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
top=linux-source-6.1
cache=${HWT_DEBUG_CACHE:-/var/cache/hwtrace/debug-kernel}
jobs=$(($(nproc) + 1))
key_only=0

usage() {
	sed -n 's/^# \{0,1\}//; 18,20p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	--key) key_only=1; shift ;;
	*) usage ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage

bash "$here/../deps.sh" debug
[ -r "$tarball" ] || { echo "$0: no $tarball" >&2; exit 1; }

# The source version: the package's when dpkg knows it, else the tarball's hash.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
[ -n "$srcver" ] || srcver=$(sha256sum "$tarball" | cut -d' ' -f1)
ccver=$("clang$llvm" -dumpversion)
key=$({
	cat "$fragment"
	echo "source $srcver"
	echo "clang $ccver"
	echo "recipe $recipe"
} | sha256sum | cut -c1-16)
dir=$cache/$key

if [ "$key_only" = 1 ] || [ -e "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache"
# One builder per cache: a second caller waits, then finds the kernel built.
exec 9>"$cache/.lock"
if ! flock -n 9; then
	echo "build.sh: waiting for another build in $cache" >&2
	flock 9
fi
if [ -e "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

# Builds that died half way (any key) are of no use to anyone.
for d in "$cache"/*/; do
	[ -e "$d.done" ] || rm -rf "$d"
done

start=$(date +%s)
log=$dir/build.log
echo "build.sh: building the debug kernel in $dir (log: $log)" >&2
rm -rf "$dir"
mkdir -p "$dir/linux"
fail() {
	echo "build.sh: $*; last lines of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
}

tar -xf "$tarball" -C "$dir/linux" --strip-components=1 "$top" ||
	{ echo "build.sh: cannot extract $tarball" >&2; exit 1; }
cd "$dir/linux"

{
	make LLVM=$llvm x86_64_defconfig
	KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m .config \
		kernel/configs/kvm_guest.config "$fragment"
	make LLVM=$llvm olddefconfig
} >"$log" 2>&1 || fail "configuring failed"

# Every line of the fragment must survive olddefconfig: a misspelt symbol or
# an unmet dependency would silently build a kernel that checks less.
bad=0
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		grep -qxF "$line" .config || {
			echo "build.sh: want $line, got: $(grep "^${BASH_REMATCH[1]}=" .config || echo unset)" >&2
			bad=1
		}
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		if grep -q "^${BASH_REMATCH[1]}=" .config; then
			echo "build.sh: want $line, got: $(grep "^${BASH_REMATCH[1]}=" .config)" >&2
			bad=1
		fi
	fi
done <"$fragment"
[ "$bad" = 0 ] || { echo "build.sh: $fragment does not apply" >&2; exit 1; }

# bzImage for the VM; "modules" builds the few =m drivers defconfig has and,
# with them, Module.symvers, which external module builds (M=) need.
echo "build.sh: make -j$jobs bzImage modules ($(grep -c '=m$' .config) modules)" >&2
make LLVM=$llvm -j"$jobs" bzImage modules >>"$log" 2>&1 || fail "kernel build failed"
cp arch/x86/boot/bzImage "$dir/bzImage"
secs=$(($(date +%s) - start))
cat >"$dir/info" <<EOF
key $key
source linux-source-6.1 $srcver
clang $ccver
llvm $llvm
recipe $recipe
release $(make -s LLVM=$llvm kernelrelease)
jobs $jobs
build_seconds $secs
built $(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
touch "$dir/.done"
echo "build.sh: built in ${secs}s" >&2
echo "$dir"
