#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel image the VM boots: the newest Debian 6.1 /boot/vmlinuz-*-amd64
# whose headers are installed (so the module can be built for it), else the
# newest vmlinuz there is. Exit 1 if /boot has none.
set -euo pipefail

shopt -s nullglob
imgs=(/boot/vmlinuz-*)
newest=
match=
# sort -V so that 6.1.0-100 sorts after 6.1.0-56.
while read -r img; do
	rel=${img#/boot/vmlinuz-}
	newest=$img
	if [[ $rel == 6.1.*-amd64 && -d /usr/src/linux-headers-$rel ]]; then
		match=$img
	fi
done < <([ ${#imgs[@]} -eq 0 ] || printf '%s\n' "${imgs[@]}" | sort -V)

if [ -z "$newest" ]; then
	echo "vm-kernel.sh: no /boot/vmlinuz-*; run scripts/deps.sh vm" >&2
	exit 1
fi
echo "${match:-$newest}"
