#!/bin/bash
# 86-profile.sh - strobe profile on the real kernel and real containers:
# a busy static program that exists only inside a busybox container's
# root file system (profile_work, renamed busyprof; no copy on the host)
# is profiled with `strobe profile -c NAME --folded`: at least 60% of the
# samples end in its hot function, named (through the container's root),
# under the container and the command at the root of every stack; `perf
# record -g` + `perf report` of the same workload finds the same top 3
# functions, each share within 5 points; the flame graph (-o) is
# well-formed SVG with the container at the root; `-p PID` of a host
# process; a `-- CMD` profile of a dynamically linked program names its
# libc frames (through its maps, with the libc debug file when present);
# bad targets and options fail with one line; tracefs is left as found
# and no container remains.
. "$(dirname "$0")/lib.sh"
need_tracefs profile
BEFORE=$(tracefs_state)
C=strobe-prof-$$
trap '$PODMAN rm -f -t 0 $C probe-$$ >/dev/null 2>&1; [ -n "$HP" ] && kill $HP 2>/dev/null; rm -rf "$WORK"' EXIT

# shares FOLDED: "function percent" of the stacks' leaves, largest first
shares() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n; t += n }
	     END { for (x in s) printf "%s %.2f\n", x, 100 * s[x] / t }' "$1" | sort -k2 -rn
}

make_rootfs
cp $HELPERS/profile_work $ROOTFS/bin/busyprof
if ! run_ct probe-$$ 'true'; then
	skip profile "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# 1. the container-only binary, profiled by container name
if [ -e /bin/busyprof ] || command -v busyprof >/dev/null; then
	fail profile-binary-only-in-container "busyprof exists on the host"
fi
run_ct -d $C '/bin/busyprof 60'
CPID=
for i in $(seq 100); do
	CPID=$($PODMAN inspect -f '{{.State.Pid}}' $C 2>/dev/null)
	[ -n "$CPID" ] && [ "$CPID" != 0 ] && grep -q busyprof /proc/$CPID/comm 2>/dev/null && break
	sleep 0.05
done
timeout 60 $STROBE profile -c $C -F 999 -d 4 --folded > $WORK/ct.folded 2> $WORK/ct.err
rc=$?
shares $WORK/ct.folded > $WORK/ct.shares
hot=$(awk '$1 == "hot_loop" {print int($2)}' $WORK/ct.shares)
if [ $rc = 0 ] && [ -n "$hot" ] && [ "$hot" -ge 60 ]; then
	pass profile-container-hot-function-named
else fail profile-container-hot-function-named "rc=$rc hot=$hot% $(head -3 $WORK/ct.shares | tr '\n' ' ') $(head -c 300 $WORK/ct.err)"; fi
# every stack starts with the container and the command; main calls the loops
if [ -s $WORK/ct.folded ] && ! grep -qv "^$C;busyprof;" $WORK/ct.folded &&
   grep -q ';main;hot_loop [0-9]*$' $WORK/ct.folded; then
	pass profile-container-stacks-rooted
else fail profile-container-stacks-rooted "$(grep -v "^$C;busyprof;" $WORK/ct.folded | head -2) $(grep hot_loop $WORK/ct.folded | head -1)"; fi

# 2. perf on the same workload: the same top 3, each within 5 points
if perf record -q -F 999 -g -o $WORK/perf.data -p $CPID -- sleep 4 > $WORK/perf.err 2>&1 &&
   perf report -i $WORK/perf.data --no-children --sort sym -g none -q --stdio 2>/dev/null |
	awk '$1 ~ /%$/ && $2 ~ /^\[/ { sub(/%/, "", $1); print $3, $1 }' | head -3 > $WORK/perf.top &&
   [ -s $WORK/perf.top ] && grep -q hot_loop $WORK/perf.top; then
	head -3 $WORK/ct.shares > $WORK/strobe.top
	echo "# self shares, strobe: $(tr '\n' ' ' < $WORK/strobe.top)perf: $(tr '\n' ' ' < $WORK/perf.top)"
	if py 'import sys
