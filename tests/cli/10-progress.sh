#!/bin/bash
# 10-progress.sh - progress of long file reads on stderr, under a real
# terminal (tmux): a report written to a file shows "N% X MiB of Y MiB,
# R MiB/s, S s left" and erases it at the end; an analysis (tables at the
# end) shows it too; a report printing to a pipe or to the terminal shows
# none, nor does any command whose stderr is not a terminal.  strobe sql
# (whose pipeline the library makes: strobe_sql_opts.on_run names it) shows
# it while it builds its database, and erases it before the rows; strobe
# export (to an HTTP server on loopback that takes every batch: the
# display is what is tested, not ClickHouse) shows it on a terminal
# instead of its old line a second (--progress keeps those for logs).
# STROBE_PROGRESS_AFTER_MS=0 shows it at once (the file is small).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/build/strobe
command -v tmux >/dev/null || { echo "SKIP progress: no tmux"; exit 0; }
D=$(mktemp -d /tmp/strobe-progress.XXXXXX)
SOCK=strobe-progress-$$
stub=
trap 'tmux -L $SOCK kill-server 2>/dev/null; [ -n "$stub" ] && kill $stub 2>/dev/null; rm -rf "$D"' EXIT
"$ROOT/build/bench/synth-trace" -n 400000 -c 2 "$D/t.dat" >/dev/null || { echo "FAIL progress_fixture"; exit 0; }
tmux -L $SOCK -f /dev/null new-session -d -x 160 -y 40 "bash --norc --noprofile" || { echo "SKIP progress: tmux cannot start"; exit 0; }
tmux -L $SOCK pipe-pane -o "cat >> $D/tty.log"

# run CMD in the terminal; its terminal output (raw bytes) in $D/N.log
n=0
in_tty() {
	n=$((n + 1))
	: > "$D/tty.log"
	# typed as E''ND: only the echo's output says END-N (bash's bracketed
	# paste and the progress line's erasure precede it on its line)
	tmux -L $SOCK send-keys "STROBE_PROGRESS_AFTER_MS=0 $*; echo E''ND-$n" Enter
	for _ in $(seq 300); do grep -aq "END-$n" "$D/tty.log" && break; sleep 0.1; done
	cp "$D/tty.log" "$D/$n.log"
}
# the progress lines of log $1: "strobe CMD: ..%" after a carriage return
progress() { tr '\r' '\n' < "$1" | grep -a "strobe $2: *[0-9]*% [0-9.]* MiB of [0-9.]* MiB, [0-9.]* [KMG]iB/s"; }

in_tty "$S report -i $D/t.dat > $D/out.txt"
if progress "$D/$n.log" report >/dev/null && tr '\r' '\n' < "$D/$n.log" | grep -aq $'^\033\[KEND-'"$n"; then
	echo "PASS progress_report_to_a_file_shows_and_erases_it"
else
	echo "FAIL progress_report_to_a_file_shows_and_erases_it: $(cat -v "$D/$n.log" | tail -3)"
fi
cmp -s <("$S" report -i "$D/t.dat") "$D/out.txt" && echo "PASS progress_report_output_unchanged" ||
	echo "FAIL progress_report_output_unchanged"
in_tty "$S analyze -a cputop,syscalls -i $D/t.dat > /dev/null"
progress "$D/$n.log" analyze >/dev/null && echo "PASS progress_analysis_shows_it" ||
	echo "FAIL progress_analysis_shows_it: $(cat -v "$D/$n.log" | tail -3)"
in_tty "$S report -i $D/t.dat | tail -1"
progress "$D/$n.log" report >/dev/null && echo "FAIL progress_not_while_printing_to_a_pipe" ||
	echo "PASS progress_not_while_printing_to_a_pipe"
in_tty "$S report -i $D/t.dat 2> $D/err > $D/out2.txt"
progress "$D/$n.log" report >/dev/null || [ -s "$D/err" ] &&
	echo "FAIL progress_not_when_stderr_is_not_a_terminal: $(cat -v "$D/err" | head -2)" ||
	echo "PASS progress_not_when_stderr_is_not_a_terminal"
