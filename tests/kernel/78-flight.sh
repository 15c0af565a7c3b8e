#!/bin/bash
# 78-flight.sh - strobe record --flight-recorder: the recent past kept in
# memory and written to a snapshot on a trigger.
#   - the helper makes N getppid calls, then the trigger (SIGUSR1 to
#     strobe, or `strobe trigger --reason`): exactly one snapshot, named
#     OUTPUT.001-TIME-TRIGGER.dat, holding all N (trace-cmd report reads
#     it), its trigger and reason in `strobe report --info`;
#   - --post 1: what follows the trigger is in the snapshot too;
#   - a ring far smaller than the run: the snapshot starts where every
#     CPU's ring still has events, and the file says what was left out;
#   - the C API: strobe_flight_trigger from another thread
#     (tests/live/flight_check.c), a second one within --min-interval
#     suppressed;
#   - --trigger-on EXPR: one snapshot when the helper exits;
#   - a storm of 100 triggers over ~4 s with --max-snapshots 3
#     --min-interval 1: 3 snapshots, 97 reported suppressed;
#   - SIGINT without --snapshot-on-exit says nothing was kept, SIGTERM
#     with it writes an "exit" snapshot, SIGKILL leaves no FIFO; tracefs
#     as found after each (the guardian removes the instance).
. "$(dirname "$0")/lib.sh"
need_tracefs flight
GETPPID=$HELPERS/getppid_n
BEFORE=$(tracefs_state)
FIFODIR=/run/strobe

# getppid calls of the helper in a file (trace-cmd's view)
n_getppid() { trace-cmd report "$1" 2>/dev/null | grep -c '^ *getppid_n-.*sys_enter_getppid'; }
info() { "$STROBE" report --info "$1" 2>&1 | sed -n "s/^$2=//p"; }

# 1. SIGUSR1 after 5000 getppid
O=$WORK/sig.dat
timeout 60 "$STROBE" record --flight-recorder 8M -e syscalls:sys_enter_getppid -o "$O" -- \
	sh -c "$GETPPID 5000; kill -USR1 \$PPID; sleep 0.3" 2>"$WORK/sig.err"
rc=$?
files=$(ls "$WORK"/sig.*.dat 2>/dev/null)
f=$(ls "$WORK"/sig.001-*-signal.dat 2>/dev/null)
n=$([ -n "$f" ] && n_getppid "$f")
if [ $rc = 0 ] && [ "$(echo "$files" | wc -w)" = 1 ] && [ -n "$f" ] && [ "$n" = 5000 ] &&
   [ "$(info "$f" flight_trigger)" = signal ] && [ "$(info "$f" flight_reason)" = SIGUSR1 ] &&
   [ -n "$(info "$f" flight_trigger_time)" ] && [ ! -e "$O" ]; then
	pass flight-sigusr1-one-snapshot-holds-all-5000
else
	fail flight-sigusr1-one-snapshot-holds-all-5000 "rc=$rc files=$files getppid=$n $(tail -3 "$WORK/sig.err")"
fi
if grep -q "1 snapshot, 1 trigger" "$WORK/sig.err" && grep -q "not kept" "$WORK/sig.err"; then
	pass flight-summary-lists-snapshot-and-what-was-not-kept
else fail flight-summary-lists-snapshot-and-what-was-not-kept "$(cat "$WORK/sig.err")"; fi

# 2. strobe trigger (no PID: it finds the running flight recorder)
O=$WORK/trg.dat
timeout 60 "$STROBE" record --flight-recorder 8M -e syscalls:sys_enter_getppid -o "$O" -- \
	sh -c "$GETPPID 3000; $STROBE trigger -l > $WORK/list; echo \$PPID > $WORK/ppid;
	       $STROBE trigger --reason 'slow request 42'; sleep 0.3" 2>"$WORK/trg.err"
rc=$?
files=$(ls "$WORK"/trg.*.dat 2>/dev/null)
f=$(ls "$WORK"/trg.001-*-trigger.dat 2>/dev/null)
n=$([ -n "$f" ] && n_getppid "$f")
if [ $rc = 0 ] && [ "$(echo "$files" | wc -w)" = 1 ] && [ "$n" = 3000 ] &&
   [ "$(info "$f" flight_reason)" = "slow request 42" ] &&
   grep -qx "$(cat "$WORK/ppid")" "$WORK/list"; then
	pass flight-strobe-trigger-one-snapshot-with-reason
