# 08-analyses-inputs.sh - the analyses and periods over several -i, no
# tracing needed (two synthetic recordings, bench/synth-trace): one
# pipeline, an analysis per file.  A file given twice or through a link
# is read once, with a notice, and prints what one -i prints; two files
# are two hosts: --log rows come as their occurrences end on the one
# timeline, the host first, each host's rows exactly those of its file
# alone (timestamps moved onto the timeline); --begin/--end +SECONDS count
# from each file's own first event; --lami of two hosts is one valid LAMI
# document; a damaged file's warning names it.
. "$(dirname "$0")/lib.sh"

SYNTH=$ROOT/build/bench/synth-trace
A=$D/a.dat B=$D/b.dat
"$SYNTH" -n 20000 -s 1 "$A" > /dev/null && "$SYNTH" -n 20000 -c 3 -s 2 "$B" > /dev/null ||
	echo "FAIL analyses_inputs_fixture: $SYNTH"
ln -s "$A" "$D/link.dat"
REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'

# same_as_one NAME ARGS...: with -i A -i A and -i A -i LINK, exit 0, the
# stdout of -i A (JSON: its summary also lists the notice), and its
# stderr plus the one notice
same_as_one() {
	local name=$1 second why= rc
	shift
	timeout 20 $S "$@" -i "$A" > "$D/one.out" 2> "$D/one.err"
	for second in "$A" "$D/link.dat"; do
		timeout 20 $S "$@" -i "$A" -i "$second" > "$D/two.out" 2> "$D/two.err"
		rc=$?
		grep -v '"summary"' "$D/two.out" > "$D/two.rows"
		grep -v '"summary"' "$D/one.out" > "$D/one.rows"
		[ $rc = 0 ] || why="$why exit $rc;"
		[ -s "$D/one.rows" ] && cmp -s "$D/one.rows" "$D/two.rows" || why="$why stdout differs;"
		[ "$(grep -c "warning: $second is the same file as $A: it is read once" "$D/two.err")" = 1 ] ||
			why="$why no notice;"
		grep -v 'is the same file as' "$D/two.err" | cmp -s - "$D/one.err" || why="$why stderr differs;"
		if grep -q '"summary"' "$D/one.out" &&
		   ! grep '"summary"' "$D/two.out" | grep -q '"kind":"same_file"'; then
			why="$why no same_file in the summary;"
		fi
	done
	[ -z "$why" ] && echo "PASS $name" || { echo "FAIL $name:$why"; head -3 "$D/two.err"; }
}
same_as_one analyses_same_file_twice_is_read_once analyze -a cputop,syscalls
same_as_one analyses_same_file_twice_every_view_is_read_once \
	analyze -a cputop,syscalls,schedlat,io,irq,mem --stats --freq --log --top 0
same_as_one analyses_same_file_twice_json_is_read_once analyze -a syscalls,io --json --log --stats
same_as_one analyses_same_file_twice_lami_is_read_once syscalls --lami --log --stats --freq
same_as_one analyses_same_file_twice_relative_window_is_read_once syscalls --begin +0.005 --end +0.02
same_as_one periods_same_file_twice_is_read_once periods --period "$REQ" --stats --log --freq

# two hosts: --log rows as they end on the timeline, each host's its own
timeout 20 $S syscalls --log --json -i "$A" -i "$B" > "$D/m.json" 2> "$D/m.err"
rc=$?
timeout 20 $S syscalls --log --json -i "$A" > "$D/a.json" 2>/dev/null
timeout 20 $S syscalls --log --json -i "$B" > "$D/b.json" 2>/dev/null
r=$(python3 - "$D/m.json" "$D/a.json" "$D/b.json" <<'EOF'
import json, sys
def log(p):
    return [o for o in map(json.loads, open(p)) if o.get("table") == "syscalls.log"]
m, a, b = log(sys.argv[1]), log(sys.argv[2]), log(sys.argv[3])
ends = [o["ts"] + o["duration"] for o in m]
out = ["unordered=%d" % sum(1 for x, y in zip(ends, ends[1:]) if y < x),
       "host_first=%s" % all(list(o)[1] == "host" for o in m)]
for host, one in (("synth", a), ("synth#2", b)):
    mine = [dict(o) for o in m if o["host"] == host]
    shift = set(x["ts"] - y["ts"] for x, y in zip(mine, one))
    for o in mine + one:
        o.pop("host", None); o.pop("ts")
    out.append("%s=%s,%d,%d" % (host, mine == one, len(one), len(shift)))
print(" ".join(out))
EOF
)
[ $rc = 0 ] && [ "$r" = "unordered=0 host_first=True synth=True,$(grep -c syscalls.log "$D/a.json"),1 synth#2=True,$(grep -c syscalls.log "$D/b.json"),1" ] &&
	grep -q "^strobe syscalls: 2 hosts on one timeline" "$D/m.err" &&
	pass=1 || pass=
