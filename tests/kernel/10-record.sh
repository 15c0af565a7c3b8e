#!/bin/bash
# 10-record.sh - strobe record end to end on the real kernel: exact event
# counts for a traced command, exit status propagation, -p, whole system
# with --duration, presets, event and filter errors, a full disk.  Every
# file is checked with trace-cmd report; tracefs must be left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs record
GETPPID=$HELPERS/getppid_n
BEFORE=$(tracefs_state)

state_same() {	# $1 = test name
	if [ "$(tracefs_state)" = "$BEFORE" ]; then pass "$1-tracefs-untouched"
	else fail "$1-tracefs-untouched" "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"; fi
}

# count_comm FILE COMM-PID EVENT: events of that task in trace-cmd report
count_task() {
	trace-cmd report "$1" 2>/dev/null | grep -E "^ *$2 " | grep -c "$3"
}

# 1. exact count of a command's getppid calls, and its comm/pid resolved
F=$WORK/getppid.dat
timeout 60 "$STROBE" record -q -o "$F" -e syscalls:sys_enter_getppid -- "$GETPPID" 1000
rc=$?
pid=$(trace-cmd report "$F" 2>/dev/null | grep -m1 -oE 'getppid_n-[0-9]+' )
n=$(count_task "$F" "$pid" sys_enter_getppid)
if [ $rc = 0 ] && [ -n "$pid" ] && [ "$n" = 1000 ]; then pass record-command-exact-getppid-count
else fail record-command-exact-getppid-count "rc=$rc task=$pid count=$n"; fi
ls "$WORK"/getppid.dat.cpu* >/dev/null 2>&1 && fail record-temp-files-removed || pass record-temp-files-removed
state_same record-command

# 2. threads and fork children are followed (event-fork)
F=$WORK/fork.dat
timeout 60 "$STROBE" record -q -o "$F" -e syscalls:sys_enter_getppid -- "$GETPPID" --fork 500
n=$(trace-cmd report "$F" 2>/dev/null | grep -c sys_enter_getppid)
[ "$n" = 1000 ] && pass record-follows-fork-children || fail record-follows-fork-children "count=$n"
F=$WORK/threads.dat
timeout 60 "$STROBE" record -q -o "$F" -e syscalls:sys_enter_getppid -- "$GETPPID" 300 --threads 4
n=$(trace-cmd report "$F" 2>/dev/null | grep -c sys_enter_getppid)
[ "$n" = 1200 ] && pass record-follows-threads || fail record-follows-threads "count=$n"

# 3. exit status of the command is strobe's
timeout 30 "$STROBE" record -q -o "$WORK/x.dat" -e sched:sched_switch -- sh -c 'exit 3'
rc=$?
[ $rc = 3 ] && pass record-exit-status-propagated || fail record-exit-status-propagated "rc=$rc"
out=$(timeout 30 "$STROBE" record -q -o "$WORK/y.dat" -- /nonexistent/cmd 2>&1)
rc=$?
if [ $rc = 127 ] && [[ "$out" == *"cannot run '/nonexistent/cmd'"* ]] && [ ! -e "$WORK/y.dat" ]; then
	pass record-exec-failure-reported
else fail record-exec-failure-reported "rc=$rc out=$out"; fi

# 4. -p on a running process: only its events
"$GETPPID" 0 >/dev/null
sleep 6 &	# outlives strobe's start-up on a loaded host
SP=$!
F=$WORK/pid.dat
timeout 30 "$STROBE" record -q -o "$F" -e sched -e syscalls -p $SP
rc=$?
others=$(trace-cmd report "$F" 2>/dev/null | grep -E 'sys_(enter|exit)' | grep -vc "sleep-$SP")
mine=$(trace-cmd report "$F" 2>/dev/null | grep -c "sleep-$SP")
if [ $rc = 0 ] && [ "$mine" -gt 0 ] && [ "$others" = 0 ]; then pass record-pid-only-its-events
else fail record-pid-only-its-events "rc=$rc mine=$mine others=$others"; fi
wait $SP 2>/dev/null

