#!/bin/bash
# 11-metrics.sh - the Prometheus endpoint (lib/metrics/) served by
# build/live/metrics_serve (a registry fed with synthetic strobe top
# intervals; no tracing, no root), checked with real clients:
#   - promtool check metrics accepts the exposition; its Content-Type is
#     the 0.0.4 text format; HEAD has no body; / links /metrics; 404, 405
#     and 400 (no Host header) where due;
#   - counters grow between scrapes; a container gone for keep (2 s)
#     leaves the exposition;
#   - beyond loopback without a web config: refused, with the reason;
#   - basic authentication with a bcrypt hash made by htpasswd -B: no or
#     wrong credentials give 401, the right ones 200;
#   - TLS with a self-signed certificate made by openssl, beyond loopback
#     (0.0.0.0), with authentication: curl verifies it and gets 200; plain
#     HTTP to it gets no metrics;
#   - slow clients holding every connection slot of their address: the
#     server closes them after its timeout, serves again, and the updates
#     never waited for them (worst update time);
#   - a real Prometheus (Debian's) on loopback, own config, data folder
#     and free ports, 1 s scrapes of two targets (plain, and TLS with
#     basic auth): its HTTP API returns the series, and
#     rate(strobe_container_cpu_seconds_total{container="busy"}[5s]) is
#     between 0.8 and 1.2 (the synthetic busy container runs one core).
# Every server and Prometheus started here is stopped on every exit path.
. "$(dirname "$0")/lib.sh"
MS=$ROOT/build/live/metrics_serve
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$D"
}
trap cleanup EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }

if [ ! -x "$MS" ]; then
	echo "SKIP metrics: $MS is not built (make check builds it)"
	exit 0
fi
for tool in curl promtool prometheus openssl htpasswd; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP metrics: $tool is missing (scripts/install-deps installs it)"
		exit 0
	fi
done

# serve NAME ARGS...: start metrics_serve, wait for its port in $NAME_port
serve() {
	local name=$1 i
	shift
	rm -f "$D/$name.port"
	"$MS" "$@" -f "$D/$name.port" 2> "$D/$name.err" &
	PIDS+=($!)
	eval "${name}_pid=$!"
	for i in $(seq 100); do
		[ -s "$D/$name.port" ] && break
		kill -0 $! 2>/dev/null || break
		sleep 0.05
	done
	eval "${name}_port=$(cat "$D/$name.port" 2>/dev/null)"
}
# stop NAME: SIGTERM, wait; its exit status in $rc
stop() {
	local pid
	eval "pid=\$${1}_pid"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
}
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
metric() {	# metric TEXTFILE SERIES: its value
	awk -v s="$2" 'index($0, s " ") == 1 { print $2 }' "$1"
}

serve plain :0 -t 2
P=$plain_port
if [ -z "$P" ]; then
	fail metrics-serve "no port: $(cat "$D/plain.err")"
	exit 0
fi
URL=http://127.0.0.1:$P
sleep 0.5
curl -s -D "$D/h" -o "$D/m1" $URL/metrics
check metrics-content-type "grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' '$D/h'" \
	"$(cat "$D/h")"
if promtool check metrics < "$D/m1" > "$D/promtool" 2>&1; then pass metrics-promtool-check
else fail metrics-promtool-check "$(head -5 "$D/promtool")"; fi
check metrics-every-family-has-help-and-type \
	"[ \$(grep -c '^# HELP ' '$D/m1') -eq \$(grep -c '^# TYPE ' '$D/m1') ] && [ \$(grep -c '^# TYPE ' '$D/m1') -ge 15 ]"
check metrics-build-info "grep -qx 'strobe_build_info{version=\"[0-9.]*\"} 1' '$D/m1'"
check metrics-labels-always-three \
	"grep -q '^strobe_container_cpu_seconds_total{container=\"idle\",pod=\"web-1\",namespace=\"shop\"} ' '$D/m1' && grep -q '^strobe_container_cpu_seconds_total{container=\"busy\",pod=\"\",namespace=\"\"} ' '$D/m1'"
