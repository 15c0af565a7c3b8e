# 08-funcgraph.sh - function and function_graph records in strobe report,
# on a synthetic trace.dat (test_funcgraph --write: a call tree with
# leaves, nesting, every overhead mark, unknown addresses, an entry whose
# next record is another task's, a last entry with no exit), no tracing
# needed: trace-cmd report (Debian's) reads the file, and strobe report's
# text is trace-cmd's line for line; --json keeps every record (an entry
# and its exit stay two objects).
. "$(dirname "$0")/lib.sh"

W=$ROOT/build/tests/test_funcgraph
if [ ! -x "$W" ]; then
	echo "SKIP funcgraph: $W is not built (make check builds it)"
	exit 0
fi
"$W" --write "$D/fg.dat" || echo "FAIL funcgraph_fixture: test_funcgraph --write failed"

t funcgraph_report_prints_a_leaf 0 'funcgraph_entry:        1.232 us   |    getname_flags();$' \
	$S report "$D/fg.dat"
cp "$D/out" "$D/strobe.txt"
n=$(grep -c 'funcgraph_exit' "$D/strobe.txt")
[ "$n" = 3 ] && echo "PASS funcgraph_report_leaves_take_their_exits" ||
	echo "FAIL funcgraph_report_leaves_take_their_exits: $n exit lines, wanted 3"
n=$($S report --json "$D/fg.dat" | grep -c '"event":"funcgraph_')
[ "$n" = 15 ] && echo "PASS funcgraph_json_keeps_every_record" ||
	echo "FAIL funcgraph_json_keeps_every_record: $n records, wanted 15"

if ! command -v trace-cmd > /dev/null; then
	echo "SKIP funcgraph_report_is_trace_cmds: trace-cmd is not installed (apt-get install trace-cmd)"
else
	trace-cmd report "$D/fg.dat" > "$D/tc.txt" 2> "$D/tc.err"
	rc=$?
	if [ $rc = 0 ] && diff "$D/tc.txt" "$D/strobe.txt" > "$D/diff"; then
		echo "PASS funcgraph_report_is_trace_cmds_line_for_line"
	else
		echo "FAIL funcgraph_report_is_trace_cmds_line_for_line: trace-cmd exit $rc, $(grep -c '^[<>]' "$D/diff") lines differ"
		head -6 "$D/diff" "$D/tc.err"
	fi
fi
