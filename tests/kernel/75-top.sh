#!/bin/bash
# 75-top.sh - `strobe top` on real podman containers (runc, a busybox
# rootfs): one spinning a CPU, one asleep, one making system calls.
#   - `strobe top --batch -n 3 --interval 1 --group-by container --json
#     --columns cpu_pct,tasks,mem_bytes`: three JSON documents; the
#     spinner's CPU in each within 2 points of what the kernel counted of
#     it over the same refresh (its schedstat, sampled on the trace clock
#     by schedshare.py; at least that less the time the recording, -o,
#     cannot attribute, see schedshare.py: on this VM the sandbox's own
#     agent leaves no events), so above 80% where the machine gave it that much
#     and right on a loaded machine too; the sleeper below 5% and still
#     shown (its one task counted), the containers' cgroup memory read
#     (mem_bytes > 0);
#   - the same seconds kept with -o agree with the file commands: for a
#     refresh's interval [begin, end], `strobe cputop --begin --end` gives
#     the spinner's CPU share within 3 points, and (a run of `-c` the
#     caller, `--columns syscalls_ps`) `strobe syscalls` the caller's
#     system calls within 1% (calls that straddle an edge differ);
#   Why those columns: every column enables its events on the whole
#   machine, and under a load of system calls (the `yes >/dev/null` of a
#   loaded make check makes a million a second) a view of all of them
#   falls behind and loses events (it says so: "lost" per refresh, a
#   warning), short of which no figure can be right; the CPU columns need
#   the scheduler's events only, and the caller's system calls those of
#   its container;
#   - trace-cmd reads the kept file;
#   - --group-by process --columns cpu_pct,tasks -c NAME shows only that
#     container's processes; a bad column or sort key is a usage error;
# and tracefs is left as it was found.
. "$(dirname "$0")/lib.sh"
need_tracefs top
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip top "podman, runc or busybox-static not installed"
	exit 0
fi
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
B=top-busy-$$ I=top-idle-$$ S=top-sys-$$
trap '$PODMAN rm -f -t 0 $B $I $S probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT
make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip top "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi
run_ct -d $B 'while :; do :; done' || { fail top-containers-start "$(cat $WORK/podman.err)"; exit 0; }
run_ct -d $I 'sleep 1000' || { fail top-containers-start "$(cat $WORK/podman.err)"; exit 0; }
run_ct -d $S 'while :; do getppid_n 2000; sleep 0.1; done' ||
	{ fail top-containers-start "$(cat $WORK/podman.err)"; exit 0; }
sleep 1

# the spinner's own CPU time as the kernel counts it, sampled on the trace
# clock while top runs: its share over each refresh (kshares: "LOW HIGH"
# per refresh, the bounds the samples give)
bpid=$($PODMAN inspect --format '{{.State.Pid}}' $B 2>/dev/null)
python3 $(dirname "$0")/schedshare.py sample "$bpid" $WORK/busy.ss 2> $WORK/ss.err & ssp=$!
for _ in $(seq 600); do [ -s $WORK/busy.ss ] && break; kill -0 $ssp 2>/dev/null || break; sleep 0.1; done
timeout 60 $STROBE top --batch -n 3 --interval 1 --group-by container --json \
	--columns cpu_pct,tasks,mem_bytes -o $WORK/top.dat > $WORK/top.json 2> $WORK/top.err
rc=$?
sleep 0.1	# a sample after the last refresh's end
kill $ssp 2>/dev/null; wait $ssp 2>/dev/null
# (with top's own recording: the time the trace cannot attribute, see
# schedshare.py: "LOW:HIGH:UNSEEN:STEAL")
kshares=$(python3 $(dirname "$0")/schedshare.py shares $WORK/busy.ss $WORK/top.json \
	$WORK/top.dat "$bpid" 2>&1)
