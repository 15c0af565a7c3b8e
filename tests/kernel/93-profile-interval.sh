#!/bin/bash
# 93-profile-interval.sh - strobe profile --interval on the real kernel:
# a busy single-threaded host process (profile_work) profiled with
# -F 999 --interval 1 -d 4 --json prints one document per refresh, each
# holding the hot function at the top of the table; the refreshes'
# samples add up exactly to the run's total (the perf source's count on
# stderr); each full refresh holds at most one CPU's worth of samples
# (F x interval, with slack) and none after the first is far from the
# mean of those; --count 2 ends an unbounded run (no -d) after
# exactly two refreshes, here in --folded blocks under "# interval N"
# lines; option errors are one line; tracefs is left as found.
. "$(dirname "$0")/lib.sh"
need_tracefs profile-interval
BEFORE=$(tracefs_state)
trap '[ -n "$HP" ] && kill $HP 2>/dev/null; rm -rf "$WORK"' EXIT

$HELPERS/profile_work 60 & HP=$!

# 1. JSON refreshes: count, hot function, sums
timeout 60 $STROBE profile -p $HP -F 999 --interval 1 -d 4 --json > $WORK/iv.json 2> $WORK/iv.err
rc=$?
total=$(sed -n 's/^strobe profile: \([0-9]*\) samples in \([0-9]*\) refreshes.*/\1/p' $WORK/iv.err)
if [ $rc = 0 ] && [ -n "$total" ] && py 'import sys, json
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
total, F = int(sys.argv[2]), 999
full = [d for d in docs if not d["final"]]
why = []
if not 3 <= len(full) <= 6: why.append("%d full refreshes" % len(full))
if [d["interval"] for d in docs] != list(range(1, len(docs) + 1)): why.append("numbering")
if sum(d["samples"] for d in docs) != total:
    why.append("refreshes add up to %d, the run %d" % (sum(d["samples"] for d in docs), total))
for d in full:
    rows = d["functions"]["rows"]
    if not rows or rows[0]["function"] != "hot_loop" or rows[0]["self_pct"] < 40:
        why.append("refresh %d top %s" % (d["interval"], rows[:1]))
    if d["samples"] > 1.5 * F * 1.0:
        why.append("refresh %d: %d samples, over one CPU at %d Hz" % (d["interval"], d["samples"], F))
    if sum(s["samples"] for s in d["stacks"]) != d["samples"]:
        why.append("refresh %d: stacks do not add up" % d["interval"])
# the first interval may start late (ticks are on the trace clock): the
# lower bound is for the later ones
later = full[1:]
if later:
    mean = sum(d["samples"] for d in later) / len(later)
    for d in later:
        if not mean / 4 <= d["samples"] <= mean * 4:
            why.append("refresh %d: %d samples, mean %.0f" % (d["interval"], d["samples"], mean))
print("# refreshes: %s; total %d" % (" ".join(str(d["samples"]) for d in docs), total))
if why: print(why, file=sys.stderr)
sys.exit(1 if why else 0)' $WORK/iv.json "$total" 2> $WORK/iv.why; then
	pass profile-interval-json-refreshes-add-up
else fail profile-interval-json-refreshes-add-up "rc=$rc total=$total $(head -c 400 $WORK/iv.why) $(head -c 300 $WORK/iv.err)"; fi

# 2. --count 2 ends a run that has no other end; folded blocks
timeout 60 $STROBE profile -p $HP -F 999 --interval 0.5 --count 2 --folded > $WORK/c.folded 2> $WORK/c.err
rc=$?
heads=$(grep -c '^# interval ' $WORK/c.folded)
blocks_ok=$(awk '/^# interval / { if (n) print seen; n++; seen = 0; next }
	/;hot_loop [0-9]+$/ { seen = 1 } END { print seen }' $WORK/c.folded | grep -c 1)
if [ $rc = 0 ] && [ "$heads" = 2 ] && [ "$blocks_ok" = 2 ] &&
   grep -qx '# interval 1: [0-9]* samples' $WORK/c.folded &&
   grep -qx '# interval 2: [0-9]* samples' $WORK/c.folded &&
   grep -q '^strobe profile: [0-9]* samples in 2 refreshes' $WORK/c.err; then
	pass profile-interval-count-folded
else fail profile-interval-count-folded "rc=$rc heads=$heads blocks=$blocks_ok $(head -c 300 $WORK/c.err)"; fi
kill $HP 2>/dev/null; wait $HP 2>/dev/null; HP=

# 3. errors: one line each, usage status
$STROBE profile --count 2 -d 1 > /dev/null 2> $WORK/e1.err
r1=$?
$STROBE profile --interval 1 -o $WORK/x.svg -d 1 > /dev/null 2> $WORK/e2.err
r2=$?
$STROBE profile --interval 0.01 -d 1 > /dev/null 2> $WORK/e3.err
r3=$?
if [ $r1 = 2 ] && grep -qx "strobe profile: --count needs --interval" $WORK/e1.err &&
   [ $r2 = 2 ] && [ "$(wc -l < $WORK/e2.err)" = 1 ] && ! [ -e $WORK/x.svg ] &&
   [ $r3 = 2 ] && grep -qx "strobe profile: bad interval '0.01' (seconds, 0.1 to 3600)" $WORK/e3.err; then
	pass profile-interval-errors
else fail profile-interval-errors "r1=$r1 r2=$r2 r3=$r3 $(cat $WORK/e1.err $WORK/e2.err $WORK/e3.err | tr '\n' ' ')"; fi

[ "$(tracefs_state)" = "$BEFORE" ] && pass profile-interval-tracefs-untouched ||
	fail profile-interval-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
