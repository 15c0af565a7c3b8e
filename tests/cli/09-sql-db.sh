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
