# 07-export-ps-inputs.sh - several -i and damaged data in strobe export
# and strobe ps, no tracing needed (strobe-damage(7)): export sends
# several files in one pass to a stub ClickHouse on loopback that decodes
# the RowBinary rows (every event of each file, once; a file given twice
# or through a link read once, with a warning), refuses --host-name with
# several files, exports a file with a damaged page with a warning after
# its summary and the diagnostics in --json, and with --strict sends
# nothing and fails; ps lists several files with a HOST column (a "host"
# key in --json), a file twice once (beside another file too, the notice
# naming its two paths only), a damaged page with a warning, and
# with --strict lists nothing and fails; --spool takes no -i.
. "$(dirname "$0")/lib.sh"

inputs_fixture export_ps
# events of a file as strobe sql counts them (damaged pages skipped)
events() { $S sql -i "$1" "SELECT count(*) FROM events" 2>/dev/null | tail -1 | tr -d ' '; }
EA=$(events "$D/a.dat") EB=$(events "$D/b.dat") EBAD=$(events "$D/bad.dat")

# A stub ClickHouse: answers every request 200 and counts, per database
# and table, the RowBinary rows it was sent (decoded as the server would:
# a batch must be consumed exactly), in $D/rows.json after each request.
cat > "$D/stub.py" <<'EOF'
import gzip, http.server, json, sys, urllib.parse
rows = {}
def varint(b, p):
    v = s = 0
    while True:
        c = b[p]; p += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, p
def string(b, p):
    n, p = varint(b, p); return b[p:p + n], p + n
def count(table, b):
    p, n = 0, 0
    while p < len(b):
        if table == "events":
            _, p = string(b, p); p += 8 + 4 + 2 + 4 + 4
            for _ in range(5): _, p = string(b, p)
        else:
            _, p = string(b, p); p += 4; _, p = string(b, p); p += 4 * 8
            k, p = varint(b, p); p += 8 * k
        n += 1
    assert p == len(b), "batch not consumed exactly"
    return n
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip": body = gzip.decompress(body)
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
        if q.startswith("INSERT INTO "):
            db, table = q.split()[2].split(".")
            rows[db + "." + table] = rows.get(db + "." + table, 0) + count(table, body)
            json.dump(rows, open(sys.argv[2] + ".tmp", "w"))
            __import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
python3 "$D/stub.py" x "$D/rows.json" > "$D/port" &
stub=$!
trap 'kill $stub 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
U=http://127.0.0.1:$(cat "$D/port")
rows() { python3 -c 'import json, sys
try: print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))
except FileNotFoundError: print(0)' "$D/rows.json" "$1"; }
EX=("$S" export --format clickhouse --url "$U")

# --- export ------------------------------------------------------------------
t export_several_inputs_in_one_pass 0 "delivered" "${EX[@]}" --database two -i "$D/a.dat" -i "$D/b.dat"
r=$(rows two.events)
[ "$r" = $((EA + EB)) ] && echo "PASS export_several_inputs_every_event_once" ||
	echo "FAIL export_several_inputs_every_event_once: $r rows, want $EA + $EB"
"${EX[@]}" --database twojson -i "$D/a.dat" -i "$D/b.dat" --json > "$D/j" 2> "$D/e"
python3 - "$D/j" "$D/a.dat" "$D/b.dat" "$EA" "$EB" <<'EOF' &&
import json, sys
j = json.load(open(sys.argv[1]))
h = j["hosts"]
assert [x["file"] for x in h] == sys.argv[2:4], h
assert [x["rows"] for x in h] == [int(sys.argv[4]), int(sys.argv[5])], h
assert j["rows"] == j["events"] == int(sys.argv[4]) + int(sys.argv[5]) and j["diagnostics"] == []
EOF
	echo "PASS export_json_summary_counts_each_file" ||
	echo "FAIL export_json_summary_counts_each_file: $(head -c 300 "$D/j")"
t export_same_file_through_a_link_is_read_once 0 "warning: $D/link.dat is the same file as $D/a.dat: it is read once" \
	"${EX[@]}" --database once -i "$D/a.dat" -i "$D/link.dat"
r=$(rows once.events)
[ "$r" = "$EA" ] && echo "PASS export_same_file_twice_rows_once" ||
	echo "FAIL export_same_file_twice_rows_once: $r rows, want $EA"
t export_host_name_with_several_files_is_usage_error 2 "with several -i, each file's rows carry its own host name" \
	"${EX[@]}" --database x --host-name h -i "$D/a.dat" -i "$D/b.dat"
t export_damaged_page_warns_after_the_summary 0 "warning: damaged data was skipped: 1 page" \
	"${EX[@]}" --database bad -i "$D/bad.dat"
