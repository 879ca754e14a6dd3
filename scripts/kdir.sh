#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the KDIR to build hwtrace.ko against: the running kernel's build tree
# when it has one, else the headers of the kernel the VM boots (the usual case
# in CI, where the host kernel is not a Debian one). Exit 1 if neither exists.
set -euo pipefail

build=/lib/modules/$(uname -r)/build
if [ -d "$build" ]; then
	echo "$build"
	exit 0
fi

img=$(bash "$(dirname "$0")/vm-kernel.sh")
hdr=/usr/src/linux-headers-${img#/boot/vmlinuz-}
if [ ! -d "$hdr" ]; then
	echo "kdir.sh: no $build and no $hdr; run scripts/deps.sh build" >&2
	exit 1
fi
echo "$hdr"
