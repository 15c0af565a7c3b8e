# 70-sql.sh - strobe sql on a real recording of a workload of known
# behaviour: getppid_n makes exactly N getppid calls, so the obvious
# query must count N (through the event table and the syscalls result
# table); the database kept with --db opens in the sqlite3 shell with the
# same answer and is reused until the trace changes; every documented
# table exists; the events view and the typed columns say what
# `strobe report --json` says for the same events; SQL errors are one
# line with exit status 1; tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs sql
before=$(tracefs_state)
N=5000
F=$WORK/sql.dat
DB=$WORK/sql.sqlite
Q="SELECT count(*) FROM sys_enter WHERE comm = 'getppid_n' AND id = 110"

if ! rec $F sched,syscalls -- $HELPERS/getppid_n $N; then
	fail sql_record "$(tail -3 $F.stderr)"
	exit 0
fi

# --- the obvious query, in memory --------------------------------------------
r=$(timeout 120 $STROBE sql -i $F --csv "$Q" 2>$WORK/err | tail -1 | tr -d '\r')
[ "$r" = "$N" ] && pass sql_counts_exactly_N_getppid_enters ||
	fail sql_counts_exactly_N_getppid_enters "want $N got '$r' $(head -3 $WORK/err)"
r=$(timeout 120 $STROBE sql -i $F --csv \
	"SELECT count(*) FROM sys_exit WHERE comm = 'getppid_n' AND id = 110 AND ret > 0" \
	"SELECT count FROM syscalls WHERE syscall = 'getppid' AND comm = 'getppid_n'" \
	2>>$WORK/err | grep -v '^count' | tr -d '\r' | tr '\n' ' ')
[ "$r" = "$N $N " ] && pass sql_exits_and_syscalls_table_count_N_too ||
	fail sql_exits_and_syscalls_table_count_N_too "want '$N $N ' got '$r'"

r=$(timeout 120 $STROBE sql -i $F --logs --csv \
	"SELECT count(*) FROM syscalls_log WHERE syscall = 'getppid' AND comm = 'getppid_n' AND duration > 0" \
	2>>$WORK/err | tail -1 | tr -d '\r')
[ "$r" = "$N" ] && pass sql_logs_have_every_getppid_call_with_its_duration ||
	fail sql_logs_have_every_getppid_call_with_its_duration "want $N got '$r'"

# --- kept: the sqlite3 shell gives the same answer, then reuse ----------------
timeout 120 $STROBE sql -i $F --db $DB -v "$Q" > $WORK/kept.out 2> $WORK/kept.err
if [ -s $DB ] && grep -q "loaded [0-9]* events" $WORK/kept.err; then
	pass sql_db_kept
else fail sql_db_kept "$(cat $WORK/kept.err)"; fi
r=$(sqlite3 $DB "$Q" 2>&1)
[ "$r" = "$N" ] && pass sqlite3_shell_reads_the_kept_db_with_the_same_answer ||
	fail sqlite3_shell_reads_the_kept_db_with_the_same_answer "want $N got '$r'"
timeout 60 $STROBE sql -i $F --db $DB -v "$Q" > $WORK/kept2.out 2> $WORK/kept2.err
if grep -q reused $WORK/kept2.err && cmp -s $WORK/kept.out $WORK/kept2.out; then
	pass sql_db_reused_while_current
else fail sql_db_reused_while_current "$(cat $WORK/kept2.err)"; fi
touch -d '+1 minute' $F
timeout 120 $STROBE sql -i $F --db $DB -v "$Q" > $WORK/kept3.out 2> $WORK/kept3.err
if grep -q "loaded [0-9]* events" $WORK/kept3.err && cmp -s $WORK/kept.out $WORK/kept3.out; then
	pass sql_db_rebuilt_when_the_trace_is_newer
else fail sql_db_rebuilt_when_the_trace_is_newer "$(cat $WORK/kept3.err)"; fi
touch -d '-1 minute' $F	# back in the past: one rebuild (another mtime), then reuse
timeout 120 $STROBE sql -i $F --db $DB "$Q" > /dev/null 2>&1
timeout 60 $STROBE sql -i $F --db $DB -v "$Q" > /dev/null 2> $WORK/kept5.err
grep -q reused $WORK/kept5.err && pass sql_db_reused_after_a_rebuild ||
	fail sql_db_reused_after_a_rebuild "$(cat $WORK/kept5.err)"
sqlite3 $DB "PRAGMA user_version = 12345"
timeout 120 $STROBE sql -i $F --db $DB -v "PRAGMA user_version" > $WORK/kept4.out 2> $WORK/kept4.err
if grep -q "loaded [0-9]* events" $WORK/kept4.err && ! grep -q 12345 $WORK/kept4.out; then
	pass sql_db_rebuilt_when_the_schema_version_differs
else fail sql_db_rebuilt_when_the_schema_version_differs "$(cat $WORK/kept4.err $WORK/kept4.out)"; fi
ls $WORK | grep -q 'sqlite.tmp' && fail sql_no_temporary_db_left "$(ls $WORK)" ||
	pass sql_no_temporary_db_left

# --- every documented table and view exists ------------------------------------
want="cputop cputop_cpus cputop_top containers events meta sched_switch schedlat"
want="$want schedlat_preempt schedlat_stats schedlat_top sys_enter sys_exit syscalls"
want="$want syscalls_errors syscalls_stats syscalls_top tasks"
missing=
for t in $want; do
	n=$(sqlite3 $DB "SELECT count(*) FROM sqlite_master WHERE name = '$t'")
	[ "$n" = 1 ] || missing="$missing $t"
