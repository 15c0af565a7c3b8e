#!/bin/bash
# 87-tracer.sh - strobe record --tracer (kernel function tracing) where
# the kernel allows it, and one-line errors that name the missing or
# refused file or tracer where it does not:
#   - --tracer function on a command records ftrace:function records that
#     trace-cmd report reads, or, when the kernel refuses the tracer in a
#     tracefs instance, exits 1 saying so (current_tracer) and that events
#     still work;
#   - --tracer function_graph: recorded where available_tracers lists it,
#     else one line naming it and the tracers there are;
#   - -l FUNC: set_ftrace_filter written, or one line naming the file;
#   - -l/-n/-g without --tracer, -g without function_graph, and an
#     unknown tracer: clear errors;
#   - no instance is left and the top level is unchanged.
. "$(dirname "$0")/lib.sh"
need_tracefs tracer
state() { tracefs_state | grep -v '^instance: '; }
BEFORE=$(state)

avail=$(cat $TRACEFS/available_tracers 2>/dev/null | xargs)

# --tracer function
F=$WORK/fn.dat
$STROBE record -q --tracer function -e sched:sched_process_exit -o $F -- $HELPERS/getppid_n 10 \
	> $WORK/fn.out 2> $WORK/fn.err
rc=$?
if [ $rc = 0 ]; then
	n=$(trace-cmd report $F 2>/dev/null | grep -c ' function: ')
	[ "$n" -gt 0 ] && pass tracer-function-records-function-entries ||
		fail tracer-function-records-function-entries "trace-cmd report shows $n function lines"
elif [ $rc = 1 ] && [ "$(wc -l < $WORK/fn.err)" = 1 ] &&
     grep -q "^strobe record: --tracer function: .*current_tracer.*events (-e, --preset) still work" $WORK/fn.err; then
	pass tracer-function-records-function-entries
	echo "  (this kernel refuses it: $(cat $WORK/fn.err))"
else
	fail tracer-function-records-function-entries "exit $rc: $(cat $WORK/fn.err)"
fi

# --tracer function_graph
$STROBE record -q --tracer function_graph -o $WORK/fg.dat -- true > /dev/null 2> $WORK/fg.err
rc=$?
if echo " $avail " | grep -q " function_graph "; then
	[ $rc = 0 ] || grep -q "current_tracer" $WORK/fg.err &&
		pass tracer-function-graph-recorded-or-refused-with-its-file ||
		fail tracer-function-graph-recorded-or-refused-with-its-file "exit $rc: $(cat $WORK/fg.err)"
else
	[ $rc = 1 ] && [ "$(wc -l < $WORK/fg.err)" = 1 ] &&
	grep -q "^strobe record: --tracer function_graph: this kernel has no function_graph tracer (available_tracers: [a-z_ ]*); events" $WORK/fg.err &&
		pass tracer-function-graph-recorded-or-refused-with-its-file ||
		fail tracer-function-graph-recorded-or-refused-with-its-file "exit $rc: $(cat $WORK/fg.err)"
fi

# -l FUNC with the function tracer
$STROBE record -q --tracer function -l 'do_sys_*' -o $WORK/fl.dat -- true > /dev/null 2> $WORK/fl.err
rc=$?
[ $rc = 0 ] || { [ $rc = 1 ] && grep -q "^strobe record: -l do_sys_\*: cannot write set_ftrace_filter\|current_tracer" $WORK/fl.err; } &&
	pass tracer-ftrace-filter-set-or-its-file-named ||
	fail tracer-ftrace-filter-set-or-its-file-named "exit $rc: $(cat $WORK/fl.err)"

# usage errors
$STROBE record -l do_sys_open -o $WORK/x.dat -- true > /dev/null 2> $WORK/u1.err
rc1=$?
$STROBE record --tracer function -g do_sys_open -o $WORK/x.dat -- true > /dev/null 2> $WORK/u2.err
rc2=$?
$STROBE record --tracer nosuch -o $WORK/x.dat -- true > /dev/null 2> $WORK/u3.err
rc3=$?
if [ $rc1 = 2 ] && grep -q "which tracer? --tracer function" $WORK/u1.err &&
   [ $rc2 = 1 ] && grep -q "needs --tracer function_graph\|no function_graph\|refuses" $WORK/u2.err &&
   [ $rc3 = 1 ] && grep -q "this kernel has no nosuch tracer (available_tracers: " $WORK/u3.err; then
	pass tracer-usage-errors
else
	fail tracer-usage-errors "$rc1: $(cat $WORK/u1.err) | $rc2: $(cat $WORK/u2.err) | $rc3: $(cat $WORK/u3.err)"
fi

AFTER=$(state)
# every strobe above ran in the foreground and is gone: so is its instance
left=$(ls $TRACEFS/instances | grep '^strobe-' | while read -r i; do
	kill -0 "${i#strobe-}" 2>/dev/null || echo "$i"; done)
[ "$BEFORE" = "$AFTER" ] && [ -z "$left" ] && pass tracer-tracefs-left-as-found ||
	fail tracer-tracefs-left-as-found "$left $(diff <(echo "$BEFORE") <(echo "$AFTER"))"
