#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-packages: the Debian packages as a user gets them.
#  1. dpkg-buildpackage -us -uc -b in a copy of the source tree (its tracked
#     files), and lintian on the result: no error, no warning;
#  2. their versions are VERSION's (the rest: tools/hwtrace/tests/test_version.sh);
#  3. in a fresh Debian 12 root (scripts/fresh-root.sh) with the headers of
#     Debian 12's 6.1 kernel (the VM's) and of the newest 6.12: install,
#     use, DKMS build and signature with a MOK key configured as Debian's
#     dkms reads it, purge, make dkms-install (scripts/check-packages-root.sh);
#  4. the module DKMS built there for the VM's kernel, not the tree's, is
#     the one the VM loads for a kselftest run (hwt.tests=module_test).
# Work files in build/packages/ (build.log, lintian.log, root.log, vm.log).
# Needs root.  Ends with "N passed, M failed"; exit 1 if any failed.
#
# usage: scripts/check-packages.sh
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
work=$top/build/packages
root=$work/root
version=$(cat VERSION)
signer="hwtrace check-packages MOK"
log=$work/check.log

fail() { echo "check-packages.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount)"

# The .debs the root downloads are kept here: a warm run does not fetch
# the kernel headers again (a package cache leaves the root as pristine).
apt_cache=/var/cache/hwtrace/apt-archives
cleanup() {
	! mountpoint -q "$root/var/cache/apt/archives" ||
		umount "$root/var/cache/apt/archives"
	bash scripts/fresh-root.sh destroy "$root"
}
cleanup || fail "cannot remove the old $root"
rm -rf "$work"
mkdir -p "$work" "$apt_cache"
trap cleanup EXIT
: >"$log"

ok() { echo "ok - $*" | tee -a "$log"; }
notok() { echo "not ok - $*" | tee -a "$log"; }
summary() {
	local p f
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	echo "check-packages.sh: ${SECONDS}s; logs in $work"
	echo "$p passed, $f failed"
	[ "$f" -eq 0 ]
	exit
}

# --- 1. build and lintian ----------------------------------------------------
mkdir -p "$work/src"
git ls-files -z | tar --null -T - -cf - | tar -x -C "$work/src" ||
	fail "cannot copy the source tree"
# The unit tests are make check's; here the packages are tested installed.
if (cd "$work/src" && DEB_BUILD_OPTIONS=nocheck nice dpkg-buildpackage -us -uc -b) \
	>"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	tail -n 30 "$work/build.log"
	notok "dpkg-buildpackage -us -uc -b (log: $work/build.log)"
	summary
fi
debs=()
for p in hwtrace hwtrace-dkms libhwt1 libhwt-dev; do
	deb=$(ls "$work"/"${p}"_*.deb 2>/dev/null)
	if [ -n "$deb" ]; then debs+=("$deb"); else notok "package $p built"; fi
done
[ ${#debs[@]} -eq 4 ] && ok "the four packages built"
# -I: the informational tags too, in the log; errors and warnings fail
if lintian --fail-on error,warning -I "$work"/hwtrace_*.changes >"$work/lintian.log" 2>&1; then
	ok "lintian: no error, no warning"
else
	notok "lintian: errors or warnings"
fi
echo "lintian's output:"
grep -v '^running with root privileges' "$work/lintian.log"

# --- 2. one version everywhere ---------------------------------------------
for deb in "${debs[@]}"; do
	v=$(dpkg-deb -f "$deb" Version)
	if [ "$v" = "$version" ]; then
		ok "${deb##*/}: version $version (VERSION)"
	else
		notok "${deb##*/}: version $v, VERSION says $version"
	fi
done

# --- 3. the fresh root ------------------------------------------------------
vm_rel=$(bash scripts/vm-kernel.sh) || fail "no VM kernel: scripts/deps.sh vm"
vm_rel=${vm_rel#/boot/vmlinuz-}
apt-get update -q >/dev/null 2>&1
newer=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
	cut -d' ' -f1 | sort -V | tail -n 1)
[ -n "$newer" ] || notok "a 6.12 kernel's headers in the archive"
if ! bash scripts/fresh-root.sh create "$root"; then
	notok "fresh root created"
	summary
fi
ok "fresh root created"
mkdir -p "$root/hwt/debs" "$root/hwt/src" "$root/hwt/mok" "$root/hwt/out" \
	"$root/etc/dkms/framework.conf.d"
cp "${debs[@]}" "$root/hwt/debs/"
cp -a "$work/src/." "$root/hwt/src/"
cp scripts/check-packages-root.sh "$root/hwt/"
# A MOK key and certificate of our own, where Debian's dkms (3.0.10) is told
# to find them: framework.conf's mok_signing_key and mok_certificate.  The
# signer name tells the module was signed with this key, not one dkms made.
openssl req -new -x509 -nodes -days 3650 -subj "/CN=$signer/" \
	-newkey rsa:2048 -keyout "$root/hwt/mok/mok.key" \
	-outform DER -out "$root/hwt/mok/mok.der" >/dev/null 2>&1 ||
	notok "openssl made a MOK key"
cat >"$root/etc/dkms/framework.conf.d/check-packages-mok.conf" <<EOF
mok_signing_key=/hwt/mok/mok.key
mok_certificate=/hwt/mok/mok.der
EOF
mount --bind "$apt_cache" "$root/var/cache/apt/archives"
bash scripts/fresh-root.sh run "$root" bash /hwt/check-packages-root.sh \
	"$version" "$signer" linux-headers-amd64 "linux-headers-$vm_rel" ${newer:+"$newer"} \
	2>&1 | tee "$work/root.log" | grep -E '^(not )?ok ' | tee -a "$log"
umount "$root/var/cache/apt/archives"
grep -q "^ok - make dkms-uninstall: dkms status" "$work/root.log" ||
	notok "the fresh root's checks ran to their end (log: $work/root.log)"

# --- 4. the DKMS-built module in the VM ---------------------------------------
ko=$root/hwt/out/$vm_rel/hwtrace.ko
if [ ! -s "$ko" ]; then
	notok "a DKMS-built module for the VM's kernel $vm_rel"
	summary
fi
cp "$ko" "$work/hwtrace-dkms.ko"
if ! nice make vm-payload >"$work/payload.log" 2>&1; then
	tail -n 20 "$work/payload.log"
	notok "make vm-payload"
	summary
fi
rm -rf "$work/payload"
cp -r build/payload "$work/payload"
cp "$work/hwtrace-dkms.ko" "$work/payload/hwtrace.ko"
# the tree's module is not signed; the one DKMS built, by our MOK key
if [ "$(modinfo -F signer "$work/payload/hwtrace.ko")" = "$signer" ] &&
	[ "$(modinfo -F vermagic "$work/payload/hwtrace.ko" | cut -d' ' -f1)" = "$vm_rel" ]; then
	ok "the payload's module is DKMS's for $vm_rel, signed by $signer"
else
	notok "the payload's module is DKMS's for $vm_rel, signed by $signer"
fi
bash scripts/vm/mkinitramfs.sh -o "$work/vm.cpio.gz" -p "$work/payload" \
	-b /usr/bin/trace-cmd -b /usr/bin/hackbench >/dev/null ||
	notok "the VM's initramfs"
if bash scripts/vm/run.sh --smp 2 --mem 1024 --timeout 600 --quiet \
	--append hwt.tests=module_test --log "$work/vm.log" -i "$work/vm.cpio.gz"; then
	ok "VM: module_test passes with the DKMS-built, signed module"
else
	tail -n 40 "$work/vm.log"
	notok "VM: module_test passes with the DKMS-built, signed module (log: $work/vm.log)"
fi
summary
