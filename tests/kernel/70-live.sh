#!/bin/bash
# 70-live.sh - the live event stream through the public C API
# (tests/live/live_check.c, sanitizers): exact counts for a traced command
# with fork following, timestamp order across CPUs, a quiet CPU's events
# delivered within 200 ms, lost events reported as a gap with the kernel's
# exact count, no instance left after a normal end, a consumer that stops
# early, SIGINT and SIGTERM, and analyses fed live that equal the same
# analyses on the file recorded by the same capture.
. "$(dirname "$0")/lib.sh"
need_tracefs live
LC=$ROOT/build/live/live_check
[ -x "$LC" ] || { fail live "build/live/live_check missing (make check builds it)"; exit 0; }
BEFORE=$(tracefs_state)

# val KEY FILE: the value of KEY=... in live_check's output
val() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }
gone() {	# gone FILE: the instance live_check used is removed
	local d
	d=$(val instance "$1")
	[ -n "$d" ] && [ ! -d "$d" ]
}

# 1. exactly N getppid calls of the traced command, for its own TID
timeout 120 $LC count $HELPERS/getppid_n 5000 > $WORK/count 2> $WORK/count.err
if [ "$(val getppid $WORK/count)" = 5000 ] && [ "$(val order_errors $WORK/count)" = 0 ] &&
	[ "$(val end $WORK/count)" = target-exit ] && gone $WORK/count
then pass live-exact-count-for-the-traced-command
else fail live-exact-count-for-the-traced-command "$(cat $WORK/count $WORK/count.err | tr '\n' ' ')"; fi

# 2. a ping-pong across CPU 0 and CPU 1: events of both CPUs, in order
if [ "$(nproc)" -ge 2 ]; then
	timeout 120 $LC count $HELPERS/pingpong 20000 --split > $WORK/pp 2> $WORK/pp.err
	if [ "$(val cpus $WORK/pp)" -ge 2 ] 2>/dev/null && [ "$(val order_errors $WORK/pp)" = 0 ] &&
		[ "$(val events $WORK/pp)" -ge 80000 ] && gone $WORK/pp
	then pass live-two-cpus-in-timestamp-order
	else fail live-two-cpus-in-timestamp-order "$(cat $WORK/pp $WORK/pp.err | tr '\n' ' ')"; fi
else
	skip live-two-cpus-in-timestamp-order "one CPU"
fi

# 3. a quiet CPU: five single calls 300 ms apart, each delivered in 200 ms
if [ "$(nproc)" -ge 2 ]; then
	timeout 60 $LC latency > $WORK/lat 2> $WORK/lat.err
	w=$(val worst_ms $WORK/lat)
	if [ "$(val seen $WORK/lat)" = 5 ] && awk -v w="$w" 'BEGIN { exit !(w != "" && w < 200) }' && gone $WORK/lat
	then pass "live-quiet-cpu-events-within-200ms (worst ${w} ms)"
	else fail live-quiet-cpu-events-within-200ms "$(cat $WORK/lat $WORK/lat.err | tr '\n' ' ')"; fi
else
	skip live-quiet-cpu-events-within-200ms "one CPU"
fi

# 4. a storm into a 16 KiB buffer with a slow consumer: the gap shows in
# the stream, and delivered + the kernel's count = every call
HELPERS=$HELPERS timeout 120 $LC storm 16 > $WORK/storm 2> $WORK/storm.err
ev=$(val events $WORK/storm); kl=$(val kernel_lost $WORK/storm); marks=$(val stats_marks $WORK/storm)
if [ -n "$ev" ] && [ -n "$kl" ] && [ $((ev + kl)) = 3000000 ] && [ "$kl" -gt 0 ] &&
	[ "$(( marks + $(val stats_lost $WORK/storm) ))" -gt 0 ] && gone $WORK/storm
then pass "live-lost-events-reported-as-a-counted-gap ($kl lost, $marks gaps)"
else fail live-lost-events-reported-as-a-counted-gap "$(cat $WORK/storm $WORK/storm.err | tr '\n' ' ')"; fi

