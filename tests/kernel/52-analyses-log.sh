# 52-analyses-log.sh - --log of the analyses on real recordings:
#   io:     the io.log write rows of a thread writing exactly 10 MiB sum to
#           10 MiB (JSON and LAMI), text has a line per row, and
#           --min/--max keep only rows inside the bounds;
#   cputop: the on-CPU intervals of a busy thread are its own and sum to
#           no more than its CPU time;
#   all:    a whole-system recording with every preset gives log rows of
#           every analysis (mem and irq included) that parse as JSON;
# and tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs analyses-log
before=$(tracefs_state)
W=$HELPERS/analysis_work


# --- io: 10 MiB written -----------------------------------------------------
F=$WORK/io.dat
if rec $F sched,syscalls,io -- $W write $WORK/out.bin 10485760; then
	tid=$(sed -n 's/^tid=//p' $F.stdout)
	timeout 60 $STROBE io -i $F --log --json --tid "$tid" > $WORK/io.json 2> $WORK/io.err
	r=$(py 'import sys,json
w=0; n=0; bad=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="io.log":
        n+=1
        bad+=o["tid"]!=int(sys.argv[2]) or o["duration"]<0
        if o["syscall"]=="write" and o["fd"]>2: w+=o["bytes"]   # fds 0-2: the tid line
print(w, n>0, bad)' $WORK/io.json "$tid")
	[ "$r" = "10485760 True 0" ] && pass io_log_write_rows_sum_to_exactly_10MiB ||
		fail io_log_write_rows_sum_to_exactly_10MiB "got '$r' $(head -c 300 $WORK/io.err)"
	n_json=$(grep -c '"table":"io.log"' $WORK/io.json)
	timeout 60 $STROBE io -i $F --log --tid "$tid" > $WORK/io.txt 2>>$WORK/notes
	n_txt=$(grep -c '^ *[0-9]*\.[0-9]\{9\} ' $WORK/io.txt)
	[ "$n_json" -gt 0 ] && [ "$n_json" = "$n_txt" ] && pass io_log_text_has_a_line_per_row ||
		fail io_log_text_has_a_line_per_row "json $n_json text $n_txt"
	timeout 60 $STROBE io -i $F --log --json --tid "$tid" --min 10us --max 1ms > $WORK/io-mm.json 2>>$WORK/notes
	r=$(py 'import sys,json
n=0; bad=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="io.log":
        n+=1; bad+=not 10000<=o["duration"]<=1000000
print("ok" if bad==0 and n<=int(sys.argv[2]) else "n=%d bad=%d" % (n,bad))' $WORK/io-mm.json "$n_json")
	[ "$r" = ok ] && pass io_log_min_max_keep_rows_inside_the_bounds ||
		fail io_log_min_max_keep_rows_inside_the_bounds "$r"
	timeout 60 $STROBE io -i $F --log --lami --tid "$tid" > $WORK/io.lami 2>>$WORK/notes &&
	timeout 10 $STROBE io --log --lami --metadata > $WORK/io.meta
	r=$(py 'import sys,json
m=json.load(open(sys.argv[2]))["table-classes"]; cols=[c["title"] for c in m["io.log"]["column-descriptions"]]
w=0
for t in json.load(open(sys.argv[1]))["results"]:
    if t["class"]!="io.log": continue
    for row in t["data"]:
        assert len(row)==len(cols)
        v=dict(zip(cols,(c["value"] for c in row)))
        if v["Syscall"]=="write" and v["FD"]>2: w+=v["Bytes"]
print(w)' $WORK/io.lami $WORK/io.meta 2>&1 | tail -1)
	[ "$r" = 10485760 ] && pass io_log_lami_results_hold_the_rows ||
		fail io_log_lami_results_hold_the_rows "got '$r'"
else
	fail record_write_workload "$(tail -3 $F.stderr)"
fi

# --- cputop: the busy thread's intervals ----------------------------------------
F=$WORK/busy.dat
if rec $F sched -- $W busy 300; then
	tid=$(sed -n 's/^tid=//p' $F.stdout)
	{ timeout 60 $STROBE cputop -i $F --log --json --tid "$tid" &&	# --log alone: no ranking
	  timeout 60 $STROBE cputop -i $F --top 0 --json --tid "$tid"; } > $WORK/cpu.json 2>>$WORK/notes
	r=$(py 'import sys,json
tid=int(sys.argv[2]); s=0; n=0; total=None; bad=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.log":
        n+=1; s+=o["duration"]; bad+=o["tid"]!=tid
    if o.get("table")=="cputop.top":
        total=sum(r["cpu_time"] for r in o["rows"])
print("ok" if n and not bad and total and s<=total else "n=%d bad=%d sum=%d total=%s" % (n,bad,s,total))' $WORK/cpu.json "$tid")
	[ "$r" = ok ] && pass cputop_log_intervals_are_the_threads_and_within_its_cpu_time ||
		fail cputop_log_intervals_are_the_threads_and_within_its_cpu_time "$r"
else
	fail record_busy_workload "$(tail -3 $F.stderr)"
fi

# --- every analysis, whole system ------------------------------------------------
F=$WORK/all.dat
# strobe keeps its own threads out of the trace, so the IO and page
# allocations come from this workload, started once tracing is on; the
# recording ends 0.5 s after it
$STROBE record -q -o $F --preset sched,syscalls,io,irq,mem -d 120 > $F.stdout 2> $F.stderr &
SP=$!
tracing_started $SP
$W write $WORK/out2.bin 1048576 > /dev/null
sleep 0.5
kill -INT $SP
if wait $SP; then
	timeout 60 $STROBE analyze -a cputop,syscalls,schedlat,io,irq,mem --log --json -i $F > $WORK/all.json 2>>$WORK/notes
	r=$(py 'import sys,json
n={}
for l in open(sys.argv[1]):
    o=json.loads(l)
    t=o.get("table")
    if t and "rows" not in o: n[t]=n.get(t,0)+1
need=["cputop.log","syscalls.log","schedlat.log","io.log","irq.log","mem.log"]
print(" ".join(k for k in need if not n.get(k)) or "ok")' $WORK/all.json 2>&1 | tail -1)
	[ "$r" = ok ] && pass every_analysis_logs_rows_in_a_whole_system_recording ||
		fail every_analysis_logs_rows_in_a_whole_system_recording "missing: $r"
else
	fail record_whole_system "$(tail -3 $F.stderr)"
fi

after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
