# 92-self-exclusion.sh - a plain whole-system `strobe record` leaves
# strobe's own threads out of the system-call events only, so it keeps
# every block completion of a container's dd, even one whose interrupt
# arrives while a strobe thread runs (issue 27).
#
# strobe used to leave its threads out with set_event_notrace_pid, which
# drops every event whose current task is one of them, interrupts
# included: 1 to 47 of 512 completions were missing (see
# 88-runqlat-biolatency.sh).  Now each enabled syscall event gets the
# filter "common_pid != T" for each strobe thread T, and system calls run
# only in their own task's context.
#  - while recording: set_event_notrace_pid of strobe's instance is
#    empty, and the filter of raw_syscalls:sys_enter is the one given with
#    -f, ANDed with "common_pid != T" for every thread of strobe record
#    (from /proc/PID/task: its main thread, the per-CPU readers, the
#    /proc watcher);
#  - the recording holds no raw_syscalls event of those threads (strobe
#    splices pages all the time: -f 'id == 275 || id == 7', splice and
#    poll, would record thousands of them);
#  - busybox dd writes then reads 256 blocks of 4 KiB with O_DIRECT in a
#    container (gated by FIFOs, as in 88-runqlat-biolatency.sh): every
#    request it issued (at least 512) has its block_rq_complete in the
#    recording, whatever the current task when it completed, and the
#    recording lost no event.
. "$(dirname "$0")/lib.sh"
need_tracefs self-exclusion
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip self-exclusion "podman, runc or busybox-static not installed"
	exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
	skip self-exclusion "the syscall numbers used here are x86_64's"
	exit 0
fi
before=$(tracefs_state)
C=selfex-$$
PIDS=
DATA=$WORK/data
mkdir -p $DATA
if [ "$(stat -f -c %T $DATA)" = tmpfs ]; then
	DATA=$(mktemp -d /var/tmp/strobe-selfex.XXXXXX)
