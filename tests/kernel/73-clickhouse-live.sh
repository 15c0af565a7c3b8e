# 73-clickhouse-live.sh - strobe record --sink clickhouse://... into
# Debian's real clickhouse-server on loopback (ch-server.sh): a helper
# making exactly N getppid calls gives exactly N rows for its TID in the
# server and N in the trace file, every recorded event is a row, and the
# password of the URL shows nowhere (messages, the stored command line);
# a server killed with SIGKILL during the recording and restarted before
# its end still gets exactly every row (spooled, then retried); a server
# that never comes back: the recording succeeds with a complete file,
# stderr counts the rows not delivered (all of them) and names the spool,
# and strobe export --spool later delivers exactly those rows; Ctrl-C
# during the last delivery attempts ends them at once.  Servers
# are stopped and the work folder removed on every exit, tracefs is left
# as found (no strobe instance remains).
. "$(dirname "$0")/lib.sh"
need_tracefs clickhouse_live
. "$(dirname "$0")/ch-server.sh"
if [ ! -x $CHS ]; then
	skip clickhouse_live "clickhouse-server is not installed (Debian package clickhouse-server)"
	exit 0
fi
before=$(tracefs_state)
REC=
cleanup() {
	[ -n "$REC" ] && kill -INT $REC 2>/dev/null && wait $REC 2>/dev/null
	stop_servers
	rm -rf "$WORK"
}
trap cleanup EXIT

PORTS=($(free_ports 3))
H1=${PORTS[0]} T1=${PORTS[1]} DEAD=${PORTS[2]}
PW=strobe-test-pw-$$-$RANDOM
if ! start_server ch1 $H1 $T1; then
	skip clickhouse_live "clickhouse-server does not start here: $(tail -c 300 $WORK/ch1/log/err.log $WORK/ch1/log/stdout 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
pass clickhouse_live_server_started_on_loopback

N=1000
# events NAME.dat: the recording's "N events, M lost" numbers
events() { sed -n 's/.* \([0-9]*\) events, [0-9]* lost.*$/\1/p' $1.stderr | head -1; }
lost() { sed -n 's/.* [0-9]* events, \([0-9]*\) lost.*$/\1/p' $1.stderr | head -1; }
missed() { sed -n 's/.* \([0-9]*\) events missed by the live stream.*/\1/p' $1.stderr | head -1; }
# file_getppid FILE: "TID COUNT" of getppid_n's sys_enter getppid events, one line per thread
file_getppid() {
	$STROBE report --json -i $1 2>/dev/null | python3 -c '
import json, sys, collections
n = collections.Counter()
for l in sys.stdin:
    e = json.loads(l)
    if e["comm"] == "getppid_n" and e["event"] == "sys_enter" and e["fields"]["id"] == 110:
        n[e["pid"]] += 1
for t, c in sorted(n.items()): print(t, c)'
}
# ch_getppid DB HOST: the same from the server
ch_getppid() {
	q $H1 "SELECT tid, count() FROM $1.events WHERE host = '$2' AND comm = 'getppid_n' AND
		event = 'sys_enter' AND visitParamExtractInt(fields, 'id') = 110
		GROUP BY tid ORDER BY tid" | tr '\t' ' '
}

# every_event_a_row CHECK FILE HOST: each event the file holds is a row of
# host HOST in live.events (skipped when the kernel or the stream lost some)
every_event_a_row() {
	local e all
	e=$(events $2)
	all=$(q $H1 "SELECT count() FROM live.events WHERE host = '$3'")
	if [ "$(lost $2)" != 0 ] || [ "$(missed $2)" != 0 ]; then
		skip $1 "lost $(lost $2), missed $(missed $2): a busy host"
	elif [ -n "$e" ] && [ "$all" = "$e" ]; then
		pass $1
	else fail $1 "file $e events, server '$all' rows"; fi
}
# --- exact counts, in the file and in the server --------------------------
F=$WORK/a.dat
W0=$(date +%s)
timeout 120 $STROBE record -o $F --preset sched,syscalls \
	--sink "clickhouse://strobe:$PW@127.0.0.1:$H1/live?host=alpha" \
	-- $HELPERS/getppid_n $N > $F.stdout 2> $F.stderr