in_tty "STROBE_NO_PROGRESS=1 $S report -i $D/t.dat > $D/out3.txt"
progress "$D/$n.log" report >/dev/null && echo "FAIL progress_off_with_STROBE_NO_PROGRESS" ||
	echo "PASS progress_off_with_STROBE_NO_PROGRESS"

# --- sql: the database's load ----------------------------------------------
Q="SELECT count(*) AS n FROM events"
in_tty "$S sql -i $D/t.dat '$Q' > $D/sql.txt"
if progress "$D/$n.log" sql >/dev/null && tr '\r' '\n' < "$D/$n.log" | grep -aq $'^\033\[KEND-'"$n"; then
	echo "PASS progress_sql_load_shows_and_erases_it"
else
	echo "FAIL progress_sql_load_shows_and_erases_it: $(cat -v "$D/$n.log" | tail -3)"
fi
cmp -s <("$S" sql -i "$D/t.dat" "$Q") "$D/sql.txt" && echo "PASS progress_sql_output_unchanged" ||
	echo "FAIL progress_sql_output_unchanged: $(cat "$D/sql.txt")"
in_tty "$S sql -i $D/t.dat -i $D/t.dat --db $D/t.db '$Q' > /dev/null"
progress "$D/$n.log" sql >/dev/null && echo "PASS progress_sql_several_inputs_and_db_show_it" ||
	echo "FAIL progress_sql_several_inputs_and_db_show_it: $(cat -v "$D/$n.log" | tail -3)"
in_tty "$S sql -i $D/t.dat '$Q' 2> $D/err > /dev/null"
progress "$D/$n.log" sql >/dev/null || [ -s "$D/err" ] &&
	echo "FAIL progress_sql_not_when_stderr_is_not_a_terminal: $(cat -v "$D/err" | head -2)" ||
	echo "PASS progress_sql_not_when_stderr_is_not_a_terminal"
in_tty "STROBE_NO_PROGRESS=1 $S sql -i $D/t.dat '$Q' > /dev/null"
progress "$D/$n.log" sql >/dev/null && echo "FAIL progress_sql_off_with_STROBE_NO_PROGRESS" ||
	echo "PASS progress_sql_off_with_STROBE_NO_PROGRESS"

# --- export ------------------------------------------------------------------
cat > "$D/sink.py" <<'EOF'
import http.server
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
python3 "$D/sink.py" > "$D/port" &
stub=$!
for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
EX="$S export --format clickhouse --url http://127.0.0.1:$(cat "$D/port") -i $D/t.dat"
in_tty "$EX"
if progress "$D/$n.log" export >/dev/null && ! grep -aq "events read, .* rows delivered" "$D/$n.log" &&
	grep -aq "strobe export: 400001 events .* delivered" "$D/$n.log"; then
	echo "PASS progress_export_shows_it"
else
	echo "FAIL progress_export_shows_it: $(cat -v "$D/$n.log" | tail -3)"
fi
in_tty "$EX 2> $D/err"
progress "$D/$n.log" export >/dev/null || progress "$D/err" export >/dev/null ||
	! grep -q "delivered" "$D/err" &&
	echo "FAIL progress_export_not_when_stderr_is_not_a_terminal: $(cat -v "$D/err" | head -2)" ||
	echo "PASS progress_export_not_when_stderr_is_not_a_terminal"
in_tty "STROBE_NO_PROGRESS=1 $EX"
progress "$D/$n.log" export >/dev/null && echo "FAIL progress_export_off_with_STROBE_NO_PROGRESS" ||
	echo "PASS progress_export_off_with_STROBE_NO_PROGRESS"
in_tty "$EX -q"
progress "$D/$n.log" export >/dev/null && echo "FAIL progress_export_off_with_quiet" ||
	echo "PASS progress_export_off_with_quiet"
