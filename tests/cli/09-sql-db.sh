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
# temporary file exists.  env --default-signal: a background job of a
# script starts with SIGINT ignored, which strobe leaves ignored.
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
			env --default-signal=INT $S sql -i "$D/big.dat" --db "$D/k.db" "SELECT 1" \
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
