# 71-clickhouse.sh - strobe export --format clickhouse into Debian's real
# clickhouse-server (18.16), two of them on loopback ports with their own
# config and data under $WORK, killed at the end: a recording of
# getppid_n (exactly N getppid calls) exported with --host-name gives
# exactly N sys_enter getppid rows for the helper's tid, every recorded
# event, and aggregates that agree with the events; the two servers as
# two shards behind a Distributed table: two recordings with two host
# names, each exported to its own shard, and one query through the
# Distributed table sees both with exact per-host counts; both exported by
# one command (several -i, one of them twice) keep their host names; a
# server that is down and a wrong password give clear errors that never
# show the password; the live C example sends a traced command's events straight
# to the server; a container's events and seconds carry its name; --retry
# waits for a server that comes back; tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs clickhouse
. "$(dirname "$0")/ch-server.sh"
if [ ! -x $CHS ]; then
	skip clickhouse "clickhouse-server is not installed (Debian package clickhouse-server)"
	exit 0
fi
before=$(tracefs_state)
PIDS=()
cleanup() {
	local p
	podman rm -f $C probe-$$ >/dev/null 2>&1
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# Four free loopback ports (HTTP and TCP of two servers).
PORTS=($(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'))
H1=${PORTS[0]} T1=${PORTS[1]} H2=${PORTS[2]} T2=${PORTS[3]}
PW=strobe-test-pw-$$-$RANDOM

if ! start_server ch1 $H1 $T1; then
	skip clickhouse "clickhouse-server does not start here: $(tail -c 300 $WORK/ch1/log/err.log $WORK/ch1/log/stdout 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
pass clickhouse_server_started_on_loopback

N=1000
F=$WORK/a.dat
W0=$(date +%s)
# (under a shell that then waits for a short sleep: its switches while it
# waits are on-CPU time surely in the trace; the helper's own last switch,
# after its parent saw it exit, may come after tracing stopped)
if ! rec $F sched,syscalls -- sh -c "$HELPERS/getppid_n $N; sleep 0.05"; then
	fail clickhouse_record "$(tail -3 $F.stderr)"
	exit 0
fi
EVENTS=$(sed -n 's/.* \([0-9]*\) events, \([0-9]*\) lost$/\1/p' $F.stderr | head -1)
TID=$($STROBE report --json -i $F 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    if e["comm"] == "getppid_n" and e["event"] == "sys_enter" and e["fields"]["id"] == 110:
        print(e["pid"]); break')

# --- export, with the password from the environment ------------------------
CLICKHOUSE_USER=strobe CLICKHOUSE_PASSWORD=$PW timeout 300 $STROBE export --format clickhouse \
	--url http://127.0.0.1:$H1 --database strobe --host-name alpha -i $F \
	> $WORK/exp.out 2> $WORK/exp.err
rc=$?
[ $rc = 0 ] && grep -q "delivered" $WORK/exp.err && pass clickhouse_export_succeeds ||
	fail clickhouse_export_succeeds "exit $rc: $(tail -3 $WORK/exp.err)"
grep -q -- "$PW" $WORK/exp.out $WORK/exp.err &&
	fail clickhouse_export_never_prints_the_password || pass clickhouse_export_never_prints_the_password

r=$(q $H1 "SELECT count() FROM strobe.events WHERE host = 'alpha' AND tid = $TID AND
	event = 'sys_enter' AND visitParamExtractInt(fields, 'id') = 110")
[ -n "$TID" ] && [ "$r" = "$N" ] && pass clickhouse_exactly_N_getppid_enters_of_the_helpers_tid ||
	fail clickhouse_exactly_N_getppid_enters_of_the_helpers_tid "tid '$TID': want $N got '$r'"
r=$(q $H1 "SELECT count() FROM strobe.events WHERE host = 'alpha'")
[ -n "$EVENTS" ] && [ "$r" = "$EVENTS" ] && pass clickhouse_every_recorded_event_is_a_row ||
	fail clickhouse_every_recorded_event_is_a_row "record said '$EVENTS' events, table has '$r'"
r=$(q $H1 "SELECT count() FROM strobe.events WHERE host = 'alpha' AND tid = $TID AND
	event = 'sys_exit' AND visitParamExtractInt(fields, 'id') = 110 AND
	visitParamExtractInt(fields, 'ret') > 0 AND comm = 'getppid_n' AND container = 'host'")
[ "$r" = "$N" ] && pass clickhouse_exits_have_ret_comm_and_container ||
	fail clickhouse_exits_have_ret_comm_and_container "want $N got '$r'"
# the fields column is what strobe report --json writes
want=$($STROBE report --json -i $F 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    if e["event"] == "sched_switch":
        print(e["ts"], json.dumps(e["fields"], sort_keys=True)); break')
ts=${want%% *}
got=$(q $H1 "SELECT fields FROM strobe.events WHERE host = 'alpha' AND ts = $ts AND
	event = 'sched_switch' FORMAT TabSeparatedRaw" | python3 -c '
import json, sys
print(json.dumps(json.loads(sys.stdin.read()), sort_keys=True))' 2>&1)
[ -n "$ts" ] && [ "$ts $got" = "$want" ] && pass clickhouse_fields_are_report_json_fields ||
	fail clickhouse_fields_are_report_json_fields "want '$want' got '$ts $got'"

# --- the aggregates agree with the events ----------------------------------
# (containers with no system call are left out: on a busy machine a task
# the recording's process table never saw, started and gone between two
# scans, still shares context switches with the traced command, and its
# CPU time is charged to the unknown container '' with no system call;
# the events side has no sys_exit row for it)
r=$(q $H1 "SELECT container, sum(syscalls), sum(errors),
	arraySum(sumForEach(lat_log2)) FROM strobe.container_seconds WHERE host = 'alpha'
	GROUP BY container HAVING sum(syscalls) > 0 ORDER BY container")
w=$(q $H1 "SELECT container, countIf(event = 'sys_exit'),
	countIf(event = 'sys_exit' AND visitParamExtractInt(fields, 'ret') < 0)
	FROM strobe.events WHERE host = 'alpha' AND event = 'sys_exit'
	GROUP BY container ORDER BY container")
# every call's latency is in the histogram when its entry was recorded too
paired=$(q $H1 "SELECT count() FROM strobe.events WHERE host = 'alpha' AND event = 'sys_exit'")
if [ -n "$r" ] && [ "$(echo "$r" | cut -f1-3)" = "$w" ]; then
	pass clickhouse_aggregate_syscalls_and_errors_equal_the_events
else fail clickhouse_aggregate_syscalls_and_errors_equal_the_events "agg '$r' events '$w'"; fi
h=$(echo "$r" | awk -F'\t' '$1 == "host" { print $4 }')
[ -n "$h" ] && [ "$h" -ge $N ] && [ "$h" -le "$paired" ] &&
	pass clickhouse_aggregate_latency_histogram_counts_the_calls ||
	fail clickhouse_aggregate_latency_histogram_counts_the_calls "histogram '$h', want $N..$paired"
# on-CPU time of the helper's container: positive, at most the recording's
# duration times the CPUs
r=$(q $H1 "SELECT sum(cpu_ns) FROM strobe.container_seconds WHERE host = 'alpha' AND container = 'host'")
span=$(q $H1 "SELECT (max(ts) - min(ts)) * $(nproc) FROM strobe.events WHERE host = 'alpha'")
[ -n "$r" ] && [ "$r" -gt 0 ] 2>/dev/null && [ "$r" -le "$span" ] &&
	pass clickhouse_aggregate_cpu_time_is_plausible ||
	fail clickhouse_aggregate_cpu_time_is_plausible "cpu_ns '$r', bound '$span'"
W1=$(date +%s)
r=$(q $H1 "SELECT toUInt32(min(time)) >= $W0 - 1 AND toUInt32(max(time)) <= $W1 + 1
	FROM strobe.events WHERE host = 'alpha'")
[ "$r" = 1 ] && pass clickhouse_time_is_the_wall_clock_of_the_recording ||
	fail clickhouse_time_is_the_wall_clock_of_the_recording "recorded in [$W0, $W1]: $(q $H1 \
	"SELECT toUInt32(min(time)), toUInt32(max(time)) FROM strobe.events WHERE host = 'alpha'")"
r=$(q $H1 "SELECT count() FROM system.parts WHERE database = 'strobe' AND table = 'events'
	AND active AND partition = toString(toYYYYMMDD(now()))")
[ "$r" -ge 1 ] 2>/dev/null && pass clickhouse_partitioned_by_the_wall_clock_day ||
	fail clickhouse_partitioned_by_the_wall_clock_day "parts of today: '$r'"

# --- live: the C example traces a command straight into ClickHouse ----------
EX=$ROOT/build/examples/clickhouse_live
CLICKHOUSE_USER=strobe CLICKHOUSE_PASSWORD=$PW timeout 120 $EX -u http://127.0.0.1:$H1 \
	-D live -H gamma -- $HELPERS/getppid_n $N > /dev/null 2> $WORK/live.err
rc=$?
lost=$(sed -n 's/.* sent, \([0-9]*\) lost$/\1/p' $WORK/live.err)
r=$(q $H1 "SELECT count() FROM live.events WHERE host = 'gamma' AND comm = 'getppid_n' AND
	event = 'sys_enter' AND visitParamExtractInt(fields, 'id') = 110")
if [ $rc = 0 ] && [ "$lost" = 0 ] && [ "$r" = "$N" ]; then
	pass clickhouse_live_example_sends_exactly_N_getppid_enters
elif [ $rc = 0 ] && [ "${lost:-0}" -gt 0 ]; then
	skip clickhouse_live_example_sends_exactly_N_getppid_enters "$lost events lost (a busy host): count not exact"
else fail clickhouse_live_example_sends_exactly_N_getppid_enters "exit $rc, want $N got '$r' $(cat $WORK/live.err)"; fi
r=$(q $H1 "SELECT sum(syscalls) = (SELECT count() FROM live.events WHERE event = 'sys_exit')
	FROM live.container_seconds WHERE host = 'gamma'")
[ "$r" = 1 ] && pass clickhouse_live_aggregates_agree_with_the_live_events ||
	fail clickhouse_live_aggregates_agree_with_the_live_events "got '$r'"

# the host name the recording stored is the default host column
timeout 300 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 --database byname \
	-i $F -q 2> $WORK/byname.err
r=$(q $H1 "SELECT groupUniqArray(host) FROM byname.events")
[ "$r" = "['$(uname -n)']" ] && pass clickhouse_host_defaults_to_the_recordings_node_name ||
	fail clickhouse_host_defaults_to_the_recordings_node_name "want '$(uname -n)' got '$r' $(cat $WORK/byname.err)"

# --- a real container: its events and its seconds under its name -----------
C=chx-$$
make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip clickhouse_container "cannot run a container: $(head -1 $WORK/podman.err)"
else
	CF=$WORK/c.dat
	rm -f $ROOTFS/go $ROOTFS/done
	run_ct -d $C "while [ ! -e /go ]; do sleep 0.02; done; getppid_n $N; echo > /done"
	$STROBE record -o $CF -b 8192 -d 25 -c $C --preset sched,syscalls > $CF.stdout 2> $CF.stderr &
	sp=$!
	tracing_started $sp
	touch $ROOTFS/go
	for _ in $(seq 250); do [ -e $ROOTFS/done ] && break; sleep 0.1; done
	sleep 0.1
	kill -INT $sp 2>/dev/null
	wait $sp
	podman rm -f $C >/dev/null 2>&1
	timeout 300 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 --database ctr \
		--host-name alpha -i $CF -q 2> $WORK/ctr.err
	r=$(q $H1 "SELECT count() FROM ctr.events WHERE container = '$C' AND comm = 'getppid_n'
		AND event = 'sys_enter' AND visitParamExtractInt(fields, 'id') = 110")
	[ "$r" = "$N" ] && pass clickhouse_container_events_carry_its_name ||
		fail clickhouse_container_events_carry_its_name "want $N got '$r' $(cat $WORK/ctr.err; tail -2 $CF.stderr)"
	r=$(q $H1 "SELECT sum(syscalls), arraySum(sumForEach(lat_log2)), sum(cpu_ns) > 0
		FROM ctr.container_seconds WHERE container = '$C'" | tr '\t' ' ')
	w=$(q $H1 "SELECT count() FROM ctr.events WHERE container = '$C' AND event = 'sys_exit'")
	set -- $r
	[ "$1" = "$w" ] && [ "${2:-0}" -ge $N ] && [ "$2" -le "$w" ] && [ "$3" = 1 ] &&
		pass clickhouse_container_seconds_agree_with_its_events ||
		fail clickhouse_container_seconds_agree_with_its_events "aggregates '$r', exits '$w'"
fi

# --- clear errors -----------------------------------------------------------
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 60 $STROBE export --format clickhouse --url http://127.0.0.1:$dead -i $F \
	> $WORK/down.out 2> $WORK/down.err
rc=$?
[ $rc = 1 ] && grep -q "strobe export: clickhouse at http://127.0.0.1:$dead: .*\(refused\|connect\)" \
	$WORK/down.err && pass clickhouse_server_down_is_a_clear_error ||
	fail clickhouse_server_down_is_a_clear_error "exit $rc: $(cat $WORK/down.err)"
echo "wrong-$PW" > $WORK/pw
timeout 60 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 --user strobe \
	--password-file $WORK/pw -i $F > $WORK/pw.out 2> $WORK/pw.err
rc=$?
if [ $rc = 1 ] && grep -q "HTTP [0-9]*: Code: 193.*assword" $WORK/pw.err &&
   ! grep -q -- "$PW" $WORK/pw.err; then
	pass clickhouse_wrong_password_shows_the_servers_error_not_the_password
else fail clickhouse_wrong_password_shows_the_servers_error_not_the_password "exit $rc: $(cat $WORK/pw.err)"; fi
CLICKHOUSE_PASSWORD=$PW timeout 60 $STROBE export --format clickhouse \
	--url "http://strobe@127.0.0.1:$H1" --database 'bad-name' -i $F > /dev/null 2> $WORK/db.err
rc=$?
[ $rc = 2 ] && grep -q "database name" $WORK/db.err && pass clickhouse_bad_database_name_is_a_usage_error ||
	fail clickhouse_bad_database_name_is_a_usage_error "exit $rc: $(cat $WORK/db.err)"

# --- two shards behind a Distributed table ---------------------------------
if ! start_server ch2 $H2 $T2; then
	fail clickhouse_second_server_started "$(tail -c 300 $WORK/ch2/log/err.log)"
else
	N2=700
	G=$WORK/b.dat
	# (recorded under another host name, for the export of both files below)
	if ! timeout 120 $STROBE record -o $G --host-name beta-rec --preset sched,syscalls -- \
		$HELPERS/getppid_n $N2 > $G.stdout 2> $G.stderr; then
		fail clickhouse_second_record "$(tail -3 $G.stderr)"
	else
		timeout 300 $STROBE export --format clickhouse --url http://127.0.0.1:$H2 \
			--database strobe --host-name beta -i $G -q 2> $WORK/exp2.err ||
			fail clickhouse_export_to_the_second_shard "$(cat $WORK/exp2.err)"
		for p in $H1 $H2; do
			q $p "CREATE TABLE IF NOT EXISTS strobe.events_all AS strobe.events
				ENGINE = Distributed(strobe_test, strobe, events, cityHash64(host))" >> $WORK/ddl.out
		done
		r1=$(q $H1 "SELECT groupUniqArray(host) FROM strobe.events")
		r2=$(q $H2 "SELECT groupUniqArray(host) FROM strobe.events")
		[ "$r1" = "['alpha']" ] && [ "$r2" = "['beta']" ] &&
			pass clickhouse_two_recordings_on_two_shards ||
			fail clickhouse_two_recordings_on_two_shards "shard 1 '$r1', shard 2 '$r2'"
		Qd="SELECT host, count() FROM strobe.events_all WHERE comm = 'getppid_n' AND
			event = 'sys_enter' AND visitParamExtractInt(fields, 'id') = 110
			GROUP BY host ORDER BY host"
		r=$(q $H1 "$Qd" | tr '\t\n' ' ')
		[ "$r" = "alpha $N beta $N2 " ] &&
			pass clickhouse_one_distributed_query_sees_both_hosts ||
			fail clickhouse_one_distributed_query_sees_both_hosts "want 'alpha $N beta $N2 ' got '$r' $(cat $WORK/ddl.out)"
		r=$(q $H2 "$Qd" | tr '\t\n' ' ')
		[ "$r" = "alpha $N beta $N2 " ] &&
			pass clickhouse_the_same_from_the_other_shard ||
			fail clickhouse_the_same_from_the_other_shard "got '$r'"
		# both recordings in one export (and one of them again through a
		# link): each host's rows under its recorded name, every event once
		ln -s $G $WORK/b-link.dat
		timeout 300 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 \
			--database several -i $F -i $G -i $WORK/b-link.dat 2> $WORK/several.err
		rc=$?
		r=$(q $H1 "SELECT host, countIf(comm = 'getppid_n' AND event = 'sys_enter' AND
			visitParamExtractInt(fields, 'id') = 110) FROM several.events
			GROUP BY host ORDER BY host" | tr '\t\n' ' ')
		w="beta-rec $N2 $(uname -n) $N "
		[ "$(uname -n)" \< beta-rec ] && w="$(uname -n) $N beta-rec $N2 "
		e=$(q $H1 "SELECT count() FROM several.events")
		[ $rc = 0 ] && [ "$r" = "$w" ] &&
			grep -q "warning: $WORK/b-link.dat is the same file as $G: it is read once" \
				$WORK/several.err &&
			[ "$e" = $(($($STROBE sql -i $F 'SELECT count(*) FROM events' | tail -1) +
				     $($STROBE sql -i $G 'SELECT count(*) FROM events' | tail -1))) ] &&
			pass clickhouse_export_of_several_files_keeps_each_host ||
			fail clickhouse_export_of_several_files_keeps_each_host "exit $rc, want '$w' got '$r', $e rows: $(cat $WORK/several.err)"
	fi
fi

# --- a server that is down, then back: --retry loses nothing ----------------
kill ${PIDS[0]}
for _ in $(seq 100); do kill -0 ${PIDS[0]} 2>/dev/null || break; sleep 0.1; done
timeout 300 $STROBE export --format clickhouse --url http://127.0.0.1:$H1 --database retry \
	--host-name alpha --retry 120 -i $F -q > /dev/null 2> $WORK/retry.err &
exp=$!
sleep 2
if kill -0 $exp 2>/dev/null && start_server ch1 $H1 $T1; then
	wait $exp
	rc=$?
	r=$(q $H1 "SELECT count(), countIf(tid = $TID AND event = 'sys_enter' AND
		visitParamExtractInt(fields, 'id') = 110) FROM retry.events" | tr '\t' ' ')
	[ $rc = 0 ] && [ "$r" = "$EVENTS $N" ] && pass clickhouse_retry_waits_for_a_server_that_comes_back ||
		fail clickhouse_retry_waits_for_a_server_that_comes_back "exit $rc, want '$EVENTS $N' got '$r' $(cat $WORK/retry.err)"
else
	fail clickhouse_retry_waits_for_a_server_that_comes_back "export ended early: $(cat $WORK/retry.err)"
fi
t0=$(date +%s)
timeout 60 $STROBE export --format clickhouse --url http://127.0.0.1:$dead --retry 2 -i $F \
	> /dev/null 2> $WORK/gone.err
rc=$?
t1=$(date +%s)
[ $rc = 1 ] && [ $((t1 - t0)) -ge 1 ] && grep -q "nothing was delivered" $WORK/gone.err &&
	pass clickhouse_retry_gives_up_on_a_server_that_stays_down ||
	fail clickhouse_retry_gives_up_on_a_server_that_stays_down "exit $rc after $((t1 - t0)) s: $(cat $WORK/gone.err)"

[ "$(tracefs_state)" = "$before" ] && pass clickhouse_tracefs_left_as_found ||
	fail clickhouse_tracefs_left_as_found
