#!/bin/bash
# 72-record-live.sh - strobe_record() with a live consumer (on_event),
# through the public C API (tests/live/record_check.c, sanitizers): a
# command making exactly N getppid calls gives N events for its TID in the
# callback and N in the file written by the same recording; with no output
# file the consumer alone gets them and no file (nor temporary file) is
# made; a consumer too slow for a storm loses pages of the stream only
# (counted: callback + missed = calls) while the file keeps every call; a
# consumer that fails stops the recording with its message.  No instance
# is left after any of them.
. "$(dirname "$0")/lib.sh"
need_tracefs record-live
RC=$ROOT/build/live/record_check
[ -x "$RC" ] || { fail record-live "build/live/record_check missing (make check builds it)"; exit 0; }
BEFORE=$(tracefs_state)

# val KEY FILE: the value of KEY=... in record_check's output
val() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

# 1. file and consumer from one recording: N and N
timeout 120 $RC tee $WORK/tee.dat $HELPERS/getppid_n 5000 > $WORK/tee 2> $WORK/tee.err
if [ "$(val callback $WORK/tee)" = 5000 ] && [ "$(val file $WORK/tee)" = 5000 ] &&
	[ "$(val final $WORK/tee)" = 1 ] && [ "$(val stream_missed $WORK/tee)" = 0 ]
then pass record-live-consumer-and-file-both-get-every-call
else fail record-live-consumer-and-file-both-get-every-call "$(cat $WORK/tee $WORK/tee.err | tr '\n' ' ')"; fi

# 2. no output: the consumer only, and nothing written in the folder
mkdir -p $WORK/empty
(cd $WORK/empty && timeout 120 $RC live $HELPERS/getppid_n 3000) > $WORK/live 2> $WORK/live.err
if [ "$(val callback $WORK/live)" = 3000 ] && [ "$(val output $WORK/live)" = - ] &&
	[ -z "$(ls -A $WORK/empty)" ]
then pass record-live-no-output-makes-no-file
else fail record-live-no-output-makes-no-file "$(cat $WORK/live $WORK/live.err | tr '\n' ' ') files: $(ls -A $WORK/empty)"; fi

# 3. a slow consumer and a storm: the stream drops pages (counted), the
# file loses nothing
N=1000000
timeout 300 $RC slow $WORK/slow.dat $HELPERS/getppid_n $N > $WORK/slow 2> $WORK/slow.err
cb=$(val callback $WORK/slow); ms=$(val stream_missed $WORK/slow)
if [ "$(val file $WORK/slow)" = $N ] && [ -n "$cb" ] && [ -n "$ms" ] && [ "$ms" -gt 0 ] &&
	[ $((cb + ms)) = $N ]
then pass "record-live-slow-consumer-never-costs-the-file ($ms of $N dropped for the stream)"
else fail record-live-slow-consumer-never-costs-the-file "$(cat $WORK/slow $WORK/slow.err | tr '\n' ' ')"; fi

# 4. the consumer fails: the recording stops and says why
timeout 60 $RC stop-after 100 $HELPERS/getppid_n 100000 > $WORK/stop 2> $WORK/stop.err
if grep -q "^rc=-$(python3 -c 'import errno; print(errno.ECANCELED)') callback=100 msg=consumer stopped after 100 events" $WORK/stop
then pass record-live-consumer-error-stops-the-recording
else fail record-live-consumer-error-stops-the-recording "$(cat $WORK/stop $WORK/stop.err | tr '\n' ' ')"; fi

[ "$(tracefs_state)" = "$BEFORE" ] && pass record-live-no-instance-left ||
	fail record-live-no-instance-left "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
