#!/bin/bash
# 61-faults-record.sh - strobe record when things go wrong around it:
#   - the disk fills up (small tmpfs): an error naming the full disk, a
#     file every reader opens, and `strobe report` saying it is incomplete
#     (the sanitizer build records, so its error paths are checked too);
#   - strobe is SIGKILLed mid-recording: the half-written file is read
#     cleanly (no events, or a clear error), and the next recording to
#     the same path works and cleans up after both;
#   - the traced command exits at once (`-- true`, `-- false`), -p of a
#     process that exits during start-up, -p of no process;
#   - a container stops while `strobe record -p <its init>` traces it:
#     the recording ends by itself with every event of the container.
# (Signals, stale instances and concurrent recordings: 11-hygiene.sh;
# a full disk's exit status and trace-cmd's view: 10-record.sh.)
. "$(dirname "$0")/lib.sh"
need_tracefs faults-record
GETPPID=$HELPERS/getppid_n
SAN=$ROOT/build/san/strobe
[ -x "$SAN" ] || SAN=$STROBE
BEFORE=$(tracefs_state)
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
no_instances() { ! ls $TRACEFS/instances | grep -q '^strobe-'; }

# 1. disk full
SMALL=$WORK/small
mkdir -p "$SMALL"
if mount -t tmpfs -o size=16M tmpfs "$SMALL" 2>/dev/null; then
	out=$(timeout 120 "$SAN" record -o "$SMALL/full.dat" -e sched -e syscalls -- \
		"$GETPPID" 2000000 2>&1)
	rc=$?
	rep=$(timeout 30 "$STROBE" report "$SMALL/full.dat" 2>&1 >/dev/null)
	rrc=$?
	n=$(timeout 30 "$STROBE" report "$SMALL/full.dat" 2>/dev/null | grep -c sys_enter)
	if [ $rc = 1 ] && [[ "$out" == *"disk full"* ]] && [[ "$out" != *Sanitizer* ]] &&
	   [ $rrc = 0 ] && [[ "$rep" == *"incomplete: disk full"* ]] && [ "$n" -gt 0 ] &&
	   ! ls "$SMALL"/*.tmp >/dev/null 2>&1; then
		pass faults-record-disk-full-file-says-incomplete
	else
		fail faults-record-disk-full-file-says-incomplete \
			"rc=$rc report-rc=$rrc events=$n $(echo "$out" | grep -m1 -E 'Sanitizer|disk') / $rep"
	fi
	umount "$SMALL"
else
	skip faults-record-disk-full-file-says-incomplete "cannot mount a small tmpfs"
fi

# 2. SIGKILL mid-recording, then a new recording to the same path
K=$WORK/killed.dat
"$STROBE" record -q -o "$K" -e sched -e syscalls &
P=$!
for i in $(seq 50); do ls $TRACEFS/instances | grep -q "^strobe-$P\$" && break; sleep 0.1; done
sleep 0.5
kill -KILL $P
wait $P 2>/dev/null
out=$(timeout 30 "$SAN" report "$K" 2>&1 >/dev/null)
rc=$?
if { [ $rc = 0 ] || { [ $rc = 1 ] && [[ "$out" == *killed.dat* ]]; }; } && [[ "$out" != *Sanitizer* ]]; then
	pass faults-record-sigkilled-file-read-cleanly
else fail faults-record-sigkilled-file-read-cleanly "rc=$rc $out"; fi
timeout 60 "$STROBE" record -q -o "$K" -e syscalls:sys_enter_getppid -- "$GETPPID" 500
rc=$?
n=$("$STROBE" report "$K" 2>/dev/null | grep -c sys_enter_getppid)
if [ $rc = 0 ] && [ "$n" = 500 ] && ! ls "$K".cpu* >/dev/null 2>&1 && no_instances; then
	pass faults-record-after-sigkill-next-run-clean
else fail faults-record-after-sigkill-next-run-clean "rc=$rc count=$n $(ls "$WORK")"; fi

# 3. targets that end at once
F=$WORK/true.dat
timeout 30 "$SAN" record -q -o "$F" -- true
rc=$?
n=$(timeout 30 "$STROBE" report "$F" 2>/dev/null | grep -c 'true-[0-9]* .*sched_process_exit')
[ $rc = 0 ] && [ "$n" = 1 ] && pass faults-record-command-exits-at-once ||
	fail faults-record-command-exits-at-once "rc=$rc exits=$n"
timeout 30 "$STROBE" record -q -o "$F" -- false
rc=$?
[ $rc = 1 ] && "$STROBE" report "$F" >/dev/null 2>&1 && pass faults-record-command-fails-at-once ||
	fail faults-record-command-fails-at-once "rc=$rc"
sleep 0.2 &
SP=$!
start=$SECONDS
timeout 30 "$STROBE" record -q -o "$F" -p $SP
rc=$?
if { [ $rc = 0 ] || [ $rc = 1 ]; } && [ $((SECONDS - start)) -lt 10 ] && no_instances; then
	pass faults-record-pid-exits-during-start
else fail faults-record-pid-exits-during-start "rc=$rc"; fi
wait $SP 2>/dev/null
out=$(timeout 30 "$STROBE" record -q -o "$WORK/none.dat" -p 999999999 2>&1)
rc=$?
if [ $rc != 0 ] && [ $rc -lt 124 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
   [[ "$out" == "strobe record: "* ]] && no_instances; then
	pass faults-record-pid-of-no-process
else fail faults-record-pid-of-no-process "rc=$rc $out"; fi

# 4. a container that stops while traced
if command -v podman >/dev/null && [ -x /usr/sbin/runc ] && command -v busybox >/dev/null; then
	C=faultct-$$
	make_rootfs
	# the container's work waits for /go, made once strobe traces
	rm -f $ROOTFS/go
	if run_ct -d $C 'while [ ! -e /go ]; do sleep 0.1; done; getppid_n 20000; sleep 0.3'; then
		CP=$(podman inspect -f '{{.State.Pid}}' $C 2>/dev/null)
		F=$WORK/ct.dat
		start=$SECONDS
		"$STROBE" record -q -o "$F" -p "$CP" \
			-e syscalls:sys_enter_getppid -f 'comm == "getppid_n"' -e sched:sched_process_exit &
		SP=$!
		tracing_started $SP
		touch $ROOTFS/go
		# it ends by itself when the container does (60 s at most)
		for _ in $(seq 600); do kill -0 $SP 2>/dev/null || break; sleep 0.1; done
		kill -INT $SP 2>/dev/null && echo "strobe record -p still ran after 60 s"
		wait $SP
		rc=$?
		rm -f $ROOTFS/go
		n=$("$STROBE" report "$F" 2>/dev/null | grep -c sys_enter_getppid)
		gone=$(podman ps -q --filter name=$C)
		if [ $rc = 0 ] && [ "$n" = 20000 ] && [ -z "$gone" ] && [ $((SECONDS - start)) -lt 30 ] &&
		   no_instances; then
			pass faults-record-container-stops-while-traced
		else fail faults-record-container-stops-while-traced "rc=$rc count=$n pid=$CP"; fi
		podman rm -f $C >/dev/null 2>&1
	else
		skip faults-record-container-stops-while-traced "cannot run a container: $(head -1 $WORK/podman.err)"
	fi
else
	skip faults-record-container-stops-while-traced "podman, runc or busybox-static not installed"
fi

no_instances && pass faults-record-no-instance-left || fail faults-record-no-instance-left
[ "$(tracefs_state)" = "$BEFORE" ] && pass faults-record-tracefs-untouched ||
	fail faults-record-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
