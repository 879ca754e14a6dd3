#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Soak of the hwtrace command: `hwtrace record -f all` for HWT_SOAK_SECS
# (default 60) under hackbench (and stress-ng where present) while the
# filters of other families toggle, spare chunks are created, linked and
# deleted, CPUs go offline and online, and user events numbered 0..N-1
# are injected.  Then: every injected number is in the file at most once,
# and recorded + lost == produced (0 lost in stream mode means all of
# them).  Kernel reports are judged from the console log by the harness.

hwtrace=/hwt/hwtrace
t=/tmp/soak-cli
secs=${HWT_SOAK_SECS:-60}
mkdir -p $t
n=0
fails=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

# loop SECONDS CMD...: run CMD over and over until SECONDS have passed
loop() {
	end=$(($(date +%s) + $1))
	shift
	while [ "$(date +%s)" -lt $end ]; do
		"$@" >/dev/null 2>&1
	done
}

toggle_filters() {
	for fam in timer signal mutex cpu prio; do
		$hwtrace ctl filter $fam on && $hwtrace ctl filter $fam off
	done
}

churn_chunks() {
	a=$($hwtrace ctl chunk create 64k 4k jtn) || return
	b=$($hwtrace ctl chunk create 64k 4k stop) || { $hwtrace ctl chunk delete "$a"; return; }
	$hwtrace ctl chunk link "$a" "$b"
	$hwtrace ctl chunk link "$a" -1
	$hwtrace ctl chunk flags "$b" stop,free
	$hwtrace ctl chunk delete "$a"
	$hwtrace ctl chunk delete "$b"
}

hotplug() {
	for cpu in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -w "$cpu" ] || continue
		echo 0 >"$cpu"
		sleep 0.2
		echo 1 >"$cpu"
	done
	sleep 0.5
}

inject() {
	seq=0
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt $end ]; do
		$hwtrace log user_event_5 0 $seq || break
		seq=$((seq + 1))
	done
	echo $seq >$t/produced
}

echo "TAP version 13"
echo "1..5"

# until Ctrl-C (SIGINT), once the load is over
$hwtrace record -q -f all -b 4M -o $t/soak.hwt >$t/record.out 2>&1 &
rec=$!
# an event injected before record has enabled tracing is neither recorded
# nor lost (attaching every probe takes seconds under KASAN)
tries=600
until $hwtrace ctl version 2>/dev/null | grep -q '^tracing: *enabled'; do
	tries=$((tries - 1))
	[ $tries -gt 0 ] || break
	sleep 0.1
done
load=$((secs))
loop $load hackbench -g 2 -l 20 &
pids="$!"
if command -v stress-ng >/dev/null; then
	stress-ng --cpu 1 --switch 1 --timeout "${load}s" >/dev/null 2>&1 &
	pids="$pids $!"
fi
loop $load toggle_filters &
pids="$pids $!"
loop $load churn_chunks &
pids="$pids $!"
loop $load hotplug &
pids="$pids $!"
inject $load &
pids="$pids $!"
# shellcheck disable=SC2086 # a list of pids
wait $pids
sleep 1
kill -INT $rec
wait $rec
ok $? "record -f all for ${secs}s under load, hotplug, filter and chunk churn"
for cpu in /sys/devices/system/cpu/cpu[1-9]*/online; do
	[ -w "$cpu" ] && echo 1 >"$cpu"
done

$hwtrace stats $t/soak.hwt >$t/stats.txt 2>&1
ok $? "the trace reads back whole"
lost=$(sed -n 's/^lost: *\([0-9]*\) events.*/\1/p' $t/stats.txt)
produced=$(cat $t/produced 2>/dev/null || echo 0)
# the sequence number in hex, as dump -r prints par2: sorts and compares alike
$hwtrace dump -r $t/soak.hwt 2>/dev/null | grep ' user_event_5 ' |
	sed -n 's/.* par2=\(0x[0-9a-f]*\).*/\1/p' | sort >$t/seen
seen=$(grep -c . $t/seen)
dups=$(uniq -d $t/seen | grep -c .)
echo "# produced $produced, recorded $seen, lost ${lost:-?} (all families), duplicates $dups"
[ "$produced" -gt 0 ] && [ "$dups" -eq 0 ]
ok $? "every injected event recorded at most once"
[ -n "$lost" ] && [ "$seen" -le "$produced" ] && [ $((seen + lost)) -ge "$produced" ]
ok $? "recorded + lost covers produced"
[ "${lost:-1}" -ne 0 ] || [ "$seen" -eq "$produced" ]
ok $? "nothing lost: recorded == produced"

[ $fails -eq 0 ]
