#!/bin/bash
# 75-top.sh - `strobe top` on real podman containers (runc, a busybox
# rootfs): one spinning a CPU, one asleep, one making system calls.
#   - `strobe top --batch -n 3 --interval 1 --group-by container --json`:
#     three JSON documents; the spinner above 80% CPU in each (within 10
#     points of the kernel's own count of its CPU time when a busy machine
#     gave it less than 85%), the
#     sleeper below 5% and still shown (its one task counted), the
#     containers' cgroup memory read (mem_bytes > 0);
#   - the same seconds kept with -o agree with the file commands: for a
#     refresh's interval [begin, end], `strobe cputop --begin --end` gives
#     the spinner's CPU share within 3 points, and `strobe syscalls` the
#     caller's system calls within 1% (calls that straddle an edge differ);
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

# the spinner's own CPU time as the kernel counts it, around the run
bpid=$($PODMAN inspect --format '{{.State.Pid}}' $B 2>/dev/null)
ns0=$(cut -d' ' -f1 /proc/$bpid/schedstat 2>/dev/null); t0=$(date +%s%N)
timeout 60 $STROBE top --batch -n 3 --interval 1 --group-by container --json \
	-o $WORK/top.dat > $WORK/top.json 2> $WORK/top.err
rc=$?
ns1=$(cut -d' ' -f1 /proc/$bpid/schedstat 2>/dev/null); t1=$(date +%s%N)
kshare=$(py 'import sys; a,b,c,d=map(int,sys.argv[1:]); print("%.1f" % (100.0*(b-a)/(d-c)))' \
	"${ns0:-0}" "${ns1:-0}" "$t0" "$t1")
r=$(py 'import sys,json
b,i,s=sys.argv[2:5]
docs=[json.loads(l) for l in open(sys.argv[1])]
out=[]; busy=[]
if len(docs)!=3: print("docs", len(docs)); sys.exit()
for d in docs:
    rows={r["container"]:r for r in d["rows"]}
    if b not in rows or i not in rows: out.append("missing %s" % sorted(rows)); continue
    if d["table"]!="top.container" or d["group_by"]!="container": out.append("table %s" % d["table"])
    # above 80% as the issue asks; on a machine too busy to give the
    # spinner that much (as the kernel counts it over the whole run), the
    # mean of the refreshes within 10 points of what the kernel counted and
    # each refresh within 20 (a refresh is one second of a varying load)
    k=float(sys.argv[5])
    if k>=85 and not rows[b]["cpu_pct"]>80: out.append("busy %.1f" % rows[b]["cpu_pct"])
    if k<85 and abs(rows[b]["cpu_pct"]-k)>20: out.append("busy %.1f, kernel %.1f" % (rows[b]["cpu_pct"],k))
    busy.append(rows[b]["cpu_pct"])
    if not rows[i]["cpu_pct"]<5: out.append("idle %.1f" % rows[i]["cpu_pct"])
    if rows[i]["tasks"]<1: out.append("idle tasks %d" % rows[i]["tasks"])
    if not (rows[b]["mem_bytes"] or 0)>0: out.append("busy mem %r" % rows[b]["mem_bytes"])
k=float(sys.argv[5])
if k<85 and busy and abs(sum(busy)/len(busy)-k)>10:
    out.append("busy mean %.1f, kernel %.1f" % (sum(busy)/len(busy),k))
print(" ".join(out) or "ok")' $WORK/top.json $B $I $S "$kshare")
py 'import sys; sys.exit(float(sys.argv[1])>=85)' "$kshare" &&
	echo "NOTE top: the machine gave the spinner only $kshare% of a core (kernel schedstat): checked against that"
[ $rc = 0 ] && [ "$r" = ok ] && pass top-batch-json-busy-above-80-idle-below-5 ||
	fail top-batch-json-busy-above-80-idle-below-5 "rc $rc: $r; $(head -c 300 $WORK/top.err)"

# the second refresh against the file commands over its interval
set -- $(py 'import sys,json
d=[json.loads(l) for l in open(sys.argv[1])][1]
rows={r["container"]:r for r in d["rows"]}
print("%d.%09d %d.%09d %.4f %d" % (d["begin"]//10**9, d["begin"]%10**9, d["end"]//10**9,
      d["end"]%10**9, rows[sys.argv[2]]["cpu_pct"],
      round(rows.get(sys.argv[3],{}).get("syscalls_ps",0)*d["seconds"])))' $WORK/top.json $B $S 2>/dev/null)
if [ $# = 4 ]; then
	beg=$1 end=$2 cpu=$3 sys=$4
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
	n=$(timeout 60 $STROBE syscalls -i $WORK/top.dat --begin $beg --end $end --group-by container \
		--json --top 0 --stats 2>/dev/null | py 'import sys,json
n=0
for l in sys.stdin:
    o=json.loads(l)
    if o.get("table")=="syscalls.stats":
        n+=sum(r["count"] for r in o["rows"] if r["container"]==sys.argv[1])
print(n)' $S)
	[ "$sys" -gt 1000 ] && py 'import sys; a,b=map(int,sys.argv[1:]); sys.exit(abs(a-b)>max(5,a//100))' \
		"$sys" "${n:-0}" && pass top-refresh-syscalls-agree-with-syscalls-on-the-kept-file ||
		fail top-refresh-syscalls-agree-with-syscalls-on-the-kept-file "top $sys, syscalls '$n'"
else
	fail top-refresh-agrees-with-the-file-commands "no second refresh: $(head -c 300 $WORK/top.json)"
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
