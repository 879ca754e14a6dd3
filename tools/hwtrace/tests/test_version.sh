#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One version, in VERSION, everywhere: hwtrace --version, libhwt (its
# pkg-config file, soname major and symbol version node), the module's
# MODULE_VERSION (Kbuild reads VERSION), dkms.conf as make dkms-install
# writes it, and debian/changelog.  The .hwt header's writer_version is
# libhwt's test_file; the built packages' versions, check-packages.sh's.
#
# Run from tools/hwtrace (make check).  Prints Check's summary line, which
# make check's totals count.
set -u

cd "$(dirname "$0")/.." || exit 1
top=../..
checks=0
failures=0

check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if ! "$@"; then
		failures=$((failures + 1))
		echo "tests/test_version.sh:0:F:version:$what: failed"
	fi
}

version=$(cat "$top/VERSION")
major=${version%%.*}
check "VERSION is MAJOR.MINOR.PATCH ($version)" \
	bash -c "[[ '$version' =~ ^[0-9]+\\.[0-9]+\\.[0-9]+\$ ]]"

check "hwtrace --version is $version" \
	bash -c "build/hwtrace --version | grep -q '^hwtrace $version ('"

check "libhwt's make has $version, soname major $major" \
	bash -c "[ \"\$(make -s --no-print-directory -C $top/libhwt print-version)\" = '$version $major' ]"
check "libhwt.pc says Version: $version" grep -qx "Version: $version" "$top/libhwt/build/libhwt.pc"
check "libhwt.so.$major's soname is libhwt.so.$major" bash -c \
	"readelf -d $top/libhwt/build/libhwt.so.$major | grep -q 'SONAME.*\\[libhwt\\.so\\.$major\\]'"
check "libhwt.map's version node is LIBHWT_$major.*" \
	grep -q "^LIBHWT_$major\\.[0-9]* {" "$top/libhwt/libhwt.map"
check "libhwt1 is the package of soname major $major" \
	grep -qx "Package: libhwt$major" "$top/debian/control"

# shellcheck disable=SC2016 # $(src) is Kbuild's, matched literally
check "kmod/Kbuild passes VERSION as HWT_VERSION" \
	grep -q '^ccflags-y += -DHWT_VERSION=.*cat $(src)/../VERSION' "$top/kmod/Kbuild"
check "the module's MODULE_VERSION is HWT_VERSION" \
	grep -qx 'MODULE_VERSION(HWT_VERSION);' "$top/kmod/main.c"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check "dkms.conf's version is filled in at install" \
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' "$top/dkms.conf"
check "dkms-source.sh --dkms lays out the module source" \
	bash "$top/scripts/dkms-source.sh" --dkms "$tmp/src"
check "its dkms.conf says $version" grep -qx "PACKAGE_VERSION=\"$version\"" "$tmp/src/dkms.conf"
check "its VERSION is $version" grep -qx "$version" "$tmp/src/VERSION"
check "it has no build products" \
	bash -c "[ -z \"\$(find '$tmp/src' -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd')\" ]"

check "debian/changelog's version is $version" \
	bash -c "head -n 1 $top/debian/changelog | grep -q '^hwtrace ($version) '"

echo "$(( (checks - failures) * 100 / checks ))%: Checks: $checks, Failures: $failures, Errors: 0"
[ "$failures" -eq 0 ]
