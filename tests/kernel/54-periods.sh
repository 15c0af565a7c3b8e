# 54-periods.sh - the talk's request example on real recordings: a TCP
# server (req_server: accept4, read a duration, nanosleep it, reply, close)
# serves requests of known durations, and `strobe periods` with the talk's
# expression (accept4 returning an fd, to close of that fd in the same
# thread) must find exactly that many requests, each within 10% of its
# duration, with the server's nanosleep as a child period inside each:
#   - recorded with the syscalls:* events the expressions name;
#   - recorded with raw_syscalls only (LTTng names and argument names on
#     raw_syscalls records);
#   - the same in one pass with syscalls (strobe analyze -a periods,syscalls),
#     and --lami output that parses with every log row;
#   - the server in a real podman container, grouped by container;
# and tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs periods
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
SRV=$HELPERS/req_server
DURS=20,40,60,80,100,30,10,50		# milliseconds
N=8

REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'
SLEEP='sleep(req) : $evt.$name == "syscall_entry_nanosleep" && $evt.tid == $parent.$begin.$evt.tid : $evt.$name == "syscall_exit_nanosleep" && $evt.tid == $begin.$evt.tid'
CAPS='req : fd = $evt.ret : closed = $evt.fd'

# check JSON LABEL TID|CONTAINER CLIENT-OUTPUT: N requests of the known
# durations, each with its sleep inside (at least as long as asked, no
# longer than its request); prints "ok" or what is wrong.  A
# request lasts at least the sleep it asked for, and about no more than
# the client's round trip (the server closes just after the reply).
# strobe's duration must be at least the known duration and within 10% of
# what the server measured itself from accept4's return to just before its
# close (served_ns=), which holds what a loaded machine adds (a sleep that
# overruns, a preemption between the reply and the close), or within 4 ms
# (a time slice or so: the server can be preempted between the tracepoint
# and its own clock read, outside what it measures; the durations asked
# differ by 10 ms or more, so a request paired with another's close still
# fails); the client's
# round trip is the measure only for a server that does not print it.
check() {
	py 'import sys,json
asked=[int(x) for x in sys.argv[2].split(",")]; who=sys.argv[3]
rtt=[int(l.split("=")[1]) for l in open(sys.argv[4]) if l.startswith("rtt_ns=")]
want=[r/1e6 if r>1.1*a*1e6 else a for a,r in zip(asked,rtt)]
served=[int(l.split("=")[1]) for l in open(sys.argv[4]) if l.startswith("served_ns=")]
req=[]; slp=[]; other=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")!="periods.log": continue
    if who not in (str(o["tid"]), o["container"]): continue
    if o["status"]!="closed": other+=1
    elif o["name"]=="req": req.append(o)
    elif o["name"]=="req/sleep": slp.append(o)
req.sort(key=lambda o:o["begin"])
got=[o["duration"] for o in req]
if len(served)==len(asked):
    bad=[(a,m,g) for a,m,g in zip(asked,served,got) if g<a*1e6 or abs(g-m)>max(0.1*m,4e6)]
else:
    bad=[(a,w,g) for a,w,g in zip(asked,want,got) if g<a*1e6 or g>1.1*w*1e6]
ids={o["id"]:o for o in req}
asked_of={o["id"]:a for a,o in zip(asked,req)}
nest=0
for s in slp:
    p=ids.get(s["parent_id"])
    # inside its request, and at least the sleep asked (nanosleep never
    # returns early): not within 10% of the request, which a loaded
    # machine breaks for a 10 ms one (1.7 ms around the sleep, seen)
    nest+=p is not None and p["begin"]<=s["begin"] and s["end"]<=p["end"] and p["tid"]==s["tid"] \
        and asked_of[p["id"]]*1e6<=s["duration"]<=p["duration"]
caps=sum(o["begin_captures"]=="fd = %d"%int(o["end_captures"].split("= ")[1]) for o in req)
if len(rtt)!=len(asked): print("client round trips: %d of %d" % (len(rtt),len(asked)))
elif len(req)==len(want) and not bad and nest==len(want) and len(slp)==len(want) and caps==len(want) and not other:
    print("ok")
else:
    print("requests %d (want %d) off by >10%%: %s; sleeps %d nested %d; captures %d; not closed %d; durations %s"
          % (len(req),len(want),bad,len(slp),nest,caps,other,got))' "$1" $DURS "$3" "$4"
}