# 5. the consumer stops after 500 events: clean end, no instance
timeout 60 $LC stop-after 500 > $WORK/stop 2> $WORK/stop.err
[ "$(val events $WORK/stop)" = 500 ] && gone $WORK/stop && pass live-consumer-stops-early-clean ||
	fail live-consumer-stops-early-clean "$(cat $WORK/stop $WORK/stop.err | tr '\n' ' ')"

# 6. SIGINT and SIGTERM: a clean stop, no instance
for sig in INT TERM; do
	$LC until-signal > $WORK/sig$sig 2>&1 &
	P=$!
	for i in $(seq 50); do grep -q started $WORK/sig$sig && break; sleep 0.1; done
	sleep 0.3
	kill -$sig $P
	timeout 20 tail --pid=$P -f /dev/null
	wait $P
	rc=$?
	if [ $rc = 0 ] && grep -q '^stopped-by-signal events=[1-9]' $WORK/sig$sig && gone $WORK/sig$sig
	then pass live-sig$sig-clean-stop
	else fail live-sig$sig-clean-stop "rc=$rc $(tr '\n' ' ' < $WORK/sig$sig)"; fi
done

# 7. one capture, two sinks: the same analyses live and on the file made
# from the same pages give the same figures (names aside: see live_check)
mkdir -p $WORK/tee
timeout 120 $LC tee $WORK/tee $HELPERS/analysis_work pingpong 3000 > $WORK/tee.out 2>&1
if grep -q tee-done $WORK/tee.out && [ "$(grep -c '^syscalls' $WORK/tee/live.txt)" -gt 0 ] &&
	[ "$(grep -c '^schedlat' $WORK/tee/live.txt)" -gt 0 ] &&
	diff $WORK/tee/live.txt $WORK/tee/file.txt > $WORK/tee.diff && gone $WORK/tee.out
then pass "live-analyses-equal-the-file-analyses ($(wc -l < $WORK/tee/live.txt) rows)"
else fail live-analyses-equal-the-file-analyses "$(head -c 600 $WORK/tee.out $WORK/tee.diff | tr '\n' ' ')"; fi

# 8. the C example built by make: exact count for a command, its status
EX=$ROOT/build/examples/eventcount
timeout 60 $EX -e syscalls:sys_enter_getppid -e sched -- $HELPERS/getppid_n 1234 > $WORK/ex 2>&1
rc=$?
if [ $rc = 0 ] && grep -Eq '^ +1234  sys_enter_getppid$' $WORK/ex && grep -q sched_process_exit $WORK/ex
then pass example-eventcount-exact-count
else fail example-eventcount-exact-count "rc=$rc $(tr '\n' ' ' < $WORK/ex)"; fi
timeout 60 $EX -e syscalls:sys_enter_getppid -- sh -c 'exit 7' > /dev/null 2>&1
[ $? = 7 ] && pass example-eventcount-passes-the-exit-status || fail example-eventcount-passes-the-exit-status

# 9. a live stream with nothing to hand out waits instead of spinning: an
# event that (almost) never happens, for 3 s, costs a few per cent of a CPU
# (it once cost 3.7 s of CPU in 3.3 s, the stream and the readers asking
# each other in a loop).  CPU time, not wall time: load does not inflate it.
TIMEFORMAT='%U %S'
{ time $EX -e sched:sched_process_exec -d 3 > /dev/null 2>&1; } 2> $WORK/idle.time
cpu=$(awk '{ printf "%.2f", $1 + $2 }' $WORK/idle.time 2>/dev/null)
if [ -n "$cpu" ] && awk -v c="$cpu" 'BEGIN { exit !(c < 1.0) }'
then pass "live-idle-stream-does-not-spin (${cpu} s of CPU in 3 s)"
else fail live-idle-stream-does-not-spin "cpu=${cpu:-?} s in 3 s"; fi

[ "$(tracefs_state)" = "$BEFORE" ] && pass live-tracefs-untouched ||
	fail live-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
