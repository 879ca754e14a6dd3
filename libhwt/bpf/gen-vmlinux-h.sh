#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#
# Print vmlinux.h, the kernel types the BPF programs are compiled against.
# The programs use CO-RE, so any recent kernel's BTF will do; they are
# relocated to the running kernel's at load time.  Source, first found:
#   $VMLINUX_BTF                a file with BTF (vmlinux ELF or raw BTF)
#   /sys/kernel/btf/vmlinux     the build host's kernel ($SYSFS_BTF overrides)
#   the test VM's kernel image  (scripts/vm-kernel.sh), its BTF extracted
#
# usage: gen-vmlinux-h.sh > vmlinux.h
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bpftool=${BPFTOOL:-bpftool}
command -v "$bpftool" >/dev/null || {
	echo "gen-vmlinux-h.sh: no bpftool; run scripts/deps.sh build" >&2
	exit 1
}

src=${VMLINUX_BTF-}
tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
if [ -z "$src" ] && [ -r "${SYSFS_BTF:-/sys/kernel/btf/vmlinux}" ]; then
	src=${SYSFS_BTF:-/sys/kernel/btf/vmlinux}
fi
if [ -z "$src" ]; then
	img=$(bash "$here/../../scripts/vm-kernel.sh")
	tmp=$(mktemp -d)
	# a bzImage holds the compressed vmlinux ELF: find the xz stream
	off=$(LC_ALL=C grep -abo -m 1 -P '\xfd7zXZ\x00' "$img" | cut -d: -f1 || true)
	[ -n "$off" ] || { echo "gen-vmlinux-h.sh: $img: no xz payload" >&2; exit 1; }
	# xz complains about the bytes after the stream; the ELF is whole
	tail -c +$((off + 1)) "$img" | xz -dc >"$tmp/vmlinux" 2>/dev/null || true
	src=$tmp/vmlinux
fi
"$bpftool" btf dump file "$src" format c