# --- syscalls:* events ------------------------------------------------------
F=$WORK/req.dat
if timeout 60 $STROBE record -o $F -e syscalls:sys_exit_accept4 -e syscalls:sys_enter_close \
	-e syscalls:sys_enter_nanosleep -e syscalls:sys_exit_nanosleep -- $SRV both $DURS \
	> $F.stdout 2> $F.stderr; then
	tid=$(sed -n 's/^server_tid=//p' $F.stdout)
	timeout 60 $STROBE periods -i $F --period "$REQ" --period "$SLEEP" --period-captures "$CAPS" \
		--log --stats --json > $WORK/p.json 2> $WORK/p.err
	r=$(check $WORK/p.json syscalls "$tid" $F.stdout)
	[ "$r" = ok ] && pass periods-talk-expression-finds-N-requests-of-known-durations-with-nested-sleeps ||
		fail periods-talk-expression-finds-N-requests-of-known-durations-with-nested-sleeps "$r $(head -c 300 $WORK/p.err)"
	r=$(py 'import sys,json
st={}; br={}
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="periods.stats": st={r["name"]:r for r in o["rows"]}
    if o.get("table")=="periods.breakdown": br={r["child"]:r for r in o["rows"]}
q=st.get("req",{}); s=st.get("req/sleep",{})
ok=q.get("count")==int(sys.argv[2]) and s.get("count")==int(sys.argv[2]) and \
   q.get("children")==s.get("total") and q.get("self")==q.get("total",0)-s.get("total",0) and \
   br.get("req/sleep",{}).get("total")==s.get("total") and br.get("(self)",{}).get("total")==q.get("self")
print("ok" if ok else "stats %s breakdown %s" % (st, br))' $WORK/p.json $N)
	[ "$r" = ok ] && pass periods-stats-and-breakdown-add-up || fail periods-stats-and-breakdown-add-up "$r"
	# the text view follows lttng's layout: a title, a header, one line a period
	timeout 60 $STROBE periods -i $F --period "$REQ" --stats > $WORK/p.txt 2>&1
	grep -q '^Period statistics' $WORK/p.txt && grep -q "^req  *$N " $WORK/p.txt &&
		pass periods-text-stats || fail periods-text-stats "$(head -5 $WORK/p.txt)"
	timeout 60 $STROBE analyze -a periods,syscalls -i $F --period "$REQ" --period "$SLEEP" \
		--period-captures "$CAPS" --log --stats --json > $WORK/a.json 2> $WORK/a.err
	r=$(check $WORK/a.json syscalls "$tid" $F.stdout)
	n=$(py 'import sys,json
n=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="syscalls.stats":
        n+=sum(r["count"] for r in o["rows"] if r["syscall"]=="nanosleep" and r["tid"]==int(sys.argv[2]))
print(n)' $WORK/a.json "$tid")
	[ "$r" = ok ] && [ "$n" = $N ] && pass periods-in-one-pass-with-syscalls ||
		fail periods-in-one-pass-with-syscalls "$r; nanosleeps $n"
	timeout 60 $STROBE periods -i $F --period "$REQ" --period "$SLEEP" --log --stats --freq \
		--lami > $WORK/p.lami 2> $WORK/l.err
	timeout 10 $STROBE periods --period "$REQ" --log --stats --freq --metadata > $WORK/p.meta
	r=$(py 'import sys,json
m=json.load(open(sys.argv[2]))["table-classes"]; n=0
for t in json.load(open(sys.argv[1]))["results"]:
    c=t["class"]; c=c["inherit"] if isinstance(c,dict) else c
    cols=m[c]["column-descriptions"]
    for row in t["data"]:
        assert len(row)==len(cols) and all(x["class"]==y["class"] for x,y in zip(row,cols))
    if c=="periods.log": n+=len(t["data"])
print(n)' $WORK/p.lami $WORK/p.meta 2>&1 | tail -1)
	[ "$r" = $((2 * N)) ] && pass periods-lami-validates-with-every-log-row ||
		fail periods-lami-validates-with-every-log-row "got '$r'"
else
	fail periods-record-syscalls "$(tail -3 $F.stderr)"
fi

# --- raw_syscalls only --------------------------------------------------------
F=$WORK/raw.dat
if timeout 60 $STROBE record -o $F -e raw_syscalls -- $SRV both $DURS > $F.stdout 2> $F.stderr; then
	tid=$(sed -n 's/^server_tid=//p' $F.stdout)
	timeout 60 $STROBE periods -i $F --period "$REQ" --period "$SLEEP" --period-captures "$CAPS" \
		--log --json > $WORK/r.json 2> $WORK/r.err
	r=$(check $WORK/r.json raw "$tid" $F.stdout)
	[ "$r" = ok ] && pass periods-talk-expression-on-raw-syscalls ||
		fail periods-talk-expression-on-raw-syscalls "$r $(head -c 300 $WORK/r.err)"
else
	fail periods-record-raw-syscalls "$(tail -3 $F.stderr)"
fi

# --- the server in a real container -------------------------------------------
ct_test() {
	local C=per-$$ F=$WORK/ct.dat sp i r
	if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
		skip periods-container "podman, runc or busybox-static not installed"
		return
	fi
	make_rootfs
	cp $SRV $ROOTFS/bin/
	if ! run_ct -d $C "while [ ! -e /go ]; do sleep 0.02; done; req_server both $DURS > /out; echo > /done"; then
		skip periods-container "cannot run a container: $(head -1 $WORK/podman.err)"
		return
	fi
	$STROBE record -o $F -d 30 -e syscalls:sys_exit_accept4 -e syscalls:sys_enter_close \
		-e syscalls:sys_enter_nanosleep -e syscalls:sys_exit_nanosleep > $F.stdout 2> $F.stderr & sp=$!
	tracing_started $sp
	touch $ROOTFS/go
	for i in $(seq 250); do [ -e $ROOTFS/done ] && break; sleep 0.1; done
	sleep 0.1
	kill -INT $sp 2>/dev/null
	wait $sp
	$PODMAN rm -f $C >/dev/null 2>&1
	if [ ! -e $ROOTFS/done ]; then
		fail periods-container "the container did not finish: $(cat $WORK/podman.err)"
		return
	fi
	timeout 60 $STROBE periods -i $F --period "$REQ" --period "$SLEEP" --period-captures "$CAPS" \
		--log --stats --group-by container --json > $WORK/c.json 2> $WORK/c.err
	r=$(check $WORK/c.json container "$C" $ROOTFS/out)
	[ "$r" = ok ] && pass periods-container-requests-under-the-containers-name ||
		fail periods-container-requests-under-the-containers-name "$r $(head -c 300 $WORK/c.err)"
	r=$(py 'import sys,json
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("table")=="periods.stats":
        print(" ".join("%s:%s:%d" % (r["name"],r["container"],r["count"]) for r in o["rows"] if r["container"]==sys.argv[2]))' \
		$WORK/c.json $C)
	[ "$r" = "req:$C:$N req/sleep:$C:$N" ] && pass periods-container-group-by-container ||
		fail periods-container-group-by-container "got '$r'"
}
ct_test

after=$(state)
[ "$before" = "$after" ] && pass periods-tracefs-left-as-found ||
	fail periods-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after"))"
