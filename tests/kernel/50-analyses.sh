# 50-analyses.sh - the analyses against workloads of exactly known
# behaviour, recorded for real with `strobe record`:
#   syscalls: N getppid and M failing open calls (ENOENT) for the TID;
#   schedlat: a two-thread pipe ping-pong of R round trips gives at least
#             2R wake-ups with latencies for those TIDs;
#   io:       a thread writing exactly 10 MiB shows 10 MiB written;
#   cputop:   a thread busy for about a second shows the CPU time that
#             /proc/<pid>/task/<tid>/stat reports for it, within 5%; on
#             these PID-filtered recordings (-- CMD) no untraced task
#             (strobe's own threads, PID -1 / container unknown) is charged;
# plus: every JSON output parses, LAMI output has the 1.0 structure, a
# file without an analysis' events names the preset that records them,
# and tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs analyses
before=$(tracefs_state)
W=$HELPERS/analysis_work


# --- syscalls ---------------------------------------------------------------
N=1000 M=50
F=$WORK/sys.dat
if rec $F sched,syscalls -- $W syscalls $N $M; then
	tid=$(sed -n 's/^tid=//p' $F.stdout)
	timeout 60 $STROBE syscalls -i $F --json --top 0 --stats --tid "$tid" > $WORK/sys.json 2> $WORK/sys.err
	r=$(py 'import sys,json
tid=int(sys.argv[2]); cnt={}; err={}; stats=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="syscalls.errors":
        for r in o["rows"]: err[(r["syscall"],r["error"])]=r["count"]
    if o.get("table")=="syscalls.stats":
        for r in o["rows"]:
            assert r["tid"]==tid
            cnt[r["syscall"]]=(r["count"],r["errors"])
            if r["syscall"]=="getppid": assert r["min"]<=r["avg"]<=r["max"] and r["total"]>0; stats=1
print(cnt.get("getppid",(0,0))[0], cnt.get("openat",(0,0))[0], cnt.get("openat",(0,0))[1], err.get(("openat","ENOENT"),0), stats)' $WORK/sys.json "$tid")
	if [ "$r" = "$N $M $M $M 1" ]; then pass syscalls_counts_N_getppid_and_M_ENOENT_opens_for_the_tid
	else fail syscalls_counts_N_getppid_and_M_ENOENT_opens_for_the_tid "want '$N $M $M $M 1' got '$r' $(head -c 300 $WORK/sys.err)"; fi
	# --filter: $evt's tid is the task a system call is charged to, so the
	# expression selects exactly what --tid does; report's --filter sees
	# the N getppid entries of that thread (raw_syscalls or syscalls events)
	n=$(timeout 60 $STROBE syscalls -i $F --json --top 0 --filter "\$evt.tid == $tid" 2>/dev/null | py 'import sys,json
print(sum(r["count"] for l in sys.stdin for o in [json.loads(l)] if o.get("table")=="syscalls.top" for r in o["rows"] if r["syscall"]=="getppid"))')
	e=$(timeout 60 $STROBE report -i $F --filter "\$evt.tid == $tid" --filter '$evt.$name == "syscall_entry_getppid"' | tail -n +2 | wc -l)
	if [ "$n" = "$N" ] && [ "$e" = "$N" ] &&
	   cmp -s <(timeout 60 $STROBE syscalls -i $F --top 0 --tid "$tid" 2>&1) \
		  <(timeout 60 $STROBE syscalls -i $F --top 0 --filter "\$evt.tid == $tid" 2>&1); then
		pass filter_expression_selects_the_tids_N_getppid_in_syscalls_and_report
	else fail filter_expression_selects_the_tids_N_getppid_in_syscalls_and_report "syscalls $n, report $e, want $N"; fi
	# The same through analyze -a, text output mentions the errno name
	if timeout 60 $STROBE analyze -a syscalls,cputop -i $F --tid "$tid" --top 0 2>>$WORK/notes | grep -q 'openat.*ENOENT.*'"$M"; then
		pass analyze_text_shows_ENOENT_count
	else fail analyze_text_shows_ENOENT_count; fi
	# LAMI
	timeout 60 $STROBE analyze -a cputop,syscalls --lami --stats --freq -i $F > $WORK/lami.json 2>>$WORK/notes &&
	timeout 10 $STROBE analyze -a cputop,syscalls --lami --stats --freq --metadata > $WORK/meta.json &&
	timeout 10 $STROBE syscalls --mi-version > $WORK/ver.json
	if python3 $(dirname "$0")/lami-valid.py $WORK/lami.json $WORK/meta.json $WORK/ver.json \
		syscalls.stats cputop.top 2>$WORK/lami.err; then
		pass lami_output_has_the_1_0_structure
	else fail lami_output_has_the_1_0_structure "$(tail -2 $WORK/lami.err)"; fi
	# a file without IRQ events: the error names the events and the preset
	if ! timeout 60 $STROBE irq -i $F > /dev/null 2> $WORK/irq.err && grep -q -- '--preset irq' $WORK/irq.err; then
		pass missing_events_name_the_preset
	else fail missing_events_name_the_preset "$(cat $WORK/irq.err)"; fi
else
	fail record_syscalls_workload "$(tail -3 $F.stderr)"
fi

# --- schedlat: pipe ping-pong -----------------------------------------------
R=500
F=$WORK/pp.dat
if rec $F sched -- $W pingpong $R; then
	tids=$(sed -n 's/^tid=//p' $F.stdout | paste -sd,)
	timeout 60 $STROBE schedlat -i $F --json --top 0 --stats --tid "$tids" > $WORK/pp.json 2> $WORK/pp.err
	r=$(py 'import sys,json
tids=set(int(t) for t in sys.argv[2].split(",")); n=0; ok=True
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="schedlat.stats":
        for r in o["rows"]:
            ok = ok and r["tid"] in tids and r["max"]>=r["min"]>0
            n+=r["count"]
print(n if ok else -1)' $WORK/pp.json "$tids")
	# Wake-ups whose switch-in the kernel did not emit (this VM's idle CPU
	# 1 often skips sched_switch; perf sees the same) cannot be measured:
	# schedlat counts them in a note instead of inventing a latency.
	u=$(sed -n 's/.*schedlat: \([0-9]*\) wake-ups not measured.*/\1/p' $WORK/pp.err)
	u=${u:-0}
	if [ -n "$r" ] && [ "$r" -gt 0 ] && [ $((r + u)) -ge $((2 * R)) ]; then
		pass pingpong_R_round_trips_give_at_least_2R_wakeups
	else fail pingpong_R_round_trips_give_at_least_2R_wakeups "got '$r' measured + '$u' unmeasured for tids $tids"; fi
	if timeout 60 $STROBE schedlat -i $F --log --tid "$tids" 2>>$WORK/notes | grep -c '^[ 0-9.]*[0-9]\.[0-9]\{9\} ' > $WORK/n && [ "$(cat $WORK/n)" = "$r" ]; then
		pass schedlat_log_has_a_line_per_wakeup
	else fail schedlat_log_has_a_line_per_wakeup "$(cat $WORK/n) lines, $r measured"; fi
else
	fail record_pingpong "$(tail -3 $F.stderr)"
fi

# --- io: 10 MiB written -----------------------------------------------------
F=$WORK/io.dat
if rec $F sched,syscalls,io -- $W write $WORK/out.bin 10485760; then
	tid=$(sed -n 's/^tid=//p' $F.stdout)
	timeout 60 $STROBE io -i $F --json --top 0 --tid "$tid" > $WORK/io.json 2> $WORK/io.err
	r=$(py 'import sys,json
w=None; lat=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="io.files":   # fds 0-2: the tid line on stdout
        w=sum(r["write_bytes"] for r in o["rows"] if r["tid"]==int(sys.argv[2]) and r["fd"]>2)
    if o.get("table")=="io.latency":
        lat+=sum(1 for r in o["rows"] if r["syscall"] in ("write","fsync"))
print(w, lat>=2)' $WORK/io.json "$tid")
	[ "$r" = "10485760 True" ] && pass io_shows_exactly_10MiB_written_by_the_tid ||
		fail io_shows_exactly_10MiB_written_by_the_tid "got '$r'"
else
	fail record_write_workload "$(tail -3 $F.stderr)"
fi

# --- cputop: a busy second ----------------------------------------------------
F=$WORK/busy.dat
s0=$(steal_ns)
if rec $F sched -- $W busy 1000; then
	steal=$(( $(steal_ns) - s0 ))
	tid=$(sed -n 's/^tid=//p' $F.stdout)
	want=$(sed -n 's/^cpu_ns=//p' $F.stdout)
	timeout 60 $STROBE cputop -i $F --json --top 0 --tid "$tid" > $WORK/cpu.json 2>>$WORK/notes
	got=$(py 'import sys,json
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.top":
        print(sum(r["cpu_time"] for r in o["rows"]))' $WORK/cpu.json)
	# switches the kernel did not record (this kernel drops some
	# switches out of idle under set_event_pid): the busy thread switched
	# in and out as often as each other, one more either way at the edges
	sw=$(timeout 60 $STROBE report -i $F --json -e sched_switch 2>/dev/null | py 'import sys,json
t=int(sys.argv[1]); i=o=0
for l in sys.stdin:
    e=json.loads(l).get("fields",{})
    i+=e.get("next_pid")==t; o+=e.get("prev_pid")==t
print(i, o)' "$tid")
	set -- $sw
	# (above it by up to the time the hypervisor stole meanwhile)
	if [ -n "$got" ] && py 'import sys
g,w,s=int(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3])
sys.exit(0 if -0.05*w <= g-w <= 0.05*w+s else 1)' "$got" "$want" "$steal"; then
		pass cputop_busy_thread_within_5pct_of_proc_stat
	elif [ -n "$1" ] && [ $(( $1 > $2 ? $1 - $2 : $2 - $1 )) -gt 1 ]; then
		skip cputop_busy_thread_within_5pct_of_proc_stat \
			"the kernel recorded $1 switch-ins but $2 switch-outs of the busy thread, some with no wake-up on an idle CPU to date them (strobe $got ns, /proc $want ns)"
	else fail cputop_busy_thread_within_5pct_of_proc_stat "strobe $got ns, /proc $want ns, steal $steal ns, switch-ins/outs: $sw"; fi
	for g in thread process container cpu; do
		timeout 60 $STROBE analyze -a cputop,schedlat --json --stats --freq --group-by $g -i $F > $WORK/g.json 2>>$WORK/notes &&
		py 'import sys,json
[json.loads(l) for l in open(sys.argv[1])]' $WORK/g.json || { fail json_parses_for_group_by_$g; continue; }
		pass json_parses_for_group_by_$g
	done
else
	fail record_busy_workload "$(tail -3 $F.stderr)"
fi

# --- PID-filtered recordings: untraced tasks are not charged ------------------
# `record -- CMD` traces the command's tasks only (set_event_pid): a switch
# is recorded when prev or next is traced, so an untraced task (strobe's
# reader thread, idle, anything else) between two such switches must not be
# charged for the whole interval.  Rows are the workload's tasks only, and a
# note says the recording was PID-filtered.
F=$WORK/demo.dat
if timeout 120 $STROBE record -o $F -- $HELPERS/demo_work > $F.stdout 2> $F.stderr; then
	timeout 60 $STROBE cputop -i $F --json --top 0 > $WORK/demo.json 2> $WORK/demo.err
	r=$(py 'import sys,json
bad=[]; rows=0; note=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.top":
        for r in o["rows"]:
            rows+=1
            if (r["pid"]==-1 or r["container"]=="unknown" or r["comm"]!="demo_work") and r["cpu_pct"]>1:
                bad.append("%s/%d/%s %.1f%%" % (r["comm"],r["pid"],r["container"],r["cpu_pct"]))
    if "summary" in o:
        note=any("PID-filtered" in n for n in o["summary"]["notes"])
print("ok" if rows and not bad and note else "rows=%d note=%s bad=%s" % (rows,note,bad))' $WORK/demo.json)
	[ "$r" = ok ] && pass cputop_filtered_recording_charges_no_untraced_task ||
		fail cputop_filtered_recording_charges_no_untraced_task "$r"
	grep -q "target=command" $F && grep -q "target_pids=" $F &&
		pass record_stores_its_target_in_the_file ||
		fail record_stores_its_target_in_the_file
else
	fail record_demo_workload "$(tail -3 $F.stderr)"
fi
F=$WORK/busy.dat
if [ -f $F ]; then	# the busy second above, recorded with -- CMD too
	timeout 60 $STROBE cputop -i $F --json --top 0 > $WORK/cpu-all.json 2>>$WORK/notes
	r=$(py 'import sys,json
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.top":
        print(",".join("%s/%d/%s" % (r["comm"],r["pid"],r["container"]) for r in o["rows"]
                       if (r["pid"]==-1 or r["container"]=="unknown") and r["cpu_pct"]>1))' $WORK/cpu-all.json)
	[ -z "$r" ] && pass cputop_busy_recording_has_no_unknown_task_above_1pct ||
		fail cputop_busy_recording_has_no_unknown_task_above_1pct "$r"
fi

after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
