# 12-histtools-usage.sh - strobe runqlat and strobe biolatency without
# tracing: help, every usage error (status 2, one line saying what is
# wrong, before anything is traced), and the file errors (status 1, a
# message naming what is missing, never an empty histogram).
. "$(dirname "$0")/lib.sh"
F=$ROOT/tests/fuzz/corpus/fuzz_stream/v6-sched-syscalls.dat

t runqlat_help 0 'per PID namespace' $S runqlat --help
t biolatency_help 0 'block_rq_insert' $S biolatency --help
t runqlat_in_the_command_list 0 'runqlat' $S --help
t runqlat_takes_no_disk_option 2 "unknown option '--disks'" $S runqlat --disks -i $F
t biolatency_takes_no_per_process_option 2 "unknown option '--pids'" $S biolatency --pids -i $F
t runqlat_two_groupings 2 'one of -P, -L, --pidnss and --per-container at most' \
	$S runqlat -P -L -i $F
t runqlat_count_needs_interval 2 '--count needs --interval' $S runqlat --count 3 -i $F
t runqlat_bad_interval 2 "bad value '0' for --interval" $S runqlat --interval 0 -i $F
t runqlat_bad_count 2 "bad value 'x' for --count" $S runqlat --interval 1 --count x -i $F
t runqlat_file_and_output 2 '-i reads a recording: no -d, -o' $S runqlat -i $F -o x.dat
t runqlat_pid_and_command 2 'either a command or -p PID' $S runqlat -p 1 -- /bin/true
t biolatency_file_and_duration 2 '-i reads a recording: no -d' $S biolatency -i $F -d 1
t biolatency_two_pids 2 "bad value '2' for -p (one PID)" $S biolatency -p 1 -p 2 -i $F
t runqlat_extra_argument 2 "unexpected argument 'x'" $S runqlat -i $F x
t runqlat_nothing_after_dashdash 2 'no command after --' $S runqlat --
t runqlat_missing_file 1 "cannot open '$D/none.dat'" $S runqlat -i $D/none.dat
t biolatency_file_without_block_events 1 'block:block_rq_issue/block_rq_complete' \
	$S biolatency -i $F
grep -q . "$D/out" && echo "FAIL biolatency_file_without_block_events_prints_nothing: $(head -2 $D/out)" ||
	echo "PASS biolatency_file_without_block_events_prints_nothing"
# a file with the sched events: histograms, text and JSON, in usecs and msecs
t runqlat_file_text 0 'usecs               : count     distribution' $S runqlat -i $F
t runqlat_file_json 0 '"table":"runqlat.freq"' $S runqlat -i $F --json -P
t runqlat_file_msecs 0 '"unit":"msecs"' $S runqlat -i $F --json -m
t runqlat_file_intervals 0 '"interval":1}' $S runqlat -i $F --json --interval 0.01 --count 1
