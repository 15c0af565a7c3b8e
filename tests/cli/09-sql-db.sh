# 09-sql-db.sh - strobe sql --db, no tracing needed: the run that builds
# the kept database can write into it (an index, a table) as later runs
# can, with one -i and with several.
. "$(dirname "$0")/lib.sh"

inputs_fixture sql_db
n() { timeout 20 $S sql --csv "$@" 2>/dev/null | tail -1 | tr -d '\r"'; }

# the building run writes (it used to say "attempt to write a readonly database")
t sql_db_building_run_can_create_an_index 0 "^indexed" \
	$S sql --csv -i "$D/a.dat" --db "$D/a.db" "CREATE INDEX by_ts ON sched_switch(ts); SELECT 'indexed'"
grep -q "readonly" "$D/err" && echo "FAIL sql_db_building_run_says_nothing_of_readonly: $(cat "$D/err")" ||
	echo "PASS sql_db_building_run_says_nothing_of_readonly"
r=$(n -i "$D/a.dat" --db "$D/a.db" "SELECT count(*) FROM sqlite_master WHERE name = 'by_ts'")
[ "$r" = 1 ] && echo "PASS sql_db_index_of_the_building_run_is_kept" ||
	echo "FAIL sql_db_index_of_the_building_run_is_kept: $r"
t sql_db_rebuild_then_write_a_table 0 "^3" \
	$S sql --csv -i "$D/a.dat" --db "$D/a.db" --rebuild \
	"CREATE TABLE mine(x); INSERT INTO mine VALUES (1), (2), (3); SELECT count(*) FROM mine"
t sql_db_several_inputs_building_run_writes 0 "^1" \
	$S sql --csv -i "$D/a.dat" -i "$D/b.dat" --db "$D/ab.db" \
	"CREATE TABLE mine(x); INSERT INTO mine VALUES (1); SELECT count(*) FROM mine"
