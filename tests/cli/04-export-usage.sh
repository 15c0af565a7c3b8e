# 04-export-usage.sh - strobe export's command line, no server and no
# tracing needed: help, usage errors with status 2 and one-line messages,
# a missing trace file and an unreachable server with status 1, and a
# password file whose content never appears in any message; and the
# usage errors of strobe record --sink (checked before any tracing).
. "$(dirname "$0")/lib.sh"

t export_help_exits_0 0 'format clickhouse' $S export --help
t export_help_lists_retry 0 '\-\-retry' $S export --help
t export_without_format_is_usage_error 2 'strobe export: which format' $S export
t export_unknown_format_is_usage_error 2 "unknown format 'csv'" $S export --format csv
t export_perfetto_help_exits_0 0 'counter-interval' $S export --format perfetto --help
t export_perfetto_without_output_is_usage_error 2 'strobe export: where to? -o' \
	$S export --format perfetto -i x.dat
t export_perfetto_bad_time_is_usage_error 2 "bad time 'soon'" \
	$S export --format perfetto -o x.json --begin soon
t export_perfetto_absolute_time_with_two_files 2 'take +SECONDS' \
	$S export --format perfetto -o x.json -i a.dat -i b.dat --end 5
t export_perfetto_files_and_live_is_usage_error 2 'not both' \
	$S export --format perfetto -o x.json -i a.dat -d 1
t export_perfetto_bad_counter_interval 2 "bad --counter-interval 'x'" \
	$S export --format perfetto -o x.json --counter-interval x
t export_perfetto_missing_trace_fails 1 "strobe export: .*nosuch.dat" \
	$S export --format perfetto -o /tmp/strobe-px-$$.json -i /nonexistent/nosuch.dat
t export_bad_url_is_usage_error 2 'must start with http' $S export --format clickhouse --url ftp://x
t export_bad_batch_is_usage_error 2 'batch-rows wants' $S export --format clickhouse --batch-rows 0
t export_bad_retry_is_usage_error 2 'retry wants seconds' $S export --format clickhouse --retry x
t export_missing_trace_fails 1 "strobe export: .*nosuch.dat" $S export --format clickhouse \
	-i "$D/nosuch.dat"
t export_missing_password_file_fails 1 "cannot open '$D/nopw'" $S export --format clickhouse \
	--password-file "$D/nopw"
# an unreachable server: a loopback port that is bound but not listened to
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "pw-$$-secret" > "$D/pw"
cp "$ROOT/tests/fuzz/corpus/fuzz_stream/v6-sched-syscalls.dat" "$D/t.dat" 2>/dev/null
t export_unreachable_server_fails 1 "clickhouse at http://127.0.0.1:$port: " $S export \
	--format clickhouse --url "http://user:pw-$$-secret@127.0.0.1:$port" \
	--password-file "$D/pw" -i "$D/t.dat"
grep -q "pw-$$-secret" "$D/err" "$D/out" && echo "FAIL export_errors_never_show_the_password" ||
	echo "PASS export_errors_never_show_the_password"

# strobe record --sink: usage errors before any tracing (no file made)
t record_help_lists_sink 0 '\-\-sink URL' $S record --help
t record_sink_needs_clickhouse_url 2 'want clickhouse://' $S record --sink http://x:8123 \
	-o "$D/r.dat" -- true
t record_sink_needs_a_host 2 'which host' $S record --sink clickhouse:///db -o "$D/r.dat" -- true
t record_sink_bad_parameter 2 'only parameter is ?host=NAME' $S record \
	--sink 'clickhouse://h:1/db?user=x' -o "$D/r.dat" -- true
t record_sink_bad_database 2 'database name' $S record --sink 'clickhouse://h:1/bad-db' \
	-o "$D/r.dat" -- true
t record_sink_spool_without_sink 2 'go with --sink' $S record --sink-spool "$D/s" -- true
t record_sink_bad_spool_max 2 "bad --sink-spool-max 'x'" $S record --sink clickhouse://h/db \
	--sink-spool-max x -- true
t record_sink_bad_timeout 2 "bad --sink-timeout" $S record --sink clickhouse://h/db \
	--sink-timeout -1 -- true
[ ! -e "$D/r.dat" ] && [ ! -e "$D/r.dat.ch-spool" ] && echo "PASS record_sink_usage_errors_make_no_file" ||
	echo "FAIL record_sink_usage_errors_make_no_file"
