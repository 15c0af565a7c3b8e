#!/bin/bash
# 89-uprobe.sh - user-space probes in containers on the real kernel: a
# static program present only inside a busybox container's root file
# system (uprobe_work, as /bin/helper; no such file on the host) calls
# work() exactly N times and passes its own USDT probe uprobe_work:tick
# while the probe's semaphore is set; `strobe record -c NAME --uprobe
# /bin/helper:work ...` records exactly N entries for that one thread in
# that container, with arg1 = 0..N-1, N returns with $retval = 3i+1,
# and N USDT hits (the kernel set the semaphore: the program saw it) with
# their note's arguments; strobe report and trace-cmd report read the
# file, --filter and --period use the probes' fields; `strobe probe --list` shows the function and the USDT probe; no
# definition is left in uprobe_events after a normal end, SIGINT,
# SIGTERM, SIGKILL (the guardian), and SIGKILL of strobe and its
# guardian (the next start removes it); a bad path, a missing function
# and a file that is not ELF give one-line errors; tracefs is left as
# found and no container remains.
. "$(dirname "$0")/lib.sh"
need_tracefs uprobe
if [ ! -e $TRACEFS/uprobe_events ]; then skip uprobe "this kernel has no uprobe_events"; exit 0; fi
BEFORE=$(tracefs_state)
C=strobe-up-$$
C2=strobe-up2-$$
C3=strobe-up3-$$
N=1000
trap 'for c in $C $C2 $C3; do $PODMAN rm -f -t 0 $c >/dev/null 2>&1; done; rm -rf "$WORK"' EXIT

make_rootfs
cp $HELPERS/uprobe_work $ROOTFS/bin/helper
echo "not a program" > $ROOTFS/bin/notelf
if [ -e /bin/helper ]; then fail uprobe-binary-only-in-container "/bin/helper exists on the host"; fi
if ! run_ct $C 'true'; then
	skip uprobe "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# defs PID: uprobe_events lines of strobe PID's group