a = dict(l.split() for l in open(sys.argv[1]))
b = dict(l.split() for l in open(sys.argv[2]))
bad = [k for k in a if k not in b or abs(float(a[k]) - float(b[k])) > 5]
sys.exit(1 if bad or len(a) != 3 else 0)' $WORK/perf.top $WORK/strobe.top; then
		pass profile-top3-as-perf
	else fail profile-top3-as-perf "perf: $(tr '\n' ' ' < $WORK/perf.top) strobe: $(tr '\n' ' ' < $WORK/strobe.top)"; fi
else
	skip profile-top3-as-perf "perf cannot profile the container here: $(head -c 200 $WORK/perf.err)"
fi

# 3. the flame graph: well-formed SVG, the container at the root
timeout 60 $STROBE profile -q -c $C -d 1 -o $WORK/ct.svg 2> $WORK/svg.err
rc=$?
if [ $rc = 0 ] && py 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
names = [g.get("data-name") for g in r.iter(ns + "g") if g.get("class") == "f"]
sys.exit(0 if sys.argv[2] in names and "hot_loop" in names else 1)' $WORK/ct.svg $C; then
	pass profile-svg-container-root
else fail profile-svg-container-root "rc=$rc $(head -c 300 $WORK/svg.err)"; fi
$PODMAN rm -f -t 0 $C >/dev/null 2>&1

# 4. -p PID: a host process, by PID
$HELPERS/profile_work 30 & HP=$!
timeout 60 $STROBE profile -p $HP -F 999 -d 2 --folded > $WORK/pid.folded 2> $WORK/pid.err
rc=$?
kill $HP 2>/dev/null; wait $HP 2>/dev/null; HP=
hot=$(shares $WORK/pid.folded | awk '$1 == "hot_loop" {print int($2)}')
if [ $rc = 0 ] && [ -n "$hot" ] && [ "$hot" -ge 60 ] && ! grep -qv '^host;profile_work;' $WORK/pid.folded; then
	pass profile-pid
else fail profile-pid "rc=$rc hot=$hot $(head -2 $WORK/pid.folded) $(head -c 200 $WORK/pid.err)"; fi

# 5. -- CMD, dynamically linked: libc's frames are named
timeout 60 $STROBE profile -F 999 --json -- $HELPERS/profile_libc 3 > $WORK/libc.json 2> $WORK/libc.err
rc=$?
if [ $rc = 0 ] && py 'import sys, json, re
d = json.load(open(sys.argv[1]))
rows = d["functions"]["rows"]
libc = [r for r in rows if r["module"].startswith("libc.so")]
named = [r for r in libc if not r["function"].startswith("[unknown]")]
self_named = sum(r["self_pct"] for r in named)
ok = d["samples"] > 0 and self_named >= 20 and any(re.search("qsort|msort", r["function"]) for r in named)
if not ok:
    print(self_named, [(r["function"], r["self_pct"]) for r in libc][:6], file=sys.stderr)
sys.exit(0 if ok else 1)' $WORK/libc.json 2> $WORK/libc.why; then
	pass profile-command-libc-named
else fail profile-command-libc-named "rc=$rc $(head -c 300 $WORK/libc.why) $(head -c 200 $WORK/libc.err)"; fi

# 6. errors: one line each
$STROBE profile -c no-such-container-$$ -d 1 > /dev/null 2> $WORK/e1.err
r1=$?
$STROBE profile -e bogus -d 1 > /dev/null 2> $WORK/e2.err
r2=$?
$STROBE profile --folded --json -d 1 > /dev/null 2> $WORK/e3.err
r3=$?
if [ $r1 = 1 ] && grep -qx "strobe profile: no running container 'no-such-container-$$'" $WORK/e1.err &&
   [ $r2 = 2 ] && grep -q "^strobe profile: unknown event 'bogus'" $WORK/e2.err &&
   [ $r3 = 2 ] && [ "$(wc -l < $WORK/e3.err)" = 1 ]; then
	pass profile-errors
else fail profile-errors "r1=$r1 r2=$r2 r3=$r3 $(cat $WORK/e1.err $WORK/e2.err $WORK/e3.err | tr '\n' ' ')"; fi

[ "$(tracefs_state)" = "$BEFORE" ] && pass profile-tracefs-untouched ||
	fail profile-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
if $PODMAN ps -a --format '{{.Names}}' | grep -q "^$C$"; then
	fail profile-no-container-left "$C"
else pass profile-no-container-left; fi
