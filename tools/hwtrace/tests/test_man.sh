#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace(1): build/hwtrace.1 is built (make runs rst2man --strict when
# docutils is installed), renders without groff warnings, and documents
# what the binary has: every subcommand, every option of every --help, and
# the exit statuses.  Without rst2man only the source is checked.
#
# Run from tools/hwtrace (make check).  Prints Check's summary line, which
# make check's totals count.
set -u

cd "$(dirname "$0")/.." || exit 1
src=../../Documentation/hwtrace.1.rst
man=build/hwtrace.1
checks=0
failures=0

check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if ! "$@"; then
		failures=$((failures + 1))
		echo "tests/test_man.sh:0:F:man:$what: failed"
	fi
}

# The subcommands `hwtrace --help` lists.
mapfile -t cmds < <(build/hwtrace --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
check "hwtrace --help lists commands" test "${#cmds[@]}" -ge 8

check "source is non-empty" test -s "$src"
check "source has EXIT STATUS" grep -qx 'EXIT STATUS' "$src"

if command -v rst2man >/dev/null || command -v rst2man.py >/dev/null; then
	check "make built $man" test -s "$man"
	check "$man is newer than its source" test "$man" -nt "$src"
	text=$(mktemp)
	trap 'rm -f "$text"' EXIT
	if command -v groff >/dev/null; then
		# -ww: every warning; -P-cbou: plain text, no overstrike
		warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
		check "groff renders it without warnings" test -z "$warnings"
		[ -z "$warnings" ] || echo "$warnings" | head -n 5
		groff -man -Tutf8 -P-cbou "$man" 2>/dev/null >"$text"
	else
		cp "$man" "$text"
	fi
	if command -v man >/dev/null; then
		check "man -l renders it" bash -c \
			"MANWIDTH=80 man -l '$man' 2>/dev/null | grep -q '^EXIT STATUS'"
	fi
	check "rendered page has EXIT STATUS" grep -q '^EXIT STATUS' "$text"
	for c in "${cmds[@]}"; do
		check "rendered page has a section for $c" grep -qx "   $c" "$text"
	done
else
	echo "rst2man not installed (python3-docutils): checking the source only"
	text=$src
	for c in "${cmds[@]}"; do
		check "source has a section for $c" grep -qx "$c" "$src"
	done
fi

# Every option a --help shows is in the page: -x and --long as **-x** ...
for c in "${cmds[@]}"; do
	mapfile -t opts < <(build/hwtrace "$c" --help |
		grep -oE '(^|[][ ,(])--?[a-zA-Z][-a-zA-Z0-9]*' | sed 's/^[][ ,(]//' | sort -u)
	for o in "${opts[@]}"; do
		[ "$o" = -h ] || [ "$o" = --help ] && continue
		check "$c $o is documented" grep -qF -- "**$o" "$src"
	done
done

# The exit statuses main.c's usage names are the page's.
for s in 0 1 2 3; do
	check "exit status $s is documented" grep -qx "\*\*$s\*\*" "$src"
done

echo "$(( (checks - failures) * 100 / checks ))%: Checks: $checks, Failures: $failures, Errors: 0"
[ "$failures" -eq 0 ]
