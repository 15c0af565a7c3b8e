# 05-live-usage.sh - the analysis commands' live options (record's target
# options, cli/target.c), no tracing needed: help names them, and every
# usage error has status 2 and a one-line message that says what is wrong,
# before anything is traced.
. "$(dirname "$0")/lib.sh"

for c in syscalls cputop periods; do
	t "live_${c}_help_names_the_target_options" 0 '-- CMD \[ARGS...\]' $S $c --help
done
t live_analyze_help_names_live 0 '\-\-live' $S analyze --help
t live_file_and_command_is_usage_error 2 "a trace file ('x.dat') or live tracing" \
	$S syscalls -i x.dat -- /bin/true
t live_positional_file_and_pid_is_usage_error 2 "a trace file ('x.dat') or live tracing" \
	$S syscalls -p 1 x.dat
t live_nothing_after_dashdash_is_usage_error 2 "no command after '--'" $S syscalls --
t live_bad_pid_is_usage_error 2 "strobe syscalls: bad PID 'x'" $S syscalls -p x
t live_bad_duration_is_usage_error 2 "bad duration '0'" $S cputop -d 0
t live_bad_buffer_is_usage_error 2 "bad buffer size 'big'" $S cputop -b big -d 1
t live_unknown_preset_is_usage_error 2 "unknown preset 'nosuch'" $S syscalls --preset nosuch -d 1
t live_pid_and_command_is_usage_error 2 "either a command or -p PID" $S syscalls -p 1 -- /bin/true
t live_container_and_pid_is_usage_error 2 "containers (-c), a command or -p PID" \
	$S schedlat -c web -p 1
t live_periods_without_a_period_is_usage_error 2 "which periods" $S periods -- /bin/true
# record keeps its own messages through the shared parser
t record_bad_pid_is_usage_error 2 "strobe record: bad PID 'x'" $S record -p x
t record_filter_before_event_is_usage_error 2 "must follow the -e" $S record -f 'id == 1'