rc=$?
fg=$(file_getppid $F)
cg=$(ch_getppid live alpha)
if [ $rc = 0 ] && [ "${fg#* }" = $N ] && [ "$cg" = "$fg" ]; then
	pass clickhouse_live_exactly_N_getppid_rows_in_the_server_and_the_file
else fail clickhouse_live_exactly_N_getppid_rows_in_the_server_and_the_file "exit $rc, file '$fg', server '$cg': $(tail -4 $F.stderr)"; fi
every_event_a_row clickhouse_live_every_recorded_event_is_a_row $F alpha
all=$(q $H1 "SELECT count() FROM live.events WHERE host = 'alpha'")
grep -q "sink clickhouse://127.0.0.1:$H1/live: $all events and [0-9]* container-second rows delivered, 0 undelivered, 0 dropped, 0 not sent" $F.stderr &&
	pass clickhouse_live_summary_counts_what_was_delivered ||
	fail clickhouse_live_summary_counts_what_was_delivered "$(grep sink $F.stderr)"
r=$(q $H1 "SELECT sum(syscalls) = (SELECT count() FROM live.events WHERE host = 'alpha'
	AND event = 'sys_exit') FROM live.container_seconds WHERE host = 'alpha'")
[ "$r" = 1 ] && pass clickhouse_live_aggregates_agree_with_the_events ||
	fail clickhouse_live_aggregates_agree_with_the_events "got '$r'"