done
[ -z "$missing" ] && pass sql_every_documented_table_exists ||
	fail sql_every_documented_table_exists "missing:$missing"
r=$(sqlite3 $DB "SELECT count(*) FROM tasks WHERE comm = 'getppid_n' AND container = 'host'")
[ "$r" -ge 1 ] 2>/dev/null && pass sql_tasks_table_names_the_process_and_container ||
	fail sql_tasks_table_names_the_process_and_container "got '$r'"

# --- same values as strobe report --json --------------------------------------
timeout 120 $STROBE report -i $F --json > $WORK/report.json 2>/dev/null
timeout 120 $STROBE sql -i $F --db $DB --json \
	"SELECT seq, ts, cpu, tid, container, buffer, system, event, fields FROM events ORDER BY seq" \
	> $WORK/events.json 2>>$WORK/err
r=$(py 'import sys,json
rep=[json.loads(l) for l in open(sys.argv[1])]
sql=[json.loads(l) for l in open(sys.argv[2])]
assert len(rep)==len(sql), (len(rep), len(sql))
def same(a, b):	# u64 above 2^63 are stored as their signed 64-bit pattern
    if isinstance(a, int) and isinstance(b, int) and b < 0 <= a: return a == b + 2**64
    if isinstance(a, list) and isinstance(b, list): return len(a)==len(b) and all(same(x,y) for x,y in zip(a,b))
    if isinstance(a, dict) and isinstance(b, dict): return a.keys()==b.keys() and all(same(a[k],b[k]) for k in a)
    return a == b
bad=0
for i,(r,s) in enumerate(zip(rep,sql)):
    f=json.loads(s["fields"])
    ok=(s["seq"]==i+1 and r["ts"]==s["ts"] and r["cpu"]==s["cpu"] and r["pid"]==s["tid"]
        and r["event"]==s["event"] and r["system"]==s["system"] and same(r["fields"],f)
        and r.get("container")==s["container"] and r.get("buffer")==s["buffer"])
    if not ok:
        bad+=1
        if bad<3: print(r, s, file=sys.stderr)
print(len(rep), bad)' $WORK/report.json $WORK/events.json 2>$WORK/cmp.err)
n=${r% *}
[ "${r#* }" = 0 ] && [ "$n" -gt $((2 * N)) ] && pass sql_events_view_equals_report_json_for_every_event ||
	fail sql_events_view_equals_report_json_for_every_event "got '$r' $(head -c 600 $WORK/cmp.err)"
# typed columns: the first getppid exit's ret, a sched_switch's comm and state
ts=$(py 'import sys,json
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="sys_exit" and o["fields"]["id"]==110:
        print(o["ts"], o["pid"], o["fields"]["ret"]); break' $WORK/report.json)
set -- $ts
r=$(sqlite3 $DB "SELECT ret, typeof(ret), typeof(id) FROM sys_exit WHERE ts = $1 AND tid = $2")
[ -n "$3" ] && [ "$r" = "$3|integer|integer" ] && pass sql_typed_integer_column_matches_report_json ||
	fail sql_typed_integer_column_matches_report_json "json '$ts' sql '$r'"
ts=$(py 'import sys,json
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="sched_switch" and o["fields"]["prev_comm"]=="getppid_n":
        f=o["fields"]; print(o["ts"], o["cpu"], f["prev_comm"], f["prev_state"], f["next_pid"]); break' $WORK/report.json)
set -- $ts
r=$(sqlite3 $DB "SELECT prev_comm, prev_state, next_pid, typeof(prev_comm) FROM sched_switch WHERE ts = $1 AND cpu = $2")
[ -n "$3" ] && [ "$r" = "$3|$4|$5|text" ] && pass sql_typed_text_column_matches_report_json ||
	fail sql_typed_text_column_matches_report_json "json '$ts' sql '$r'"

# --- output formats and errors ---------------------------------------------------
timeout 60 $STROBE sql -i $F --db $DB "SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY event" > $WORK/table.out 2>&1
if head -1 $WORK/table.out | grep -q '^event  *n$' && grep -q "^sys_enter  *[0-9]*$" $WORK/table.out; then
	pass sql_table_output_has_a_header_and_aligned_rows
else fail sql_table_output_has_a_header_and_aligned_rows "$(head -3 $WORK/table.out)"; fi
timeout 60 $STROBE sql -i $F --db $DB --json "SELECT 1 AS a, 'x\"y' AS b, NULL AS c, 2.5 AS d" > $WORK/j.out
[ "$(cat $WORK/j.out)" = '{"a":1,"b":"x\"y","c":null,"d":2.5}' ] && pass sql_json_rows ||
	fail sql_json_rows "$(cat $WORK/j.out)"
timeout 60 $STROBE sql -i $F --db $DB --csv "SELECT 'a,b' AS x, 'q\"' AS y" > $WORK/c.out
[ "$(tr -d '\r' < $WORK/c.out)" = 'x,y
"a,b","q"""' ] && pass sql_csv_quotes_fields || fail sql_csv_quotes_fields "$(cat $WORK/c.out)"
timeout 60 $STROBE sql -i $F --db $DB "SELECT nope FROM nowhere" > $WORK/e.out 2> $WORK/e.err
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < $WORK/e.err)" = 1 ] && grep -q '^strobe sql: SQL error: no such table: nowhere' $WORK/e.err; then
	pass sql_error_is_one_line_and_exit_1
else fail sql_error_is_one_line_and_exit_1 "rc=$rc $(cat $WORK/e.err)"; fi

after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
