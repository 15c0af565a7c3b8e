# ch-server.sh - Debian's clickhouse-server (18.16) on loopback for the
# ClickHouse tests (sourced after lib.sh by 71-clickhouse.sh and
# 73-clickhouse-live.sh): start_server runs one with its own config,
# users (default without a password, strobe with $PW) and data under
# $WORK/NAME and appends its PID to PIDS; with $T2 set its config also
# names the two-shard cluster strobe_test (TCP ports $T1 and $T2).  The
# caller kills PIDS on exit.
CHS=/usr/sbin/clickhouse-server
PIDS=()

# start_server NAME HTTP TCP: config, users and data under $WORK/NAME.
start_server() {
	local d=$WORK/$1 remote=
	[ -n "$T2" ] && remote="  <remote_servers>
    <strobe_test>
      <shard><replica><host>127.0.0.1</host><port>$T1</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$T2</port></replica></shard>
    </strobe_test>
  </remote_servers>"
	mkdir -p $d/data $d/tmp $d/log $d/user_files $d/format_schemas
	cat > $d/config.xml <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log/server.log</log>
    <errorlog>$d/log/err.log</errorlog><console>0</console></logger>
  <http_port>$2</http_port>
  <tcp_port>$3</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  <timezone>UTC</timezone>
$remote
</yandex>
EOF
	cat > $d/users.xml <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile><quota>default</quota></default>
    <strobe><password>$PW</password><networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile><quota>default</quota></strobe>
  </users>
  <quotas><default></default></quotas>
</yandex>
EOF
	$CHS --config-file=$d/config.xml > $d/log/stdout 2>&1 &
	PIDS+=($!)
	for _ in $(seq 300); do
		[ "$(curl -sS "http://127.0.0.1:$2/?query=SELECT%201" 2>/dev/null)" = 1 ] && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.2
	done
	return 1
}

# q PORT SQL: run SQL on the server at PORT (as the default user)
q() { curl -sS "http://127.0.0.1:$1/" --data-binary "$2" 2>&1; }

# stop_servers: every server started, politely then with SIGKILL.
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
}

# free_ports N: N loopback ports nobody listens on now
free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}
