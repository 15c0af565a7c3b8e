#!/bin/bash
# 81-flamegraph.sh - off-CPU stacks and flame graphs on the real kernel:
# `strobe record --stacks` sets a stacktrace trigger on sched_switch in its
# own instance and leaves nothing behind (normal exit, SIGINT); strobe
# report prints the stack records exactly as trace-cmd report does; a
# helper that sleeps 10 x 50 ms shows a nanosleep/schedule stack holding
# what its nanosleep calls took, 500 ms on a quiet machine (at most that,
# at least 90% of it: the helper measures its calls, slept_ns=, so that
# a loaded machine, where a woken sleeper waits for a CPU before its call
# returns, still checks the same); --user-stacks adds user frames; the
# SVGs (also of a command named with <, & and quotes) are well-formed XML
# and headless Chromium renders them (and their search and zoom links)
# with no console error; a file without stacks (or, --on-cpu, without perf
# samples) says what to do.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chromium.sh"
need_tracefs flamegraph
SLEEP=$HELPERS/sleep_n
BEFORE=$(tracefs_state)
TOP_TRIGGER=$(cat $TRACEFS/events/sched/sched_switch/trigger)

if ! grep -q stacktrace $TRACEFS/events/sched/sched_switch/trigger; then
	skip flamegraph "this kernel offers no stacktrace trigger on sched_switch"
	exit 0
fi

# 1. record 10 x 50 ms of sleep with kernel stacks at each switch
F=$WORK/sleep.dat
timeout 120 $STROBE record -q --stacks -o $F -- $SLEEP 10 50 > $WORK/slept.out 2> $WORK/rec.err
rc=$?
if [ $rc = 0 ] && ! ls $TRACEFS/instances | grep -q '^strobe-' &&
   [ "$(cat $TRACEFS/events/sched/sched_switch/trigger)" = "$TOP_TRIGGER" ]; then
	pass flamegraph-record-stacks-leaves-nothing
else fail flamegraph-record-stacks-leaves-nothing "rc=$rc $(head -c 300 $WORK/rec.err)"; fi

# 2. the stack records print as trace-cmd prints them
$STROBE report -i $F > $WORK/strobe.txt 2>&1
trace-cmd report -i $F 2>/dev/null > $WORK/tc.txt
n=$(grep -c '<stack trace >' $WORK/tc.txt)
# at least the ten sleeps' switch-outs (the switch-ins out of idle this
# kernel may drop under set_event_pid, and their stacks with them)
if [ "$n" -ge 10 ] && diff -q $WORK/strobe.txt $WORK/tc.txt >/dev/null; then
	pass flamegraph-report-prints-stacks-as-trace-cmd
else fail flamegraph-report-prints-stacks-as-trace-cmd \
	"$n stacks; $(diff $WORK/strobe.txt $WORK/tc.txt | head -4 | tr '\n' ' ')"; fi

# 3. folded: the sleeps' stack holds what the calls took (slept): from the
# switch-out in nanosleep to the switch-in after the wake-up, a little
# less than the call's own wall time (its entry and exit), 500 ms or more
$STROBE flamegraph -i $F --folded > $WORK/folded.txt 2> $WORK/fg.err
rc=$?
ms=$(awk '/^host;sleep_n;.*nanosleep.*;schedule;__schedule [0-9]+$/ {s += $NF} END {printf "%d", s / 1e6}' $WORK/folded.txt)
slept=$(sed -n 's/^slept_ns=\([0-9]*\)[0-9]\{6\}$/\1/p' $WORK/slept.out)
[ "${slept:-0}" -gt 500 ] || echo "NOTE flamegraph: the 10 x 50 ms of sleep took ${slept:-?} ms"
if [ $rc = 0 ] && [ "${slept:-0}" -ge 500 ] && [ "$ms" -le "$slept" ] && [ $((ms * 10)) -ge $((slept * 9)) ]; then
	pass flamegraph-sleeps-500ms-in-nanosleep-schedule
else fail flamegraph-sleeps-500ms-in-nanosleep-schedule "rc=$rc ms=$ms slept=$slept: $(grep sleep_n $WORK/folded.txt | head -3 | tr '\n' ' ')"; fi
# every line is "frames WEIGHT" with a positive weight; containers at the root
if [ -s $WORK/folded.txt ] && ! grep -qvE '^[^ ;][^;]*(;[^;]+)+ [1-9][0-9]*$' $WORK/folded.txt; then
	pass flamegraph-folded-format
else fail flamegraph-folded-format "$(grep -vE '^[^ ;][^;]*(;[^;]+)+ [1-9][0-9]*$' $WORK/folded.txt | head -2)"; fi

# 4. the SVG: well-formed, holds the stack, renders without console errors
$STROBE flamegraph -q -i $F -o $WORK/offcpu.svg
if py 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
names = [g.get("data-name") for g in r.iter(ns + "g") if g.get("class") == "f"]
assert "do_nanosleep" in names and "sleep_n" in names and "host" in names, names[:20]
assert not any(e.get("href") or e.get("{http://www.w3.org/1999/xlink}href") for e in r.iter())' \
	$WORK/offcpu.svg; then
	pass flamegraph-svg-well-formed
