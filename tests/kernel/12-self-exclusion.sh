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
# this recording's own process (its threads: $evt.pid is the thread
# group), not every strobe of the machine: another checkout's tests may
# run strobe commands meanwhile
own=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter --filter "\$evt.pid == $P" |
	grep -c 'sys_enter:')
all=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter | grep -c 'sys_enter:')
work=$(timeout 60 $STROBE report -i $F -e raw_syscalls:sys_enter --comm getppid_n | grep -c 'NR 110 ')
if [ "$own" = 0 ] && [ "$work" = 100 ]; then
	pass no_syscall_of_strobe_itself_in_a_whole_system_recording
else
	fail no_syscall_of_strobe_itself_in_a_whole_system_recording "strobe: $own of $all, workload getppid: $work of 100"
fi
after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
