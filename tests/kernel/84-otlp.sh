# 84-otlp.sh - strobe export --format otlp against a real HTTP receiver
# on loopback (tests/kernel/otlp_receiver.py: Python's http.server
# parsing OTLP/HTTP JSON).  The request example (req_server: requests of
# known durations, each with a nanosleep inside) recorded for real:
#   1. file: every request and sleep arrives once as a span with hex ids,
#      the sleep's parent the request's span in the request's trace,
#      Unix-ns times inside the recording's wall time and at least the
#      asked durations, process.pid/thread.id/process.executable.name of
#      the server, service.name/host.name and OTEL_RESOURCE_ATTRIBUTES on
#      the resource, OTEL_EXPORTER_OTLP_HEADERS sent; --min adds the
#      nanosleeps as system call spans;
#   2. a receiver that answers 503 (Retry-After: 1) twice then 200 gets
#      every span exactly once;
#   3. a dead endpoint: a clear error, non-zero exit, no hang; the spool
#      it keeps is delivered later with --spool, exactly once;
#   4. --traceparent-from: the server run from a path holding a W3C
#      traceparent, captured at its exec: its span joins that trace under
#      the application's span, and its requests follow in that trace;
#   5. live (-- CMD): the spans arrive from the capture;
#   6. live -c NAME: a container's slow system calls carry its
#      container.name and container.id.
. "$(dirname "$0")/lib.sh"
need_tracefs otlp
before=$(tracefs_state)
RECV=$ROOT/tests/kernel/otlp_receiver.py
SRV=$HELPERS/req_server
C=otlp-$$
RPID=
stop_recv() { [ -n "$RPID" ] && kill $RPID 2>/dev/null && wait $RPID 2>/dev/null; RPID=; }
trap 'stop_recv; podman rm -f $C >/dev/null 2>&1; rm -rf "$WORK"' EXIT

# start_recv NAME [ARGS]: a receiver writing $WORK/NAME.jsonl; sets PORT
start_recv() {
	local n=$1
	shift
	rm -f $WORK/$n.port $WORK/$n.jsonl
	python3 $RECV $WORK/$n.port $WORK/$n.jsonl "$@" &
	RPID=$!
	for _ in $(seq 100); do [ -s $WORK/$n.port ] && break; sleep 0.1; done
	PORT=$(cat $WORK/$n.port 2>/dev/null)
}

REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'
SLEEP='sleep(req) : $evt.$name == "syscall_entry_nanosleep" && $evt.tid == $parent.$begin.$evt.tid : $evt.$name == "syscall_exit_nanosleep" && $evt.tid == $begin.$evt.tid'
CAPS='req : fd = $evt.ret : closed = $evt.fd'
DURS=20,40,60,80
N=4

# spans JSONL: every span as one JSON line {span, resource attrs, request n, headers}
SPANS='
import json, sys
def spans(path):
    out = []
    for l in open(path):
        r = json.loads(l)
        for rs in r["body"]["resourceSpans"]:
            res = {a["key"]: list(a["value"].values())[0] for a in rs["resource"]["attributes"]}
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    s["attr"] = {a["key"]: list(a["value"].values())[0] for a in s.get("attributes", [])}
                    out.append((s, res, r["n"], r["headers"]))
    return out
'

