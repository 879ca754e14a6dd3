#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the few kernel files the lint and selftest builds use from Debian's
# linux-source-6.1 tarball into OUTDIR (a build cache, never the repo):
#   OUTDIR/scripts/{checkpatch.pl,kernel-doc,spelling.txt,const_structs.checkpatch}
#   OUTDIR/tools/testing/selftests/{kselftest.h,kselftest_harness.h}
# Does nothing when they are all there already. Prints nothing on success.
#
# usage: scripts/lint-src.sh OUTDIR
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
out=$1
tarball=/usr/src/linux-source-6.1.tar.xz
top=linux-source-6.1
files=(
	scripts/checkpatch.pl
	scripts/kernel-doc
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
)

missing=0
for f in "${files[@]}"; do
	[ -s "$out/$f" ] || missing=1
done
[ "$missing" = 1 ] || exit 0

if [ ! -r "$tarball" ]; then
	echo "$0: no $tarball; run scripts/deps.sh lint" >&2
	exit 1
fi

# Extract next to OUTDIR and move into place, so an interrupted run never
# leaves a truncated file that the check above would take as done.
mkdir -p "$out"
tmp=$(mktemp -d "$out/.lint-src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
	"${files[@]/#/$top/}"
for f in "${files[@]}"; do
	mkdir -p "$out/$(dirname "$f")"
	mv -f "$tmp/$f" "$out/$f"
done
