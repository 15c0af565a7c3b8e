# 12-self-exclusion.sh - a whole-system recording does not record strobe
# itself: no system call of strobe's main or reader threads is in the
# file (their splice and /proc work would otherwise flood it), while
# scheduling events that involve them and traced tasks still are.
. "$(dirname "$0")/lib.sh"
need_tracefs self_exclusion
before=$(tracefs_state)
F=$WORK/w.dat
# a workload of known size runs once tracing is on (strobe's "tracing"
# line: on a loaded machine its start-up, filters into every syscall
# event included, can take seconds), so the file holds other tasks'
# system calls whatever else the machine does; the recording ends by
# SIGINT after it (--duration only bounds a broken run)
# the shell becomes strobe (exec): its PID is the recording's
timeout 120 sh -c "echo \$\$ > $WORK/pid; exec $STROBE record -o $F -e syscalls -e sched \
	--duration 100" > $WORK/out 2>&1 & SP=$!
for i in $(seq 600); do grep -q "tracing" $WORK/out && break; sleep 0.1; done
$HELPERS/getppid_n 100
sleep 0.2
kill -INT $(cat $WORK/pid) 2>/dev/null
if ! wait $SP; then
	cat $WORK/out; fail whole_system_record; exit 0
fi
P=$(cat $WORK/pid)
# this recording's own process (its threads: $evt.$ctx.pid is the
# thread group; plain $evt.pid on a raw sys_enter record of kill or
# wait4 is that call's pid argument, and this test's kill -INT names P),
# not every strobe of the machine: another checkout's tests may run
# strobe commands meanwhile
own=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter --filter "\$evt.\$ctx.pid == $P" |
	grep -c 'sys_enter:')
all=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter | grep -c 'sys_enter:')
work=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter --comm getppid_n | grep -c 'NR 110 ')
if [ "$own" = 0 ] && [ "$work" = 100 ]; then
	pass no_syscall_of_strobe_itself_in_a_whole_system_recording
else
	fail no_syscall_of_strobe_itself_in_a_whole_system_recording "strobe: $own of $all, workload getppid: $work of 100"
fi
# A command's recording: its PID list (set_event_pid, event-fork) already
# leaves strobe's threads out, so strobe sets no filter on the system-call
# events (a filter makes the kernel copy every such event through its
# filter buffer: about 10% of the getppid storm's time here), and the file
# still holds no system call of strobe's own process.  The command reads
# its recorder's instance (strobe-PID, PID its parent) while it runs.
F2=$WORK/c.dat
if timeout 120 $STROBE record -q -o $F2 -e syscalls -e sched -- sh -c \
	"cat /sys/kernel/tracing/instances/strobe-\$PPID/events/raw_syscalls/sys_enter/filter \
	 > $WORK/filter; echo \$PPID > $WORK/rpid; $HELPERS/getppid_n 100" > $WORK/out2 2>&1; then
	R=$(cat $WORK/rpid)
	own=$(timeout 60 $STROBE report -i $F2 -e raw_syscalls:sys_enter --filter "\$evt.\$ctx.pid == $R" |
		grep -c 'sys_enter:')
	work=$(timeout 60 $STROBE report -i $F2 -e raw_syscalls:sys_enter --comm getppid_n |
		grep -c 'NR 110 ')
	if [ "$(cat $WORK/filter)" = none ] && [ "$own" = 0 ] && [ "$work" = 100 ]; then
		pass command_recording_sets_no_syscall_filter_and_holds_no_syscall_of_strobe
	else
		fail command_recording_sets_no_syscall_filter_and_holds_no_syscall_of_strobe \
			"filter '$(cat $WORK/filter)', strobe's syscalls $own, getppid $work of 100"
	fi
else
	cat $WORK/out2; fail command_recording_sets_no_syscall_filter_and_holds_no_syscall_of_strobe
fi
after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