check metrics-histogram-inf-equals-count \
	"[ \"\$(metric '$D/m1' 'strobe_container_runqueue_latency_seconds_bucket{container=\"busy\",pod=\"\",namespace=\"\",le=\"+Inf\"}')\" = \"\$(metric '$D/m1' 'strobe_container_runqueue_latency_seconds_count{container=\"busy\",pod=\"\",namespace=\"\"}')\" ]"
raw() {	# raw REQUEST: what the server answers (a connection of its own)
	timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$P; printf '$1' >&3; cat <&3"
}
raw 'HEAD /metrics HTTP/1.0\r\n\r\n' > "$D/head"
check metrics-head-has-no-body "head -1 '$D/head' | grep -q '^HTTP/1.[01] 200' && ! grep -q '# HELP' '$D/head'" \
	"$(head -3 "$D/head")"
check metrics-index-links "curl -s $URL/ | grep -q 'href=\"/metrics\"'"
check metrics-404 "[ \$(code $URL/nope) = 404 ]"
check metrics-405 "[ \$(code -X POST -d x $URL/metrics) = 405 ] && [ \$(code -X DELETE $URL/metrics) = 405 ]" 
check metrics-405-allow "curl -s -D - -o /dev/null -X PUT $URL/metrics | grep -qi '^Allow: GET, HEAD'"
check metrics-400-no-host "[ \$(code -H 'Host:' $URL/metrics) = 400 ]"

# counters grow; the gone container leaves after keep (2 s)
sleep 2.5
curl -s -o "$D/m2" $URL/metrics
a=$(metric "$D/m1" 'strobe_container_cpu_seconds_total{container="busy",pod="",namespace=""}')
b=$(metric "$D/m2" 'strobe_container_cpu_seconds_total{container="busy",pod="",namespace=""}')
check metrics-counter-grows "awk -v a='$a' -v b='$b' 'BEGIN { exit !(b > a + 2) }'" "$a then $b"
check metrics-gone-container-expires "grep -q 'container=\"gone\"' '$D/m1' && ! grep -q 'container=\"gone\"' '$D/m2'"
check metrics-scrape-duration "grep -q '^strobe_scrape_duration_seconds 0\\.0' '$D/m2'"

# slow clients: hold the 4 connections one address may have, sending
# half a request; the server closes them after 2 s and serves again
exec 5<>/dev/tcp/127.0.0.1/$P 6<>/dev/tcp/127.0.0.1/$P 7<>/dev/tcp/127.0.0.1/$P 8<>/dev/tcp/127.0.0.1/$P
for fd in 5 6 7 8; do printf 'GET /metr' >&$fd; done
sleep 0.3
blocked=$(code --max-time 2 $URL/metrics)
sleep 2.5
after=$(code --max-time 5 $URL/metrics)
exec 5>&- 6>&- 7>&- 8>&-
check metrics-per-ip-limit "[ '$blocked' = 000 ]" "a fifth connection got $blocked"
check metrics-slow-clients-timed-out "[ '$after' = 200 ]" "after the timeout: $after"
stop plain
check metrics-stops-clean "[ $rc = 0 ]" "exit $rc: $(cat "$D/plain.err")"
w=$(sed -n 's/.*worst_update_us=\([0-9]*\).*/\1/p' "$D/plain.err")
check metrics-updates-never-waited "[ -n '$w' ] && [ '$w' -lt 100000 ]" "worst update $w us"
echo "  $(cat "$D/plain.err")"

# beyond loopback: refused without TLS, authentication or -k
t metrics-refuses-beyond-loopback 1 "beyond loopback" "$MS" 0.0.0.0:0
t metrics-bad-address 1 "bad port" "$MS" 127.0.0.1:http

# basic authentication (bcrypt, as htpasswd -B writes it)
hash=$(htpasswd -nbBC 10 alice 's3cret pass' | cut -d: -f2-)
printf 'basic_auth_users:\n  alice: %s\n' "$hash" > "$D/auth.yml"
serve auth 127.0.0.1:0 -c "$D/auth.yml"
U=http://127.0.0.1:$auth_port/metrics
check metrics-auth-none-401 "[ \$(code $U) = 401 ]"
check metrics-auth-www-authenticate "curl -s -D - -o /dev/null $U | grep -qi '^WWW-Authenticate: Basic realm=\"strobe\"'"
check metrics-auth-wrong-401 "[ \$(code -u 'alice:s3cret' $U) = 401 ] && [ \$(code -u 'bob:s3cret pass' $U) = 401 ]"
check metrics-auth-right-200 "[ \$(code -u 'alice:s3cret pass' $U) = 200 ]"
printf 'basic_auth_users:\n  alice: %s\nweb: x\n' "$hash" > "$D/bad.yml"
t metrics-web-config-error 1 "bad.yml: web config line 3: 'web' is not supported" "$MS" :0 -c "$D/bad.yml"

