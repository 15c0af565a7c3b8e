# 74-multihost.sh - two recordings made on this machine with different
# --host-name, overlapping in time, merged on one timeline.  Recording
# "web" traces a shell that makes 1000 getppid calls (getppid_n), waits
# until recording "db" (started after those, 4000 calls) is done, then
# makes 2000 more: merged, the getppid_n calls must come as web x1000,
# db x4000, web x2000, every timestamp in order, each host's events
# exactly those of its own file, each at a wall-clock time inside the
# window its recording ran in (the stored clock offsets at work), and the
# clock uncertainty stated once.  The analyses print one table per name
# with a host column, their --log rows of both hosts in the order they end
# at the timestamps report gives, their LAMI as one valid results object.
# strobe sql -i A -i B counts each host's
# calls exactly, with the same timestamps as report; trace-cmd still
# reads each file; tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs multihost
before=$(tracefs_state)
A=$WORK/web.dat
B=$WORK/db.dat
now() { date +%s%N; }

a0=$(now)
timeout 120 $STROBE record -q --host-name web -o $A --preset syscalls -- sh -c \
	"$HELPERS/getppid_n 1000; touch $WORK/a.started
	 while [ ! -e $WORK/b.done ]; do sleep 0.02; done; $HELPERS/getppid_n 2000" \
	> $A.stdout 2> $A.stderr &
apid=$!
for i in $(seq 600); do [ -e $WORK/a.started ] && break; sleep 0.1; done
b0=$(now)
timeout 120 $STROBE record -q --host-name db -o $B --preset syscalls -- \
	$HELPERS/getppid_n 4000 > $B.stdout 2> $B.stderr
brc=$?
b1=$(now)
touch $WORK/b.done
wait $apid
arc=$?
a1=$(now)
if [ $arc != 0 ] || [ $brc != 0 ]; then
	fail multihost_record "web rc=$arc db rc=$brc $(tail -2 $A.stderr $B.stderr)"
	exit 0
fi
pass multihost_two_overlapping_recordings

