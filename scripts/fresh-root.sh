#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A pristine Debian 12 root to test what a new user gets: debootstrap
# --variant=minbase of bookworm from the Debian archive this machine's apt
# is configured with, nothing else installed.  The debootstrap result is
# cached as a tarball (keyed by the mirror and the day, so security updates
# come in) and unpacked anew for each root: every root starts pristine.
#
#   fresh-root.sh create DIR        make DIR a pristine root (DIR must not exist)
#   fresh-root.sh run DIR CMD...    run CMD as root inside DIR, with /proc,
#                                   /sys, /dev and /dev/pts mounted for the
#                                   command's duration only
#   fresh-root.sh destroy DIR       remove DIR (refused while anything is
#                                   mounted below it)
#
# Environment: HWT_FRESH_CACHE (default /var/cache/hwtrace/fresh-root).
set -euo pipefail

cache=${HWT_FRESH_CACHE:-/var/cache/hwtrace/fresh-root}
suite=bookworm

usage() {
	echo "usage: $0 create DIR | run DIR CMD... | destroy DIR" >&2
	exit 2
}

# The Debian archive this machine uses: the first deb.debian.org-style URI
# of a bookworm source in apt's configuration (deb822 or one-line style).
mirror() {
	local m
	m=$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list 2>/dev/null |
		grep -oE 'https?://[^ ]*/debian/?( |$)' | head -n 1 | tr -d ' ')
	echo "${m:-http://deb.debian.org/debian}"
}

# Fails when anything is mounted at or below $1.
nothing_mounted() {
	local dir
	dir=$(realpath -m "$1")
	! awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { found = 1 }
		END { exit !found }' /proc/self/mounts
}

# The Debian-archive entries of the host's apt sources, as the root's own:
# the same archive (and snapshot, if pinned) a user of this machine has.
copy_sources() {
	local root=$1 f
	rm -f "$root/etc/apt/sources.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list.d/*.list; do
		if [ ! -f "$f" ] || ! grep -qE '/debian(-security)?/?( |$)' "$f"; then
			continue
		fi
		case $f in
		/etc/apt/sources.list) cp "$f" "$root/etc/apt/" ;;
		*) cp "$f" "$root/etc/apt/sources.list.d/" ;;
		esac
	done
}

create() {
	local dir=$1 m key tarball tmp
	[ ! -e "$dir" ] || { echo "$0: $dir exists" >&2; exit 1; }
	command -v debootstrap >/dev/null ||
		{ echo "$0: debootstrap missing; run scripts/deps.sh fresh" >&2; exit 1; }
	m=$(mirror)
	key=$(printf '%s %s %s' "$m" "$suite" "$(date -u +%Y%m%d)" | sha256sum | cut -c1-16)
	tarball=$cache/$suite-minbase-$key.tar
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -s "$tarball" ]; then
		echo "fresh-root.sh: debootstrap $suite from $m" >&2
		tmp=$(mktemp -d "$cache/.root.XXXXXX")
		if ! debootstrap --variant=minbase "$suite" "$tmp" "$m" \
			>"$cache/debootstrap.log" 2>&1; then
			tail -n 20 "$cache/debootstrap.log" >&2
			nothing_mounted "$tmp" && rm -rf "$tmp"
			exit 1
		fi
		chmod 755 "$tmp"	# mktemp's 0700 would lock out apt's _apt user
		tar -C "$tmp" -cf "$tarball.tmp" .
		mv "$tarball.tmp" "$tarball"
		nothing_mounted "$tmp" && rm -rf "$tmp"
		# older days' tarballs
		find "$cache" -maxdepth 1 -name "$suite-minbase-*.tar" ! -name "${tarball##*/}" -delete
	fi
	exec 9>&-
	mkdir -p "$dir"
	tar -C "$dir" -xf "$tarball"
	copy_sources "$dir"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

run() {
	local dir=$1 rc=0
	shift
	[ -x "$dir/bin/sh" ] || { echo "$0: $dir is no root" >&2; exit 1; }
	nothing_mounted "$dir/proc" || { echo "$0: $dir is in use" >&2; exit 1; }
	# Unmount whatever was mounted, however the command ends.
	trap 'umount -l "$dir/dev/pts" "$dir/dev" "$dir/sys" "$dir/proc" 2>/dev/null || true' EXIT
	mount -t proc proc "$dir/proc"
	mount -t sysfs sysfs "$dir/sys"
	mount --bind /dev "$dir/dev"
	mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts"
	# a login's environment, nothing of this shell's
	env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		TERM=dumb LANG=C.UTF-8 chroot "$dir" "$@" || rc=$?
	umount "$dir/dev/pts" "$dir/dev" "$dir/sys" "$dir/proc"
	trap - EXIT
	return "$rc"
}

destroy() {
	local dir=$1
	[ -e "$dir" ] || return 0
	if ! nothing_mounted "$dir"; then
		echo "$0: something is mounted below $dir; not removing it" >&2
		exit 1
	fi
	rm -rf --one-file-system "$dir"
}

[ $# -ge 2 ] || usage
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (chroot, mount)" >&2; exit 1; }
cmd=$1
dir=$2
shift 2
case $cmd in
create) [ $# -eq 0 ] || usage; create "$dir" ;;
run) [ $# -gt 0 ] || usage; run "$dir" "$@" ;;
destroy) [ $# -eq 0 ] || usage; destroy "$dir" ;;
*) usage ;;
esac
