# 05-multihost-usage.sh - the command line of several input files (no
# tracing needed): record's --host-name is checked, the help of report,
# sql and the analyses tells about several -i, what several files cannot
# do yet is a usage error, and a missing file among several is named.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=${STROBE:-$ROOT/build/strobe}
D=$(mktemp -d /tmp/strobe-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT

t() {	# name expected-status expected-output-pattern command...
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout 20 "$@" > "$D/out" 2> "$D/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pat" "$D/err" "$D/out"; then echo "PASS $name"; else
		echo "FAIL $name: exit $rc, wanted $want and '$pat'"; head -5 "$D/out" "$D/err"; fi
}

t record_help_has_host_name 0 '\-\-host-name NAME' $S record --help
t record_empty_host_name_is_usage_error 2 "strobe record: bad host name ''" $S record --host-name '' -- true
t record_host_name_needs_an_argument 2 'option --host-name needs an argument' $S record --host-name
t report_help_tells_several_inputs 0 'several' $S report --help
t sql_help_tells_several_inputs 0 'host column' $S sql --help
t syscalls_help_tells_several_inputs 0 'host column' $S syscalls --help
t analyses_several_inputs_no_lami 2 'several -i: not with --lami or --log' \
	$S syscalls -i a.dat -i b.dat --lami
t analyses_several_inputs_no_log 2 'several -i: not with --lami or --log' \
	$S cputop -i a.dat -i b.dat --log
t report_missing_file_among_several_is_named 1 "strobe report: $D/nosuch.dat" \
	$S report -i "$D/nosuch.dat" -i "$D/other.dat"
t sql_missing_file_among_several_is_named 1 "strobe sql: $D/nosuch.dat" \
	$S sql -i "$D/nosuch.dat" -i "$D/other.dat" "SELECT 1"
t analyses_missing_file_among_several_is_named 1 "strobe syscalls: $D/nosuch.dat" \
	$S syscalls -i "$D/nosuch.dat" -i "$D/other.dat"