# TLS (self-signed, for localhost), beyond loopback, with authentication
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
	-keyout "$D/key.pem" -out "$D/cert.pem" 2> "$D/openssl.err"
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  alice: %s\n' \
	"$D/cert.pem" "$D/key.pem" "$hash" > "$D/tls.yml"
serve tls 0.0.0.0:0 -c "$D/tls.yml"
T=https://localhost:$tls_port/metrics
check metrics-tls-verified-200 "[ \$(code --cacert '$D/cert.pem' -u 'alice:s3cret pass' $T) = 200 ]" \
	"$(curl -sS --cacert "$D/cert.pem" -u 'alice:s3cret pass' $T 2>&1 | head -2) $(cat "$D/tls.err")"
check metrics-tls-auth-401 "[ \$(code --cacert '$D/cert.pem' $T) = 401 ]"
check metrics-tls-plain-http-refused "[ \$(code --max-time 3 http://127.0.0.1:$tls_port/metrics) != 200 ]"
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$D/cert.pem" "$D/nokey.pem" > "$D/nokey.yml"
t metrics-tls-missing-key 1 "nokey.pem" "$MS" :0 -c "$D/nokey.yml"

# a real Prometheus scraping both (plain and TLS with basic auth)
serve prom 127.0.0.1:0
read -r PP < <(python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$D/tsdb"
cat > "$D/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: strobe
    static_configs:
      - targets: ['127.0.0.1:$prom_port']
  - job_name: strobe-tls
    scheme: https
    tls_config:
      ca_file: $D/cert.pem
      server_name: localhost
    basic_auth:
      username: alice
      password: 's3cret pass'
    static_configs:
      - targets: ['127.0.0.1:$tls_port']
EOF
prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/tsdb" \
	--web.listen-address=127.0.0.1:$PP > "$D/prometheus.log" 2>&1 &
PIDS+=($!)
q() {	# q PROMQL: the JSON answer of Prometheus' query API
	curl -s --max-time 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"
}
ok=
for _ in $(seq 60); do
	n=$(q 'count(up == 1)' | python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)
	[ "$n" = 2 ] && { ok=1; break; }
	sleep 0.5
done
check metrics-prometheus-both-targets-up "[ -n '$ok' ]" \
	"$(q up) $(tail -3 "$D/prometheus.log")"
sleep 7
q 'rate(strobe_container_cpu_seconds_total{job="strobe",container="busy"}[5s])' > "$D/rate.json"
rate=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["data"]["result"]; print(r[0]["value"][1] if len(r) == 1 else "none")' "$D/rate.json")
check metrics-prometheus-rate-one-core "awk -v r='$rate' 'BEGIN { exit !(r + 0 >= 0.8 && r + 0 <= 1.2) }'" \
	"rate $rate: $(head -c 300 "$D/rate.json")"
echo "  rate(strobe_container_cpu_seconds_total{container=\"busy\"}[5s]) = $rate"
q 'strobe_container_syscalls_total{job="strobe-tls",container="busy",syscall="read"}' > "$D/tls.json"
check metrics-prometheus-tls-series "grep -q '\"syscall\":\"read\"' '$D/tls.json'" "$(head -c 300 "$D/tls.json")"
q 'histogram_quantile(0.5, rate(strobe_container_runqueue_latency_seconds_bucket{job="strobe",container="busy"}[5s]))' > "$D/q.json"
p50=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["data"]["result"]; print(r[0]["value"][1] if r else "none")' "$D/q.json")
# every run-queue latency is in slot 3, [8, 16) us: the median is inside
check metrics-prometheus-histogram-quantile "awk -v r='$p50' 'BEGIN { exit !(r + 0 >= 0.000008 && r + 0 <= 0.000016) }'" "p50 $p50"
exit 0