[ "$pass" ] && echo "PASS analyses_two_hosts_log_rows_as_they_end_each_hosts_own" ||
	echo "FAIL analyses_two_hosts_log_rows_as_they_end_each_hosts_own: rc=$rc $r"
timeout 20 $S syscalls --log -i "$A" -i "$B" > "$D/m.txt" 2>/dev/null
n=$(grep -cE '^synth(#2)? +[0-9]{10}\.[0-9]{9} ' "$D/m.txt")
[ "$(grep -c '^Host ' "$D/m.txt")" = 1 ] && head -1 "$D/m.txt" | grep -qE '^Host +Begin +Duration' &&
	[ "$n" = "$(grep -c syscalls.log "$D/m.json")" ] &&
	echo "PASS analyses_two_hosts_log_text_one_header_and_a_host_column" ||
	echo "FAIL analyses_two_hosts_log_text_one_header_and_a_host_column: $n rows; $(head -2 "$D/m.txt")"

# --begin/--end +SECONDS: each host's window from its own first event
timeout 20 $S syscalls --json --stats --begin +0.002 --end +0.008 -i "$A" -i "$B" > "$D/w.json" 2>/dev/null
timeout 20 $S syscalls --json --stats --begin +0.002 --end +0.008 -i "$B" > "$D/wb.json" 2>/dev/null
r=$(python3 - "$D/w.json" "$D/wb.json" <<'EOF'
import json, sys
m, b = [list(map(json.loads, open(p))) for p in sys.argv[1:3]]
def rows(objs, host=None):
    out = []
    for o in objs:
        if o.get("table") in ("syscalls.top", "syscalls.stats"):
            for r in o["rows"]:
                if host is None or r.pop("host") == host:
                    out.append((o["table"], r))
    return out
sm = [o["summary"] for o in m if "summary" in o and o["summary"]["host"] == "synth#2"][0]
sb = [o["summary"] for o in b if "summary" in o][0]
print(rows(m, "synth#2") == rows(b), len(rows(b)) > 0,
      sm["end"] - sm["begin"] == sb["end"] - sb["begin"] == 6000000)
EOF
)
[ "$r" = "True True True" ] && echo "PASS analyses_two_hosts_relative_window_from_each_files_first_event" ||
	echo "FAIL analyses_two_hosts_relative_window_from_each_files_first_event: $r"

# LAMI of two hosts: one valid document whose log rows are --log's
timeout 20 $S analyze -a syscalls,periods --period "$REQ" --lami --log --stats --freq \
	-i "$A" -i "$B" > "$D/l.json" 2>/dev/null &&
timeout 20 $S analyze -a syscalls,periods --period "$REQ" --metadata --log --stats --freq \
	-i "$A" -i "$B" > "$D/meta.json" &&
timeout 20 $S syscalls --mi-version -i "$A" -i "$B" > "$D/ver.json" &&
python3 "$ROOT/tests/kernel/lami-valid.py" "$D/l.json" "$D/meta.json" "$D/ver.json" 2> "$D/lv.err"
rc=$?
r=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
log = [t for t in r if t["class"] == "syscalls.log"][0]["data"]
js = [o for o in map(json.loads, open(sys.argv[2])) if o.get("table") == "syscalls.log"]
print([(c[0]["value"], c[1]["value"]) for c in log] == [(o["host"], o["ts"]) for o in js])
' "$D/l.json" "$D/m.json" 2>&1 | tail -1)
[ $rc = 0 ] && [ "$r" = True ] && echo "PASS analyses_two_hosts_lami_is_one_valid_document" ||
	echo "FAIL analyses_two_hosts_lami_is_one_valid_document: rc=$rc $r $(head -2 "$D/lv.err")"

# a damaged file among several: its warning names it; --strict fails
python3 - "$ROOT" "$A" "$D/bad.dat" <<'EOF' || echo "FAIL analyses_inputs_fixture: cannot damage a.dat"
import importlib.machinery, struct, sys
mf = importlib.machinery.SourceFileLoader(
    "make_files", sys.argv[1] + "/tests/damage/make-files").load_module()
d = bytearray(open(sys.argv[2], "rb").read())
off, size = mf.v6_layout(bytes(d))["fly"][0]
struct.pack_into("<Q", d, off + 8, 0xfff0)
open(sys.argv[3], "wb").write(d)
EOF
t analyses_damaged_file_among_several_is_named 0 \
	"^strobe cputop: warning: $D/bad.dat: damaged data was skipped" $S cputop -i "$B" -i "$D/bad.dat"
t analyses_damaged_file_among_several_strict_fails 1 \
	"^strobe cputop: damaged data (strict): $D/bad.dat: " $S cputop --strict -i "$B" -i "$D/bad.dat"
t periods_several_inputs_refuse_absolute_begin 2 'take +SECONDS' \
	$S periods --period "$REQ" -i "$A" -i "$A" --begin 1
