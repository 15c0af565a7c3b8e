#!/bin/bash
# 77-top-metrics.sh - `strobe top --metrics` on a real podman container
# (a one-thread spinner), scraped by a real Prometheus (Debian's, on
# loopback, its own config, data folder and free ports, 1 s scrapes):
#   - promtool check metrics accepts what strobe top serves;
#   - rate(strobe_container_cpu_seconds_total{container="NAME"}[5s]) from
#     Prometheus' query API is between 0.8 and 1.2 for the spinner (or,
#     when a busy machine gave the spinner less than 85% of a core by its
#     schedstat, within 0.1 of what the kernel counted);
#   - the run-queue latency histogram's _count for the host's tasks (the
#     spinner is never woken) equals
#     `strobe schedlat` on the trace of the same run (-o) up to the end of
#     the interval the scrape showed (strobe_events_total says which),
#     within that interval's wake-ups;
#   - --quiet serves metrics and prints nothing;
# and tracefs is left as it was found.  Prometheus and the container are
# stopped on every exit path.
. "$(dirname "$0")/lib.sh"
need_tracefs top-metrics
for tool in podman promtool prometheus curl busybox; do
	if ! command -v $tool >/dev/null; then
		skip top-metrics "$tool is not installed (scripts/install-deps installs it)"
		exit 0
	fi
