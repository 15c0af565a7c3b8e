# 08-sql-inputs.sh - strobe sql over several -i, no tracing needed: the
# files are read in one pipeline run, each host's rows once; a file given
# twice or through a link is read once with a warning and gives the rows
# of that file alone; a damaged page of one file is warned naming that
# file and kept in meta as its host's diagnostic.bad_data row, and with
# --strict the command fails naming the file (strobe-damage(7)).
. "$(dirname "$0")/lib.sh"

inputs_fixture sql_inputs
q() { timeout 20 $S sql --csv "$@" 2>/dev/null | tr -d '\r' | md5sum | cut -d' ' -f1; }
n() { timeout 20 $S sql --csv "$@" 2>/dev/null | tail -1 | tr -d '\r"'; }
EA=$(n -i "$D/a.dat" "SELECT count(*) FROM events")
EB=$(n -i "$D/b.dat" "SELECT count(*) FROM events")

r=$(n -i "$D/a.dat" -i "$D/b.dat" "SELECT group_concat(c) FROM (SELECT count(*) AS c FROM events GROUP BY host ORDER BY min(rowid))")
[ "$EA" -gt 0 ] && [ "$EB" -gt 0 ] && [ "$r" = "$EA,$EB" ] &&
	echo "PASS sql_several_inputs_every_event_once_per_host" ||
	echo "FAIL sql_several_inputs_every_event_once_per_host: '$r', want $EA,$EB"

t sql_same_file_through_a_link_is_read_once 0 \
	"strobe sql: warning: $D/link.dat is the same file as $D/a.dat: it is read once" \
	$S sql -i "$D/a.dat" -i "$D/link.dat" "SELECT count(*) FROM events"
grep -q "hosts on one timeline" "$D/err" && echo "FAIL sql_same_file_twice_is_one_host: $(head -2 "$D/err")" ||
	echo "PASS sql_same_file_twice_is_one_host"
# every table and row as the file alone gives them; meta has the notice too
ALL="SELECT type, name FROM sqlite_master ORDER BY name; SELECT * FROM events ORDER BY seq;
SELECT * FROM tasks; SELECT * FROM syscalls_stats; SELECT * FROM cputop_top"
one=$(q -i "$D/a.dat" "$ALL")
for two in "-i $D/a.dat -i $D/a.dat" "-i $D/a.dat -i $D/link.dat" "-i $D/link.dat -i $D/a.dat"; do
	[ "$(q $two "$ALL")" = "$one" ] && echo "PASS sql_same_file_twice_rows_as_once ($two)" ||
		echo "FAIL sql_same_file_twice_rows_as_once ($two): the rows differ from -i a.dat's"
done
r=$(n -i "$D/a.dat" -i "$D/link.dat" "SELECT count(*) FROM meta WHERE key = 'diagnostic.same_file' AND value LIKE '%is read once'")
m1=$(n -i "$D/a.dat" "SELECT count(*) FROM meta") m2=$(n -i "$D/a.dat" -i "$D/link.dat" "SELECT count(*) FROM meta")
[ "$r" = 1 ] && [ "$m2" = $((m1 + 1)) ] && echo "PASS sql_same_file_twice_meta_keeps_the_notice" ||
	echo "FAIL sql_same_file_twice_meta_keeps_the_notice: $r notice, $m2 rows for $m1"

# damage in one of several files: warned naming the file, kept in meta
t sql_several_inputs_damage_warns_naming_the_file 0 \
	"strobe sql: warning: $D/bad.dat: damaged data was skipped: 1 page" \
	$S sql -i "$D/b.dat" -i "$D/bad.dat" "SELECT host, key FROM meta WHERE key LIKE 'diagnostic.%'"
[ "$(grep -c "damaged data" "$D/err")" = 1 ] && echo "PASS sql_several_inputs_damage_warned_once" ||
	echo "FAIL sql_several_inputs_damage_warned_once: $(cat "$D/err")"
r=$(n -i "$D/b.dat" -i "$D/bad.dat" "SELECT count(*) FROM meta d JOIN meta t ON t.host = d.host AND t.key = 'trace' WHERE d.key = 'diagnostic.bad_data' AND t.value = '$D/bad.dat'")
[ "$r" = 1 ] && echo "PASS sql_several_inputs_damage_in_meta_of_its_host" ||
	echo "FAIL sql_several_inputs_damage_in_meta_of_its_host: $r rows"
t sql_several_inputs_strict_fails_naming_the_file 1 \
	"strobe sql: damaged data (strict): $D/bad.dat: damaged data was skipped" \
	$S sql --strict -i "$D/b.dat" -i "$D/bad.dat" "SELECT 1"
[ -s "$D/out" ] && echo "FAIL sql_several_inputs_strict_prints_no_rows: $(head -2 "$D/out")" ||
	echo "PASS sql_several_inputs_strict_prints_no_rows"
t sql_several_inputs_strict_on_intact_files_succeeds 0 "^1" \
	$S sql --strict --csv -i "$D/a.dat" -i "$D/b.dat" "SELECT 1"
