#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy the module's source as Kbuild needs it out of the tree into DEST:
# Kbuild, VERSION, kmod/ (sources only, no build products) and include/uapi/,
# plus, with --dkms, dkms.conf with its version filled in from VERSION.
# Used by make dkms-install, debian/rules and scripts/module-for.sh.
#
# usage: scripts/dkms-source.sh [--dkms] DEST
set -euo pipefail

dkms=0
if [ "${1-}" = --dkms ]; then
	dkms=1
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--dkms] DEST" >&2; exit 2; }
dest=$(realpath -m "$1")
cd "$(dirname "$0")/.."

rm -rf "$dest"
mkdir -p "$dest/kmod" "$dest/include/uapi/linux"
install -m 644 Kbuild VERSION "$dest/"
install -m 644 kmod/Kbuild "$dest/kmod/"
for f in kmod/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	install -m 644 "$f" "$dest/kmod/"
done
install -m 644 include/uapi/linux/*.h "$dest/include/uapi/linux/"
if [ $dkms -eq 1 ]; then
	sed "s/#MODULE_VERSION#/$(cat VERSION)/" dkms.conf >"$dest/dkms.conf"
	chmod 644 "$dest/dkms.conf"
fi