# check_req JSONL SERVER-OUT T0 T1 WANT-SYSCALLS(0|1): N requests of the known
# durations with their sleeps inside; prints "ok" or what is wrong
check_req() {
	py "$SPANS"'
import re
path, out, t0, t1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
want_sys = int(sys.argv[5])
asked = [int(x) for x in sys.argv[6].split(",")]
info = dict(l.strip().split("=", 1) for l in open(out) if "=" in l and l.startswith("server_"))
sp = spans(path)
ids = [s["spanId"] for s, *_ in sp]
req = sorted([s for s, *_ in sp if s["name"] == "req"], key=lambda s: int(s["startTimeUnixNano"]))
slp = [s for s, *_ in sp if s["name"] == "req/sleep"]
sysc = [s for s, *_ in sp if s["name"] == "syscall nanosleep" and s["attr"].get("thread.id") == info["server_tid"]]
byid = {s["spanId"]: s for s in req}
bad = []
hexok = all(re.fullmatch("[0-9a-f]{32}", s["traceId"]) and re.fullmatch("[0-9a-f]{16}", s["spanId"]) for s, *_ in sp)
if not hexok: bad.append("ids not hex")
if len(set(ids)) != len(ids): bad.append("span ids repeat")
if len(req) != len(asked) or len(slp) != len(asked): bad.append("req %d sleep %d" % (len(req), len(slp)))
for s in req:
    d = int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"])
    if "parentSpanId" in s: bad.append("a req has a parent")
    if not (t0 <= int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"]) <= t1): bad.append("req time outside the recording %s" % s["startTimeUnixNano"])
    a = s["attr"]
    if a.get("process.pid") != info["server_pid"] or a.get("thread.id") != info["server_tid"] or a.get("process.executable.name") != "req_server":
        bad.append("req attrs %s" % a)
    if "strobe.capture.fd" not in a or a.get("strobe.period.status") != "closed": bad.append("req captures %s" % a)
for s, want in zip(req, asked):
    if int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"]) < want * 1000000: bad.append("req shorter than %d ms" % want)
for s in slp:
    p = byid.get(s.get("parentSpanId"))
    if not p or p["traceId"] != s["traceId"] or not (int(p["startTimeUnixNano"]) <= int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"]) <= int(p["endTimeUnixNano"])):
        bad.append("sleep not inside its parent span")
if len(set(s["traceId"] for s in req)) != len(req): bad.append("requests share a trace")
if want_sys and len(sysc) != len(asked): bad.append("syscall spans %d" % len(sysc))
print("ok" if not bad else "; ".join(bad[:5]))' "$@" $DURS
}

# --- 1. a recorded file --------------------------------------------------------
F=$WORK/req.dat
t0=$(date +%s%N)
if ! timeout 60 $STROBE record -o $F -e syscalls:sys_exit_accept4 -e syscalls:sys_enter_close \
	-e syscalls:sys_enter_nanosleep -e syscalls:sys_exit_nanosleep -- $SRV both $DURS \
	> $F.stdout 2> $F.stderr; then
	fail otlp-record "$(tail -3 $F.stderr)"
	exit 0
fi
t1=$(date +%s%N)
start_recv file
OTEL_EXPORTER_OTLP_HEADERS='x-tenant=a%20b,authorization=Bearer tok' \
OTEL_RESOURCE_ATTRIBUTES='deployment.environment=test,service.name=ignored' OTEL_SERVICE_NAME=reqsvc \
	timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT -i $F \
	--period "$REQ" --period "$SLEEP" --period-captures "$CAPS" --min 10ms > $WORK/e1.out 2> $WORK/e1.err
rc=$?
stop_recv
r=$(check_req $WORK/file.jsonl $F.stdout $t0 $t1 1)
[ $rc = 0 ] && [ "$r" = ok ] && pass otlp-file-request-spans-ids-parents-times-attributes ||
	fail otlp-file-request-spans-ids-parents-times-attributes "rc=$rc $r $(head -c 300 $WORK/e1.err)"
r=$(py "$SPANS"'
sp = spans(sys.argv[1])
res = sp[0][1]; h = sp[0][3]
ok = res.get("service.name") == "reqsvc" and res.get("host.name") and res.get("deployment.environment") == "test" \
     and h.get("x-tenant") == "a b" and h.get("authorization") == "Bearer tok" and h.get("Content-Type") == "application/json"
print("ok" if ok else "resource %s headers %s" % (res, h))' $WORK/file.jsonl)
[ "$r" = ok ] && pass otlp-resource-and-headers-from-the-environment ||
	fail otlp-resource-and-headers-from-the-environment "$r"
grep -q "delivered to http://127.0.0.1:$PORT/v1/traces" $WORK/e1.err &&
	pass otlp-summary-says-what-was-delivered ||
	fail otlp-summary-says-what-was-delivered "$(cat $WORK/e1.err | head -c 300)"

# --- 2. 503 twice, then 200 ---------------------------------------------------------
start_recv busy --fail 2 --retry-after 1
timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT -i $F \
	--period "$REQ" --period "$SLEEP" --batch-spans 3 > $WORK/e2.out 2> $WORK/e2.err
rc=$?
stop_recv
r=$(py "$SPANS"'
sp = spans(sys.argv[1])
ids = [s["spanId"] for s, *_ in sp]
ns = sorted(set(n for _, _, n, _ in sp))
print("ok" if len(ids) == 2 * int(sys.argv[2]) and len(set(ids)) == len(ids) and ns[0] == 3 else "spans %d unique %d requests %s" % (len(ids), len(set(ids)), ns))' $WORK/busy.jsonl $N)
[ $rc = 0 ] && [ "$r" = ok ] && pass otlp-503-twice-then-200-every-span-exactly-once ||
	fail otlp-503-twice-then-200-every-span-exactly-once "rc=$rc $r $(head -c 300 $WORK/e2.err)"

# --- 3. a dead endpoint ------------------------------------------------------------------
dead=$(py 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
SP=$WORK/otlp.spool
s0=$(date +%s)
timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$dead -i $F \
	--period "$REQ" --period "$SLEEP" --timeout 2 > $WORK/e3.out 2> $WORK/e3.err
rc=$?
el=$(( $(date +%s) - s0 ))
spool=$(sed -n "s/.*kept in spool '\([^']*\)'.*/\1/p" $WORK/e3.err)
if [ $rc = 1 ] && [ $el -lt 30 ] && grep -q "strobe export: otlp: $((2 * N)) spans not delivered" $WORK/e3.err &&
	grep -qi "connect" $WORK/e3.err && [ -f "$spool" ]; then
	pass otlp-dead-endpoint-clear-error-non-zero-no-hang
else
	fail otlp-dead-endpoint-clear-error-non-zero-no-hang "rc=$rc ${el}s $(head -c 300 $WORK/e3.err)"
fi
start_recv later
timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT --spool "$spool" \
	> $WORK/e4.out 2> $WORK/e4.err
rc=$?
stop_recv
r=$(py "$SPANS"'
sp = spans(sys.argv[1]); ids = [s["spanId"] for s, *_ in sp]
print("ok" if len(ids) == 2 * int(sys.argv[2]) and len(set(ids)) == len(ids) else "spans %d" % len(ids))' $WORK/later.jsonl $N)
[ $rc = 0 ] && [ "$r" = ok ] && [ ! -e "$spool" ] && pass otlp-kept-spool-delivered-later-exactly-once ||
	fail otlp-kept-spool-delivered-later-exactly-once "rc=$rc $r $(head -c 300 $WORK/e4.err)"
rm -f "$spool"

# --- 4. joining an application's trace ---------------------------------------------------
TP_TRACE=4bf92f3577b34da6a3ce929d0e0e4736
TP_SPAN=00f067aa0ba902b7
TPD=$WORK/00-$TP_TRACE-$TP_SPAN-01
mkdir -p $TPD && cp $SRV $TPD/
APP='app : $evt.$name == "sched_process_exec" : $evt.$name == "sched_process_exit" && $evt.pid == $begin.$evt.pid'
AREQ='req(app) : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'
F2=$WORK/tp.dat
if timeout 60 $STROBE record -o $F2 -e sched:sched_process_exec -e sched:sched_process_exit \
	-e syscalls:sys_exit_accept4 -e syscalls:sys_enter_close -- $TPD/req_server both 20,30 \
	> $F2.stdout 2> $F2.stderr; then
	start_recv tp
	timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT -i $F2 \
		--period "$APP" --period "$AREQ" --period-captures 'app : tp = $evt.filename' \
		--traceparent-from tp > $WORK/e5.out 2> $WORK/e5.err
	rc=$?
	stop_recv
	r=$(py "$SPANS"'
sp = [s for s, *_ in spans(sys.argv[1])]
app = [s for s in sp if s["name"] == "app"]
req = [s for s in sp if s["name"] == "app/req"]
ok = len(app) == 1 and len(req) == 2 and app[0]["traceId"] == sys.argv[2] and app[0].get("parentSpanId") == sys.argv[3] \
     and all(s["traceId"] == sys.argv[2] and s.get("parentSpanId") == app[0]["spanId"] for s in req)
print("ok" if ok else "app %s req %s" % ([(s["traceId"], s.get("parentSpanId")) for s in app], [(s["traceId"], s.get("parentSpanId")) for s in req]))' \
		$WORK/tp.jsonl $TP_TRACE $TP_SPAN)
	[ $rc = 0 ] && [ "$r" = ok ] && grep -q "3 in an application's trace" $WORK/e5.err &&
		pass otlp-traceparent-capture-joins-the-applications-trace ||
		fail otlp-traceparent-capture-joins-the-applications-trace "rc=$rc $r $(head -c 300 $WORK/e5.err)"
else
	fail otlp-traceparent-record "$(tail -3 $F2.stderr)"
fi

# --- 5. live -- CMD ------------------------------------------------------------------------
start_recv live
t0=$(date +%s%N)
timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT \
	-e syscalls:sys_exit_accept4 -e syscalls:sys_enter_close -e syscalls:sys_enter_nanosleep \
	-e syscalls:sys_exit_nanosleep --period "$REQ" --period "$SLEEP" --period-captures "$CAPS" \
	-- $SRV both $DURS > $WORK/e6.out 2> $WORK/e6.err
rc=$?
t1=$(date +%s%N)
stop_recv
r=$(check_req $WORK/live.jsonl $WORK/e6.out $t0 $t1 0)
[ $rc = 0 ] && [ "$r" = ok ] && pass otlp-live-command-spans-as-periods-end ||
	fail otlp-live-command-spans-as-periods-end "rc=$rc $r $(head -c 300 $WORK/e6.err)"

# --- 6. live -c NAME: container attributes --------------------------------------------
if command -v podman >/dev/null && [ -x /usr/sbin/runc ] && command -v busybox >/dev/null; then
	make_rootfs
	if run_ct -d $C 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.3; done'; then
		start_recv ct
		timeout 60 $STROBE export --format otlp --endpoint http://127.0.0.1:$PORT -c $C -d 2 \
			--min 200ms -e syscalls:sys_enter_nanosleep -e syscalls:sys_exit_nanosleep \
			-e syscalls:sys_enter_clock_nanosleep -e syscalls:sys_exit_clock_nanosleep \
			> $WORK/e7.out 2> $WORK/e7.err
		rc=$?
		stop_recv
		cid=$(podman inspect --format '{{.Id}}' $C 2>/dev/null)
		podman rm -f $C >/dev/null 2>&1
		r=$(py "$SPANS"'
sp = [s for s, *_ in spans(sys.argv[1]) if s["name"].startswith("syscall ")]
mine = [s for s in sp if s["attr"].get("container.name") == sys.argv[2] and s["attr"].get("container.id") == sys.argv[3]]
print("ok" if len(mine) >= 3 and len(mine) == len(sp) else "spans %d, of the container %d: %s" % (len(sp), len(mine), [s["attr"] for s in sp[:2]]))' \
			$WORK/ct.jsonl $C "$cid")
		[ $rc = 0 ] && [ "$r" = ok ] && pass otlp-live-container-spans-carry-container-attributes ||
			fail otlp-live-container-spans-carry-container-attributes "rc=$rc $r $(head -c 300 $WORK/e7.err)"
	else
		skip otlp-live-container "cannot run a container: $(head -1 $WORK/podman.err)"
	fi
else
	skip otlp-live-container "podman, runc or busybox-static not installed"
fi

# --- usage errors ------------------------------------------------------------------------
$STROBE export --format otlp -i $F > /dev/null 2> $WORK/u.err; rc=$?
[ $rc = 2 ] && grep -q "nothing to send" $WORK/u.err && pass otlp-nothing-to-send-is-a-usage-error ||
	fail otlp-nothing-to-send-is-a-usage-error "rc=$rc $(cat $WORK/u.err)"
$STROBE export --format otlp --endpoint ftp://x --period "$REQ" -i $F > /dev/null 2> $WORK/u2.err; rc=$?
[ $rc = 2 ] && grep -q "not an http(s) URL" $WORK/u2.err && pass otlp-bad-endpoint-is-a-usage-error ||
	fail otlp-bad-endpoint-is-a-usage-error "rc=$rc $(cat $WORK/u2.err)"

after=$(tracefs_state)
[ "$before" = "$after" ] && pass otlp-tracefs-left-as-found ||
	fail otlp-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
