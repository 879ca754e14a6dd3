#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A pristine Debian 12 root to install and run things in, as a new machine
# would: debootstrap --variant=minbase of bookworm from the archive this
# machine's apt uses (its deb822 sources, security suite included).  The
# debootstrapped root is cached as a tarball in $FRESH_ROOT_CACHE
# (/var/cache/hwtrace), so only the first create downloads it; the .debs
# later runs download are kept in $FRESH_ROOT_CACHE/apt (a package cache
# does not make the root less pristine: apt installs the same files).
# Needs root.
#
# usage: scripts/fresh-root.sh create DIR     unpack a fresh root into DIR
#        scripts/fresh-root.sh run DIR CMD...  run CMD in it (chroot, with
#                                              /proc, /sys, /dev mounted)
#        scripts/fresh-root.sh destroy DIR    unmount and delete DIR
set -euo pipefail

cache=${FRESH_ROOT_CACHE:-/var/cache/hwtrace}
sources=/etc/apt/sources.list.d/debian.sources
suite=bookworm
tarball=$cache/$suite-minbase.tar

die() { echo "fresh-root.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount)"

# The first URIs: of the deb822 sources: where this machine gets Debian.
mirror() {
	[ -r "$sources" ] || die "no $sources to take the archive from"
	sed -n 's/^URIs:[[:space:]]*//p' "$sources" | head -n 1
}

build_tarball() {
	local tmp
	command -v debootstrap >/dev/null || die "no debootstrap: scripts/deps.sh pkg"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/root.XXXXXX")
	echo "fresh-root.sh: debootstrap $suite from $(mirror) (cached in $tarball)" >&2
	if ! debootstrap --variant=minbase "$suite" "$tmp" "$(mirror)" >"$tmp.log" 2>&1; then
		tail -n 20 "$tmp.log" >&2
		rm -rf --one-file-system "$tmp"
		die "debootstrap failed (log: $tmp.log)"
	fi
	rm -f "$tmp.log" "$tmp/etc/apt/sources.list"
	cp "$sources" "$tmp/etc/apt/sources.list.d/"
	tar -C "$tmp" -cf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	rm -rf --one-file-system "$tmp"
}

# Mount points under DIR, deepest first.
mounts_under() {
	findmnt -rn -o TARGET | awk -v d="$1" 'index($0, d "/") == 1' | sort -r
}

unmount_all() {
	local m
	for m in $(mounts_under "$1"); do
		umount -l "$m"
	done
}

cmd=${1-}
dir=${2-}
{ [ -n "$cmd" ] && [ -n "$dir" ]; } || die "usage: $0 create|run|destroy DIR [CMD...]"
dir=$(realpath -m "$dir")
[ "$dir" != / ] || die "refusing /"

case $cmd in
create)
	[ ! -e "$dir" ] || die "$dir exists"
	[ -s "$tarball" ] || build_tarball
	mkdir -p "$dir"
	tar -C "$dir" -xf "$tarball"
	chmod 755 "$dir"	# / as on a machine (mktemp made it 700)
	;;
run)
	shift 2
	[ $# -gt 0 ] || die "run: no command"
	[ -x "$dir/bin/sh" ] || die "$dir is not a root made by create"
	mkdir -p "$cache/apt"
	trap 'unmount_all "$dir"' EXIT
	mount -t proc proc "$dir/proc"
	mount -t sysfs sysfs "$dir/sys"
	mount --rbind /dev "$dir/dev"
	mount --make-rslave "$dir/dev"
	mount --bind "$cache/apt" "$dir/var/cache/apt/archives"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
	chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
	;;
destroy)
	[ -e "$dir" ] || exit 0
	unmount_all "$dir"
	[ -z "$(mounts_under "$dir")" ] || die "$dir still has mounts"
	rm -rf --one-file-system "$dir"
	;;
*)
	die "unknown command '$cmd' (create, run, destroy)"
	;;
esac