# the time column: the wall clock of the recording (offset measured live)
W1=$(date +%s)
r=$(q $H1 "SELECT toUInt32(min(time)) >= $W0 - 1 AND toUInt32(max(time)) <= $W1 + 1
	FROM live.events WHERE host = 'alpha'")
[ "$r" = 1 ] && pass clickhouse_live_time_is_the_wall_clock_of_the_recording ||
	fail clickhouse_live_time_is_the_wall_clock_of_the_recording "recorded in [$W0, $W1]: $(q $H1 \
	"SELECT toUInt32(min(time)), toUInt32(max(time)) FROM live.events WHERE host = 'alpha'")"
# the password: not in messages, not in the file (its stored command line
# has the URL with the password overwritten)
if ! grep -q -- "$PW" $F.stderr $F.stdout && ! grep -aq -- "$PW" $F &&
   grep -aq "clickhouse://strobe:xxxx*@127.0.0.1" $F; then
	pass clickhouse_live_password_shows_nowhere
else fail clickhouse_live_password_shows_nowhere "$(grep -c -- "$PW" $F.stderr) in stderr, $(grep -ac -- "$PW" $F) in the file"; fi
[ ! -e $F.ch-spool ] && pass clickhouse_live_no_spool_left_when_all_was_delivered ||
	fail clickhouse_live_no_spool_left_when_all_was_delivered

# --- the server killed (SIGKILL) during the recording, back before its end -
G=$WORK/b.dat
timeout 300 $STROBE record -o $G --preset sched,syscalls --sink-timeout 60 \
	--sink "clickhouse://127.0.0.1:$H1/live?host=beta" -- /bin/sh -c "
	$HELPERS/getppid_n $N; touch $WORK/p1
	while [ ! -e $WORK/go ]; do sleep 0.05; done
	$HELPERS/getppid_n $N; touch $WORK/p2
	while [ ! -e $WORK/end ]; do sleep 0.05; done" > $G.stdout 2> $G.stderr &
REC=$!
for _ in $(seq 600); do [ -e $WORK/p1 ] && break; kill -0 $REC 2>/dev/null || break; sleep 0.1; done
# the first rows are delivered (waited for, not slept for: a loaded
# machine may take longer than an idle one)
for _ in $(seq 300); do
	n=$(q $H1 "SELECT count() FROM live.events WHERE host = 'beta'")
	[ "${n:-0}" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
srv=${PIDS[-1]}
kill -9 $srv
wait $srv 2>/dev/null	# (no "Killed" line)
touch $WORK/go
for _ in $(seq 600); do [ -e $WORK/p2 ] && break; kill -0 $REC 2>/dev/null || break; sleep 0.1; done
# rows of the second helper fail, and wait in the spool
for _ in $(seq 300); do [ -s $G.ch-spool ] && break; kill -0 $REC 2>/dev/null || break; sleep 0.1; done
if ! start_server ch1 $H1 $T1; then
	fail clickhouse_live_server_restarted "$(tail -c 300 $WORK/ch1/log/err.log)"
fi
sleep 1
touch $WORK/end
wait $REC
rc=$?
REC=
fg=$(file_getppid $G)
cg=$(ch_getppid live beta)
failed=$(sed -n 's/.*; \([0-9]*\) failed attempts, \([0-9]*\) rows through the spool$/\1/p' $G.stderr)
spooled=$(sed -n 's/.*; \([0-9]*\) failed attempts, \([0-9]*\) rows through the spool$/\2/p' $G.stderr)
if [ $rc = 0 ] && [ "$(echo "$fg" | wc -l)" = 2 ] && [ -z "$(echo "$fg" | grep -v " $N$")" ] &&
   [ "$cg" = "$fg" ] && [ "${failed:-0}" -gt 0 ] && [ "${spooled:-0}" -gt 0 ]; then
	pass clickhouse_live_server_killed_and_restarted_loses_nothing
else fail clickhouse_live_server_killed_and_restarted_loses_nothing "exit $rc, file '$fg', server '$cg', failed '$failed', spooled '$spooled': $(grep sink $G.stderr)"; fi
every_event_a_row clickhouse_live_after_the_restart_every_event_is_a_row $G beta
grep -q " 0 undelivered, 0 dropped, 0 not sent" $G.stderr && [ ! -e $G.ch-spool ] &&
	pass clickhouse_live_summary_after_the_restart_says_all_delivered ||
	fail clickhouse_live_summary_after_the_restart_says_all_delivered "$(grep sink $G.stderr)"

# --- a server that never comes back ------------------------------------------
K=$WORK/c.dat
t0=$(date +%s)
timeout 120 $STROBE record -o $K --preset sched,syscalls --sink-timeout 2 \
	--sink "clickhouse://127.0.0.1:$DEAD/gone?host=gamma" -- $HELPERS/getppid_n $N \
	> $K.stdout 2> $K.stderr
rc=$?
t1=$(date +%s)
fg=$(file_getppid $K)
und=$(sed -n "s/.*sink clickhouse:[^ ]*: \([0-9]*\) events and \([0-9]*\) container-second rows were not delivered.*kept in '\([^']*\)'.*/\1 \2 \3/p" $K.stderr)
set -- $und
E=$(events $K)
if [ $rc = 0 ] && [ "${fg#* }" = $N ] && [ -n "$3" ] && [ "$3" = $K.ch-spool ] && [ -s "$3" ] &&
   [ $((t1 - t0)) -lt 60 ]; then
	pass clickhouse_live_server_gone_recording_succeeds_and_names_the_spool
else fail clickhouse_live_server_gone_recording_succeeds_and_names_the_spool "exit $rc after $((t1 - t0)) s, file '$fg': $(tail -3 $K.stderr)"; fi
if [ "$(lost $K)" != 0 ] || [ "$(missed $K)" != 0 ]; then
	skip clickhouse_live_server_gone_every_event_counted_undelivered "lost $(lost $K), missed $(missed $K)"
elif [ "$1" = "$E" ] && [ "${2:-0}" -gt 0 ]; then
	pass clickhouse_live_server_gone_every_event_counted_undelivered
else fail clickhouse_live_server_gone_every_event_counted_undelivered "file $E events, undelivered '$und'"; fi
grep -q "strobe export --format clickhouse --url http://127.0.0.1:$DEAD --database gone --spool '$K.ch-spool'" $K.stderr &&
	pass clickhouse_live_server_gone_says_how_to_deliver_later ||
	fail clickhouse_live_server_gone_says_how_to_deliver_later "$(tail -2 $K.stderr)"
# later, to a server that is up: exactly what was kept
ev_und=$1 agg_und=$2
timeout 120 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 --database gone \
	--spool $K.ch-spool > $WORK/replay.out 2> $WORK/replay.err
rc=$?
cg=$(ch_getppid gone gamma)
n=$(q $H1 "SELECT count() FROM gone.events WHERE host = 'gamma'")
a=$(q $H1 "SELECT count() FROM gone.container_seconds WHERE host = 'gamma'")
if [ $rc = 0 ] && [ "$cg" = "$fg" ] && [ "$n" = "$ev_und" ] && [ "$a" = "$agg_und" ] &&
   [ ! -e $K.ch-spool ]; then
	pass clickhouse_live_kept_spool_delivers_exactly_the_undelivered_rows
else fail clickhouse_live_kept_spool_delivers_exactly_the_undelivered_rows "exit $rc, server '$cg' (file '$fg'), $n/$ev_und events, $a/$agg_und aggregates: $(cat $WORK/replay.err)"; fi

# --- Ctrl-C during the last attempts ends them at once, keeping the spool ----
L=$WORK/d.dat
timeout 200 $STROBE record -o $L --preset sched,syscalls --sink-timeout 120 \
	--sink "clickhouse://127.0.0.1:$DEAD/gone?host=delta" -- $HELPERS/getppid_n $N \
	> $L.stdout 2> $L.stderr &
REC=$!
for _ in $(seq 600); do
	grep -q "delivering the last" $L.stderr 2>/dev/null && break
	kill -0 $REC 2>/dev/null || break
	sleep 0.1
done
t0=$(date +%s.%N)
kill -INT $REC
wait $REC
rc=$?
REC=
t1=$(date +%s.%N)
und=$(sed -n "s/.*: \([0-9]*\) events and [0-9]* container-second rows were not delivered.*kept in '\([^']*\)'.*/\1 \2/p" $L.stderr)
if [ $rc = 0 ] && grep -q "delivering the last" $L.stderr &&
   [ "$(echo "$t1 - $t0 < 10" | bc)" = 1 ] && [ "${und#* }" = $L.ch-spool ] && [ -s $L.ch-spool ] &&
   { [ "$(missed $L)" != 0 ] || [ "${und%% *}" = "$(events $L)" ]; }; then
	pass clickhouse_live_ctrl_c_ends_the_last_attempts_and_keeps_the_spool
else fail clickhouse_live_ctrl_c_ends_the_last_attempts_and_keeps_the_spool "exit $rc after $(echo "$t1 - $t0" | bc) s, undelivered '$und' of $(events $L): $(tail -3 $L.stderr)"; fi

# --- usage -----------------------------------------------------------------
$STROBE record --sink "http://127.0.0.1:$H1" -o $WORK/u.dat -- true > /dev/null 2> $WORK/u.err
rc=$?
[ $rc = 2 ] && grep -q "clickhouse://" $WORK/u.err && [ ! -e $WORK/u.dat ] &&
	pass clickhouse_live_bad_sink_url_is_a_usage_error ||
	fail clickhouse_live_bad_sink_url_is_a_usage_error "exit $rc: $(cat $WORK/u.err)"

[ "$(tracefs_state)" = "$before" ] && pass clickhouse_live_tracefs_left_as_found ||
	fail clickhouse_live_tracefs_left_as_found "$(diff <(echo "$before") <(tracefs_state))"
