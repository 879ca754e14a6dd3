#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace.bash-completion, driven as bash drives it: COMP_WORDS, COMP_CWORD,
# COMP_LINE and COMP_POINT set for a command line, _hwtrace called, COMPREPLY
# compared.  With the bash-completion package its own _init_completion is
# used; without it, a stub that does what it does for these lines.  The
# completion's word lists are also checked against what the binary accepts
# (commands, families, formats), so a new one cannot be forgotten there.
#
# Run from tools/hwtrace (make check).  Prints Check's summary line, which
# make check's totals count.
set -u

cd "$(dirname "$0")/.." || exit 1
checks=0
failures=0

bash_completion=${BASH_COMPLETION_FILE:-/usr/share/bash-completion/bash_completion}
if [ -r "$bash_completion" ]; then
	# shellcheck disable=SC1090
	. "$bash_completion"
	echo "using $bash_completion"
else
	# bash-completion's helpers, reduced to what these lines need; the
	# completion reads cur and prev
	# shellcheck disable=SC2034
	_init_completion() {
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${words[cword]}
		prev=${words[cword - 1]}
	}
	_filedir() {
		COMPREPLY=()
	}
	echo "bash-completion not installed: stub _init_completion"
fi
# shellcheck disable=SC1091
. ./hwtrace.bash-completion

# complete LINE: COMPREPLY for the cursor at the end of LINE.  Words split
# as readline splits them: at blanks, and '=' (in COMP_WORDBREAKS) alone.
complete_line() {
	local split=${1//=/ = }

	COMP_LINE=$1
	COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$split"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_hwtrace hwtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}

fail() {
	failures=$((failures + 1))
	echo "tests/test_completion.sh:0:F:completion:$1"
}

# expect LINE WORD...: LINE<TAB> offers exactly the WORDs, in any order
expect() {
	local line=$1 got want
	shift
	checks=$((checks + 1))
	complete_line "$line"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "'$line<TAB>' offers '$got', want '$want'"
}

expect "hwtrace record -f ta" task
expect "hwtrace record -f task,ir" task,irq
expect "hwtrace convert -O b" btf
expect "hwtrace record -m cy" cyclic
expect "hwtrace record --backend=b" bpf
expect "hwtrace ctl chunk cr" create
expect "hwtrace ctl filter task o" on off
expect "hwtrace snapshot -" -o -c -z --help
expect "hwtrace recover -" -o -i -z --release --help
expect "hwtrace rec" record recover
expect "hwtrace help sn" snapshot
expect "hwtrace listen --max-" --max-cpus --max-memory
expect "hwtrace listen udp://0.0.0.0:1 --max-cpus " 

# same WHAT LIST1 LIST2: the same words, in any order
same() {
	checks=$((checks + 1))
	local a b
	a=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort | tr '\n' ' ')
	b=$(tr ' ' '\n' <<<"$3" | sed '/^$/d' | sort | tr '\n' ' ')
	[ "$a" = "$b" ] || fail "$1: completion offers '$a', hwtrace has '$b'"
}

complete_line "hwtrace "
same "commands" "${COMPREPLY[*]}" \
	"$(build/hwtrace --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p') help --help --version"
complete_line "hwtrace record -f "
same "families" "${COMPREPLY[*]}" \
	"$(build/hwtrace record -f bogus 2>&1 | sed -n 's/.*valid families: //p')"
complete_line "hwtrace convert -O "
same "formats" "${COMPREPLY[*]}" \
	"$(build/hwtrace convert -O bogus x 2>&1 | sed -n 's/^valid formats: //p')"
complete_line "hwtrace listen -"
same "listen options" "${COMPREPLY[*]}" \
	"$(build/hwtrace listen --help | grep -oE -- '(^|[[ ])--?[a-z][a-z-]*' | tr -d '[ ' | sort -u) --help"

echo "$(((checks - failures) * 100 / checks))%: Checks: $checks, Failures: $failures, Errors: 0"
[ "$failures" -eq 0 ]
