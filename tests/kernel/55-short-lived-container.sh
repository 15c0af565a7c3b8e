# 55-short-lived-container.sh - containers that live a fraction of a
# second keep their names (lib/model/watch.c).  During a whole-system
# recording, N real containers (podman + runc, busybox rootfs, `--rm`) run
# one after another, each a sub-second job (getppid_n makes a known number
# of getppid calls) whose runtime metadata is deleted when it exits.
# After the recording, with every container gone:
#   - strobe ps -i names each one (not its short ID) and shows the job's
#     namespaced PID (1: it is the container's init), never its host PID;
#   - strobe syscalls --group-by container counts each one's getppid calls
#     under its name;
#   - strobe report --columns container prints its name on its events.
# Before the watcher, a container that started and stopped between two of
# the recorder's /proc scans (250 ms apart) appeared by its short ID.
# Not timing-dependent: the recording runs until every container is done
# and removed, however long a loaded machine takes (8 took 65 s at load
# 13); its --duration only bounds a test gone wrong.  The counts are
# exact, so no event may be lost: the system calls of the whole machine
# under a loaded make check (`yes >/dev/null` makes a million a second)
# overran an 8 MiB buffer while the recorder waited for a CPU (99376
# events of 29 M once), so the buffer is 64 MiB per CPU (within strobe's
# 256 MiB over all CPUs).
. "$(dirname "$0")/lib.sh"
need_tracefs short-lived-container
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip short-lived-container "podman, runc or busybox-static not installed"
	exit 0
fi
before=$(tracefs_state)
N=${SHORT_LIVED_N:-8}
P=writer$$-
trap 'for i in $(seq $N); do podman rm -f $P$i >/dev/null 2>&1; done
      podman rm -f probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip short-lived-container "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# the recording: syscalls (as a new user would), N containers, each
# running its job straight (no shell), 100 + i getppid calls
F=$WORK/short.dat
KB=$((262144 / $(ls -d $TRACEFS/per_cpu/cpu* | wc -l)))
[ $KB -gt 65536 ] && KB=65536
$STROBE record -q --preset syscalls -b $KB -o $F -d 1800 & SP=$!
tracing_started $SP
sleep 0.2
tids=$(ls /proc/$SP/task | paste -sd,)	# strobe's threads, the watcher's too
t0=$(date +%s.%N)
for i in $(seq $N); do
	$PODMAN run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--name $P$i --rootfs $ROOTFS /bin/getppid_n $((100 + i)) >/dev/null 2>$WORK/podman.err
done
t1=$(date +%s.%N)
sleep 0.3
kill -INT $SP
wait $SP; rc=$?
left=$(podman ps -aq --filter name=$P | wc -l)
echo "  $N containers in $(echo "$t1 - $t0" | bc) s, recording rc=$rc, containers left: $left"

# ps -i: one line per container's job: "NSPID CONTAINER" of getppid_n
ps=$($STROBE ps -i $F | awk '$4 == "getppid_n" { print $3, $5 }' | sort -u)
bad=
for i in $(seq $N); do
	echo "$ps" | grep -qx "1 $P$i" || bad="$bad $P$i"
done
if [ $rc = 0 ] && [ $left = 0 ] && [ -z "$bad" ]; then
	pass short-lived-named-in-ps-with-nspid-1
else
	fail short-lived-named-in-ps-with-nspid-1 "missing:$bad; getppid_n lines: $(echo $ps)"
fi

# report --columns container: the name on each container's getppid
# events (raw sys_enter NR 110 on x86_64, as the preset records them): at
# least the job's 100 + i (runc's init makes a few of its own before it
# execs the job, under the same tid)
all=$($STROBE report -i $F --columns container -e sys_enter | grep 'sys_enter: *NR 110 (' |
	awk '{ print $1 }' | sort | uniq -c | awk '{ print $2, $1 }')
bad=
for i in $(seq $N); do
	n=$(echo "$all" | awk -v c=$P$i '$1 == c { print $2 }')
	[ -n "$n" ] && [ "$n" -ge $((100 + i)) ] && [ "$n" -le $((110 + i)) ] || bad="$bad $P$i"
done
[ -z "$bad" ] && pass short-lived-named-in-report-columns-container ||
	fail short-lived-named-in-report-columns-container "missing:$bad; got: $(echo $all | head -c 600)"

# syscalls --group-by container: NAME getppid COUNT, as many as the report
sc=$($STROBE syscalls -i $F --group-by container --top 0 2>&1 | awk '$2 == "getppid" { print $1, $3 }')
bad=
for i in $(seq $N); do
	n=$(echo "$all" | awk -v c=$P$i '$1 == c { print $2 }')
	[ -n "$n" ] && echo "$sc" | grep -qx "$P$i $n" || bad="$bad $P$i"
done
[ -z "$bad" ] && pass short-lived-named-in-syscalls-group-by-container ||
	fail short-lived-named-in-syscalls-group-by-container "missing:$bad; got: $(echo $sc)"

# the watcher's own reads (inotify, cgroup.procs, /proc, metadata) are
# not in the file, as no other strobe thread's are
own=$($STROBE report -i $F -e sys_enter --pid $tids | grep -c 'sys_enter:')
[ "$own" = 0 ] && [ -n "$tids" ] && pass short-lived-watcher-not-in-trace ||
	fail short-lived-watcher-not-in-trace "$own system calls of strobe's threads $tids"

[ "$(tracefs_state)" = "$before" ] && pass short-lived-tracefs-unchanged ||
	fail short-lived-tracefs-unchanged
