# 53-writeback-container.sh - block IO the kernel writes back is charged
# to the container that dirtied the pages (strobe-io(1), "Writeback").
# A real container (podman + runc, busybox rootfs) writes 24 MiB with a
# buffered busybox dd to a folder bind-mounted from the host and exits;
# the host then runs sync, so the flusher kworkers write the pages.  In a
# whole-system recording with the io preset, at least 90% of those 24 MiB
# must be charged to the container by name in io.block (as writeback
# bytes), and no more than was written plus 1 MiB.  The same with
# `dd conv=fsync` inside the container (the container's dd queues the
# requests itself: direct bytes).  The folder lives on a disk-backed
# filesystem (a tmpfs has no block IO).
. "$(dirname "$0")/lib.sh"
need_tracefs writeback-container
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	skip writeback-container "podman, runc or busybox-static not installed"
	exit 0
fi
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
SPS=
C=wb-$$
# a folder on a block device: the test's own, unless it is on tmpfs
DATA=$WORK/data
mkdir -p $DATA
if [ "$(stat -f -c %T $DATA)" = tmpfs ]; then
	DATA=$(mktemp -d /var/tmp/strobe-wb.XXXXXX)
fi
trap 'podman rm -f $C probe-$$ >/dev/null 2>&1; rm -rf "$WORK"; [ "${DATA#$WORK}" = "$DATA" ] && rm -rf "$DATA"' EXIT
case $(stat -f -c %T $DATA) in
tmpfs|ramfs|overlayfs|fuseblk|nfs*)
	skip writeback-container "$DATA is on $(stat -f -c %T $DATA): no block IO to attribute"
	exit 0;;
esac

MIB=24 BYTES=$((24 * 1048576))
make_rootfs
mkdir -p $ROOTFS/out
for l in dd rm; do ln -s busybox $ROOTFS/bin/$l; done
if ! run_ct probe-$$ 'true'; then
	skip writeback-container "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# record OUT DDOPTS: the container writes $MIB MiB to /out/f (the host's
# $DATA/f) with dd DDOPTS and exits; the host syncs; then the recording stops
record() {
	local out=$1 opts=$2 sp i
	rm -f $ROOTFS/go $DATA/done $DATA/f
	sync
	$PODMAN run -d --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		-v $DATA:/out --name $C --rootfs $ROOTFS /bin/sh -c \
		"while [ ! -e /go ]; do sleep 0.02; done
		 dd if=/dev/zero of=/out/f bs=1M count=$MIB $opts 2>/dev/null; echo > /out/done" \
		>/dev/null 2>$WORK/podman.err || return 1
	$STROBE record -o $out -b 8192 -d 40 --preset io > $out.stdout 2> $out.stderr & sp=$!
	SPS="$SPS $sp"
	tracing_started $sp
	sleep 0.3	# a /proc scan sees the container's tasks before they dirty
	touch $ROOTFS/go
	for i in $(seq 300); do [ -e $DATA/done ] && break; sleep 0.1; done
	for i in $(seq 100); do podman container exists $C || break; sleep 0.1; done
	sync
	sleep 0.3	# the last completions
	kill -INT $sp 2>/dev/null
	wait $sp && [ -e $DATA/done ]
}

# check FILE LABEL COLUMN: io.block's COLUMN bytes of the container
check() {
	local f=$1 l=$2 column=$3 lost r
	lost=$(sed -n 's/.* events, \([0-9]*\) lost.*/\1/p' $f.stderr)
	if [ "${lost:-0}" != 0 ]; then	# a cut window is not charged: not exact
		skip writeback-container-$l "$lost events lost (a busy host): figures not exact"
		return
	fi
	timeout 60 $STROBE io -i $f --group-by container --json --stats --top 0 \
		> $WORK/io.json 2> $WORK/io.err
	r=$(py 'import sys,json
c, col, want = sys.argv[2], sys.argv[3], int(sys.argv[4])
got = 0; wb = {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("table") == "io.block":
        got = sum(r[col] for r in o["rows"] if r["container"] == c)
    if o.get("table") == "io.writeback":
        wb = {k: sum(r[k] for r in o["rows"]) for k in ("bytes", "charged_bytes", "unattributed_bytes")}
ok = 0.9 * want <= got <= want + 1048576
print("%s%s %d of %d bytes (%.1f%%); kernel writeback %s" % ("ok: " if ok else "", col, got, want, 100.0 * got / want, wb))' \
		$WORK/io.json $C $column $BYTES)
	echo "  $l: ${r#ok: }"
	[ "${r#ok: }" != "$r" ] && pass writeback-container-$l ||
		fail writeback-container-$l "$r; $(head -3 $WORK/io.err | tr '\n' ' ')"
}

F=$WORK/sync.dat
if record $F ""; then check $F buffered-then-host-sync-charged-to-container writeback_bytes
else fail writeback-container-record-sync "$(tail -2 $F.stderr) $(head -1 $WORK/podman.err)"; fi

F=$WORK/fsync.dat
if record $F conv=fsync; then check $F fsync-in-container-charged-to-container bytes
else fail writeback-container-record-fsync "$(tail -2 $F.stderr) $(head -1 $WORK/podman.err)"; fi

podman rm -f $C >/dev/null 2>&1
left=
for p in $SPS; do [ -e $TRACEFS/instances/strobe-$p ] && left="$left strobe-$p"; done
[ "$(state)" = "$before" ] && [ -z "$left" ] && pass writeback-container-tracefs-unchanged ||
	fail writeback-container-tracefs-unchanged "$(diff <(echo "$before") <(state))$left"
