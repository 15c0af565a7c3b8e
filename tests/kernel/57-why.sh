# 57-why.sh - strobe why on real containers, the seed's shape: a client in
# a podman container whose requests block on a host process it reaches
# through two FIFOs in its rootfs (why_work: the host helper sleeps 20 ms
# per request), recorded on the whole machine with --preset why:
#   seed:     `strobe why -c NAME` ranks the host helper first, names its
#             container "host", with the blocked time within 10% of what
#             the client measured: its round trips less what the kernel
#             counted of them as its running and its waiting for a CPU
#             (its schedstat), which a loaded machine makes large;
#   two hops: container A's client waits on container B's relay, which
#             waits on a host helper that burns 20 ms of CPU per request:
#             A's blocked time is charged to the helper's running and
#             waiting for a CPU (at least 80%), not to B (at most 10%);
#             the helper's running time on the path is at least the CPU
#             time of its burns and at most all its CPU time, as its own
#             thread clock counts them: it burns only once A and B are
#             blocked (a loaded machine may otherwise preempt A or B
#             before they block, and that part of a burn is rightly on
#             no blocked path), and A starts its requests only once
#             tracing is on (a block that began before the trace is not
#             counted);
#   run queue: a task pinned to the CPU of a CPU hog in another container
#             waits for a CPU, and who ran instead is the hog's container;
#   stacks:   the recording has --stacks: the client's blocked time is in
#             a pipe read's kernel stack, and the host helper, its waker,
#             blocked in nanosleep's (why.stacks);
#   live:     `strobe why -c NAME -d SECS` (the whole machine recorded,
#             the container selected in user space) gives the seed's
#             answer;
#   command:  `strobe why -- CMD` (a client on the host whose server is
#             another host process) records the whole machine too: the
#             server, outside the command, ranks first within 10% (as
#             the seed), and no note says that wakers are missing;
#   request:  the slowest request is the one the server measured slowest
#             (its duration from accept4's return to close: at least
#             that, within 10%); the 50 ms one is blocked on a timer (its
#             sleep) for at least 50 ms, whatever a loaded machine adds
#             of waiting for a CPU;
# and tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs why
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip why "podman, runc or busybox-static not installed"
	exit 0
fi
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
S=why-seed-$$ A=why-a-$$ B=why-b-$$ H=why-hog-$$ T=why-tick-$$ L=why-live-$$
SP=
trap 'kill $SP 2>/dev/null; podman rm -f $S $A $B $H $T $L probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT
W=$HELPERS/why_work

make_rootfs
cp $W $ROOTFS/bin/why_work
if ! run_ct probe-$$ 'true'; then
	skip why "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# wait_for FILE PATTERN SECS: until FILE holds PATTERN