else
	fail flight-strobe-trigger-one-snapshot-with-reason "rc=$rc files=$files getppid=$n list=$(cat "$WORK/list") $(tail -3 "$WORK/trg.err")"
fi
out=$("$STROBE" trigger 1 2>&1); rc=$?
if [ $rc = 1 ] && [[ "$out" == *"not a running flight recorder"* ]]; then
	pass flight-trigger-of-a-non-recorder-fails
else fail flight-trigger-of-a-non-recorder-fails "rc=$rc $out"; fi

# 3. --post 1: the 2000 calls after the trigger are in too
O=$WORK/post.dat
timeout 60 "$STROBE" record -q --flight-recorder 8M --post 1 -e syscalls:sys_enter_getppid \
	-o "$O" -- sh -c "$GETPPID 1000; kill -USR1 \$PPID; $GETPPID 2000; sleep 1.5" 2>"$WORK/post.err"
f=$(ls "$WORK"/post.001-*-signal.dat 2>/dev/null)
n=$([ -n "$f" ] && n_getppid "$f")
if [ "$n" = 3000 ] && [ "$(info "$f" flight_post)" = "1 s" ]; then
	pass flight-post-keeps-what-follows
else fail flight-post-keeps-what-follows "getppid=$n $(cat "$WORK/post.err")"; fi

# 4. a 64 KiB ring per CPU over 200000 calls: trimmed to the common span
O=$WORK/small.dat
timeout 60 "$STROBE" record -q --flight-recorder 64K -e syscalls:sys_enter_getppid -e sched:sched_switch \
	-o "$O" -- sh -c "$GETPPID 200000; kill -USR1 \$PPID; sleep 0.3" 2>"$WORK/small.err"
f=$(ls "$WORK"/small.001-*-signal.dat 2>/dev/null)
n=$([ -n "$f" ] && n_getppid "$f")
trim=$([ -n "$f" ] && info "$f" flight_trimmed)
from=$(sed -n 's/^from \([0-9.]*\) .*/\1/p' <<<"$trim")
# every CPU's first event at or after the common start
first=$([ -n "$f" ] && trace-cmd report "$f" 2>/dev/null | py '
import re, sys
m = {}
for l in sys.stdin:
    r = re.search(r"\[(\d+)\]\s+(\d+\.\d+):", l)
    if r and r.group(1) not in m:
        m[r.group(1)] = float(r.group(2))
print(min(m.values()) if m else "")')
if [ -n "$n" ] && [ "$n" -gt 100 ] && [ "$n" -lt 200000 ] && [ -n "$from" ] &&
   py 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) - 1e-6 else 1)' "$first" "$from"; then
	pass flight-small-ring-trimmed-to-common-span
else fail flight-small-ring-trimmed-to-common-span "getppid=$n first=$first trimmed=$trim"; fi

# 5. a storm: 100 triggers over ~4 s, --max-snapshots 3 --min-interval 1
O=$WORK/storm.dat
timeout 90 "$STROBE" record --flight-recorder 1M --max-snapshots 3 --min-interval 1 \
	-e syscalls:sys_enter_getppid -o "$O" -- sh -c \
	"for i in \$(seq 100); do $STROBE trigger -r storm\$i \$PPID 2>/dev/null; sleep 0.03; done; sleep 0.3" \
	2>"$WORK/storm.err"
nf=$(ls "$WORK"/storm.*-trigger.dat 2>/dev/null | wc -l)
if [ "$nf" = 3 ] && grep -q "100 triggers" "$WORK/storm.err" &&
   grep -q "97 triggers suppressed" "$WORK/storm.err"; then
	pass flight-storm-3-snapshots-97-suppressed
else fail flight-storm-3-snapshots-97-suppressed "files=$nf $(cat "$WORK/storm.err")"; fi

# 5b. the C API: strobe_flight_trigger from a thread (sanitizer build)
FC=$ROOT/build/live/flight_check
if [ -x "$FC" ]; then
	out=$(cd "$WORK" && timeout 60 "$FC" "$WORK/api.dat" 3 sh -c "$GETPPID 2000; sleep 4" 2>&1)
	f=$(sed -n 's/^path=//p' <<<"$out")
	n=$([ -f "$f" ] && n_getppid "$f")
	if grep -qx rc=0 <<<"$out" && grep -qx snapshots=1 <<<"$out" &&
	   grep -qx suppressed_interval=1 <<<"$out" && grep -qx callbacks=1 <<<"$out" &&
	   [ "$n" = 2000 ] && [ "$(info "$f" flight_trigger)" = api ] &&
	   [ "$(info "$f" flight_reason)" = "from a thread" ] && [[ "$out" != *Sanitizer* ]] &&
	   [[ "$out" != *accepted* ]]; then
		pass flight-c-api-trigger-from-a-thread
	else fail flight-c-api-trigger-from-a-thread "getppid=$n $out"; fi
