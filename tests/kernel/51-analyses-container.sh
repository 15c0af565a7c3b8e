# 51-analyses-container.sh - the workloads of 50-analyses.sh in a real
# container (podman + runc, a busybox rootfs holding the static helpers):
# the analyses must show the same exact figures under the container's name
# with --group-by container, both in a whole-system recording and in one
# made with `strobe record -c NAME` (PID-filtered: only the container's
# tasks are traced, so no other task may be charged).
#   syscalls: N getppid (getppid_n) and M failing opens (ENOENT);
#   io:       exactly 10 MiB written to a file;
#   schedlat: a ping-pong of R round trips gives at least 2R wake-ups;
#   cputop:   a second of busy CPU within 5% of the thread's own clock.
# Each workload runs under its own command name (copies of analysis_work:
# sys_work, io_work, pp_work, busy_work) so --comm picks exactly it out of
# the container (busybox sh makes system calls of its own).  The container
# waits for /go in its rootfs, created once the recording's instance has
# tracing on, and writes /done at the end.
. "$(dirname "$0")/lib.sh"
need_tracefs analyses-container
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip analyses-container "podman, runc or busybox-static not installed"
	exit 0
fi
# top-level settings (other strobe runs' instances may come and go meanwhile;
# ours are checked by PID at the end)
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
SPS=
C=ana-$$
trap 'podman rm -f $C probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

N=1000 M=50 R=500 BYTES=10485760
make_rootfs
for w in sys_work io_work pp_work busy_work; do cp $HELPERS/analysis_work $ROOTFS/bin/$w; done
if ! run_ct probe-$$ 'true'; then
	skip analyses-container "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi
SCRIPT="while [ ! -e /go ]; do sleep 0.02; done
getppid_n $N; sys_work syscalls 0 $M; io_work write /io.bin $BYTES; pp_work pingpong $R
busy_work busy 1000 > /busy.out; echo > /done"


# record OUT [record options]: the workload in container $C while recording
record() {
	local out=$1 sp i
	shift
	rm -f $ROOTFS/go $ROOTFS/done $ROOTFS/busy.out $ROOTFS/io.bin
	run_ct -d $C "$SCRIPT" || return 1
	$STROBE record -o $out -b 8192 -d 25 --preset sched,syscalls "$@" > $out.stdout 2> $out.stderr & sp=$!
	SPS="$SPS $sp"
	tracing_started $sp
	STEAL=$(steal_ns)
	touch $ROOTFS/go
	for i in $(seq 250); do [ -e $ROOTFS/done ] && break; sleep 0.1; done
	sleep 0.1
	STEAL=$(( $(steal_ns) - STEAL ))	# the hypervisor's, over the work
	kill -INT $sp 2>/dev/null
	wait $sp && [ -e $ROOTFS/done ]
}

