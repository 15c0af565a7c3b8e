#!/bin/bash
# 11-hygiene.sh - strobe record cleans up after itself: its instance is
# removed on normal exit and on SIGINT/SIGTERM/SIGHUP (leaving a readable
# file), instances of SIGKILLed recordings are removed by the next start
# while live ones and foreign ones are kept, two recordings at once do not
# disturb each other, and the top-level tracefs settings never change.
. "$(dirname "$0")/lib.sh"
need_tracefs hygiene
GETPPID=$HELPERS/getppid_n
BEFORE=$(tracefs_state)

no_instances() { ! ls $TRACEFS/instances | grep -q '^strobe-'; }

# wait_instance PID: until strobe PID has created its instance (max 5 s)
wait_instance() {
	local i
	for i in $(seq 50); do
		ls $TRACEFS/instances | grep -q "^strobe-$1\$" && return 0
		sleep 0.1
	done
	return 1
}

# wait_tracing PID: until strobe PID's instance traces (lib.sh)
wait_tracing() { tracing_started "$1"; }

# 1. signals stop a whole-system recording cleanly
for sig in INT TERM HUP; do
	F=$WORK/sig-$sig.dat
	"$STROBE" record -q -o "$F" -e sched &
	P=$!
	wait_tracing $P
	sleep 0.5
	kill -$sig $P
	timeout 20 tail --pid=$P -f /dev/null
	wait $P
	rc=$?
	n=$(trace-cmd report "$F" 2>/dev/null | grep -c sched_)
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && no_instances && ! ls "$F".cpu* >/dev/null 2>&1; then
		pass hygiene-sig$sig-readable-file-no-instance
	else fail hygiene-sig$sig-readable-file-no-instance "rc=$rc events=$n"; fi
done
[ "$(tracefs_state)" = "$BEFORE" ] && pass hygiene-signals-tracefs-untouched ||
	fail hygiene-signals-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"

# 2. SIGKILL leaves an instance; the next strobe removes it, but not the
# instance of a live process nor a foreign one
"$STROBE" record -q -o "$WORK/killed.dat" -e sched &
P=$!
wait_instance $P
kill -KILL $P
wait $P 2>/dev/null
sleep 30 &
LIVE=$!
mkdir $TRACEFS/instances/strobe-$LIVE $TRACEFS/instances/strobetest-foreign
timeout 30 "$STROBE" record -q -o "$WORK/after.dat" -e sched:sched_switch -- true
rc=$?
if [ $rc = 0 ] && ! [ -d $TRACEFS/instances/strobe-$P ]; then pass hygiene-stale-instance-removed
else fail hygiene-stale-instance-removed "rc=$rc"; fi
if [ -d $TRACEFS/instances/strobe-$LIVE ] && [ -d $TRACEFS/instances/strobetest-foreign ]; then
	pass hygiene-live-and-foreign-instances-kept
else fail hygiene-live-and-foreign-instances-kept; fi
rmdir $TRACEFS/instances/strobe-$LIVE $TRACEFS/instances/strobetest-foreign 2>/dev/null
kill $LIVE 2>/dev/null
wait $LIVE 2>/dev/null
rm -f "$WORK"/killed.dat*

# 3. two recordings at once: each sees exactly its own command
timeout 60 "$STROBE" record -q -o "$WORK/a.dat" -e syscalls:sys_enter_getppid -- "$GETPPID" 20000 &
A=$!
timeout 60 "$STROBE" record -q -o "$WORK/b.dat" -e syscalls:sys_enter_getppid -e sched -- "$GETPPID" 30000 &
B=$!
wait $A; ra=$?
wait $B; rb=$?
na=$(trace-cmd report "$WORK/a.dat" 2>/dev/null | grep -c sys_enter_getppid)
nb=$(trace-cmd report "$WORK/b.dat" 2>/dev/null | grep -c sys_enter_getppid)
if [ $ra = 0 ] && [ $rb = 0 ] && [ "$na" = 20000 ] && [ "$nb" = 30000 ]; then
	pass hygiene-two-recordings-at-once
else fail hygiene-two-recordings-at-once "rc=$ra/$rb counts=$na/$nb"; fi

# 4. a recording next to a whole-system one keeps its exact count
"$STROBE" record -q -o "$WORK/sys.dat" -e sched -e syscalls &
W=$!
wait_tracing $W
timeout 60 "$STROBE" record -q -o "$WORK/c.dat" -e syscalls:sys_enter_getppid -- "$GETPPID" 1000
kill -INT $W
wait $W
rw=$?
nc=$(trace-cmd report "$WORK/c.dat" 2>/dev/null | grep -c sys_enter_getppid)
nw=$(trace-cmd report "$WORK/sys.dat" 2>/dev/null | grep -c 'sys_enter')
if [ "$nc" = 1000 ] && [ $rw = 0 ] && [ "$nw" -gt 0 ]; then pass hygiene-beside-whole-system
else fail hygiene-beside-whole-system "count=$nc rc=$rw whole=$nw"; fi

# 5. strobe never writes the top level: every top-level file, option and
# event enable/filter, verbatim (buffer_size_kb included, so on a freshly
# booted machine an unexpanded "7 (expanded: 1408)" must stay exactly
# that), around recordings that use every setting strobe touches: events
# by preset and glob, kernel filters, a rejected filter, buffer size,
# clock, a PID target, a whole-system run stopped by a signal.
TOP=$(tracefs_top_snapshot)
timeout 60 "$STROBE" record -q -o "$WORK/top1.dat" -e sched -e io -e 'syscalls:sys_enter_getppid' \
	-f 'common_pid != 1' -b 1024 -C global -- "$GETPPID" 100 || fail hygiene-top-record-ran
timeout 60 "$STROBE" record -q -o "$WORK/top2.dat" -e sched:sched_switch -f 'no_such_field == 1' \
	-- true 2>/dev/null && fail hygiene-top-bad-filter-refused
"$STROBE" record -q -o "$WORK/top3.dat" -e irq -e mem &
W=$!
wait_instance $W
sleep 0.3
kill -INT $W
wait $W
if [ "$(tracefs_top_snapshot)" = "$TOP" ]; then pass hygiene-top-level-never-written
else fail hygiene-top-level-never-written "$(diff <(echo "$TOP") <(tracefs_top_snapshot) | head -6 | tr '\n' '|')"; fi

no_instances && pass hygiene-no-instance-left || fail hygiene-no-instance-left "$(ls $TRACEFS/instances)"
[ "$(tracefs_state)" = "$BEFORE" ] && pass hygiene-tracefs-untouched ||
	fail hygiene-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