ls "$D"/*.tmp-* >/dev/null 2>&1 && echo "FAIL sql_db_no_temporary_file_after_builds: $(ls "$D")" ||
	echo "PASS sql_db_no_temporary_file_after_builds"

# A build killed by SIGINT, SIGTERM or SIGHUP leaves no PATH.tmp-PID: PATH
# is the old database (still answering, its table mine of 3 rows) or none.  The build of a 1 M-event
# synthetic file takes about a second here; strobe is killed once its
# temporary file exists.  env --default-signal (every signal): a
# background job of a script starts with SIGINT ignored, and one started
# under nohup (as a CI run may be) with SIGHUP ignored too, which strobe
# rightly leaves ignored.
SYNTH=$ROOT/build/bench/synth-trace
if [ ! -x "$SYNTH" ]; then
	echo "FAIL sql_db_signal_fixture: $SYNTH is missing (make build/bench/synth-trace)"
elif ! "$SYNTH" -n 1000000 "$D/big.dat" > /dev/null; then
	echo "FAIL sql_db_signal_fixture: synth-trace failed"
else
	for sig in INT TERM HUP; do
		for old in none old; do
			rm -f "$D"/k.db*
			[ $old = old ] && cp "$D/a.db" "$D/k.db"
			env --default-signal $S sql -i "$D/big.dat" --db "$D/k.db" "SELECT 1" \
				> /dev/null 2>&1 &
			pid=$!
			for i in $(seq 500); do [ -e "$D/k.db.tmp-$pid" ] && break; sleep 0.01; done
			seen=$([ -e "$D/k.db.tmp-$pid" ] && echo yes)
			sleep 0.2
			kill -$sig $pid
			{ wait $pid; } 2> /dev/null
			rc=$?
			left=$(cd "$D" && ls k.db* 2>/dev/null | tr '\n' ' ')
			r=$(n -i "$D/a.dat" --db "$D/k.db" "SELECT count(*) FROM mine")
			if [ "$seen" != yes ] || [ $rc -le 128 ]; then
				echo "FAIL sql_db_sig$sig-${old}_build_killed_midway: tmp file seen '$seen', exit $rc"
			elif [ $old = none ] && [ -n "$left" ]; then
				echo "FAIL sql_db_sig$sig-none_leaves_no_file: $left"
			elif [ $old = old ] && { [ "$left" != "k.db " ] || [ "$r" != 3 ]; }; then
				echo "FAIL sql_db_sig$sig-old_leaves_the_old_database: '$left', $r rows of mine"
			else
				echo "PASS sql_db_sig$sig-${old}_leaves_no_temporary_file"
			fi
		done
	done
fi

# a file-size limit or a full disk: said so, where SQLite says "disk I/O error"
for two in "" "-i $D/b.dat"; do
	rm -f "$D"/f.db*
	t "sql_db_file_size_limit_is_said${two:+_several_inputs}" 1 \
		"strobe sql: $D/f.db.tmp-[0-9]*: file too large: the file-size limit (ulimit -f) was reached while writing the database" \
		bash -c "ulimit -f 200; exec $S sql -i $D/a.dat $two --db $D/f.db 'SELECT 1'"
	ls "$D"/f.db* > /dev/null 2>&1 && echo "FAIL sql_db_file_size_limit_leaves_no_file: $(ls "$D"/f.db*)" ||
		echo "PASS sql_db_file_size_limit_leaves_no_file${two:+_several_inputs}"
done

# --safe: the database read-only, no ATTACH, no statement that writes
# (the file it would write is not made), each QUERY bounded in time and
# memory; what it allows still works
R="a --safe query only reads the trace's database"
for db in "" "--db $D/s.db"; do
	w=${db:+_kept}
	t sql_safe_select_works$w 0 "^262" $S sql --safe --csv -i "$D/a.dat" $db "SELECT count(*) FROM events"
	t sql_safe_refuses_attach$w 1 "strobe sql: --safe: ATTACH is refused: $R" \
		$S sql --safe -i "$D/a.dat" $db "ATTACH '$D/x.db' AS x; CREATE TABLE x.t(a)"
	t sql_safe_refuses_vacuum_into$w 1 "strobe sql: --safe: 'VACUUM INTO '$D/v.db'' is refused: it writes, and $R" \
		$S sql --safe -i "$D/a.dat" $db "VACUUM INTO '$D/v.db'"
	t sql_safe_refuses_a_write_inside$w 1 "strobe sql: --safe: 'INSERT INTO meta VALUES (1, 2)' is refused: it writes" \
		$S sql --safe -i "$D/a.dat" $db "INSERT INTO meta VALUES (1, 2)"
	t sql_safe_refuses_a_temp_table$w 1 "strobe sql: --safe: 'CREATE TEMP TABLE t(a)' is refused: it writes" \
		$S sql --safe -i "$D/a.dat" $db "CREATE TEMP TABLE t(a)"
	t sql_safe_refuses_undoing_query_only$w 1 "strobe sql: --safe: PRAGMA query_only = 0 is refused: $R" \
		$S sql --safe -i "$D/a.dat" $db "PRAGMA query_only = 0"
	t sql_safe_reads_the_schema$w 0 "^0,key,TEXT" $S sql --safe --csv -i "$D/a.dat" $db "PRAGMA table_info(meta)"
	t sql_safe_value_length_is_bounded$w 1 "strobe sql: --safe: the query makes a value larger than 64 MiB: stopped" \
		$S sql --safe -i "$D/a.dat" $db "SELECT length(zeroblob(100000000))"
done
ls "$D"/x.db "$D"/v.db > /dev/null 2>&1 && echo "FAIL sql_safe_writes_no_file: $(ls "$D"/x.db "$D"/v.db 2>&1)" ||
	echo "PASS sql_safe_writes_no_file"
# 1 GB of text if nothing stopped it: the heap limit stops it at 512 MiB
# however long a loaded machine takes to get there (--timeout 600: not
# --safe's 60 s; a busy CI run once took more than 18 s)
t sql_safe_memory_is_bounded 1 "strobe sql: --safe: the query needs more than its 512 MiB of memory: stopped" \
	$S sql --safe --timeout 600 -i "$D/a.dat" "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 1000000) SELECT json_group_array(printf('%.1000d', x)) IS NULL FROM r"
start=$(date +%s)
t sql_timeout_stops_a_runaway_recursive_query 1 "strobe sql: the query ran longer than --timeout 1 s: stopped" \
	$S sql --timeout 1 -i "$D/a.dat" "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"
[ $(($(date +%s) - start)) -le 5 ] && echo "PASS sql_timeout_stops_within_seconds" ||
	echo "FAIL sql_timeout_stops_within_seconds: $(($(date +%s) - start)) s"
t sql_timeout_must_be_seconds 2 "strobe sql: --timeout: 'soon' is not a number of seconds above 0" \
	$S sql --timeout soon -i "$D/a.dat" "SELECT 1"
# without --safe, a query writes where the user can (strobe-sql(1) says so)
t sql_unsafe_attach_writes_a_file 0 "^attached" \
	$S sql --csv -i "$D/a.dat" "ATTACH '$D/x.db' AS x; CREATE TABLE x.t(a); SELECT 'attached'"
[ -s "$D/x.db" ] && echo "PASS sql_without_safe_attach_writes" || echo "FAIL sql_without_safe_attach_writes: no $D/x.db"

# --jobs 2 (SQLite on a writer thread of its own) builds the database
# --jobs 1 builds: every table's rows, the schema, the events view, with
# --logs (log rows go through the writer too); on the fixture and on a
# synthetic file of many full batches (the queue fills and waits).
dump() {
	python3 - "$1" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h = hashlib.md5()
names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
for (sql,) in db.execute("SELECT sql FROM sqlite_master ORDER BY name"):
    h.update(repr(sql).encode())
for n in names:
    q = 'SELECT * FROM "%s"' % n
    if n == "meta":
        q += " WHERE key NOT IN ('load_seconds', 'load_cpu_seconds', 'built')"
    for row in db.execute(q + " ORDER BY 1, 2"):
        h.update(repr(row).encode())
print(h.hexdigest(), sum(db.execute('SELECT count(*) FROM "%s"' % n).fetchone()[0] for n in names))
PY
}
[ -x "$SYNTH" ] && "$SYNTH" -n 200000 "$D/mid.dat" > /dev/null
for f in a mid; do
	[ -f "$D/$f.dat" ] || continue
	for j in 1 2; do
		rm -f "$D/j$j.db"
		$S sql -i "$D/$f.dat" --logs --jobs $j --db "$D/j$j.db" "SELECT 1" > /dev/null 2> "$D/err" ||
			echo "FAIL sql_jobs_${j}_loads_$f: $(head -2 "$D/err")"
	done
	d1=$(dump "$D/j1.db") d2=$(dump "$D/j2.db")
	[ -n "$d1" ] && [ "${d1#* }" -gt 0 ] && [ "$d1" = "$d2" ] &&
		echo "PASS sql_jobs_2_same_database_as_jobs_1 ($f.dat, ${d1#* } rows)" ||
		echo "FAIL sql_jobs_2_same_database_as_jobs_1 ($f.dat): '$d2', want '$d1'"
done
t sql_jobs_must_be_a_count 2 "strobe sql: --jobs: '0' is not a number from 1 to 1024" \
	$S sql --jobs 0 -i "$D/a.dat" "SELECT 1"
