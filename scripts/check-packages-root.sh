#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The half of scripts/check-packages.sh that runs inside the fresh Debian 12
# root (scripts/fresh-root.sh run): install the four packages with the
# kernel headers, use them as a user would, purge them, and check that
# nothing of them is left; then the source tree's make dkms-install and
# dkms-uninstall.  Prints "ok - ..." / "not ok - ..." per check.
#
# Laid out by check-packages.sh: /hwt/debs/*.deb, /hwt/src (the source tree),
# /hwt/mok/mok.{key,der} (named in /etc/dkms/framework.conf.d), /hwt/out
# (receives the DKMS-built modules, one directory per kernel release).
#
# usage: check-packages-root.sh VERSION SIGNER HEADERS...
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive

version=$1
signer=$2
shift 2
headers=("$@")

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else notok "$what"; fi
}
# Stop here: what follows depends on this step.
fatal() {
	notok "$*"
	exit 1
}

pkgs=(hwtrace hwtrace-dkms libhwt1 libhwt-dev)
arch=$(uname -m)

apt-get update -q >/tmp/apt.log 2>&1 || fatal "apt-get update (/tmp/apt.log)"
# The four packages as a user installs them (apt resolves their
# dependencies: dkms, libbpf1, libzstd-dev ...), the headers DKMS builds
# against, and what the checks below call (man, pkg-config, a C compiler:
# DKMS's is gcc-12, which has no cc).
if ! apt-get install -y -q --no-install-recommends /hwt/debs/*.deb \
	"${headers[@]}" man-db pkg-config gcc libc6-dev >/tmp/install.log 2>&1; then
	tail -n 30 /tmp/install.log
	fatal "apt-get install of the packages and ${headers[*]}"
fi
ok "apt-get install ${pkgs[*]} ${headers[*]}"

# --- the tool, the man page, the completion -----------------------------
check "hwtrace --version is $version" \
	bash -c "hwtrace --version | grep -q '^hwtrace $version ('"
check "man -w hwtrace finds the page" bash -c 'man -w hwtrace | grep -q "/man1/hwtrace.1"'
check "bash completion completes hwtrace's commands" bash -c \
	'. /usr/share/bash-completion/completions/hwtrace && complete -p hwtrace >/dev/null'

# --- libhwt-dev: pkg-config, headers, a program against the shared library
# shellcheck disable=SC2016 # expanded by bash -c; echo: pkg-config's spaces
check "pkg-config --libs libhwt is -lhwt" bash -c '[ "$(echo $(pkg-config --libs libhwt))" = "-lhwt" ]'
check "pkg-config --modversion libhwt is $version" \
	bash -c "[ \"\$(pkg-config --modversion libhwt)\" = '$version' ]"
check "atf.xsd installed" test -s /usr/share/hwtrace/atf.xsd
mkdir -p /tmp/prog
cat >/tmp/prog/prog.c <<'EOF'
#include <hwt/hwt.h>
#include <stdio.h>
#include <string.h>
/* writes a one-record trace and reads it back; prints libhwt's version */
int main(int argc, char **argv)
{
	struct hwt_trace_info info = { .nr_cpus = 2, .cycles_per_msec = 1000000 };
	struct hwt_event ev = { .code = HWT_EV_USER_EVENT_0, .tsc_lo = 5, .par2 = 42 };
	struct hwt_writer *w;
	struct hwt_reader *r;
	struct hwt_record rec;
	int n = 0;

	if (argc != 2 || hwt_writer_open(&w, argv[1], &info, NULL) ||
	    hwt_writer_add(w, 1, &ev, 1) || hwt_writer_close(w) ||
	    hwt_reader_open(&r, argv[1], NULL))
		return 1;
	while (hwt_reader_next(r, &rec) == 1)
		n += rec.cpu == 1 && rec.ev.par2 == 42;
	if (strcmp(hwt_reader_info(r)->writer_version, hwt_version()))
		return 1;
	hwt_reader_close(r);
	printf("libhwt %s: %d\n", hwt_version(), n);
	return n == 1 ? 0 : 1;
}
EOF
# shellcheck disable=SC2046 # pkg-config's flags are words
if (cd /tmp/prog && cc -std=c11 -Wall -Wextra -Werror -o prog prog.c \
	$(pkg-config --cflags --libs libhwt)) >/tmp/prog/cc.log 2>&1; then
	ok "a program builds against libhwt-dev"
	# /lib is /usr/lib (merged /usr): ldd may name either
	check "it links the shared libhwt.so.1 of libhwt1" bash -c \
		"ldd /tmp/prog/prog | grep -Eq 'libhwt\.so\.1 => (/usr)?/lib/$(uname -m)-linux-gnu/libhwt\.so\.1 '"
	check "it runs: writes and reads a trace with libhwt $version" bash -c \
		"[ \"\$(/tmp/prog/prog /tmp/prog/t.hwt)\" = 'libhwt $version: 1' ]"
	check "hwtrace stats names the writer, libhwt $version" bash -c \
		"hwtrace stats /tmp/prog/t.hwt | grep -q '^written by: *libhwt $version\$'"
