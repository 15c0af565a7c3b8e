# 01-usage.sh - the command line itself, no tracing needed: help, version,
# usage errors and one-line error messages with the right exit status.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=${STROBE:-$ROOT/build/strobe}
D=$(mktemp -d /tmp/strobe-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT

t() {	# name expected-status command...   (stdout+stderr in $D/out)
	local name=$1 want=$2 rc
	shift 2
	timeout 20 "$@" > "$D/out" 2> "$D/err"
	rc=$?
	if [ "$rc" = "$want" ]; then echo "PASS $name"; else
		echo "FAIL $name: exit $rc, wanted $want"; head -5 "$D/out" "$D/err"; fi
}

t version_prints_and_exits_0 0 $S --version
grep -q '^strobe [0-9]' "$D/out" || echo "FAIL version_text: $(cat "$D/out")"
t help_exits_0 0 $S --help
grep -q 'record' "$D/out" && grep -q 'report' "$D/out" || echo "FAIL help_lists_commands"
t no_args_is_usage_error 2 $S
t unknown_command_is_usage_error 2 $S frobnicate
grep -q "not a strobe command" "$D/err" || echo "FAIL unknown_command_message"
for c in record report list ps analyze cputop syscalls schedlat io irq mem periods sql; do
	t "${c}_help_exits_0" 0 $S $c --help
	grep -qi 'usage' "$D/out" || echo "FAIL ${c}_help_shows_usage"
	t "help_${c}_exits_0" 0 $S help $c
done
t periods_without_a_period_is_usage_error 2 $S periods -i "$D/nonexistent.dat"
t periods_bad_expression_is_usage_error 2 $S periods --period 'req : $evt.ret >=' -i "$D/nonexistent.dat"
grep -q "^strobe periods: .*column 18" "$D/err" || echo "FAIL periods_bad_expression_names_the_column: $(cat "$D/err")"
t report_bad_option_is_usage_error 2 $S report --no-such-option
t report_missing_file_fails 1 $S report -i "$D/nonexistent.dat"
if [ "$(wc -l < "$D/err")" = 1 ] && grep -q '^strobe report: ' "$D/err" && grep -q nonexistent "$D/err"; then
	echo "PASS report_missing_file_message_is_one_line_naming_the_file"
else
	echo "FAIL report_missing_file_message_is_one_line_naming_the_file"; cat "$D/err"
fi
t sql_without_query_is_usage_error 2 $S sql -i "$D/nonexistent.dat"
t sql_json_and_csv_together_is_usage_error 2 $S sql --json --csv "SELECT 1"
t sql_missing_file_fails 1 $S sql -i "$D/nonexistent.dat" "SELECT 1"
if [ "$(wc -l < "$D/err")" = 1 ] && grep -q '^strobe sql: .*nonexistent' "$D/err"; then
	echo "PASS sql_missing_file_message_is_one_line_naming_the_file"
else
	echo "FAIL sql_missing_file_message_is_one_line_naming_the_file"; cat "$D/err"
fi
echo "hello, I am not a trace" > "$D/text.dat"
t report_text_file_fails 1 $S report -i "$D/text.dat"
grep -q '^strobe report: ' "$D/err" || { echo "FAIL report_text_file_message"; cat "$D/err"; }
: > "$D/empty.dat"
t report_empty_file_fails 1 $S report -i "$D/empty.dat"
t sql_text_file_fails 1 $S sql -i "$D/text.dat" "SELECT 1"
grep -q '^strobe sql: ' "$D/err" || { echo "FAIL sql_text_file_message"; cat "$D/err"; }
if [ -e "$S" ]; then
	t stdout_full_is_an_error 1 sh -c "$S --help > /dev/full"
fi
# one CPU-list parser (the library's) for every --cpu: the message names the item
t analyze_bad_cpu_list_is_usage 2 $S syscalls --cpu 9-2 -i "$D/text.dat"
if grep -qx "strobe syscalls: --cpu: bad CPU list item '9-2' (expected N or N-M, N < 4096)" "$D/err"
then echo "PASS analyze_bad_cpu_list_names_the_item"
else echo "FAIL analyze_bad_cpu_list_names_the_item"; cat "$D/err"; fi
# --filter: a syntax error is a usage error naming the column in that expression
t analyze_bad_filter_is_usage 2 $S syscalls --filter '$evt.tid ==' -i "$D/text.dat"
if grep -qxF "strobe syscalls: --filter '\$evt.tid ==': column 12: expected a value (\$evt reference, number, duration or string), found end of text" "$D/err"
then echo "PASS analyze_bad_filter_names_the_column"
else echo "FAIL analyze_bad_filter_names_the_column"; cat "$D/err"; fi
t analyze_filter_of_begin_is_usage 2 $S cputop --filter '$begin.$evt.x == 1' -i "$D/text.dat"
t report_bad_filter_is_usage 2 $S report --filter '$evt.x =* 1' -i "$D/text.dat"
if grep -qxF "strobe report: --filter '\$evt.x =* 1': column 8: '=*' takes a string pattern on its right" "$D/err"
then echo "PASS report_bad_filter_names_the_column"
else echo "FAIL report_bad_filter_names_the_column"; cat "$D/err"; fi
