#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the gzip'd newc initramfs of the test VM: busybox-static with all its
# applets, scripts/vm/init as /init, PAYLOAD_DIR copied to /hwt (it must hold
# run.sh), and each -b program at its host path with the shared libraries it
# needs.
#
# usage: scripts/vm/mkinitramfs.sh -o OUT.cpio.gz -p PAYLOAD_DIR [-b BINARY]...
set -euo pipefail

usage() {
	echo "usage: $0 -o OUT.cpio.gz -p PAYLOAD_DIR [-b BINARY]..." >&2
	exit 2
}

out=
payload=
bins=()
while getopts o:p:b: opt; do
	case $opt in
	o) out=$OPTARG ;;
	p) payload=$OPTARG ;;
	b) bins+=("$OPTARG") ;;
	*) usage ;;
	esac
done
if [ -z "$out" ] || [ -z "$payload" ] || [ $OPTIND -le $# ]; then
	usage
fi
[ -f "$payload/run.sh" ] || { echo "$0: $payload/run.sh missing" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
busybox=$(command -v busybox) || { echo "$0: no busybox; run scripts/deps.sh vm" >&2; exit 1; }
# The image has no libc for a dynamic busybox; ldd fails on static programs.
if ldd "$busybox" >/dev/null 2>&1; then
	echo "$0: $busybox is not static; install busybox-static" >&2
	exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# Mirror Debian's merged /usr so that every host path (/bin/x, /lib/x,
# /usr/lib/x) lands on the same file, as ldd reports them either way.
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,tmp,run,etc,root,hwt}
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$root/$d"
done

cp "$busybox" "$root/usr/bin/busybox"
# The list names busybox itself too; keep the binary.
busybox --list-full | grep -v '/busybox$' | while read -r applet; do
	ln -sf /usr/bin/busybox "$root/$applet"
done

install -m 0755 "$here/init" "$root/init"
cp -a "$payload/." "$root/hwt/"

# Tests drop privileges to nobody; Debian names its group nogroup.
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
nobody:x:65534:
EOF

declare -A copied=()

# The shared objects FILE needs, one path a line; nothing for static
# programs, modules and scripts (ldd fails on them). Exits if one is
# missing, unless a file of that name is in directory LOCAL (a payload that
# sets LD_LIBRARY_PATH for its own libraries).
libs_of() {
	local f=$1 local_dir=${2-} lib missing=0
	ldd "$f" >/dev/null 2>&1 || return 0
	for lib in $(ldd "$f" | awk '$2 == "=>" && $3 == "not" { print $1 }'); do
		if [ -z "$local_dir" ] || [ -z "$(find "$local_dir" -name "$lib" -print -quit)" ]; then
			echo "$0: $f: $lib not found" >&2
			missing=1
		fi
	done
	[ "$missing" = 0 ] || exit 1
	# "libx.so => /path (0x..)" or "/lib64/ld-linux-x86-64.so.2 (0x..)";
	# linux-vdso has no path.
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3; next } $1 ~ /^\// { print $1 }'
}

# Copy one file to the same path in the image (following symlinks), then
# every shared object it needs. ldd already lists the whole closure of a
# program; recursing matters for dlopen'ed plugins added below.
add_elf() {
	local f=$1 lib libs
	[ -z "${copied[$f]+x}" ] || return 0
	copied[$f]=1
	[ -e "$f" ] || { echo "$0: $f not found" >&2; exit 1; }
	mkdir -p "$root$(dirname "$f")"
	cp -L --remove-destination "$f" "$root$f"
	libs=$(libs_of "$f")
	for lib in $libs; do
		add_elf "$lib"
	done
}

for b in "${bins[@]}"; do
	case $b in
	/*) ;;
	*) b=$(command -v "$b") || { echo "$0: $b not found" >&2; exit 1; } ;;
	esac
	add_elf "$b"
	# trace-cmd loads libtraceevent/trace-cmd plugins at run time.
	if [ "$(basename "$b")" = trace-cmd ]; then
		shopt -s nullglob
		for p in /usr/lib/*/traceevent/plugins/*.so \
			 /usr/lib/*/trace-cmd/plugins/*.so /usr/lib/trace-cmd/plugins/*.so; do
			add_elf "$p"
		done
		shopt -u nullglob
	fi
done

# Test programs built in the payload need their libraries too; those that
# live in the payload itself (found through an $ORIGIN rpath) are there.
payload_abs=$(cd "$payload" && pwd)
while IFS= read -r -d '' f; do
	[ "$(head -c 4 "$f" | tr -d '\0')" = $'\x7fELF' ] || continue
	libs=$(libs_of "$f" "$payload_abs")
	for lib in $libs; do
		case $lib in
		"$payload_abs"/*) ;;
		*) add_elf "$lib" ;;
		esac
	done
done < <(find "$payload_abs" -type f -print0)

# Sorted, owner root, fixed mtimes: the same inputs give the same image.
mkdir -p "$(dirname "$out")"
(
	cd "$root"
	find . -mindepth 1 -exec touch -h -d @0 {} +
	find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio -o -H newc --owner=0:0 --reproducible --quiet
) | gzip -n -6 >"$out.tmp"
mv "$out.tmp" "$out"
