# 08-expr-check.sh - expressions checked against what the trace holds,
# once before the first event (strobe-expr(7) CHECKS), no tracing needed:
# the five expressions of issue 28 through report, an analysis and
# periods: a field no event has, a value of the wrong kind and a glob on
# a number are usage errors (exit 2) naming the option and the column; an
# event name the trace lacks is a warning with the close name (exit 0);
# the documented nesting (128) is accepted by every command and 129
# refused; numbers are quoted whole; control characters are escaped.
. "$(dirname "$0")/lib.sh"

F=$D/t.dat
cp "$ROOT/tests/fuzz/corpus/fuzz_stream/v6-sched-syscalls.dat" "$F"

# exact: t_msg NAME STATUS LINE COMMAND...
t_msg() {
	local name=$1 want=$2 line=$3 rc
	shift 3
	timeout 20 "$@" > "$D/out" 2> "$D/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -qxF -- "$line" "$D/err"; then echo "PASS $name"; else
		echo "FAIL $name: exit $rc, wanted $want and '$line'"; head -5 "$D/err"; fi
}

# a filter names a syscall argument on raw_syscalls records too
# (strobe-expr(7) SYSCALL ARGUMENTS): dfd of openat, from the file's
# sys_enter_openat format, on the 7 raw records and the 7 named ones
n=$("$S" report -i "$F" --filter '$evt.dfd == -100' 2>"$D/err" | grep -c ': sys_enter')
want=$("$S" report -i "$F" 2>/dev/null | grep -cE 'sys_enter: +NR 257 \(ffffff9c,|sys_enter_openat: +dfd: 0xffffff9c,')
raw=$("$S" report -i "$F" --filter '$evt.dfd == -100' 2>/dev/null | grep -c 'sys_enter: *NR 257 ')
if [ "$n" = "$want" ] && [ "$raw" -gt 0 ]; then echo "PASS filter_syscall_argument_on_raw_syscalls"
else echo "FAIL filter_syscall_argument_on_raw_syscalls: $n records ($raw raw), want $want: $(head -2 "$D/err")"; fi

for cmd in report syscalls periods; do
	if [ $cmd = periods ]; then opt=--period pre='p:' what='--period p begin' off=2
	else opt=--filter pre='' off=0; fi
	q() { if [ $cmd = periods ]; then echo "$what"; else echo "--filter '$1'"; fi; }
	e='$evt.TID == 1'
	t_msg ${cmd}_field_in_another_case 2 \
		"strobe $cmd: $(q "$e"): column $((1 + off)): no field 'TID' in any event it can match; did you mean 'tid'?" \
		$S $cmd -i "$F" $opt "$pre$e"
	e='$evt.nosuchfield == 1'
	# periods and filters read syscall argument names (the file's
	# syscalls:* formats, here openat's, else this machine's)
	more=''
	t_msg ${cmd}_field_nothing_has 2 \
		"strobe $cmd: $(q "$e"): column $((1 + off)): no field 'nosuchfield' in any event it can match$more" \
		$S $cmd -i "$F" $opt "$pre$e"
	e='$evt.tid == "1"'
	t_msg ${cmd}_number_field_with_a_string 2 \
		"strobe $cmd: $(q "$e"): column $((13 + off)): \$evt.tid is a number: compare it with a number, not the string \"1\"" \
		$S $cmd -i "$F" $opt "$pre$e"
	e='$evt.tid =* "1*"'
	t_msg ${cmd}_glob_on_a_number 2 \
		"strobe $cmd: $(q "$e"): column $((13 + off)): '=*' matches strings, and \$evt.tid is a number: compare it with ==, <, ... and a number" \
		$S $cmd -i "$F" $opt "$pre$e"
	e='$evt.$name == "sched_swtich"'
	t_msg ${cmd}_unknown_event_is_a_warning 0 \
		"strobe $cmd: warning: $(q "$e"): column $((15 + off)): no event in the trace is named 'sched_swtich'; did you mean 'sched_switch'?" \
		$S $cmd -i "$F" $opt "$pre$e"
	# what the trace has passes, silently
	e='$evt.$name == "sched_switch" && $evt.prev_comm =* "s*" && $evt.next_tid > 0'
	t ${cmd}_good_expression_runs 0 '' $S $cmd -i "$F" $opt "$pre$e"
	if grep -q -- "warning: $opt" "$D/err"; then echo "FAIL ${cmd}_good_expression_is_quiet"; cat "$D/err"
	else echo "PASS ${cmd}_good_expression_is_quiet"; fi
	# one nesting limit: 128 accepted, 129 refused naming the option
	deep=$(printf '%*s' 128 '' | tr ' ' '(')'$evt.tid > 0'$(printf '%*s' 128 '' | tr ' ' ')')
	t ${cmd}_nesting_128_accepted 0 '' $S $cmd -i "$F" $opt "$pre$deep"
	nots=$(printf '%*s' 127 '' | tr ' ' '!')'$evt.tid > 0'
	t ${cmd}_127_nots_accepted 0 '' $S $cmd -i "$F" $opt "$pre$nots"
	t ${cmd}_nesting_129_refused 2 "^strobe $cmd: $opt '.*': column $((129 + off)): nested more than 128 levels deep" \
		$S $cmd -i "$F" $opt "$pre($deep)"
	# numbers whole, control characters escaped, UTF-8 kept
	t ${cmd}_number_quoted_whole 2 "found '1.5e300s'" $S $cmd -i "$F" $opt "$pre\$evt.tid == 1.5e300s"
	t ${cmd}_negative_number_quoted_whole 2 "found '-1e999'" $S $cmd -i "$F" $opt "$pre\$evt.tid == -1e999"
	t ${cmd}_utf8_kept 2 "found 'é'" $S $cmd -i "$F" $opt "$pre\$evt.tid == é"
	t ${cmd}_escape_escaped 2 "found '\\\\x1b'" $S $cmd -i "$F" $opt "$pre\$evt.tid == $(printf '\033')[31m"
	if grep -q "$(printf '\033')" "$D/err"; then echo "FAIL ${cmd}_no_raw_escape_on_stderr"
	else echo "PASS ${cmd}_no_raw_escape_on_stderr"; fi
done
# --period end and captures name their part
t periods_end_names_its_part 2 "^strobe periods: --period p end: column 44: no field 'next_tidd' in any event \$begin.\$evt can be; did you mean 'next_pid'?" \
	$S periods -i "$F" --period 'p:$evt.$name == "sched_switch":$evt.tid == $begin.$evt.next_tidd'
t periods_captures_name_their_option 2 "^strobe periods: --period-captures p: column 5: no field 'prev_commm'" \
	$S periods -i "$F" --period 'p:$evt.$name == "sched_switch"' --period-captures 'p:a=$evt.prev_commm'
