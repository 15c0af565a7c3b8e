# 08-records-file.sh - records that are not ftrace pages, stored in a
# trace.dat as strobe stores a BPF or perf source's (strobe-tracefile(3),
# RECORDS BEYOND FTRACE PAGES), no tracing needed: bench/synth-trace -r
# writes 300 records of two declared formats (one with a call chain, one
# with a path) in an instance buffer beside its ftrace events;
# trace-cmd report (Debian's) reads the file and prints every record with
# its fields, strobe report prints them as `name: field=value ...` and
# its whole output is trace-cmd's, line for line (so the same records in
# the same order among the ftrace events); a damaged page of the
# records' buffer is skipped with a warning and exit 0 like any damaged
# page (strobe-damage(7)), and --strict fails on it.
. "$(dirname "$0")/lib.sh"

SYNTH=$ROOT/build/bench/synth-trace
if [ ! -x "$SYNTH" ]; then
	echo "SKIP records_file: $SYNTH is not built (make build/bench/synth-trace)"
	exit 0
fi
"$SYNTH" -n 3000 -c 2 -r 300 "$D/r.dat" > /dev/null || echo "FAIL records_fixture: synth-trace -r failed"

t records_report_prints_declared_fields 0 'strobe_synth: .* open: *seq=2 ret=3 path=/etc/hosts$' \
	$S report -i "$D/r.dat"
n=$(grep -c '^strobe_synth: ' "$D/out")
[ "$n" = 300 ] && echo "PASS records_report_prints_every_record" ||
	echo "FAIL records_report_prints_every_record: $n lines of buffer strobe_synth, wanted 300"
grep -q 'sample: *seq=3 tid=[0-9]* period=10101010 callchain=[0-9]* [0-9]* [0-9]* [0-9]*$' "$D/out" &&
	echo "PASS records_report_prints_call_chains" ||
	echo "FAIL records_report_prints_call_chains: no four-address chain for seq=3"
cp "$D/out" "$D/strobe.txt"
n_ftrace=$(grep -vc '^strobe_synth: ' "$D/strobe.txt")

if ! command -v trace-cmd > /dev/null; then
	echo "SKIP records_trace_cmd_reads_the_file: trace-cmd is not installed (apt-get install trace-cmd)"
else
	trace-cmd report "$D/r.dat" > "$D/tc.txt" 2> "$D/tc.err"
	rc=$?
	n=$(grep -c '^strobe_synth: ' "$D/tc.txt")
	if [ $rc = 0 ] && [ "$n" = 300 ] && grep -q 'open: *seq=5 ret=3 path=/var/lib/db/base/16384/2619$' "$D/tc.txt"; then
		echo "PASS records_trace_cmd_reads_the_file"
	else
		echo "FAIL records_trace_cmd_reads_the_file: exit $rc, $n records"; head -3 "$D/tc.err"
	fi
	if diff "$D/tc.txt" "$D/strobe.txt" > "$D/diff"; then
		echo "PASS records_report_is_trace_cmds_line_for_line"
	else
		echo "FAIL records_report_is_trace_cmds_line_for_line: $(grep -c '^[<>]' "$D/diff") lines differ"
		head -6 "$D/diff"
	fi
fi

# bad.dat: r.dat with the records' CPU 0, first page, commit larger than a page
python3 - "$ROOT" "$D/r.dat" "$D/bad.dat" <<'EOF' || echo "FAIL records_damage_fixture: cannot damage r.dat"
import importlib.machinery, struct, sys
mf = importlib.machinery.SourceFileLoader(
    "make_files", sys.argv[1] + "/tests/damage/make-files").load_module()
d = bytearray(open(sys.argv[2], "rb").read())
L = mf.v6_layout(bytes(d))
(at,) = [at for oid, at, n in L["options"] if oid == 3]   # the one BUFFER option
assert d[at + 8:at + 8 + 13] == b"strobe_synth\0"
fly = struct.unpack_from("<Q", d, at)[0]
assert d[fly:fly + 10] == b"flyrecord\0"
off, size = struct.unpack_from("<QQ", d, fly + 10)
assert size >= 4096
struct.pack_into("<Q", d, off + 8, 0xfff0)
open(sys.argv[3], "wb").write(d)
EOF
t records_damaged_page_warns_exit_0 0 'strobe report: warning: damaged data was skipped.*buffer 1 cpu 0' \
	$S report -i "$D/bad.dat"
n=$(grep -c '^strobe_synth: ' "$D/out")
n2=$(grep -vc '^strobe_synth: ' "$D/out")
[ "$n" -lt 300 ] && [ "$n" -gt 200 ] && [ "$n2" = "$n_ftrace" ] &&
	echo "PASS records_damaged_page_loses_that_page_only" ||
	echo "FAIL records_damaged_page_loses_that_page_only: $n records (of 300), $n2 ftrace lines (of $n_ftrace)"
t records_damaged_page_strict_fails 1 'strobe report: damaged data (strict):.*buffer 1 cpu 0' \
	$S report --strict -i "$D/bad.dat"