wait_for() {
	local i
	for i in $(seq $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# tracing_on PID: wait until strobe PID's instance has its events on
tracing_on() { tracing_started "$1"; }	# lib.sh

# The containers start before tracing does, blocked opening their FIFOs
# (what a container's own start-up waits for, runc's threads included,
# is not the question here); the host side starts once tracing is on.
# client NAME N TAG [GO]: a client of N requests in container NAME, on
# FIFOs TAG.rq and TAG.rp of the rootfs (with GO, once a byte is written
# to $ROOTFS/TAG.go); its measure lands in $ROOTFS/TAG.out
client() {
	rm -f $ROOTFS/$3.rq $ROOTFS/$3.rp $ROOTFS/$3.out $ROOTFS/$3.go
	mkfifo $ROOTFS/$3.rq $ROOTFS/$3.rp
	[ -n "$4" ] && mkfifo $ROOTFS/$3.go
	run_ct -d $1 "exec why_work client /$3.rq /$3.rp $2 ${4:+/$3.go} > /$3.out"
}
# blocked_ns FILE: a client's blocked time as the kernel counts it: its
# round trips less its running and its waiting for a CPU
blocked_ns() {
	py 'import sys
v=dict(l.strip().split("=",1) for l in open(sys.argv[1]) if "=" in l)
print(int(v["waited_ns"])-int(v["runq_ns"])-int(v["oncpu_ns"]))' "$1"
}
# serve N TAG sleep|burn: the host helper of TAG (its pid in $WORK/TAG.srv),
# until the client is done
serve() {
	$W serve $ROOTFS/$2.rq $ROOTFS/$2.rp $1 $3 20 > $WORK/$2.srv &
	wait_for $ROOTFS/$2.out oncpu_ns= 60 && wait_for $WORK/$2.srv pid= 5
}

client $S 50 seed || fail why-seed-workload "$(head -3 $WORK/podman.err)"
# two hops: A -> B (container) -> host helper burning CPU
rm -f $ROOTFS/b.rq $ROOTFS/b.rp
mkfifo $ROOTFS/b.rq $ROOTFS/b.rp
client $A 30 a go && run_ct -d $B "exec why_work relay /a.rq /a.rp /b.rq /b.rp 30" ||
	fail why-two-hop-workload "$(head -3 $WORK/podman.err)"
apid=$($PODMAN inspect --format '{{.State.Pid}}' $A 2>/dev/null)
bpid=$($PODMAN inspect --format '{{.State.Pid}}' $B 2>/dev/null)
# run queue: a ticking task, released later, on the CPU of a hog
rm -f $ROOTFS/go
mkfifo $ROOTFS/go
run_ct -d $T "exec why_work tick 0 150 5 /go > /tick.out" ||
	fail why-runq-workload "$(head -3 $WORK/podman.err)"

F=$WORK/why.dat
$STROBE record --preset why --stacks -b 8192 -o $F > $WORK/rec.out 2> $WORK/rec.err & sp=$!
SP=$sp
if ! tracing_on $sp; then
	fail why-record "$(tail -3 $WORK/rec.err)"
	exit 0
fi
serve 50 seed sleep || fail why-seed-workload "client: $(cat $ROOTFS/seed.out)"
# the relay's upstream (b.rq, b.rp) is this helper, burning once A and B
# are blocked; A starts now and measures in a.out
s0=$(steal_ns)
$W serve $ROOTFS/b.rq $ROOTFS/b.rp 30 burn 20 $apid $bpid > $WORK/burn.srv &
echo > $ROOTFS/a.go
wait_for $ROOTFS/a.out oncpu_ns= 60 && wait_for $WORK/burn.srv cpu_ns= 10 ||
	fail why-two-hop-workload "client: $(cat $ROOTFS/a.out) helper: $(cat $WORK/burn.srv)"
bsteal=$(( $(steal_ns) - s0 ))	# the hypervisor's, over the helper's run
# per request: a TCP server on the host whose requests sleep 5, 5, 5, 50 ms
$HELPERS/req_server both 5x3,50 > $WORK/req.out 2>&1 || fail why-request-workload "$(cat $WORK/req.out)"
run_ct -d $H "exec why_work hog 0 2500" && sleep 0.3 && echo > $ROOTFS/go &&
wait_for $ROOTFS/tick.out cpu_ns= 60 || fail why-runq-workload "$(head -3 $WORK/podman.err)"

kill -INT $sp
wait $sp || fail why-record "exit $?: $(tail -3 $WORK/rec.err)"
SP=
podman rm -f $H >/dev/null 2>&1

# seed_check LABEL JSON HELPER_PID BLOCKED_NS: the helper ranks first, in
# container host, within 10% of the time the client was blocked (blocked_ns)
seed_check() {
	local r
	r=$(py 'import sys,json
waits=[]; ans=[]
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="why.waits": waits=o["rows"]
    if o.get("table")=="why.answer": ans=o["rows"]
pid=int(sys.argv[2]); want=int(sys.argv[3])
if not waits: print("no why.waits rows"); sys.exit()
w=waits[0]
if w["kind"]!="task" or w["pid"]!=pid or w["container"]!="host":
    print("first: %s %s %s %s" % (w["kind"], w["pid"], w["comm"], w["container"])); sys.exit()
if abs(w["time"]-want) > 0.1*want:
    print("helper %d ns, client blocked %d ns" % (w["time"], want)); sys.exit()
if not ans or "(PID %d, host)" % pid not in ans[0]["answer"]:
    print("answer: %s" % (ans[0]["answer"] if ans else None)); sys.exit()
print("ok")' "$2" "$3" "$4")
	[ "$r" = ok ] && pass why-$1-ranks-the-host-helper-first-within-10pct ||
		fail why-$1-ranks-the-host-helper-first-within-10pct "$r"
}

hp=$(sed -n 's/^pid=//p' $WORK/seed.srv)
cw=$(blocked_ns $ROOTFS/seed.out)
timeout 60 $STROBE why -c $S -i $F --json > $WORK/seed.json 2> $WORK/seed.err
seed_check seed $WORK/seed.json "$hp" "$cw"
timeout 60 $STROBE why -c $S -i $F > $WORK/seed.txt 2>&1
r=$(py 'import sys,json
rows=[]
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="why.stacks": rows=o["rows"]
sel=[r for r in rows if r["whose"]=="selected"]
wk=[r for r in rows if r["whose"]=="waker" and r["pid"]==int(sys.argv[2])]
if not sel or "pipe_read" not in sel[0]["stack"]:
    print("selected: %s" % [(r["stack"], r["time"]) for r in sel[:2]]); sys.exit()
if not wk or "nanosleep" not in wk[0]["stack"]:
    print("waker %s: %s" % (sys.argv[2], [(r["pid"], r["stack"]) for r in rows if r["whose"]=="waker"][:3])); sys.exit()
print("ok")' $WORK/seed.json "$hp")
[ "$r" = ok ] && pass why-stacks-target-in-pipe-read-waker-in-nanosleep ||
	fail why-stacks-target-in-pipe-read-waker-in-nanosleep "$r"
echo "--- strobe why -c $S (the seed's shape):"; head -4 $WORK/seed.txt

# --- two hops -------------------------------------------------------------------
bp=$(sed -n 's/^pid=//p' $WORK/burn.srv)
burned=$(sed -n 's/^burned_ns=//p' $WORK/burn.srv)
bcpu=$(sed -n 's/^cpu_ns=//p' $WORK/burn.srv)
timeout 60 $STROBE why -c $A -i $F --json > $WORK/a.json 2> $WORK/a.err
r=$(py 'import sys,json
waits=[]; path=[]
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="why.waits": waits=o["rows"]
    if o.get("table")=="why.path": path=o["rows"]
blocked=sum(w["time"] for w in waits)
first=waits[0] if waits else {}
pid=int(sys.argv[2])
run=sum(p["time"] for p in path if p["kind"]=="running" and p["pid"]==pid)
wait=sum(p["time"] for p in path if p["kind"]=="waiting for a CPU" and p["pid"]==pid)
relay=sum(p["time"] for p in path if p["container"]==sys.argv[3])
burned=int(sys.argv[4] or 0); cpu=int(sys.argv[5] or 0); steal=int(sys.argv[6] or 0)
# every burn is inside a block of A (and of B); the rest of the helper'"'"'s
# CPU time (its start, reads and writes) may be: 1% for the two clocks.
# A loaded machine preempts a burn so often that the helper'"'"'s last
# segments (why.c: WHY_HIST) may not reach back to the start of B'"'"'s
# block: that part is "unknown: waker'"'"'s history too short", never
# charged to anyone else, so it counts with the running for the low bound
short=sum(p["time"] for p in path if p["kind"]=="unknown" and p["what"]=="waker'"'"'s history too short")
if first.get("container")!=sys.argv[3]: print("first hop %s" % first)
elif burned < 30*20000000: print("helper burned %d ns" % burned)
# (the running time in the trace holds what the hypervisor stole, the
# CPU clock of the helper does not)
elif not (0.99*burned <= run+short and run <= 1.01*cpu+steal):
    print("helper running %d ns (and %d ns unknown: history too short) on the path, burned %d ns while A and B were blocked, %d ns in all, %d ns stolen" % (run, short, burned, cpu, steal))
elif run+wait < 0.8*blocked: print("helper running %d + waiting %d of %d ns blocked" % (run, wait, blocked))
elif relay > 0.1*blocked: print("relay (B) charged %d of %d ns" % (relay, blocked))
else: print("ok")' $WORK/a.json "$bp" $B "$burned" "$bcpu" "$bsteal")
[ "$r" = ok ] && pass why-two-hop-charged-to-the-host-helpers-running ||
	fail why-two-hop-charged-to-the-host-helpers-running "$r"

echo "--- strobe why -c $A (two hops):"; timeout 60 $STROBE why -c $A -i $F 2>&1 | sed -n 3p

# --- run queue ----------------------------------------------------------------
timeout 60 $STROBE why -c $T -i $F --json > $WORK/t.json 2> $WORK/t.err
r=$(py 'import sys,json
summ={}; runq=[]
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="why.summary": summ={r["state"]: r["time"] for r in o["rows"]}
    if o.get("table")=="why.runq": runq=o["rows"]
w=summ.get("waiting for a CPU", 0)
# other work of the machine (the recorder, the test) may also run there:
# the hog must be the first container other than the host
other=[r for r in runq if r["container"]!="host"]
if w <= 0: print("no waiting for a CPU: %s" % summ)
elif not other or other[0]["container"]!=sys.argv[2] or other[0]["time"] <= 0:
    print("ran instead: %s" % runq[:3])
else: print("ok")' $WORK/t.json $H)
[ "$r" = ok ] && pass why-runq-names-the-hogs-container ||
	fail why-runq-names-the-hogs-container "$r"

# --- per request: each as long as the server measured it, the slowest first; ---
# the 50 ms one blocked on a timer (its sleep) for at least 50 ms.  A request
# holds the server's own measure (accept4's return to close) and may exceed
# it only by its running and waiting for a CPU (on a loaded machine, a
# preemption at accept4's return or close's entry); 1 ms for the clocks
REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'
timeout 60 $STROBE why -p "$(sed -n 's/^server_pid=//p' $WORK/req.out)" -i $F --period "$REQ" \
	--top 4 --json > $WORK/req.json 2> $WORK/req.err
r=$(py 'import sys,json
slow=[]; per=[]
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="why.slowest": slow=o["rows"]
    if o.get("table")=="why.periods": per=o["rows"]
served=[int(l.split("=")[1]) for l in open(sys.argv[2]) if l.startswith("served_ns=")]
req=sorted(slow, key=lambda r: r["begin"])
bad=[(m, r["duration"]) for m, r in zip(served, req)
     if not m <= r["duration"] <= m + r["running"] + r["runq"] + 1e6]
if not per or per[0]["count"]!=4: print("periods: %s" % per)
elif len(served)!=4 or len(slow)!=4: print("served %s, slowest %s" % (served, slow))
elif bad: print("request: server measured, why: %s" % bad)
elif [r["duration"] for r in slow]!=sorted((r["duration"] for r in slow), reverse=True):
    print("slowest not first: %s" % [r["duration"] for r in slow])
elif req[3]["cause"]!="a timer or sleep" or req[3]["blocked"] < 50e6 or \
        req[3]["cause_pct"]*req[3]["duration"]/100 < 0.99*req[3]["blocked"]:
    print("cause: %s" % req[3])
else: print("ok")' $WORK/req.json $WORK/req.out)
[ "$r" = ok ] && pass why-per-request-as-served-slowest-first-50ms-one-its-sleep ||
	fail why-per-request-as-served-slowest-first-50ms-one-its-sleep "$r"

# --- live -------------------------------------------------------------------------
client $L 20 live || fail why-live-workload "$(head -3 $WORK/podman.err)"
$STROBE why -c $L -d 6 --json > $WORK/live.json 2> $WORK/live.err & sp=$!
SP=$sp
if tracing_on $sp; then
	serve 20 live sleep || fail why-live-workload "client: $(cat $ROOTFS/live.out)"
	wait $sp || fail why-live "exit $?: $(tail -3 $WORK/live.err)"
	SP=
	seed_check live $WORK/live.json "$(sed -n 's/^pid=//p' $WORK/live.srv)" \
		"$(blocked_ns $ROOTFS/live.out)"
else
	fail why-live "$(tail -3 $WORK/live.err)"
fi

# --- live, -- CMD -----------------------------------------------------------------
rm -f $WORK/c.rq $WORK/c.rp
mkfifo $WORK/c.rq $WORK/c.rp
$W serve $WORK/c.rq $WORK/c.rp 10 sleep 20 > $WORK/c.srv & cs=$!
timeout 60 $STROBE why --json -- sh -c "exec $W client $WORK/c.rq $WORK/c.rp 10 > $WORK/c.out" \
	> $WORK/cmd.json 2> $WORK/cmd.err || fail why-command "exit $?: $(tail -3 $WORK/cmd.err)"
kill $cs 2>/dev/null; wait $cs 2>/dev/null
seed_check command $WORK/cmd.json "$(sed -n 's/^pid=//p' $WORK/c.srv)" \
	"$(blocked_ns $WORK/c.out)"
grep -q "PID-filtered" $WORK/cmd.err && fail why-command-no-missing-wakers-note "$(cat $WORK/cmd.err)" ||
	pass why-command-no-missing-wakers-note

after=$(state)
[ "$before" = "$after" ] && ! ls $TRACEFS/instances | grep -q "^strobe-\($sp\)\$" &&
	pass why-tracefs-unchanged || fail why-tracefs-unchanged "$(diff <(echo "$before") <(echo "$after"))"
