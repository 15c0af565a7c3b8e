# 40-containers.sh - attribution to real containers (podman + runc, a
# busybox rootfs holding the static getppid_n).  Two containers, alpha and
# beta, make known numbers of getppid calls while a host process makes its
# own; the recordings must attribute exactly those numbers to alpha and beta
# by name, with -c follow only alpha (a child forked after the start
# included), and still name both after they were removed.
#
# Counting: the kernel filter comm == "getppid_n" keeps only calls made
# after the exec of getppid_n (busybox sh makes getppid calls of its own),
# and the host process is told apart by its PID (other getppid_n may run on
# a busy host).  Covered layout: podman, cgroupfs driver, /libpod_parent/
# libpod-<id> (v1 and v2 side by side here); the other runtimes' layouts are
# covered by the path tables of tests/unit/test_model_cgroup.c.
. "$(dirname "$0")/lib.sh"
need_tracefs containers
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip containers "podman, runc or busybox-static not installed"
	exit 0
fi
before=$(tracefs_state)
A=alpha-$$
B=beta-$$
trap 'podman rm -f $A $B probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip containers "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# per-container getppid counts of a file: "NAME COUNT" lines, plus "pid:N COUNT"
# for host events (so the host helper's own calls can be picked out)
counts() {
	$STROBE report -i "$1" --json -e sys_enter_getppid | python3 -c '
import sys, json, collections
c = collections.Counter()
for l in sys.stdin:
    o = json.loads(l)
    k = o.get("container", "?")
    c["pid:%d" % o["pid"] if k == "host" else k] += 1
for k, v in sorted(c.items()):
    print(k, v)'
}
REC="-e syscalls:sys_enter_getppid -f comm==\"getppid_n\" -b 8192"

# 1. whole system: alpha 1500, beta 2500, host 700, each by name; the
# containers start while it records, once it traces, and it ends after
# they exited (two podman runs take seconds on a fresh host)
F=$WORK/sys.dat
$STROBE record -q $REC -o $F -d 120 & SP=$!
tracing_started $SP
run_ct -d $A 'sleep 1; getppid_n 1500'
run_ct -d $B 'sleep 1; getppid_n 2500'
$HELPERS/getppid_n 700 & HP=$!
wait $HP
ct_wait_gone $A $B
kill -INT $SP
wait $SP; rc=$?
c=$(counts $F)
if [ $rc = 0 ] && echo "$c" | grep -qx "$A 1500" && echo "$c" | grep -qx "$B 2500" &&
   echo "$c" | grep -qx "pid:$HP 700"; then pass containers-system-wide-exact-counts-by-name
else fail containers-system-wide-exact-counts-by-name "rc=$rc $(echo $c)"; fi

# 2. -c alpha: alpha's tasks only, a child forked after the start included.
# The containers wait for /go (in their shared root file system), made
# once the recording is on, and the recording ends after they exited: no
# sleep decides whether the work falls inside it, however slow the host.
podman rm -f $A $B >/dev/null 2>&1
rm -f $ROOTFS/go
run_ct -d $A 'while [ ! -e /go ]; do sleep 0.1; done; getppid_n --fork 1200; sleep 0.3'
run_ct -d $B 'while [ ! -e /go ]; do sleep 0.1; done; getppid_n 2500; sleep 0.3'
F=$WORK/c.dat
$STROBE record -q -c $A $REC -o $F -d 60 & SP=$!
tracing_started $SP
touch $ROOTFS/go
$HELPERS/getppid_n 700
ct_wait_gone $A $B
kill -INT $SP
wait $SP; rc=$?
rm -f $ROOTFS/go
c=$($STROBE report -i $F --json -e sys_enter_getppid | python3 -c '
import sys, json, collections
c = collections.Counter()
for l in sys.stdin:
    o = json.loads(l); c[(o.get("container"), o["pid"])] += 1
print(" ".join("%s:%d" % (k[0], v) for k, v in sorted(c.items())))')
if [ $rc = 0 ] && [ "$c" = "$A:1200 $A:1200" ]; then pass containers-record-c-only-that-container-with-late-child
else fail containers-record-c-only-that-container-with-late-child "rc=$rc got '$c'"; fi
out=$($STROBE record -q -c no-such-$$ -o $WORK/x.dat -d 1 2>&1)
if [ $? != 0 ] && [[ "$out" == *"no running container 'no-such-$$' (running:"* ]]; then
	pass containers-record-c-unknown-lists-running
else fail containers-record-c-unknown-lists-running "$out"; fi

# 3. after removal: the files still name both, and ps -i lists them
sleep 0.5
podman rm -f $A $B >/dev/null 2>&1
c2=$(counts $WORK/sys.dat)
ps=$($STROBE ps -i $WORK/sys.dat)
if [ "$c2" = "$(counts $WORK/sys.dat)" ] && echo "$c2" | grep -qx "$A 1500" &&
   echo "$ps" | grep -q " $A " && echo "$ps" | grep -q " $B "; then
	pass containers-names-survive-removal
else fail containers-names-survive-removal "$(echo $c2)"; fi
n=$($STROBE report -i $WORK/sys.dat --container $B -e sys_enter_getppid | grep -c sys_enter_getppid)
[ "$n" = 2500 ] && pass containers-report-container-filter || fail containers-report-container-filter "n=$n"
n=$($STROBE report -i $WORK/sys.dat --filter "\$evt.container == \"$B\" && \$evt.\$name == \"sys_enter_getppid\"" | grep -c sys_enter_getppid)
[ "$n" = 2500 ] && pass containers-report-filter-expression-on-container ||
	fail containers-report-filter-expression-on-container "n=$n"
n=$($STROBE report -i $WORK/sys.dat --columns container -e sys_enter_getppid | grep -c "^$A ")
[ "$n" = 1500 ] && pass containers-report-container-column || fail containers-report-container-column "n=$n"
if diff <($STROBE report -i $WORK/sys.dat) <(trace-cmd report $WORK/sys.dat 2>/dev/null) >/dev/null; then
	pass containers-file-text-still-equals-trace-cmd
else fail containers-file-text-still-equals-trace-cmd; fi

[ -z "$(podman ps -aq --filter name=$A --filter name=$B)" ] && pass containers-none-left ||
	fail containers-none-left
[ "$(tracefs_state)" = "$before" ] && pass containers-tracefs-unchanged || fail containers-tracefs-unchanged