# --- report: one timeline ----------------------------------------------------
timeout 120 $STROBE report --json -i $A -i $B > $WORK/m.json 2> $WORK/m.err
rc=$?
timeout 120 $STROBE report --json -i $A > $WORK/a.json 2>/dev/null
timeout 120 $STROBE report --json -i $B > $WORK/b.json 2>/dev/null
r=$(py '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
m = [o for o in m if "ts" in o]
bad = sum(1 for x, y in zip(m, m[1:]) if y["ts"] < x["ts"])
runs = []
for o in m:
    if o["comm"] == "getppid_n" and o["event"] == "sys_enter" and o["fields"]["id"] == 110:
        if runs and runs[-1][0] == o["host"]:
            runs[-1][1] += 1
        else:
            runs.append([o["host"], 1])
print("unordered=%d runs=%s" % (bad, " ".join("%s:%d" % (h, n) for h, n in runs)))
' $WORK/m.json)
[ $rc = 0 ] && [ "$r" = "unordered=0 runs=web:1000 db:4000 web:2000" ] &&
	pass report_merges_two_hosts_in_time_order ||
	fail report_merges_two_hosts_in_time_order "rc=$rc $r $(head -3 $WORK/m.err)"

r=$(py '
import json, sys
def load(p, host=None):
    out = []
    for l in open(p):
        o = json.loads(l)
        if "ts" not in o or (host and o.get("host") != host):
            continue
        o.pop("ts"); o.pop("host", None)
        out.append(o)
    return out
m, a, b = sys.argv[1:4]
print(load(m, "web") == load(a), load(m, "db") == load(b), len(load(a)), len(load(b)))
' $WORK/m.json $WORK/a.json $WORK/b.json)
set -- $r
[ "$1 $2" = "True True" ] && [ "${3:-0}" -gt 3000 ] && [ "${4:-0}" -ge 4000 ] &&
	pass report_each_event_has_the_host_of_its_file ||
	fail report_each_event_has_the_host_of_its_file "$r"

r=$(py '
import json, sys
a0, a1, b0, b1 = map(int, sys.argv[2:6])
win = {"web": (a0, a1), "db": (b0, b1)}
out = [o for o in map(json.loads, open(sys.argv[1])) if "ts" in o]
bad = [o for o in out if not win[o["host"]][0] <= o["ts"] <= win[o["host"]][1]]
print(len(bad), bad[:1])
' $WORK/m.json $a0 $a1 $b0 $b1)
[ "$r" = "0 []" ] && pass report_timestamps_are_wall_clock_inside_each_recording ||
	fail report_timestamps_are_wall_clock_inside_each_recording "$r (web $a0..$a1, db $b0..$b1)"

if grep -q '^strobe report: 2 hosts on one timeline' $WORK/m.err &&
   grep -qE '^  web: \+-[0-9.]+ [nu]s' $WORK/m.err &&
   grep -qE '^  db: \+-[0-9.]+ [nu]s' $WORK/m.err; then
	pass report_states_the_clock_uncertainty_once
else fail report_states_the_clock_uncertainty_once "$(cat $WORK/m.err)"; fi

timeout 120 $STROBE report -i $A -i $B > $WORK/m.txt 2>/dev/null
if head -1 $WORK/m.txt | grep -q "^host=web cpus=[0-9]* file=$A$" &&
   grep -qE '^db  +getppid_n-[0-9]+ +\[[0-9]{3}\] [0-9]{10}\.[0-9]{6}: sys_enter: +NR 110' $WORK/m.txt &&
   [ "$(grep -cE '^web +getppid_n-.*sys_enter: +NR 110 ' $WORK/m.txt)" = 3000 ]; then
	pass report_text_has_a_host_column
else fail report_text_has_a_host_column "$(head -3 $WORK/m.txt; grep -m2 getppid_n $WORK/m.txt)"; fi

# a command name only one host's file has selects that host's events only
timeout 60 $STROBE report -i $A -i $B --comm sh > $WORK/sh.txt 2>/dev/null
rc=$?
n=$(grep -cE '^web +sh-[0-9]+ ' $WORK/sh.txt)
[ $rc = 0 ] && [ "$n" -gt 0 ] && [ "$(grep -cvE '^(web +sh-|host=)' $WORK/sh.txt)" = 0 ] &&
	pass report_selection_of_one_hosts_comm || fail report_selection_of_one_hosts_comm "rc=$rc n=$n"
timeout 60 $STROBE report -i $A -i $B --comm nosuch > /dev/null 2> $WORK/ns.err
[ $? = 1 ] && grep -q "no task named 'nosuch'" $WORK/ns.err && pass report_unknown_comm_in_every_file_fails ||
	fail report_unknown_comm_in_every_file_fails "$(cat $WORK/ns.err)"

# a file without clock offsets (as an older strobe wrote): raw clocks, a
# warning; on one machine with one clock the order is still right
py '
import sys
d = open(sys.argv[1], "rb").read()
d = d.replace(b"\nclock_sync_start=", b"\nclock_xxxx_start=").replace(b"\nclock_sync_end=", b"\nclock_xxxx_end=")
open(sys.argv[2], "wb").write(d)
' $B $WORK/db-old.dat
timeout 120 $STROBE report --json -i $A -i $WORK/db-old.dat > $WORK/raw.json 2> $WORK/raw.err
r=$(py '
import json, sys
m = [o for o in map(json.loads, open(sys.argv[1])) if "ts" in o]
raw = [o["ts"] for o in map(json.loads, open(sys.argv[2])) if "ts" in o]
runs = []
for o in m:
    if o["comm"] == "getppid_n" and o["event"] == "sys_enter" and o["fields"]["id"] == 110:
        if runs and runs[-1][0] == o["host"]:
            runs[-1][1] += 1
        else:
            runs.append([o["host"], 1])
print([o["ts"] for o in m if o["host"] == "db"] == raw,
      " ".join("%s:%d" % (h, n) for h, n in runs))
' $WORK/raw.json $WORK/b.json)
if [ "$r" = "True web:1000 db:4000 web:2000" ] && grep -q "db-old.dat (host db) has no clock offsets" $WORK/raw.err &&
   grep -q "merged on their raw trace clocks" $WORK/raw.err; then
	pass report_without_offsets_merges_raw_clocks_with_a_warning
else fail report_without_offsets_merges_raw_clocks_with_a_warning "$r $(cat $WORK/raw.err)"; fi

# --- sql: one database -------------------------------------------------------
r=$(timeout 120 $STROBE sql --csv -i $A -i $B \
	"SELECT host, count(*) FROM sys_enter WHERE comm = 'getppid_n' AND id = 110 GROUP BY host ORDER BY host" \
	2> $WORK/s.err | tr -d '\r' | tr '\n' ' ')
[ "$r" = "host,count(*) db,4000 web,3000 " ] && pass sql_counts_each_hosts_calls_exactly ||
	fail sql_counts_each_hosts_calls_exactly "$r $(head -3 $WORK/s.err)"
grep -q '^strobe sql: 2 hosts on one timeline' $WORK/s.err &&
	pass sql_states_the_clock_uncertainty || fail sql_states_the_clock_uncertainty "$(cat $WORK/s.err)"

r=$(timeout 120 $STROBE sql --csv -i $A -i $B \
	"SELECT host, min(ts), max(ts), sum(ts % 1000003), count(*) FROM sys_enter GROUP BY host ORDER BY host" \
	"SELECT host, count(*) FROM syscalls WHERE syscall = 'getppid' AND comm = 'getppid_n' GROUP BY host ORDER BY host" \
	"SELECT count(*) FROM events WHERE host = 'db'" \
	2>/dev/null | tr -d '\r' | grep -v '^host\|^count' | tr '\n' ' ')
want=$(py '
import json, sys
d = {}
for o in map(json.loads, open(sys.argv[1])):
    if o.get("event") == "sys_enter":
        d.setdefault(o["host"], []).append(o["ts"])
n = sum(1 for o in map(json.loads, open(sys.argv[1])) if o.get("host") == "db" and "ts" in o)
print(" ".join("%s,%d,%d,%d,%d" % (h, min(v), max(v), sum(t % 1000003 for t in v), len(v))
               for h, v in sorted(d.items())),
      "db,1 web,2", n)
' $WORK/m.json)
[ "$r" = "$want " ] && pass sql_timestamps_and_tables_match_report ||
	fail sql_timestamps_and_tables_match_report "got '$r' want '$want '"

timeout 120 $STROBE sql -i $A -i $B --db $WORK/m.sqlite "SELECT 1" > /dev/null 2>&1
r=$(sqlite3 $WORK/m.sqlite "SELECT host, count(*) FROM sys_enter WHERE comm = 'getppid_n' AND id = 110 GROUP BY host ORDER BY host; SELECT count(*) FROM events WHERE host = 'db' AND event = 'sys_enter' AND comm = 'getppid_n' AND json_extract(fields, '$.id') = 110" 2>&1 | tr '\n' ' ')
[ "$r" = "db|4000 web|3000 4000 " ] && pass sql_kept_db_opens_in_sqlite3_with_the_same_counts ||
	fail sql_kept_db_opens_in_sqlite3_with_the_same_counts "$r"

# --- analyses: a host column ------------------------------------------------
r=$(timeout 120 $STROBE syscalls --json -i $A -i $B 2> $WORK/an.err | py '
import json, sys
c = {}
for o in map(json.loads, sys.stdin):
    if o.get("table") == "syscalls.top":
        for r in o["rows"]:
            if r["comm"] == "getppid_n" and r["syscall"] == "getppid":
                c.setdefault(r["host"], []).append(r["count"])
print(" ".join("%s:%s" % (h, ",".join(map(str, sorted(v)))) for h, v in sorted(c.items())))
')
[ "$r" = "db:4000 web:1000,2000" ] && grep -q '^strobe syscalls: 2 hosts on one timeline' $WORK/an.err &&
	pass syscalls_rows_have_a_host_and_exact_counts ||
	fail syscalls_rows_have_a_host_and_exact_counts "'$r' $(head -3 $WORK/an.err)"
timeout 120 $STROBE syscalls -i $A -i $B > $WORK/an.txt 2>/dev/null
grep -qE '^Host +TID +PID' $WORK/an.txt && grep -qE '^db +[0-9]+ +[0-9]+ +getppid_n .* getppid +4000 ' $WORK/an.txt &&
	pass syscalls_text_has_a_host_column || fail syscalls_text_has_a_host_column "$(head -4 $WORK/an.txt)"
timeout 60 $STROBE syscalls -i $A -i $B --begin 10 > /dev/null 2> $WORK/an2.err
[ $? = 2 ] && grep -q 'take +SECONDS' $WORK/an2.err && pass syscalls_several_files_refuse_absolute_times ||
	fail syscalls_several_files_refuse_absolute_times "$(cat $WORK/an2.err)"

# the JSON summary: once per host, its window on the common timeline
r=$(timeout 120 $STROBE syscalls --json -i $A -i $B 2>/dev/null | py '
import json, sys
a0, a1, b0, b1 = map(int, sys.argv[1:5])
win = {"web": (a0, a1), "db": (b0, b1)}
s = [o["summary"] for o in map(json.loads, sys.stdin) if "summary" in o]
print(" ".join("%s:%s" % (x["host"], win[x["host"]][0] <= x["begin"] <= x["end"] <= win[x["host"]][1])
               for x in s))
' $a0 $a1 $b0 $b1)
[ "$r" = "web:True db:True" ] && pass syscalls_json_summary_per_host_on_the_timeline ||
	fail syscalls_json_summary_per_host_on_the_timeline "'$r' (web $a0..$a1, db $b0..$b1)"

# --log: one log, every host's rows in the order their calls end on the
# timeline (as one file's come), each at the time report gives its
# sys_enter on the merged timeline, with its own host.  (A row's end is
# its mapped begin plus a duration in its host's own clock: the clock's
# drift over the call may move it by microseconds, hence 1 ms of slack.)
timeout 120 $STROBE syscalls --log --json -i $A -i $B > $WORK/log.json 2> $WORK/log.err
rc=$?
r=$(py '
import json, sys
log = [o for o in map(json.loads, open(sys.argv[1])) if o.get("table") == "syscalls.log"]
rep = [o for o in map(json.loads, open(sys.argv[2])) if "ts" in o]
bad = sum(1 for x, y in zip(log, log[1:])
          if y["ts"] + y["duration"] < x["ts"] + x["duration"] - 1000000)
g = [o for o in log if o["comm"] == "getppid_n" and o["syscall"] == "getppid"]
runs = []
for o in g:
    if runs and runs[-1][0] == o["host"]:
        runs[-1][1] += 1
    else:
        runs.append([o["host"], 1])
enter = sorted((o["host"], o["ts"]) for o in rep if o["comm"] == "getppid_n" and
               o["event"] == "sys_enter" and o["fields"]["id"] == 110)
same = sorted((o["host"], o["ts"]) for o in g) == enter
other = sum(1 for o in log if o["host"] not in ("web", "db"))
print("unordered=%d runs=%s same_as_report=%s other=%d first_key=%s" % (bad,
      " ".join("%s:%d" % (h, n) for h, n in runs), same, other, list(log[0])[1] if log else "-"))
' $WORK/log.json $WORK/m.json)
[ $rc = 0 ] && [ "$r" = "unordered=0 runs=web:1000 db:4000 web:2000 same_as_report=True other=0 first_key=host" ] &&
	pass syscalls_log_merges_two_hosts_in_time_order ||
	fail syscalls_log_merges_two_hosts_in_time_order "rc=$rc $r $(head -3 $WORK/log.err)"
timeout 120 $STROBE syscalls --log -i $A -i $B > $WORK/log.txt 2>/dev/null
if [ "$(grep -c '^Host  ' $WORK/log.txt)" = 1 ] && head -1 $WORK/log.txt | grep -qE '^Host +Begin +Duration' &&
   [ "$(grep -cE '^web +[0-9]{10}\.[0-9]{9} .* getppid_n +[^ ]+ +getppid ' $WORK/log.txt)" = 3000 ] &&
   [ "$(grep -cE '^db +[0-9]{10}\.[0-9]{9} .* getppid_n +[^ ]+ +getppid ' $WORK/log.txt)" = 4000 ]; then
	pass syscalls_log_text_has_one_header_and_a_host_column
else fail syscalls_log_text_has_one_header_and_a_host_column "$(head -3 $WORK/log.txt)"; fi

# --lami: LAMI 1.0, one results object, every table with a host column
# that --metadata declares; the log rows are those of --log --json
timeout 120 $STROBE syscalls --lami --log --stats --freq -i $A -i $B > $WORK/lami.json 2>/dev/null &&
timeout 20 $STROBE syscalls --metadata --log --stats --freq -i $A -i $B > $WORK/meta.json &&
timeout 20 $STROBE syscalls --mi-version -i $A -i $B > $WORK/ver.json &&
python3 $(dirname "$0")/lami-valid.py $WORK/lami.json $WORK/meta.json $WORK/ver.json
rc=$?
r=$(py '
import json, sys
tc = json.load(open(sys.argv[2]))["table-classes"]
r = json.load(open(sys.argv[1]))["results"]
def rows(cls):
    t = [t for t in r if t["class"] == cls]
    assert len(t) == 1, cls
    keys = ["host"] + [d["title"] for d in tc[cls]["column-descriptions"][1:]]
    return [dict(zip(keys, [c["value"] for c in row])) for row in t[0]["data"]]
log = [o for o in map(json.loads, open(sys.argv[4])) if o.get("table") == "syscalls.log"]
lami = rows("syscalls.log")
same = [(o["host"], o["Begin"], o["Duration(us)"]) for o in lami] == \
       [(o["host"], o["ts"], o["duration"]) for o in log]
st = {}
for o in rows("syscalls.stats"):	# web: two getppid_n processes
    if o["Comm"] == "getppid_n" and o["Syscall"] == "getppid":
        st[o["host"]] = st.get(o["host"], []) + [o["Count"]]
st = {h: ",".join(map(str, sorted(v))) for h, v in st.items()}
hist = sorted(set(t["class"]["title"].rsplit(" (host ", 1)[-1] for t in r
                  if isinstance(t["class"], dict)))	# histograms: per host
print("valid log_same=%s stats=db:%s,web:%s hists=%s" % (same, st.get("db"), st.get("web"), ",".join(hist)))
' $WORK/lami.json $WORK/meta.json $WORK/ver.json $WORK/log.json 2>&1 | tail -1)
[ $rc = 0 ] && [ "$r" = "valid log_same=True stats=db:4000,web:1000,2000 hists=db),web)" ] &&
	pass syscalls_lami_of_two_hosts_is_lami_1_0_with_a_host_column ||
	fail syscalls_lami_of_two_hosts_is_lami_1_0_with_a_host_column "rc=$rc $r"

# --- each file stays a trace-cmd file ----------------------------------------
if command -v trace-cmd > /dev/null; then
	na=$(trace-cmd report $A 2>/dev/null | grep -E '^ *getppid_n-[0-9]+ ' | grep -c 'sys_enter: *NR 110 ')
	nb=$(trace-cmd report $B 2>/dev/null | grep -E '^ *getppid_n-[0-9]+ ' | grep -c 'sys_enter: *NR 110 ')
	[ "$na $nb" = "3000 4000" ] && pass trace_cmd_reads_each_file ||
		fail trace_cmd_reads_each_file "web $na db $nb"
else
	skip trace_cmd_reads_each_file "trace-cmd is not installed"
fi

after=$(tracefs_state)
[ "$before" = "$after" ] && pass tracefs_left_as_found || fail tracefs_left_as_found "$(diff <(echo "$before") <(echo "$after"))"