r=$(py 'import sys,json
b,i,s=sys.argv[2:5]
ks=sys.argv[5].split()
docs=[json.loads(l) for l in open(sys.argv[1])]
out=[]; busy=[]
if len(docs)!=3: print("docs", len(docs)); sys.exit()
for d in docs:
    rows={r["container"]:r for r in d["rows"]}
    if b not in rows or i not in rows: out.append("missing %s" % sorted(rows)); continue
    if d["table"]!="top.container" or d["group_by"]!="container": out.append("table %s" % d["table"])
    # what the kernel counted over the same refresh, within 2 points (top
    # counts the switches it saw; the kernel the same runtime): so above
    # 80% as the issue asks wherever the machine gave the spinner that much
    k=ks[len(busy)] if len(busy) < len(ks) else "none"
    try:
        f=k.split(":"); lo,hi=float(f[0]),float(f[1]); un=float(f[2]) if len(f)>2 else 0.0
        st=float(f[3]) if len(f)>3 else 0.0
    except (ValueError, IndexError): out.append("kernel share: %s" % k); lo,hi,un,st=-99,999,0,0
    # (the first refresh: at most that; a task on CPU since before tracing
    # began is charged only from the first evidence of when it ran, see
    # 56-docker.sh; later ones: at least that less what the trace cannot
    # attribute, un: the VM records no event of its own agent, so a
    # switch back from it is missing, see schedshare.py; at most that and
    # what the hypervisor stole, st: the kernel does not count it to the
    # task, and no switch shows it)
    if not (0 if not busy else lo-2-un) <= rows[b]["cpu_pct"] <= hi+2+st:
        out.append("busy %.1f, kernel %s (%d events lost in %d gaps)" % (rows[b]["cpu_pct"],k,d["lost"],d["gaps"]))
    busy.append(rows[b]["cpu_pct"])
    if not rows[i]["cpu_pct"]<5: out.append("idle %.1f" % rows[i]["cpu_pct"])
    if rows[i]["tasks"]<1: out.append("idle tasks %d" % rows[i]["tasks"])
    if not (rows[b]["mem_bytes"] or 0)>0: out.append("busy mem %r" % rows[b]["mem_bytes"])
print(" ".join(out) or "ok")' $WORK/top.json $B $I $S "$kshares")
echo "NOTE top: the kernel gave the spinner (low:high per refresh) $kshares; top showed" \
	$(py 'import sys,json
print(" ".join("%.1f" % r["cpu_pct"] for l in open(sys.argv[1]) for r in json.loads(l)["rows"] if r["container"]==sys.argv[2]))' $WORK/top.json $B 2>/dev/null)
[ $rc = 0 ] && [ "$r" = ok ] && pass top-batch-json-busy-cpu-as-the-kernel-counts-idle-below-5 ||
	fail top-batch-json-busy-cpu-as-the-kernel-counts-idle-below-5 "rc $rc: $r; $(head -c 300 $WORK/top.err)"

# the second refresh against the file commands over its interval
# refresh2 JSON CONTAINER COLUMN: "BEGIN END VALUE" of the second refresh,
# VALUE the column of CONTAINER's row (a rate: times the refresh's seconds)
refresh2() {
	py 'import sys,json
d=[json.loads(l) for l in open(sys.argv[1])][1]
r={r["container"]:r for r in d["rows"]}[sys.argv[2]]
v=r[sys.argv[3]]*(d["seconds"] if sys.argv[3].endswith("_ps") else 1)
print("%d.%09d %d.%09d %.4f" % (d["begin"]//10**9, d["begin"]%10**9, d["end"]//10**9,
      d["end"]%10**9, v))' "$@" 2>/dev/null
}
timeout 60 $STROBE top --batch -n 3 --interval 1 -c $S --group-by container --json \
	--columns syscalls_ps -o $WORK/sys.dat > $WORK/sys.json 2> $WORK/sys.err
set -- $(refresh2 $WORK/top.json $B cpu_pct) $(refresh2 $WORK/sys.json $S syscalls_ps)
if [ $# = 6 ]; then
	beg=$1 end=$2 cpu=$3 sbeg=$4 send=$5 sys=$(printf %.0f $6)
	c=$(timeout 60 $STROBE cputop -i $WORK/top.dat --begin $beg --end $end --group-by container \
		--json --top 0 2>/dev/null | py 'import sys,json
for l in sys.stdin:
    o=json.loads(l)
    if o.get("table")=="cputop.top":
        for r in o["rows"]:
            if r["container"]==sys.argv[1]: print(r["cpu_pct"])' $B)
	py 'import sys; a,b=map(float,sys.argv[1:]); sys.exit(abs(a-b)>3)' "$cpu" "${c:-0}" &&
		pass top-refresh-cpu-agrees-with-cputop-on-the-kept-file ||
		fail top-refresh-cpu-agrees-with-cputop-on-the-kept-file "top $cpu, cputop '$c'"
	n=$(timeout 60 $STROBE syscalls -i $WORK/sys.dat --begin $sbeg --end $send --group-by container \
		--json --top 0 --stats 2>/dev/null | py 'import sys,json
n=0
for l in sys.stdin:
    o=json.loads(l)
    if o.get("table")=="syscalls.stats":
        n+=sum(r["count"] for r in o["rows"] if r["container"]==sys.argv[1])
print(n)' $S)
	[ "$sys" -gt 1000 ] && py 'import sys; a,b=map(int,sys.argv[1:]); sys.exit(abs(a-b)>max(5,a//100))' \
		"$sys" "${n:-0}" && pass top-refresh-syscalls-agree-with-syscalls-on-the-kept-file ||
		fail top-refresh-syscalls-agree-with-syscalls-on-the-kept-file "top $sys, syscalls '$n'; $(head -c 300 $WORK/sys.err)"
else
	fail top-refresh-agrees-with-the-file-commands "no second refresh: $(head -c 300 $WORK/top.json) $(head -c 300 $WORK/sys.json)"
fi
if command -v trace-cmd >/dev/null; then
	n=$(trace-cmd report -i $WORK/top.dat 2>/dev/null | grep -c sched_switch)
	[ "${n:-0}" -gt 0 ] && pass top-kept-file-read-by-trace-cmd ||
		fail top-kept-file-read-by-trace-cmd "no sched_switch in trace-cmd report"
fi

# one container's processes, two columns; text output
timeout 60 $STROBE top --batch -n 1 --interval 0.5 -c $S --group-by process \
	--columns cpu_pct,tasks > $WORK/p.txt 2> $WORK/p.err
r=$(awk 'NR==3 { print $1, $2, $3, $4, $5 }' $WORK/p.txt)
others=$(awk 'NR>3 && NF && $3 != "'$S'" { print }' $WORK/p.txt)
[ "$r" = "PID Comm Container CPU% Tasks" ] && [ -z "$others" ] &&
	grep -q " $S " $WORK/p.txt && pass top-one-container-per-process-two-columns ||
	fail top-one-container-per-process-two-columns "header '$r'; others '$others'; $(head -c 300 $WORK/p.err)"

$STROBE top --batch -n 1 --columns cpu_pct,nosuch > /dev/null 2> $WORK/bad.err
rc=$?
[ $rc = 2 ] && grep -q "unknown column 'nosuch'" $WORK/bad.err && pass top-unknown-column-usage-error ||
	fail top-unknown-column-usage-error "rc $rc: $(cat $WORK/bad.err)"
$STROBE top --batch -n 1 --columns cpu_pct --sort tasks > /dev/null 2> $WORK/bad.err
rc=$?
[ $rc = 2 ] && grep -q "cannot sort by 'tasks'" $WORK/bad.err && pass top-sort-by-hidden-column-usage-error ||
	fail top-sort-by-hidden-column-usage-error "rc $rc: $(cat $WORK/bad.err)"

$PODMAN rm -f -t 0 $B $I $S >/dev/null 2>&1
after=$(state)
[ "$before" = "$after" ] && pass top-tracefs-left-as-found ||
	fail top-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
ls $TRACEFS/instances | grep -q "^strobe-" && ls $TRACEFS/instances | grep "^strobe-" | while read -r d; do
	kill -0 "${d#strobe-}" 2>/dev/null || echo "stale $d"; done | grep -q stale &&
	fail top-no-stale-instance || pass top-no-stale-instance