else
	fail flight-c-api-trigger-from-a-thread "build/live/flight_check missing (make check builds it)"
fi

# 5c. --trigger-on: the helper's exit (sched_process_exit, a model
# event) fires exactly one snapshot holding its 4000 calls; the other
# processes' exits do not match
O=$WORK/expr.dat
timeout 60 "$STROBE" record --flight-recorder 4M \
	--trigger-on '$evt.$name == "sched_process_exit" && $evt.comm == "getppid_n"' \
	-e syscalls:sys_enter_getppid -o "$O" -- sh -c "$GETPPID 4000; sleep 0.5; true" \
	2>"$WORK/expr.err"
files=$(ls "$WORK"/expr.*.dat 2>/dev/null)
f=$(ls "$WORK"/expr.001-*-expr.dat 2>/dev/null)
n=$([ -n "$f" ] && n_getppid "$f")
if [ "$(echo "$files" | wc -w)" = 1 ] && [ "$n" = 4000 ] &&
   [[ "$(info "$f" flight_reason)" == '$evt.$name == "sched_process_exit"'*"sched_process_exit of pid"* ]]; then
	pass flight-trigger-on-expression-one-snapshot
else fail flight-trigger-on-expression-one-snapshot "files=$files getppid=$n $(cat "$WORK/expr.err")"; fi
out=$("$STROBE" record --flight-recorder 4M --trigger-on '$evt.x ==' -- true 2>&1); rc=$?
if [ $rc = 2 ] && [[ "$out" == *"bad --trigger-on"* ]]; then
	pass flight-trigger-on-syntax-error-is-usage-error
else fail flight-trigger-on-syntax-error-is-usage-error "rc=$rc $out"; fi

# 6. signals: tracefs as found, no FIFO left
sig_run() {	# sig_run SIGNAL EXTRA-OPTIONS...
	local sig=$1 p
	shift
	"$STROBE" record --flight-recorder 1M "$@" -e syscalls:sys_enter_getppid \
		-o "$WORK/$sig.dat" 2>"$WORK/$sig.err" &
	p=$!
	for i in $(seq 50); do [ -p $FIFODIR/flight-$p ] && break; sleep 0.1; done
	sleep 0.3
	kill -$sig $p
	wait $p 2>/dev/null
	for i in $(seq 30); do ls $TRACEFS/instances | grep -q "^strobe-$p\$" || break; sleep 0.1; done
	[ ! -e $FIFODIR/flight-$p ]
}
if sig_run INT && grep -q "interrupted: the recent past in memory was not kept" "$WORK/INT.err" &&
   ! ls "$WORK"/INT.*.dat >/dev/null 2>&1 && tracefs_same "$BEFORE" "$(tracefs_state)"; then
	pass flight-sigint-says-nothing-kept-tracefs-as-found
else fail flight-sigint-says-nothing-kept-tracefs-as-found "$(cat "$WORK/INT.err") $(ls $WORK)"; fi
if sig_run TERM --snapshot-on-exit && [ "$(ls "$WORK"/TERM.001-*-exit.dat 2>/dev/null | wc -l)" = 1 ] &&
   tracefs_same "$BEFORE" "$(tracefs_state)"; then
	pass flight-sigterm-snapshot-on-exit-tracefs-as-found
else fail flight-sigterm-snapshot-on-exit-tracefs-as-found "$(cat "$WORK/TERM.err")"; fi
if sig_run KILL && tracefs_same "$BEFORE" "$(tracefs_state)"; then
	pass flight-sigkill-tracefs-as-found-no-fifo
else fail flight-sigkill-tracefs-as-found-no-fifo "$(tracefs_state | grep instance) $(ls $FIFODIR)"; fi

if tracefs_same "$BEFORE" "$(tracefs_state)"; then pass flight-tracefs-as-found
else fail flight-tracefs-as-found "$(diff <(echo "$BEFORE") <(tracefs_state))"; fi