defs() { grep -c "^[pr]:strobe_$1/" $TRACEFS/uprobe_events; }
# wait_on PID NDEFS: until strobe PID traces with its NDEFS probes
# defined (or 20 s).  A new instance reads tracing_on 1 until strobe turns
# it off, before it defines anything: the definitions come first here.
wait_on() {
	local i
	for i in $(seq 200); do
		[ "$(defs $1)" -ge "$2" ] &&
			[ "$(cat $TRACEFS/instances/strobe-$1/tracing_on 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

# 1. record the container-only program by container name
rm -f $ROOTFS/go $ROOTFS/result
run_ct -d $C "/bin/helper $N /go > /result; sleep 0.3"
F=$WORK/up.dat
$STROBE record -q -c $C -e sched:sched_process_exit -o $F -d 60 \
	--uprobe '/bin/helper:work arg1' --uprobe '/bin/helper:work%return $retval' \
	--usdt /bin/helper:uprobe_work:tick 2> $WORK/rec.err & SP=$!
wait_on $SP 3
ndef=$(defs $SP)
touch $ROOTFS/go
timeout 60 $PODMAN wait $C >/dev/null 2>&1
kill -INT $SP
wait $SP; rc=$?
if [ "$ndef" = 3 ]; then pass uprobe-defined-in-own-group
else fail uprobe-defined-in-own-group "strobe_$SP lines: $ndef; $(cat $TRACEFS/uprobe_events | head -3)"; fi
if [ $rc = 0 ] && [ "$(cat $ROOTFS/result)" = "calls=$N usdt=$N" ]; then pass uprobe-record-container
else fail uprobe-record-container "rc=$rc result='$(cat $ROOTFS/result 2>/dev/null)' $(head -c 300 $WORK/rec.err)"; fi
[ "$(defs $SP)" = 0 ] && pass uprobe-none-left-after-sigint ||
	fail uprobe-none-left-after-sigint "$(grep strobe_$SP $TRACEFS/uprobe_events | head -2)"

# the events: one thread of that container, exact counts and values
$STROBE report -i $F --json -e "strobe_$SP:*" > $WORK/up.json 2> $WORK/rep.err
if py 'import sys, json
N = int(sys.argv[2]); C = sys.argv[3]
ev = {}
tids = set()
for l in open(sys.argv[1]):
    o = json.loads(l)
    ev.setdefault(o["event"], []).append(o["fields"])
    tids.add((o["container"], o["pid"]))
ok = (len(tids) == 1 and list(tids)[0][0] == C and
      sorted(f["arg1"] for f in ev.get("work", [])) == list(range(N)) and
      sorted(f["retval"] for f in ev.get("work__return", [])) == [3 * i + 1 for i in range(N)] and
      sorted(f["arg1"] for f in ev.get("uprobe_work_tick", [])) == list(range(N)) and
      set(f["arg2"] for f in ev.get("uprobe_work_tick", [])) == {N})
if not ok:
    print({k: len(v) for k, v in ev.items()}, tids, file=sys.stderr)
sys.exit(0 if ok else 1)' $WORK/up.json $N $C 2> $WORK/py.err; then
	pass uprobe-exact-counts-args-retval-usdt
else fail uprobe-exact-counts-args-retval-usdt "$(cat $WORK/py.err $WORK/rep.err | head -c 400)"; fi
n=$($STROBE report -i $F -e "strobe_$SP:work" | grep -c ' work: ')
t=$(trace-cmd report -i $F 2>/dev/null | grep -c ' work: .*arg1=')
if [ "$n" = $N ] && [ "$t" = $N ]; then pass uprobe-report-and-trace-cmd-read-it
else fail uprobe-report-and-trace-cmd-read-it "strobe report: $n, trace-cmd report: $t"; fi
# usable in --filter
n=$($STROBE report -i $F --filter '$evt.arg1 < 10' -e "strobe_$SP:work" | grep -c ' work: ')
[ "$n" = 10 ] && pass uprobe-filter-on-argument || fail uprobe-filter-on-argument "got $n"

# usable in periods: entry to return, one period per call
n=$($STROBE periods -i $F --period 'w : $evt.$name == "work" : $evt.$name == "work__return"' \
	2> $WORK/per.err | awk '$1 == "w" {print $2}')
[ "$n" = $N ] && pass uprobe-periods-entry-to-return ||
	fail uprobe-periods-entry-to-return "got '$n' $(head -c 200 $WORK/per.err)"

# -p PID: the container's program by its host PID (its root, its calls);
# -- CMD: a host program by a path relative to strobe's directory
rm -f $ROOTFS/go3
run_ct -d $C3 "/bin/helper 500 /go3 > /result3; sleep 0.3"
HP=
for i in $(seq 100); do HP=$(pgrep -f '^/bin/helper 500 /go3$'); [ -n "$HP" ] && break; sleep 0.05; done
$STROBE record -q -p "$HP" -e sched:sched_process_exit -o $WORK/p.dat -d 60 \
	--uprobe '/bin/helper:work arg1' 2> $WORK/p.err & SP=$!
wait_on $SP 1
touch $ROOTFS/go3
wait $SP; rc=$?
c=$($STROBE report -i $WORK/p.dat --json -e "strobe_$SP:work" | py 'import sys, json, collections
c = collections.Counter()
for l in sys.stdin:
    o = json.loads(l); c[(o["container"], o["pid"])] += 1
print(" ".join("%s:%d:%d" % (k[0], k[1], v) for k, v in c.items()))')
n=$($STROBE report -i $WORK/p.dat -e "strobe_$SP:work" | grep -c ' work: ')
if [ -n "$HP" ] && [ $rc = 0 ] && [ "$n" = 500 ] && [ "$c" = "$C3:$HP:500" ]; then pass uprobe-record-pid
else fail uprobe-record-pid "pid=$HP rc=$rc n=$n by container:count '$c' $(head -c 200 $WORK/p.err)"; fi
(cd $HELPERS && $STROBE record -q -e sched:sched_process_exit -o $WORK/cmd.dat \
	--uprobe 'uprobe_work:work%return $retval' -- ./uprobe_work 300 > $WORK/cmd.out 2> $WORK/cmd.err)
rc=$?
n=$($STROBE report -i $WORK/cmd.dat -e 'strobe_*:work__return' | grep -c ' work__return: ')
if [ $rc = 0 ] && [ "$n" = 300 ] && [ "$(cat $WORK/cmd.out)" = "calls=300 usdt=0" ]; then
	pass uprobe-record-command-relative-path
else fail uprobe-record-command-relative-path "rc=$rc n=$n $(cat $WORK/cmd.out) $(head -c 200 $WORK/cmd.err)"; fi

# 2. strobe probe --list: the function and the USDT probe, through the root
run_ct -d $C2 'sleep 120'
for i in $(seq 100); do
	CPID=$($PODMAN inspect -f '{{.State.Pid}}' $C2 2>/dev/null)
	[ -n "$CPID" ] && [ "$CPID" != 0 ] && break
	sleep 0.05
done
$STROBE probe --list /bin/helper -c $C2 > $WORK/list.txt 2> $WORK/list.err
rc=$?
if [ $rc = 0 ] && grep -Eq '^ *work +0x[0-9a-f]+ +[0-9]+ +0x[0-9a-f]+$' $WORK/list.txt &&
   grep -Eq '^ *uprobe_work +tick +0x[0-9a-f]+ +0x[0-9a-f]+ +-4@%e[a-z]+ 8@[0-9]+\(%rsp\)' $WORK/list.txt; then
	pass uprobe-probe-list-container
else fail uprobe-probe-list-container "rc=$rc $(head -c 300 $WORK/list.err) $(grep -E 'work|tick' $WORK/list.txt | head -3)"; fi

# 3. SIGTERM, then SIGKILL (the guardian), then strobe and its guardian
# killed (the next start removes what they left)
$STROBE record -q -c $C2 -e sched:sched_process_exit -o $WORK/t.dat -d 60 \
	--uprobe /bin/helper:work 2> $WORK/term.err & SP=$!
wait_on $SP 1
ndef=$(defs $SP)
kill -TERM $SP; wait $SP; rc=$?
if [ $rc = 0 ] && [ "$ndef" = 1 ] && [ "$(defs $SP)" = 0 ]; then pass uprobe-none-left-after-sigterm
else fail uprobe-none-left-after-sigterm "rc=$rc defined=$ndef left=$(defs $SP) $(head -c 200 $WORK/term.err)"; fi

$STROBE record -q -c $C2 -e sched:sched_process_exit -o $WORK/k.dat -d 60 \
	--uprobe /bin/helper:work 2> /dev/null & SP=$!
wait_on $SP 1
ndef=$(defs $SP)
kill -KILL $SP; wait $SP 2>/dev/null
for i in $(seq 50); do [ "$(defs $SP)" = 0 ] && break; sleep 0.1; done
if [ "$ndef" = 1 ] && [ "$(defs $SP)" = 0 ]; then pass uprobe-none-left-after-sigkill-guardian
else fail uprobe-none-left-after-sigkill-guardian "defined=$ndef left=$(defs $SP)"; fi

$STROBE record -q -c $C2 -e sched:sched_process_exit -o $WORK/k2.dat -d 60 \
	--uprobe /bin/helper:work 2> /dev/null & SP=$!
wait_on $SP 1
G=$(pgrep -P $SP -x strobe-guard)
[ -n "$G" ] && kill -KILL $G
kill -KILL $SP; wait $SP 2>/dev/null
sleep 0.3
left=$(defs $SP)
$STROBE record -q -e sched:sched_process_exit -o $WORK/n.dat -d 0.2 2> $WORK/next.err
rc=$?
if [ -n "$G" ] && [ "$left" = 1 ] && [ $rc = 0 ] && [ "$(defs $SP)" = 0 ] &&
   [ ! -d $TRACEFS/instances/strobe-$SP ]; then
	pass uprobe-stale-removed-at-next-start
else fail uprobe-stale-removed-at-next-start "guardian='$G' left=$left after=$(defs $SP) rc=$rc $(head -c 200 $WORK/next.err)"; fi

# 4. errors: one line each, exit 1 (2 for bad usage)
err_case() {	# NAME EXPECTED-STATUS EXPECTED-TEXT ARGS...
	local name=$1 want=$2 text=$3 out
	shift 3
	out=$($STROBE record -q -o $WORK/e.dat -d 1 "$@" 2>&1 >/dev/null)
	local r=$?
	# bad usage adds "See 'strobe record --help'."
	[ "$want" = 2 ] && out=$(grep -v "^See 'strobe record --help'.$" <<<"$out")
	if [ $r = "$want" ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ "$out" == "strobe record: "*"$text"* ]]; then
		pass "$name"
	else fail "$name" "rc=$r out='$out'"; fi
}
err_case uprobe-error-no-file 1 "no file /bin/nope in the root of process" \
	-c $C2 --uprobe /bin/nope:work
err_case uprobe-error-no-function 1 "no function 'wrok' in /bin/helper in the root of process" \
	-c $C2 --uprobe /bin/helper:wrok
err_case uprobe-error-not-elf 1 "/bin/notelf is not an ELF file" -c $C2 --uprobe /bin/notelf:main
err_case uprobe-error-no-usdt 1 "no USDT probe uprobe_work:tock in /bin/helper" \
	-c $C2 --usdt /bin/helper:uprobe_work:tock
err_case uprobe-error-bad-spec 1 "bad probe '/bin/helper'" -c $C2 --uprobe /bin/helper
err_case uprobe-error-bad-fetch-arg 1 "cannot define probe" -c $C2 --uprobe '/bin/helper:work %zz'
err_case uprobe-error-missing-argument 2 "option --uprobe needs an argument" --uprobe
$STROBE probe --list /bin/nope -c $C2 > /dev/null 2> $WORK/pe.err
r=$?
if [ $r = 1 ] && [ "$(wc -l < $WORK/pe.err)" = 1 ] && grep -q '^strobe probe: no file /bin/nope' $WORK/pe.err; then
	pass uprobe-probe-list-error
else fail uprobe-probe-list-error "rc=$r $(cat $WORK/pe.err)"; fi

for c in $C $C2 $C3; do $PODMAN rm -f -t 0 $c >/dev/null 2>&1; done
[ "$(tracefs_state)" = "$BEFORE" ] && pass uprobe-tracefs-untouched ||
	fail uprobe-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
if $PODMAN ps -a --format '{{.Names}}' | grep -Eq "^($C|$C2|$C3)$"; then
	fail uprobe-no-container-left "$($PODMAN ps -a --format '{{.Names}}' | tr '\n' ' ')"
else pass uprobe-no-container-left; fi
