# lib.sh - shared by the kernel tests (sourced).  Provides pass/fail/skip,
# tracefs set-up and a check that tests leave tracefs as they found it.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STROBE=${STROBE:-$ROOT/build/strobe}
HELPERS=$ROOT/build/helpers
TRACEFS=/sys/kernel/tracing
WORK=$(mktemp -d /tmp/strobe-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
skip() { echo "SKIP $1: $2"; }

# need_tracefs NAME: skip the whole file (exit 0) when tracing is impossible.
need_tracefs() {
	if [ "$(id -u)" != 0 ]; then skip "$1" "not root"; exit 0; fi
	if [ ! -e $TRACEFS/instances ]; then
		mount -t tracefs nodev $TRACEFS 2>/dev/null
	fi
	if [ ! -e $TRACEFS/instances ]; then skip "$1" "tracefs cannot be mounted"; exit 0; fi
}

# A fingerprint of the top-level tracefs settings strobe must never change.
tracefs_state() {
	local f
	for f in tracing_on current_tracer buffer_size_kb trace_clock set_event \
		set_event_pid options/event-fork; do
		echo "$f: $(cat $TRACEFS/$f 2>/dev/null | head -c 4096)"
	done
	ls $TRACEFS/instances 2>/dev/null | grep '^strobe-' | sed 's/^/instance: /'
}

# py CODE ARGS...: run a python3 snippet (tests parse strobe's JSON with it)
py() { python3 -c "$1" "${@:2}"; }

# rec OUT.dat PRESETS -- CMD...: record CMD with the presets; its stdout and
# stderr land in OUT.dat.stdout and OUT.dat.stderr
rec() {
	local out=$1 presets=$2
	shift 3
	timeout 120 $STROBE record -o "$out" --preset "$presets" -- "$@" > "$out.stdout" 2> "$out.stderr"
}

# ---- real containers: podman with runc and a busybox rootfs ----
PODMAN="podman --runtime /usr/sbin/runc --cgroup-manager cgroupfs"
ROOTFS=$WORK/rootfs

# make_rootfs: $ROOTFS with busybox (sh, sleep) and the static getppid_n
make_rootfs() {
	mkdir -p $ROOTFS/bin
	cp "$(command -v busybox)" $ROOTFS/bin/busybox
	for l in sh sleep; do ln -s busybox $ROOTFS/bin/$l; done
	cp $HELPERS/getppid_n $ROOTFS/bin/
}

# run_ct [-d] NAME SCRIPT: run SCRIPT with busybox sh in container NAME
# (detached with -d); podman's errors go to $WORK/podman.err
run_ct() {
	local d=
	[ "$1" = -d ] && { d=-d; shift; }
	$PODMAN run $d --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--name "$1" --rootfs $ROOTFS /bin/sh -c "$2" >/dev/null 2>$WORK/podman.err
}
