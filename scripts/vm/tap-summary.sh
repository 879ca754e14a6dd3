#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count the TAP results in a test log (a VM console log or plain TAP) and
# print one line to stdout:
#   LABEL: P passed, F failed, S skipped
# Each failure (with the lines before it) goes to stderr. Exit 0 if F is 0,
# 1 if not, 2 on usage errors.
#
# usage: scripts/vm/tap-summary.sh [-l LABEL] LOG|-
#
# Rules:
# - "ok N ..." passes, "not ok N ..." fails; a "# SKIP" directive makes either
#   a skip, "# TODO" makes a "not ok" a skip (TAP: expected failure).
# - Nesting: each leading "# " (kselftest runner) or 4 spaces (TAP 14
#   subtest) is one level. A result that follows deeper results summarises
#   them and is not counted again, unless it is the only sign of a failure
#   (e.g. a binary that crashed after its last "ok").
# - A plan "1..N" that does not match the number of results at its level
#   counts the difference as failures ("1..0" counts as one skip).
# - "Bail out!" is one failure (the tests it skips are not counted).
# - Robust to the serial console: \r and escape sequences are stripped, a
#   kernel message ("[   12.345678] ...") is cut off the line it landed in,
#   and the dmesg dump between HWT-VM-DMESG-BEGIN/END is ignored.
set -euo pipefail

label=vm
while getopts l: opt; do
	case $opt in
	l) label=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 1 ]; then
	echo "usage: $0 [-l LABEL] LOG|-" >&2
	exit 2
fi

exec awk -v label="$label" '
# A failed result, after the lines that explain it.
function report(msg,    i) {
	for (i = NR - 5; i < NR; i++)
		if (i > 0 && (i in ctx))
			printf "%s:%d: %s\n", FILENAME, i, ctx[i] > "/dev/stderr"
	printf "%s:%d: %s\n", FILENAME, NR, msg > "/dev/stderr"
}

# Results at depth d are over: check them against their plan.
function close_level(d) {
	if (plan[d] >= 0 && cnt[d] != plan[d]) {
		printf "%s:%d: plan 1..%d, but %d results\n", FILENAME, planl[d],
		       plan[d], cnt[d] > "/dev/stderr"
		failed += cnt[d] < plan[d] ? plan[d] - cnt[d] : 1
	}
	plan[d] = -1; cnt[d] = 0; nested[d] = 0; subfail[d] = 0
}

function close_deeper(d,    e) {
	for (e = maxd; e > d; e--)
		close_level(e)
	# Level 0 always exists.
	if (maxd > d)
		maxd = d < 0 ? 0 : d
}

BEGIN { maxd = 0; plan[0] = -1 }

{ sub(/\r+$/, ""); gsub(/\r/, "") }
/HWT-VM-DMESG-BEGIN/ { in_dmesg = 1; next }
/HWT-VM-DMESG-END/ { in_dmesg = 0; next }
in_dmesg { next }

{
	line = $0
	gsub(/\033\[[0-9;?]*[A-Za-z]/, "", line)
	gsub(/\033./, "", line)
	if (match(line, /\[ *[0-9]+\.[0-9]+\] /))
		line = substr(line, 1, RSTART - 1)
	ctx[NR] = line
	delete ctx[NR - 6]

	depth = 0
	while (match(line, /^(# |#$|    )/)) {
		line = substr(line, RLENGTH + 1)
		depth++
	}
	sub(/^[ \t]+/, "", line)
	if (depth > maxd) {
		for (e = maxd + 1; e <= depth; e++) {
			plan[e] = -1; cnt[e] = 0; nested[e] = 0; subfail[e] = 0
		}
		maxd = depth
	}
}

# The rest of this level will not run: one failure, not one per missing test.
line ~ /^Bail out!/ {
	report(line)
	failed++
	for (e = depth; e <= maxd; e++)
		plan[e] = -1
	for (e = 0; e < depth; e++) {
		nested[e] = 1
		subfail[e] = 1
	}
	next
}

line ~ /^TAP version / {
	close_deeper(depth - 1)
	next
}

line ~ /^1\.\.[0-9]+/ {
	n = substr(line, 4) + 0
	if (plan[depth] < 0 && cnt[depth] > 0) {
		# A trailing plan closes the results above it.
		close_deeper(depth)
		plan[depth] = n
		planl[depth] = NR
		close_level(depth)
		next
	}
	close_deeper(depth - 1)
	plan[depth] = n
	planl[depth] = NR
	if (n == 0) {
		skipped++
		plan[depth] = -1
	}
	next
}

line ~ /^(not )?ok [0-9]+([ \t]|$)/ {
	close_deeper(depth)
	cnt[depth]++
	lc = tolower(line)
	bad = line ~ /^not /
	if (lc ~ /(^|[^\\])#[ \t]*skip/ || (bad && lc ~ /(^|[^\\])#[ \t]*todo/)) {
		kind = "skip"
	} else {
		kind = bad ? "fail" : "pass"
	}

	if (nested[depth]) {
		# A summary of the deeper results, already counted.
		if (kind == "fail" && !subfail[depth]) {
			report(line)
			failed++
		}
	} else if (kind == "fail") {
		report(line)
		failed++
	} else if (kind == "skip") {
		skipped++
	} else {
		passed++
	}
	for (e = 0; e < depth; e++) {
		nested[e] = 1
		if (kind == "fail")
			subfail[e] = 1
	}
	nested[depth] = 0
	subfail[depth] = 0
}

END {
	close_deeper(-1)
	printf "%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped
	exit (failed > 0)
}
' "$1"
