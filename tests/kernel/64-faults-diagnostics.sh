#!/bin/bash
# 64-faults-diagnostics.sh - what is wrong with a file reaches the user
# whatever command reads it: every analysis, report and ps print each
# diagnostic once on stderr ("strobe CMD: warning: ..."), --json output
# carries them, and the exit status stays 0 (the file is still usable).
#   - one byte of softirq_exit's format changed (REC->vec -> REC->vex):
#     the format is skipped as damaged; `strobe irq` used to print (none)
#     with no word about it;
#   - a file cut short: `strobe ps -i` says the process table is missing
#     (it used to print "unknown" everywhere with no warning).
. "$(dirname "$0")/lib.sh"
need_tracefs faults-diagnostics
BEFORE=$(tracefs_state)

F=$WORK/good.dat
if ! timeout 60 "$STROBE" record -q -o "$F" -e irq -e sched -e raw_syscalls \
	-e kmem:mm_page_alloc -e kmem:mm_page_free -- \
	sh -c 'for i in 1 2 3; do ls -R /usr/lib >/dev/null; sleep 0.05; done' 2>"$WORK/rec.err"; then
	fail faults-diagnostics-record "$(head -1 "$WORK/rec.err")"
	exit 0
fi
[ "$(tracefs_state)" = "$BEFORE" ] || fail faults-diagnostics-tracefs-untouched

# 1. a damaged format
python3 - "$F" "$WORK/badfmt.dat" <<'PY' || { fail faults-diagnostics-damage-format "no softirq_exit format"; exit 0; }
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.index(b"name: softirq_exit\n")
at = d.index(b"REC->vec", at)
d[at + 7] = ord("x")                  # REC->vec -> REC->vex: one byte
open(sys.argv[2], "wb").write(d)
PY
for cmd in irq cputop syscalls schedlat io mem "analyze -a irq,cputop" report "ps -i"; do
	name=faults-diagnostics-damaged-format-warned-by-${cmd%% *}
	timeout 60 "$STROBE" $cmd "$WORK/badfmt.dat" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	n=$(grep -c "^strobe ${cmd%% *}: warning: 1 event format in the file is damaged and was skipped (irq:softirq_exit)" "$WORK/err")
	if [ $rc = 0 ] && [ "$n" = 1 ]; then pass "$name"
	else fail "$name" "rc=$rc warnings=$n $(head -3 "$WORK/err" | tr '\n' ' ')"; fi
done
# the same file undamaged: no such warning
"$STROBE" irq "$F" > /dev/null 2> "$WORK/err"
! grep -q 'damaged' "$WORK/err" && pass faults-diagnostics-intact-file-no-warning ||
	fail faults-diagnostics-intact-file-no-warning "$(cat "$WORK/err")"
# --json carries it: analyses in the summary, report and ps in a last line
ok=1
"$STROBE" irq --json "$WORK/badfmt.dat" 2>/dev/null | py '
import json, sys
s = [json.loads(l) for l in sys.stdin if l.strip()][-1]["summary"]
assert [d["kind"] for d in s["diagnostics"]] == ["bad_formats"], s' || ok=0
for cmd in "report --json" "ps --json -i"; do
	"$STROBE" $cmd "$WORK/badfmt.dat" 2>/dev/null | tail -1 | py '
import json, sys
d = json.loads(sys.stdin.read())["diagnostics"]
assert d[0]["kind"] == "bad_formats" and "softirq_exit" in d[0]["message"], d' || ok=0
done
[ $ok = 1 ] && pass faults-diagnostics-json-carries-them || fail faults-diagnostics-json-carries-them

# 2. a file cut short: the process table (at the end) is gone
size=$(stat -c %s "$F")
head -c $((size - 64)) "$F" > "$WORK/cut.dat"
for cmd in "ps -i" cputop report; do
	name=faults-diagnostics-cut-file-process-table-missing-by-${cmd%% *}
	timeout 60 "$STROBE" $cmd "$WORK/cut.dat" > /dev/null 2> "$WORK/err"
	rc=$?
	n=$(grep -c "^strobe ${cmd%% *}: warning: .*process and container table is missing" "$WORK/err")
	if [ $rc = 0 ] && [ "$n" = 1 ]; then pass "$name"
	else fail "$name" "rc=$rc warnings=$n $(head -3 "$WORK/err" | tr '\n' ' ')"; fi
done