# 5. whole system with --duration and the default presets
F=$WORK/all.dat
start=$(date +%s.%N)
timeout 30 "$STROBE" record -q -o "$F" --duration 1
rc=$?
el=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
n=$(trace-cmd report "$F" 2>/dev/null | grep -cE 'sched_switch|sys_enter')
if [ $rc = 0 ] && [ "$n" -gt 0 ] && awk -v e="$el" 'BEGIN { exit !(e < 10) }'; then pass record-whole-system-duration
else fail record-whole-system-duration "rc=$rc events=$n elapsed=$el"; fi
state_same record-whole-system

# 6. presets and globs
F=$WORK/glob.dat
timeout 30 "$STROBE" record -q -o "$F" -e 'syscalls:sys_enter_getpp*' --preset sched -- "$GETPPID" 10
n=$(trace-cmd report "$F" 2>/dev/null | grep -c sys_enter_getppid)
s=$(trace-cmd report "$F" 2>/dev/null | grep -c sched_process_exit)
[ "$n" = 10 ] && [ "$s" -ge 1 ] && pass record-glob-and-preset || fail record-glob-and-preset "getppid=$n exit=$s"

# 7. filter applied in the kernel
F=$WORK/filter.dat
timeout 30 "$STROBE" record -q -o "$F" -e raw_syscalls:sys_enter -f 'id == 110' -- "$GETPPID" 50
n=$(trace-cmd report "$F" 2>/dev/null | grep -c 'sys_enter:')
[ "$n" = 50 ] && pass record-kernel-filter || fail record-kernel-filter "count=$n (getppid is 110 on x86_64)"

# 8. errors: unknown event with suggestions, bad filter with kernel text
out=$(timeout 30 "$STROBE" record -o "$WORK/e.dat" -e sched:sched_swich -- true 2>&1)
rc=$?
if [ $rc != 0 ] && [[ "$out" == *"unknown event 'sched:sched_swich'"*"did you mean sched:sched_switch"* ]] &&
   [ "$(echo "$out" | wc -l)" = 1 ]; then pass record-unknown-event-suggests
else fail record-unknown-event-suggests "rc=$rc out=$out"; fi
out=$(timeout 30 "$STROBE" record -o "$WORK/e.dat" -e sched:sched_switch -f 'nosuchfield == 1' -- true 2>&1)
rc=$?
if [ $rc != 0 ] && [[ "$out" == *"bad filter 'nosuchfield == 1'"*"Field not found"* ]]; then
	pass record-bad-filter-kernel-text
else fail record-bad-filter-kernel-text "rc=$rc out=$out"; fi
out=$(timeout 30 "$STROBE" record -o "$WORK/e.dat" -C nosuchclock -- true 2>&1)
[ $? != 0 ] && [[ "$out" == *"unknown trace clock"* ]] && pass record-bad-clock || fail record-bad-clock "$out"
timeout 30 "$STROBE" record -o "$WORK/e.dat" -f 'x == 1' -- true 2>/dev/null
[ $? = 2 ] && pass record-filter-without-event-is-usage-error || fail record-filter-without-event-is-usage-error
state_same record-errors

# 9. disk full: a readable, shorter file marked incomplete, non-zero exit
SMALL=$WORK/small
mkdir -p "$SMALL"
if mount -t tmpfs -o size=8M tmpfs "$SMALL" 2>/dev/null; then
	out=$(timeout 60 "$STROBE" record -o "$SMALL/full.dat" -e sched -e syscalls -- \
		sh -c 'for i in $(seq 3000); do ls / >/dev/null; done' 2>&1)
	rc=$?
	n=$(trace-cmd report "$SMALL/full.dat" 2>/dev/null | grep -c 'sys_enter\|sched_')
	if [ $rc != 0 ] && [[ "$out" == *"disk full"* ]] && [ "$n" -gt 0 ] &&
	   ! ls "$SMALL"/*.tmp >/dev/null 2>&1; then pass record-disk-full-keeps-readable-file
	else fail record-disk-full-keeps-readable-file "rc=$rc events=$n out=$(echo "$out" | tail -1)"; fi
	umount "$SMALL"
else
	skip record-disk-full-keeps-readable-file "cannot mount a small tmpfs"
fi
state_same record-end