else
	cat /tmp/prog/cc.log
	notok "a program builds against libhwt-dev"
fi

# --- hwtrace-dkms: built, signed and installed for every kernel's headers
# shellcheck disable=SC2012 # names without odd characters
mapfile -t rels < <(ls -d /usr/src/linux-headers-*-amd64 | sed 's|^/usr/src/linux-headers-||')
[ ${#rels[@]} -ge 2 ] || notok "headers of two kernels (have: ${rels[*]})"
dkms status >/tmp/dkms-status.txt 2>&1
for rel in "${rels[@]}"; do
	check "dkms status: hwtrace/$version installed for $rel" \
		grep -q "^hwtrace/$version, $rel, $arch: installed" /tmp/dkms-status.txt
	# shellcheck disable=SC2012 # names without odd characters
	ko=$(ls /lib/modules/"$rel"/updates/dkms/hwtrace.ko* 2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		notok "$rel: /lib/modules/$rel/updates/dkms/hwtrace.ko installed"
		continue
	fi
	mkdir -p "/hwt/out/$rel"
	case $ko in
	*.xz) xz -dc "$ko" >"/hwt/out/$rel/hwtrace.ko" ;;
	*.zst) zstd -qdc "$ko" >"/hwt/out/$rel/hwtrace.ko" ;;
	*.gz) gzip -dc "$ko" >"/hwt/out/$rel/hwtrace.ko" ;;
	*) cp "$ko" "/hwt/out/$rel/hwtrace.ko" ;;
	esac
	check "$rel: modinfo -F version is $version" \
		bash -c "[ \"\$(modinfo -F version '$ko')\" = '$version' ]"
	check "$rel: vermagic is $rel" bash -c "modinfo -F vermagic '$ko' | grep -q '^$rel '"
	check "$rel: modinfo -F signer is the configured MOK ($signer)" \
		bash -c "[ \"\$(modinfo -F signer '$ko')\" = '$signer' ]"
done
cat /tmp/dkms-status.txt

# --- purge: nothing of the packages is left -----------------------------
for p in "${pkgs[@]}"; do
	dpkg -L "$p"
done | sort -u >/tmp/files.txt
if apt-get purge -y -q "${pkgs[@]}" >/tmp/purge.log 2>&1; then
	ok "apt-get purge ${pkgs[*]}"
else
	tail -n 20 /tmp/purge.log
	notok "apt-get purge ${pkgs[*]}"
fi
left=()
while read -r f; do
	# "/." is every package's; a directory still there, some other package's
	[ "$f" != /. ] || continue
	if [ -e "$f" ] && ! { [ -d "$f" ] && dpkg -S "$f" >/dev/null 2>&1; }; then
		left+=("$f")
	fi
done </tmp/files.txt
check "purge removed every file of the packages (left: ${left[*]})" test ${#left[@]} -eq 0
check "purge left no hwtrace package in dpkg" bash -c \
	"! dpkg -l ${pkgs[*]} 2>/dev/null | grep -q '^[a-z][a-z] '"
mapfile -t stray < <(find / -xdev \( -path /hwt -o -path /tmp -o -path /proc \
	-o -path /var/cache/apt -o -path /var/log \) -prune -o \
	\( -name '*hwtrace*' -o -name '*libhwt*' \) -print)
check "purge left nothing named hwtrace or libhwt (left: ${stray[*]})" test ${#stray[@]} -eq 0
check "dkms status knows no hwtrace after purge" bash -c "! dkms status | grep -q hwtrace"

# --- the source tree: make dkms-install / dkms-uninstall -----------------
if make -C /hwt/src dkms-install >/tmp/dkms-install.log 2>&1; then
	ok "make dkms-install"
else
	tail -n 20 /tmp/dkms-install.log
	notok "make dkms-install"
fi
check "make dkms-install: /usr/src/hwtrace-$version/dkms.conf names version $version" \
	grep -qx "PACKAGE_VERSION=\"$version\"" "/usr/src/hwtrace-$version/dkms.conf"
check "make dkms-install: dkms status shows hwtrace/$version added" \
	bash -c "dkms status | grep -q '^hwtrace/$version: added'"
for rel in "${rels[@]}"; do
	if dkms build "hwtrace/$version" -k "$rel" >"/tmp/dkms-build-$rel.log" 2>&1; then
		ok "dkms build hwtrace/$version -k $rel"
	else
		tail -n 30 "/tmp/dkms-build-$rel.log"
		notok "dkms build hwtrace/$version -k $rel"
	fi
done
make -C /hwt/src dkms-uninstall >/tmp/dkms-uninstall.log 2>&1
check "make dkms-uninstall removed /usr/src/hwtrace-$version" test ! -e "/usr/src/hwtrace-$version"
check "make dkms-uninstall: dkms status knows no hwtrace" bash -c "! dkms status | grep -q hwtrace"
