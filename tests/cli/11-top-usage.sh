# 11-top-usage.sh - strobe top's options, no tracing needed: help names
# them, and every usage error has status 2 and a message that says what is
# wrong, before anything is traced.
. "$(dirname "$0")/lib.sh"

t top_help_names_batch_and_columns 0 '\-\-columns LIST' $S top --help
t top_help_names_the_target_options 0 '-- CMD \[ARGS...\]' $S top --help
t top_bad_interval_is_usage_error 2 "bad interval '0' (seconds, 0.05 to 3600)" $S top --interval 0
t top_bad_iterations_is_usage_error 2 "bad number of iterations '0'" $S top -n 0
t top_bad_group_is_usage_error 2 "bad value 'pods' for --group-by (container, pod, process or thread)" \
	$S top --group-by pods
t top_unknown_column_is_usage_error 2 "unknown column 'cpu'" $S top --columns cpu
t top_empty_columns_is_usage_error 2 "unknown column ''" $S top --columns cpu_pct,,tasks
t top_sort_by_a_hidden_column_is_usage_error 2 "cannot sort by 'tasks': not a shown column" \
	$S top --columns cpu_pct --sort tasks
t top_stray_argument_is_usage_error 2 "unexpected argument 'x' (a command goes after '--')" $S top x
t top_nothing_after_dashdash_is_usage_error 2 "no command after '--'" $S top --
t top_pid_and_command_is_usage_error 2 "either a command or -p PID" $S top -p 1 -- /bin/true
t top_web_config_without_metrics_is_usage_error 2 "\-\-web-config needs --metrics ADDR:PORT" \
	$S top --web-config /nonexistent
t top_quiet_without_metrics_is_usage_error 2 "\-\-quiet needs --metrics ADDR:PORT" $S top --quiet
t top_bad_metrics_address_is_usage_error 2 "strobe top: --metrics nohost:xx:" \
	$S top --batch -n 1 --metrics nohost:xx
t top_metrics_beyond_loopback_needs_a_web_config 2 "strobe top: --metrics 0.0.0.0:0:" \
	$S top --batch -n 1 --metrics 0.0.0.0:0