# check FILE LABEL [OTHERS]: the four figures under the container's name;
# OTHERS: the syscalls rows of other containers must be 0 (a -c recording;
# whole-system ones may hold a host getppid_n of another test)
check() {
	local f=$1 l=$2 others=${3:-any} r want lost
	lost=$(sed -n 's/.* events, \([0-9]*\) lost.*/\1/p' $f.stderr)
	if [ "${lost:-0}" != 0 ]; then	# a loss drops measurements: not exact
		skip analyses-container-$l "$lost events lost (a busy host): figures not exact"
		return
	fi
	timeout 60 $STROBE syscalls -i $f --group-by container --comm getppid_n,sys_work \
		--json --top 0 --stats > $WORK/s.json 2>>$WORK/notes
	r=$(py 'import sys,json
c=sys.argv[2]; cnt={}; err={}; other=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    for r in o.get("rows",[]):
        if r.get("container")!=c: other+=1; continue
        if o["table"]=="syscalls.stats": cnt[r["syscall"]]=(r["count"],r["errors"])
        if o["table"]=="syscalls.errors": err[(r["syscall"],r["error"])]=r["count"]
print(cnt.get("getppid",(0,0))[0], cnt.get("openat",(0,0))[0], err.get(("openat","ENOENT"),0),
      other if sys.argv[3]!="any" else "any")' $WORK/s.json $C $others)
	[ "$r" = "$N $M $M $others" ] && pass analyses-container-$l-syscalls-N-getppid-M-ENOENT ||
		fail analyses-container-$l-syscalls-N-getppid-M-ENOENT "want '$N $M $M $others' got '$r'"

	timeout 60 $STROBE io -i $f --group-by container --comm io_work --json --top 0 \
		> $WORK/io.json 2>>$WORK/notes
	r=$(py 'import sys,json
w=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="io.files":   # fds 0-2: the "tid=" line on stdout
        w+=sum(r["write_bytes"] for r in o["rows"] if r["container"]==sys.argv[2] and r["fd"]>2)
print(w)' $WORK/io.json $C)
	[ "$r" = $BYTES ] && pass analyses-container-$l-io-10MiB-written ||
		fail analyses-container-$l-io-10MiB-written "got '$r'"

	timeout 60 $STROBE schedlat -i $f --group-by container --comm pp_work --json --stats \
		--top 0 > $WORK/pp.json 2> $WORK/pp.err
	cat $WORK/pp.err >> $WORK/notes
	# wake-ups the kernel gave no switch-in for are counted, not measured
	u=$(sed -n 's/.*schedlat: \([0-9]*\) wake-ups not measured.*/\1/p' $WORK/pp.err)
	r=$(py 'import sys,json
n=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="schedlat.stats":
        n+=sum(r["count"] for r in o["rows"] if r["container"]==sys.argv[2])
print(n)' $WORK/pp.json $C)
	[ -n "$r" ] && [ "$r" -gt 0 ] && [ $((r + ${u:-0})) -ge $((2 * R)) ] &&
		pass analyses-container-$l-pingpong-2R-wakeups ||
		fail analyses-container-$l-pingpong-2R-wakeups "got '$r' measured + '${u:-0}' unmeasured"

	want=$(sed -n 's/^thread_cputime_ns=//p' $ROOTFS/busy.out)
	timeout 60 $STROBE cputop -i $f --group-by container --comm busy_work --json --top 0 \
		> $WORK/cpu.json 2>>$WORK/notes
	r=$(py 'import sys,json
g=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.top":
        g+=sum(r["cpu_time"] for r in o["rows"] if r["container"]==sys.argv[2])
w,s=int(sys.argv[3]),int(sys.argv[4])	# above it by up to the steal
print("ok" if -0.05*w <= g-w <= 0.05*w+s else "strobe %d ns, thread clock %d ns, steal %d ns" % (g,w,s))' \
		$WORK/cpu.json $C "${want:-0}" "${STEAL:-0}")
	# switches the kernel did not record: busy_work switched in and out
	# as often as each other (one more either way at the edges of the
	# recording); otherwise its CPU time cannot be exact from the trace
	sw=$(timeout 60 $STROBE report -i $f --json -e sched_switch 2>/dev/null | py 'import sys,json
i=o=0
for l in sys.stdin:
    e=json.loads(l).get("fields",{})
    i+=e.get("next_comm")=="busy_work"; o+=e.get("prev_comm")=="busy_work"
print(i, o)')
	set -- $sw
	if [ "$r" = ok ]; then
		pass analyses-container-$l-cputop-busy-within-5pct
	elif [ -n "$1" ] && [ $(( $1 > $2 ? $1 - $2 : $2 - $1 )) -gt 1 ]; then
		skip analyses-container-$l-cputop-busy-within-5pct \
			"the kernel recorded $1 switch-ins but $2 switch-outs of busy_work ($r)"
	else
		fail analyses-container-$l-cputop-busy-within-5pct "$r (switches in/out: $sw)"
	fi
}

F=$WORK/sys.dat
if record $F; then check $F system-wide
else fail analyses-container-record-system-wide "$(tail -2 $F.stderr) $(head -1 $WORK/podman.err)"; fi

F=$WORK/c.dat
if record $F -c $C; then
	check $F c 0
	# PID-filtered: only the container's tasks are charged, with a note
	timeout 60 $STROBE cputop -i $F --group-by container --json --top 0 > $WORK/all.json 2>/dev/null
	r=$(py 'import sys,json
rows=[]; note=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="cputop.top": rows=[r["container"] for r in o["rows"]]
    if "summary" in o: note=any("PID-filtered (strobe record -c" in n for n in o["summary"]["notes"])
print("ok" if rows==[sys.argv[2]] and note else "rows %s note %s" % (rows, note))' $WORK/all.json $C)
	[ "$r" = ok ] && pass analyses-container-c-cputop-charges-only-the-container ||
		fail analyses-container-c-cputop-charges-only-the-container "$r"
else
	fail analyses-container-record-c "$(tail -2 $F.stderr) $(head -1 $WORK/podman.err)"
fi

podman rm -f $C >/dev/null 2>&1
left=
for p in $SPS; do [ -e $TRACEFS/instances/strobe-$p ] && left="$left strobe-$p"; done
[ "$(state)" = "$before" ] && [ -z "$left" ] && pass analyses-container-tracefs-unchanged ||
	fail analyses-container-tracefs-unchanged "$(diff <(echo "$before") <(state))$left"