done
[ -x /usr/sbin/runc ] || { skip top-metrics "runc is not installed"; exit 0; }
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
B=topm-busy-$$
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	$PODMAN rm -f -t 0 $B probe-$$ >/dev/null 2>&1
	[ -n "$KEEP" ] || rm -rf "$WORK"
}
trap cleanup EXIT
KEEP=${KEEP:-}
free_port() { py 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip top-metrics "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi
run_ct -d $B 'while :; do :; done' || { fail top-metrics-container-start "$(cat $WORK/podman.err)"; exit 0; }
bpid=$($PODMAN inspect --format '{{.State.Pid}}' $B 2>/dev/null)

SP=$(free_port) PP=$(free_port)
mkdir -p $WORK/tsdb
cat > $WORK/prometheus.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: strobe
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
prometheus --config.file=$WORK/prometheus.yml --storage.tsdb.path=$WORK/tsdb \
	--web.listen-address=127.0.0.1:$PP > $WORK/prometheus.log 2>&1 &
PIDS+=($!)

ns0=$(cut -d' ' -f1 /proc/$bpid/schedstat 2>/dev/null); t0=$(date +%s%N)
# refreshes every 0.5 s: a 5 s rate over 1 s scrapes then sees about ten
# updates, not five (with five, one update more or less in the window is
# 20% of the rate)
timeout 90 $STROBE top --batch --json -n 24 --interval 0.5 --group-by container \
	--metrics 127.0.0.1:$SP -o $WORK/m.dat > $WORK/top.json 2> $WORK/top.err &
TP=$!
PIDS+=($TP)
# keep the latest exposition while top runs
: > $WORK/last.txt
while kill -0 $TP 2>/dev/null; do
	curl -s --max-time 1 http://127.0.0.1:$SP/metrics > $WORK/cur.txt 2>/dev/null &&
		grep -q '^strobe_events_total' $WORK/cur.txt && cp $WORK/cur.txt $WORK/last.txt
	[ -s $WORK/first.txt ] || cp $WORK/last.txt $WORK/first.txt 2>/dev/null
	# Prometheus' rate over the last 5 s, while the series is fresh
	if [ ! -s $WORK/rate.json ] && [ $(( $(date +%s%N) - t0 )) -gt 10000000000 ]; then
		curl -s --max-time 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode \
			"query=rate(strobe_container_cpu_seconds_total{container=\"$B\"}[5s])" > $WORK/rate.json
		ns1=$(cut -d' ' -f1 /proc/$bpid/schedstat 2>/dev/null); t1=$(date +%s%N)
		# no value yet (a slow start: fewer than two scrapes in the
		# window): ask again while top runs
		grep -q '"result":\[{' $WORK/rate.json || rm -f $WORK/rate.json
	fi
	sleep 0.1
done
wait $TP
rc=$?
[ $rc = 0 ] && [ "$(wc -l < $WORK/top.json)" = 24 ] && pass top-metrics-run-24-refreshes ||
	fail top-metrics-run-24-refreshes "rc $rc, $(wc -l < $WORK/top.json) lines: $(head -c 300 $WORK/top.err)"

promtool check metrics < $WORK/last.txt > $WORK/promtool.out 2>&1 &&
	pass top-metrics-promtool-accepts-the-exposition ||
	fail top-metrics-promtool-accepts-the-exposition "$(head -5 $WORK/promtool.out)"

rate=$(py 'import json,sys
try:
    r=json.load(open(sys.argv[1]))["data"]["result"]; print(r[0]["value"][1] if len(r)==1 else "none")
except Exception as e: print("none")' $WORK/rate.json)
kshare=$(py 'import sys; a,b,c,d=map(int,sys.argv[1:]); print("%.3f" % ((b-a)/(d-c)))' \
	"${ns0:-0}" "${ns1:-0}" "$t0" "${t1:-1}")
echo "  rate(strobe_container_cpu_seconds_total{container=\"$B\"}[5s]) = $rate (kernel: $kshare)"
py 'import sys
r=sys.argv[1]; k=float(sys.argv[2])
if r=="none": sys.exit(1)
r=float(r)
sys.exit(not ((0.8<=r<=1.2) if k>=0.85 else abs(r-k)<=0.1))' "$rate" "$kshare" &&
	pass top-metrics-prometheus-rate-of-the-spinner-one-core ||
	fail top-metrics-prometheus-rate-of-the-spinner-one-core "rate '$rate', kernel $kshare: $(head -c 300 $WORK/rate.json)"

# the histogram's count against schedlat up to the interval the last
# exposition showed (its strobe_events_total is the sum of the refreshes'
# events up to that one)
set -- $(py 'import json,sys,re
docs=[json.loads(l) for l in open(sys.argv[1])]
text=open(sys.argv[2]).read()
ev=int(float(re.search(r"^strobe_events_total (\S+)", text, re.M).group(1)))
m=re.search(r"^strobe_container_runqueue_latency_seconds_count\{container=\"%s\"[^}]*\} (\S+)" % re.escape(sys.argv[3]), text, re.M)
cnt=int(float(m.group(1))) if m else -1
s=0
for d in docs:
    s+=d["events"]
    if s==ev:
        print("%d.%09d %d" % (d["end"]//10**9, d["end"]%10**9, cnt)); break
else:
    # after the last refresh: the last, partial interval of the run (not
    # shown after -n N, counted in the metrics) ends at the end of the file
    print("end" if ev > s else "none", cnt if ev > s else ev)' $WORK/top.json $WORK/last.txt host)
if [ "$1" != none ] && [ $# = 2 ]; then
	end=$1 cnt=$2
	endopt="--end $end"
	[ "$end" = end ] && endopt=
	n=$(timeout 60 $STROBE schedlat -i $WORK/m.dat $endopt --group-by container --json --stats \
		--top 0 2>/dev/null | py 'import sys,json
n=0
for l in sys.stdin:
    o=json.loads(l)
    if o.get("table")=="schedlat.stats":
        n+=sum(r["count"] for r in o["rows"] if r["container"]==sys.argv[1])
print(n)' host)
	echo "  run-queue latency count of host: metrics $cnt, strobe schedlat ${endopt:-(whole file)}: $n"
	# wake-ups that straddle the interval's end differ: a few of the
	# host's thousands
	[ "$cnt" -ge 0 ] && py 'import sys; a,b=map(int,sys.argv[1:3]); sys.exit(a<=0 or abs(a-b)>max(5,a//50))' \
		"$cnt" "${n:-0}" && pass top-metrics-runqueue-count-equals-schedlat-on-the-file ||
		fail top-metrics-runqueue-count-equals-schedlat-on-the-file "metrics $cnt, schedlat '$n' (--end $end)"
else
	fail top-metrics-runqueue-count-equals-schedlat-on-the-file "no interval matches the last exposition: $*"
fi

# --quiet: metrics only
QP=$(free_port)
# (polled while top runs: its start-up takes seconds on a loaded host)
timeout 60 $STROBE top -n 8 --interval 0.5 --metrics 127.0.0.1:$QP --quiet \
	> $WORK/quiet.out 2> $WORK/quiet.err &
QT=$!
PIDS+=($QT)
got=
while kill -0 $QT 2>/dev/null; do
	curl -s --max-time 1 http://127.0.0.1:$QP/metrics 2>/dev/null | grep -q "container=\"$B\"" && { got=1; break; }
	sleep 0.1
done
wait $QT
rc=$?
[ $rc = 0 ] && [ -n "$got" ] && [ ! -s $WORK/quiet.out ] && pass top-metrics-quiet-serves-and-prints-nothing ||
	fail top-metrics-quiet-serves-and-prints-nothing "rc $rc got '$got' out $(head -c 200 $WORK/quiet.out)"

$PODMAN rm -f -t 0 $B >/dev/null 2>&1
after=$(state)
[ "$before" = "$after" ] && pass top-metrics-tracefs-left-as-found ||
	fail top-metrics-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
