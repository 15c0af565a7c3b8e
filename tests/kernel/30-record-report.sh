# 30-record-report.sh - the foundation's acceptance test, end to end:
# a program that makes exactly N getppid calls is recorded with
# `strobe record -- prog N`; `strobe report` shows exactly N
# sys_enter_getppid events for its TID, and so does `trace-cmd report` on
# the same file.  Also per thread (3 threads x N), with the default
# presets (raw_syscalls: NR 110 on x86_64), and as JSON.
. "$(dirname "$0")/lib.sh"
need_tracefs record_report
before=$(tracefs_state)
N=1000

# count EVENT-GREP FILE-LINES: occurrences per "comm-tid" in report text
per_tid() { grep "$1" | sed -E 's/^ *([^ ]*-[0-9]+) +\[.*/\1/' | sort | uniq -c | awk '{print $2, $1}'; }

F=$WORK/g.dat
if ! timeout 60 $STROBE record -o $F -e syscalls:sys_enter_getppid -- $HELPERS/getppid_n $N > $WORK/rec.out 2>&1; then
	cat $WORK/rec.out; fail record_getppid_n; exit 0
fi
pass record_getppid_n
s=$(timeout 60 $STROBE report -i $F | per_tid 'sys_enter_getppid')
t=$(timeout 60 trace-cmd report $F 2>/dev/null | per_tid 'sys_enter_getppid')
if [ "$(echo "$s" | wc -l)" = 1 ] && [ "$(echo "$s" | awk '{print $2}')" = $N ] && echo "$s" | grep -q '^getppid_n-'; then
	pass strobe_report_shows_exactly_N_getppid_for_the_tid
else
	fail strobe_report_shows_exactly_N_getppid_for_the_tid "got: $s"
fi
if [ "$s" = "$t" ]; then pass trace_cmd_report_agrees_on_the_same_file
else fail trace_cmd_report_agrees_on_the_same_file "strobe: $s / trace-cmd: $t"; fi

# JSON: every line an object; N of them for the tid
tid=$(echo "$s" | sed -E 's/^.*-([0-9]+) .*/\1/')
j=$(timeout 60 $STROBE report -i $F --json -e syscalls:sys_enter_getppid --pid "$tid" |
	python3 -c 'import sys,json
n=0
for l in sys.stdin:
    o=json.loads(l); assert o["event"]=="sys_enter_getppid" and o["system"]=="syscalls"; n+=1
print(n)')
[ "$j" = $N ] && pass json_has_N_getppid_objects_for_the_tid || fail json_has_N_getppid_objects_for_the_tid "got $j"

# Three threads, default presets (sched + raw_syscalls): N per thread
F=$WORK/t.dat
if timeout 60 $STROBE record -o $F -- $HELPERS/getppid_n $N --threads 3 > $WORK/rec.out 2>&1; then
	s=$(timeout 60 $STROBE report -i $F | grep 'sys_enter:' | grep -E 'NR 110 ' | per_tid .)
	t=$(timeout 60 trace-cmd report $F 2>/dev/null | grep 'sys_enter:' | grep -E 'NR 110 ' | per_tid .)
	# the main thread makes no getppid calls; three workers make N each
	if [ "$(echo "$s" | awk -v n=$N '$2 == n' | wc -l)" = 3 ] && [ "$(echo "$s" | wc -l)" = 3 ]; then
		pass default_presets_show_N_getppid_per_thread
	else
		fail default_presets_show_N_getppid_per_thread "got: $s"
	fi
	[ "$s" = "$t" ] && pass trace_cmd_agrees_per_thread || fail trace_cmd_agrees_per_thread "$s / $t"
	if diff <(timeout 120 $STROBE report -i $F) <(timeout 120 trace-cmd report $F 2>/dev/null) > $WORK/diff; then
		pass strobe_report_text_equals_trace_cmd_report_on_strobe_file
	else
		fail strobe_report_text_equals_trace_cmd_report_on_strobe_file "$(head -4 $WORK/diff)"
	fi
else
	cat $WORK/rec.out; fail record_threads
fi

after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