else fail flamegraph-svg-well-formed; fi
ok=1
shot $WORK/offcpu.svg $WORK/offcpu.png 1200 400 || ok=0
shot "$WORK/offcpu.svg#s=nanosleep" $WORK/offcpu-search.png 1200 400 || ok=0
shot "$WORK/offcpu.svg#z=do_nanosleep" $WORK/offcpu-zoom.png 1200 400 || ok=0
[ $ok = 1 ] && pass flamegraph-svg-renders-in-chromium ||
	fail flamegraph-svg-renders-in-chromium "$(cat $WORK/*.png.console | head -3)"

# 5. --user-stacks: user frames under the command, report as trace-cmd's
U=$WORK/user.dat
timeout 120 $STROBE record -q --user-stacks -o $U -- $SLEEP 3 50 2> $WORK/urec.err
rc=$?
$STROBE report -i $U > $WORK/ustrobe.txt 2>&1
trace-cmd report -i $U 2>/dev/null > $WORK/utc.txt
$STROBE flamegraph -q -i $U --folded > $WORK/ufolded.txt
if [ $rc = 0 ] && grep -q 'user_stack:' $WORK/utc.txt && diff -q $WORK/ustrobe.txt $WORK/utc.txt >/dev/null &&
   grep -qE '^host;sleep_n;0x[0-9a-f]+;.*do_nanosleep' $WORK/ufolded.txt &&
   ! ls $TRACEFS/instances | grep -q '^strobe-'; then
	pass flamegraph-user-stacks
else fail flamegraph-user-stacks "rc=$rc $(grep sleep_n $WORK/ufolded.txt | head -2 | tr '\n' ' ')"; fi

# 5b. threads: the folded stacks, the SVG and the HTML page are the same
# with one thread and with two (strobe-pipeline(3)), kernel and user stacks
same=1
for f in $F $U; do
	for j in 1 2; do
		$STROBE flamegraph -q --jobs $j -i $f --folded > $WORK/fold.$j 2>&1
		$STROBE flamegraph -q --jobs $j -i $f -o $WORK/svg.$j 2>&1
		$STROBE html -q --jobs $j -i $f -o $WORK/html.$j 2>&1
	done
	for k in fold svg html; do cmp -s $WORK/$k.1 $WORK/$k.2 || same="$same $k:$f"; done
done
[ "$same" = 1 ] && [ -s $WORK/fold.1 ] && pass flamegraph-jobs-same-output ||
	fail flamegraph-jobs-same-output "differ:${same#1}"

# 6. a command named with markup characters: the SVG stays well-formed
odd="$WORK/a<b&\"c'"
cp $SLEEP "$odd"
timeout 120 $STROBE record -q --stacks -o $WORK/odd.dat -- "$odd" 2 20 2>/dev/null
$STROBE flamegraph -q -i $WORK/odd.dat -o $WORK/odd.svg
if py 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
names = [g.get("data-name") for g in r.iter("{http://www.w3.org/2000/svg}g")]
assert "a<b&\"c'"'"'" in names, [n for n in names if n and n.startswith("a")]' $WORK/odd.svg &&
   shot $WORK/odd.svg $WORK/odd.png 1200 400; then
	pass flamegraph-svg-escapes-names
else fail flamegraph-svg-escapes-names "$(cat $WORK/odd.png.console 2>/dev/null | head -2)"; fi

# 7. SIGINT while recording stacks: the instance and its trigger go
$STROBE record -q --stacks -o $WORK/int.dat -e sched &
P=$!
for i in $(seq 100); do
	grep -q stacktrace:unlimited $TRACEFS/instances/strobe-$P/events/sched/sched_switch/trigger \
		2>/dev/null && break
	sleep 0.1
done
seen=$(cat $TRACEFS/instances/strobe-$P/events/sched/sched_switch/trigger 2>/dev/null | grep -c '^stacktrace')
kill -INT $P
wait $P
rc=$?
if [ "$seen" = 1 ] && [ $rc = 0 ] && ! ls $TRACEFS/instances | grep -q '^strobe-'; then
	pass flamegraph-sigint-removes-trigger-and-instance
else fail flamegraph-sigint-removes-trigger-and-instance "seen=$seen rc=$rc"; fi

# 8. what to do when the data is not there
timeout 60 $STROBE record -q -e sched -o $WORK/nostack.dat -- $SLEEP 1 10 2>/dev/null
$STROBE flamegraph -i $WORK/nostack.dat > /dev/null 2> $WORK/ns.err
rc=$?
$STROBE flamegraph --on-cpu -i $F > /dev/null 2> $WORK/on.err
rc2=$?
if [ $rc = 1 ] && grep -q 'strobe record --stacks' $WORK/ns.err &&
   [ $rc2 = 1 ] && grep -q 'strobe record --profile' $WORK/on.err; then
	pass flamegraph-missing-data-errors
else fail flamegraph-missing-data-errors "rc=$rc rc2=$rc2 $(cat $WORK/ns.err $WORK/on.err | tr '\n' ' ')"; fi

[ "$(tracefs_state)" = "$BEFORE" ] &&
   [ "$(cat $TRACEFS/events/sched/sched_switch/trigger)" = "$TOP_TRIGGER" ] &&
	pass flamegraph-tracefs-untouched ||
	fail flamegraph-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