grep -q "delivered.*the data was damaged: a warning follows" "$D/err" &&
	[ "$(grep -n warning "$D/err" | head -1 | cut -d: -f1)" = 1 ] &&
	[ "$(rows bad.events)" = "$EBAD" ] && [ "$EBAD" -lt "$EA" ] &&
	echo "PASS export_damaged_page_summary_says_so_and_the_rest_is_sent" ||
	echo "FAIL export_damaged_page_summary_says_so_and_the_rest_is_sent: $(rows bad.events) of $EBAD: $(cat "$D/err")"
"${EX[@]}" --database badjson -i "$D/bad.dat" --json > "$D/j" 2> /dev/null
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert len(d) == 1 and d[0]["kind"] == "bad_data" and d[0]["damage"] is True
assert d[0]["file"] == sys.argv[2] and "cpu 0: bad ring-buffer page" in d[0]["message"]' \
	"$D/j" "$D/bad.dat" && echo "PASS export_json_summary_lists_the_diagnostics" ||
	echo "FAIL export_json_summary_lists_the_diagnostics: $(head -c 300 "$D/j")"
t export_strict_fails_on_a_damaged_page 1 "strobe export: damaged data (strict): $D/bad.dat: cpu 0: bad ring-buffer page" \
	"${EX[@]}" --database strict -i "$D/a.dat" -i "$D/bad.dat" --strict
grep -q "warning" "$D/err" && echo "FAIL export_strict_says_damage_once: $(cat "$D/err")" ||
	echo "PASS export_strict_says_damage_once"
[ "$(rows strict.events)" = 0 ] && echo "PASS export_strict_sends_nothing_of_a_small_input" ||
	echo "FAIL export_strict_sends_nothing_of_a_small_input: $(rows strict.events) rows"
t export_strict_on_intact_files_succeeds 0 "delivered" "${EX[@]}" --database fine --strict -i "$D/a.dat"

# --- ps ------------------------------------------------------------------------
t ps_several_inputs_have_a_host_column 0 '^HOST  *PID  *PPID' $S ps -i "$D/a.dat" -i "$D/b.dat"
na=$($S ps -i "$D/a.dat" | tail -n +2 | wc -l) nb=$($S ps -i "$D/b.dat" | tail -n +2 | wc -l)
n=$($S ps -i "$D/a.dat" -i "$D/b.dat" | tail -n +2 | wc -l)
[ "$n" = $((na + nb)) ] && echo "PASS ps_several_inputs_list_every_host" ||
	echo "FAIL ps_several_inputs_list_every_host: $n rows, want $na + $nb"
$S ps -i "$D/a.dat" -i "$D/b.dat" --json | python3 -c 'import json, sys
hosts = [json.loads(l).get("host") for l in sys.stdin]
assert hosts and None not in hosts and len(set(hosts)) == 2, hosts' &&
	echo "PASS ps_several_inputs_json_has_host" || echo "FAIL ps_several_inputs_json_has_host"
t ps_same_file_through_a_link_is_read_once 0 "warning: $D/link.dat is the same file as $D/a.dat: it is read once" \
	$S ps -i "$D/a.dat" -i "$D/link.dat"
grep -q '^HOST' "$D/out" && echo "FAIL ps_same_file_twice_is_one_host" || echo "PASS ps_same_file_twice_is_one_host"
# beside another file too: the notice names both paths and no third
t ps_same_file_beside_another_the_notice_names_both_once 0 \
	"^strobe ps: warning: $D/link.dat is the same file as $D/a.dat: it is read once\$" \
	$S ps -i "$D/a.dat" -i "$D/b.dat" -i "$D/link.dat"
t ps_damaged_page_lists_and_warns 0 "strobe ps: warning: damaged data was skipped: 1 page" $S ps -i "$D/bad.dat"
grep -q '^ *PID' "$D/out" && echo "PASS ps_damaged_page_still_lists" || echo "FAIL ps_damaged_page_still_lists"
t ps_strict_fails_on_a_damaged_page 1 "strobe ps: damaged data (strict): $D/bad.dat: cpu 0: bad ring-buffer page" \
	$S ps --strict -i "$D/bad.dat"
[ -s "$D/out" ] && echo "FAIL ps_strict_lists_nothing: $(head -2 "$D/out")" || echo "PASS ps_strict_lists_nothing"
t ps_help_tells_several_inputs_and_strict 0 "one host per file" $S ps --help
grep -q -- "--strict" "$D/out" && echo "PASS ps_help_lists_strict" || echo "FAIL ps_help_lists_strict"
t export_help_lists_strict_and_json 0 "\-\-strict" $S export --help
t export_spool_with_input_is_usage_error 2 "no -i with it" "${EX[@]}" --spool "$D/s" -i "$D/a.dat"
