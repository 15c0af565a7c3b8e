# 05-multihost-usage.sh - the command line of several input files (no
# tracing needed): record's --host-name is checked, the help of report,
# sql and the analyses tells about several -i, what several files cannot
# do is a usage error (absolute --begin/--end), --mi-version and
# --metadata (a host column) need no file, and a missing file among
# several is named.
. "$(dirname "$0")/lib.sh"

t record_help_has_host_name 0 '\-\-host-name NAME' $S record --help
t record_empty_host_name_is_usage_error 2 "strobe record: bad host name ''" $S record --host-name '' -- true
t record_host_name_needs_an_argument 2 'option --host-name needs an argument' $S record --host-name
t report_help_tells_several_inputs 0 'several' $S report --help
t sql_help_tells_several_inputs 0 'host column' $S sql --help
t syscalls_help_tells_several_inputs 0 'host column' $S syscalls --help
t analyses_several_inputs_log_refuses_absolute_begin 2 'take +SECONDS' \
	$S cputop -i a.dat -i b.dat --log --begin 10
t analyses_several_inputs_lami_refuses_absolute_end 2 "take +SECONDS (from each file's first event), got '5'" \
	$S syscalls -i a.dat -i b.dat --lami --end 5
t analyses_several_inputs_json_and_lami_exclude 2 'exclude each other' \
	$S syscalls -i a.dat -i b.dat --lami --json
t analyses_several_inputs_log_missing_file_is_named 1 "strobe syscalls: $D/nosuch.dat" \
	$S syscalls -i "$D/nosuch.dat" -i "$D/other.dat" --log
t analyses_several_inputs_mi_version 0 '^{"major":1,"minor":0}$' \
	$S syscalls -i a.dat -i b.dat --mi-version
# --metadata of several hosts: the classes' first column is the host,
# except the histograms' (per host); one file: no host column
r=$(timeout 20 $S syscalls -i a.dat -i b.dat --metadata --stats --freq --log | python3 -c '
import json, sys
tc = json.load(sys.stdin)["table-classes"]
print(" ".join("%s:%s" % (k, c["column-descriptions"][0]["title"]) for k, c in sorted(tc.items())))')
r1=$(timeout 20 $S syscalls --metadata --stats | python3 -c '
import json, sys
tc = json.load(sys.stdin)["table-classes"]
print(" ".join("%s:%s" % (k, c["column-descriptions"][0]["title"]) for k, c in sorted(tc.items())))')
case "$r" in
syscalls.errors:Host\ syscalls.freq:Low\ syscalls.log:Host\ syscalls.stats:Host)
	case "$r1" in *Host*) echo "FAIL analyses_several_inputs_metadata_has_host_column: one file: $r1";;
	*) echo "PASS analyses_several_inputs_metadata_has_host_column";; esac;;
*) echo "FAIL analyses_several_inputs_metadata_has_host_column: $r";;
esac
t report_missing_file_among_several_is_named 1 "strobe report: $D/nosuch.dat" \
	$S report -i "$D/nosuch.dat" -i "$D/other.dat"
t sql_missing_file_among_several_is_named 1 "strobe sql: $D/nosuch.dat" \
	$S sql -i "$D/nosuch.dat" -i "$D/other.dat" "SELECT 1"
t analyses_missing_file_among_several_is_named 1 "strobe syscalls: $D/nosuch.dat" \
	$S syscalls -i "$D/nosuch.dat" -i "$D/other.dat"
