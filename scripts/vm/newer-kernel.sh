#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftests on the newest kernel Debian 12 ships besides its own 6.1
# (the 6.12 LTS series from bookworm-security), installed here when missing:
# hwtrace.ko and the test module hwt_oops.ko built against its headers
# (scripts/module-for.sh), the payload of `make vm-payload` with those
# modules, and the VM booted on that kernel.
# Output as scripts/vm/run.sh's; logs in build/vm-newer/.
#
# usage: scripts/vm/newer-kernel.sh [run.sh options without -i/--kernel]
set -euo pipefail

cd "$(dirname "$0")/../.."
out=build/vm-newer
series='6\.12'

# newest installed image of the series with its headers, by version
installed() {
	local img rel
	while read -r img; do
		rel=${img#/boot/vmlinuz-}
		[ -d "/usr/src/linux-headers-$rel" ] && echo "$rel"
	done < <(printf '%s\n' /boot/vmlinuz-* | grep -E "^/boot/vmlinuz-${series}\.[0-9]+\+deb12-amd64$" |
		sort -V) | tail -n 1
}

rel=$(installed)
if [ -z "$rel" ]; then
	apt-get update -q >&2
	rel=$(apt-cache search --names-only "^linux-image-${series}\.[0-9]+\+deb12-amd64$" |
		cut -d' ' -f1 | sed 's/^linux-image-//' | sort -V | tail -n 1)
	[ -n "$rel" ] || { echo "newer-kernel.sh: no 6.12 kernel in the archive" >&2; exit 1; }
	echo "newer-kernel.sh: installing linux-image-$rel and its headers" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"linux-image-$rel" "linux-headers-$rel" >&2
fi
echo "newer-kernel.sh: kernel $rel" >&2

rm -rf "$out"
mkdir -p "$out"
ko=$(bash scripts/module-for.sh "/usr/src/linux-headers-$rel" "$out/mod")
oops_ko=$(bash scripts/module-for.sh "/usr/src/linux-headers-$rel" "$out/hwt_oops" \
	selftests/hwtrace/hwt_oops)
cp -r build/payload "$out/payload"
cp "$ko" "$oops_ko" "$out/payload/"
bash scripts/vm/mkinitramfs.sh -o "$out/vm.cpio.gz" -p "$out/payload" \
	-b /usr/bin/trace-cmd -b /usr/bin/hackbench
bash scripts/vm/run.sh --kernel "/boot/vmlinuz-$rel" "$@" -i "$out/vm.cpio.gz"