fi
cleanup() {
	local p
	for p in $PIDS; do kill -INT $p 2>/dev/null; done
	for p in go end; do [ -p $ROOTFS/$p ] && timeout 1 sh -c "echo > $ROOTFS/$p" 2>/dev/null; done
	podman rm -f $C probe-$$ >/dev/null 2>&1
	[ -n "$KEEP" ] && cp -r $WORK/*.dat $WORK/*.txt $KEEP/ 2>/dev/null
	rm -rf "$WORK"
	[ "${DATA#$WORK}" = "$DATA" ] && rm -rf "$DATA"
}
trap cleanup EXIT
case $(stat -f -c %T $DATA) in
tmpfs|ramfs|overlayfs|fuseblk|nfs*)
	skip self-exclusion "$DATA is on $(stat -f -c %T $DATA): no block IO"
	exit 0;;
esac

make_rootfs
ln -s busybox $ROOTFS/bin/dd
mkdir -p $ROOTFS/out
if ! run_ct probe-$$ 'true'; then
	skip self-exclusion "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

rm -f $ROOTFS/go $ROOTFS/end $ROOTFS/done
mkfifo $ROOTFS/go $ROOTFS/end
DD="dd if=/dev/zero of=/out/f bs=4096 count=256 oflag=direct 2>/dev/null; dd if=/out/f of=/dev/null bs=4096 iflag=direct 2>/dev/null"
if ! $PODMAN run -d --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
	-v $DATA:/out --name $C --rootfs $ROOTFS /bin/sh -c \
	"read x < /go; $DD; echo > /done; read x < /end" >/dev/null 2>$WORK/podman.err; then
	fail self-exclusion-container "$(head -2 $WORK/podman.err)"
	exit 0
fi

F=$WORK/rec.dat
FILTER='id == 275 || id == 7'
$STROBE record -e block:block_rq_issue -e block:block_rq_complete \
	-e sched:sched_switch -e sched:sched_wakeup \
	-e raw_syscalls:sys_enter -f "$FILTER" -b 8192 -o $F > $WORK/rec.out 2> $WORK/rec.err & rp=$!
PIDS=$rp
I=$TRACEFS/instances/strobe-$rp
ok=0
tracing_started $rp && ok=1
sleep 0.3	# the /proc watcher and the readers run
tids=$(ls /proc/$rp/task 2>/dev/null | sort -n | tr '\n' ' ')
filter=$(cat $I/events/raw_syscalls/sys_enter/filter 2>/dev/null)
notrace=$(cat $I/set_event_notrace_pid 2>/dev/null)
echo > $ROOTFS/go
for i in $(seq 600); do [ -e $ROOTFS/done ] && break; sleep 0.1; done
[ -e $ROOTFS/done ] || ok=0
sleep 0.5
kill -INT $rp
wait $rp; rrc=$?
PIDS=
echo > $ROOTFS/end
for i in $(seq 100); do podman container exists $C || break; sleep 0.1; done
if [ $ok = 1 ] && [ $rrc = 0 ]; then
	pass self-exclusion-record-ran
else
	fail self-exclusion-record-ran "started/done $ok, record exit $rrc ($(head -3 $WORK/rec.err))"
	exit 0
fi

# the instance's filter: the user's, ANDed with every strobe thread
r=$(py '
import re, sys
filt, tids, notrace, user = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
why = []
if notrace.strip(): why.append("set_event_notrace_pid is %r" % notrace)
m = re.match(r"^\((.*)\) && (common_pid != \d+(?: && common_pid != \d+)*)$", filt)
if not m: why.append("filter %r is not (USER) && common_pid != ..." % filt)
else:
    if m.group(1) != user: why.append("the user filter became %r" % m.group(1))
    got = set(re.findall(r"common_pid != (\d+)", m.group(2)))
    if not set(tids) <= got: why.append("threads %s not excluded (filter has %s)" % (sorted(set(tids) - got), sorted(got)))
    if len(tids) < 3: why.append("only %d strobe threads: %s" % (len(tids), tids))
print("; ".join(why) or "ok")' "$filter" "$tids" "$notrace" "$FILTER")
[ "$r" = ok ] && pass self-exclusion-filter-names-every-strobe-thread ||
	fail self-exclusion-filter-names-every-strobe-thread "$r"

$STROBE report -i $F > $WORK/rec.txt 2> $WORK/report.err
r=$(py '
import re, sys
tids = set(int(t) for t in sys.argv[2].split())
own = other = 0
issued, done = set(), set()
for l in open(sys.argv[1]):
    m = re.match(r"\s*(\S+)-(\d+)\s+\[\d+\]\s+\S+\s+(\w+):\s+(.*)", l)
    if not m: continue
    pid, ev, rest = int(m.group(2)), m.group(3), m.group(4)
    if ev == "sys_enter":
        if pid in tids: own += 1
        else: other += 1
    m2 = re.match(r"(\S+)\s+(\S+)\s+(.*)", rest)
    if ev in ("block_rq_issue", "block_rq_complete") and m2:
        f = m2.group(3).split()
        key = (m2.group(1), m2.group(2)[:1] if m2.group(2)[:1] in "RW" else m2.group(2),
               f[2] if ev == "block_rq_issue" else f[1])
        if ev == "block_rq_issue":
            if l.rstrip().endswith("[dd]"): issued.add(key)
        else:
            done.add(key)
missing = sorted(issued - done)
print("%d %d %d %d %s" % (own, other, len(issued), len(missing), missing[:3]))' $WORK/rec.txt "$tids")
set -- $r
lost=$(sed -n 's/.* \([0-9][0-9]*\) lost$/\1/p' $WORK/rec.err | head -1)
[ "$1" = 0 ] && pass self-exclusion-no-syscalls-of-strobe-threads ||
	fail self-exclusion-no-syscalls-of-strobe-threads "$1 sys_enter events of strobe's threads ($tids), $2 of others"
if [ "${3:-0}" -ge 512 ] && [ "$4" = 0 ] && [ "$lost" = 0 ]; then
	pass self-exclusion-every-dd-completion-recorded
else
	fail self-exclusion-every-dd-completion-recorded "dd issued ${3:-?} requests (want >= 512), ${4:-?} without a completion (${*:5}), lost '$lost'; $(tail -2 $WORK/rec.err)"
fi

tracefs_same "$before" "$(tracefs_state)" && pass self-exclusion-tracefs-restored ||
	fail self-exclusion-tracefs-restored "top-level tracefs settings changed"
