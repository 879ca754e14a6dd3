#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages hwtrace needs, by group:
#   build  compile the module (Kbuild of the 6.1 headers), libhwt, tools, tests
#   vm     boot the kselftests in a TCG guest
#   lint   checkpatch.pl and kselftest headers from linux-source-6.1
#   debug  build the debug kernel of make check-debug from linux-source-6.1
#   fresh  make check-fresh: a pristine Debian root (debootstrap) and a clone
#   bench  make bench-host: perf, bpftrace and hackbench on this machine
#   insn   make bench-insn: gdb steps the VM, objdump reads hwt_bench.ko
#   pkg    build the Debian packages (debian/) and check them with lintian
#          (make check-packages, which also needs build, vm, lint and fresh)
# No group means all of them. Idempotent: silent when nothing is missing.
#
# usage: scripts/deps.sh [build|vm|lint|debug|fresh|bench|insn|pkg]...
set -euo pipefail

declare -A groups=(
	# linux-headers-amd64 pulls in linux-kbuild-6.1 and gcc-12; the rest is
	# what Kbuild, sparse (C=2) and the userspace builds call.
	# clang and its runtime: libFuzzer and the sanitizers of make check;
	# docutils: rst2man for the man page; groff-base renders it in the tests;
	# gcc-12-multilib and libc6-dev-i386: the 32-bit (compat) kselftest (not
	# gcc-multilib: it conflicts with the cross compiler); gcc-aarch64-linux-gnu
	# and linux-source-6.1: the module's arm64 compile check.
	# The BPF backend: clang (-target bpf), bpftool (vmlinux.h, skeleton),
	# libbpf-dev with libelf-dev and zlib1g-dev (what libbpf links), xz-utils
	# (BTF from the VM kernel's image when the host has no /sys/kernel/btf).
	# The Perfetto converter: protobuf-c-compiler (protoc-c generates its
	# encoder) and libprotobuf-c-dev; protobuf-compiler (protoc --decode)
	# reads its output back in the tests.
	# babeltrace2 and python3-bt2: test_ctf reads hwtrace's CTF output with
	# them (and fails without them).
	[build]="gcc make libc6-dev pkg-config libzstd-dev check libxml2-utils
		 protobuf-c-compiler libprotobuf-c-dev protobuf-compiler
		 libxml2-dev linux-headers-amd64 sparse bc flex bison libelf-dev
		 clang libclang-rt-14-dev python3-docutils libbpf-dev bpftool
		 zlib1g-dev xz-utils groff-base gcc-12-multilib libc6-dev-i386
		 gcc-aarch64-linux-gnu linux-source-6.1 babeltrace2 python3-bt2"
	[vm]="linux-image-amd64 qemu-system-x86 busybox-static cpio gzip rt-tests
	      trace-cmd stress-ng"
	# xz-utils: linux-source-6.1 ships as .tar.xz.
	[lint]="linux-source-6.1 perl xz-utils shellcheck"
	# make check-debug builds linux-source-6.1 itself, with clang-16 (kCFI):
	# certs/ and objtool need OpenSSL and libelf headers.
	[debug]="linux-source-6.1 libssl-dev libelf-dev flex bison bc xz-utils
		 clang-16 lld-16 llvm-16"
	[fresh]="debootstrap git"
	# the tracers hwtrace's bpf backend is measured against, and hackbench
	[bench]="linux-perf bpftrace rt-tests"
	# make bench-insn: gdb (with its Python) single-steps the guest through
	# QEMU's gdbstub; binutils' objdump gives the cross-check's count
	[insn]="gdb binutils"
	# dpkg-buildpackage (dpkg-dev, fakeroot) with debhelper and dh_dkms,
	# debian/control's Build-Depends, lintian; openssl makes the MOK key
	# the fresh root's dkms signs with (make check-packages).
	[pkg]="dpkg-dev fakeroot debhelper dh-dkms lintian openssl gcc make
	       pkg-config libzstd-dev zlib1g-dev python3-docutils clang bpftool
	       libbpf-dev libelf-dev libprotobuf-c-dev protobuf-c-compiler"
)

[ $# -gt 0 ] || set -- build vm lint debug fresh bench insn pkg

want=()
for g in "$@"; do
	if [ -z "${groups[$g]+x}" ]; then
		echo "deps.sh: unknown group '$g' (have: ${!groups[*]})" >&2
		exit 2
	fi
	# shellcheck disable=SC2206 # word splitting of the list is intended
	want+=(${groups[$g]})
done

missing=()
for p in "${want[@]}"; do
	# "ii " is the only state in which a package is really usable.
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[ "$st" = "ii " ] || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

# Keep stdout clean for callers; apt's chatter goes to stderr.
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
"${sudo[@]}" apt-get update -q >&2
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
