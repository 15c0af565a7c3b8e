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

# tracing_started PID: wait (up to 60 s) until strobe PID's instance
# traces; false when it died first.  strobe makes its instance (whose
# tracing_on reads 1 until strobe turns it off), enables the events, scans
# /proc and reads kallsyms, and only then turns tracing on: neither the
# directory nor tracing_on alone says that tracing started.
# PID may be a `timeout ... strobe` started with &: its child's instance.
tracing_started() {
	local i p=$1 c
	for i in $(seq 3000); do
		if [ "$(cat /proc/$1/comm 2>/dev/null)" = timeout ]; then
			c=$(pgrep -P $1 | head -1)
			p=${c:-$1}
		fi
		[ -n "$(head -c 1 $TRACEFS/instances/strobe-$p/set_event 2>/dev/null)" ] &&
		[ "$(cat $TRACEFS/instances/strobe-$p/tracing_on 2>/dev/null)" = 1 ] && return 0
		kill -0 $1 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# steal_ns: the time the hypervisor stole from every CPU so far (/proc/stat,
# in ns).  A task's clock (its /proc stat, CLOCK_THREAD_CPUTIME_ID) leaves
# it out, a trace's switches do not: a tolerance adds the steal of the run.
steal_ns() {
	awk -v hz=$(getconf CLK_TCK) '/^cpu / { printf "%.0f\n", $9 * 1e9 / hz; exit }' /proc/stat
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

# Every top-level setting, verbatim: each top-level file but caches the
# kernel fills from any instance (saved_cmdlines, saved_tgids), static
# lists and pipes, every option, and every event's enable and filter at
# the top level.  For tests that prove strobe itself never writes there.
tracefs_top_snapshot() {
	local f
	(
		cd $TRACEFS || exit 1
		for f in *; do
			[ -f "$f" ] || continue
			case $f in
			README|available_*|trace_pipe|trace_marker*|free_buffer|saved_cmdlines|\
			saved_tgids|printk_formats|dyn_ftrace_total_info|uprobe_profile|\
			enabled_functions|touched_functions) continue ;;
			esac
			echo "$f: $(timeout 2 head -c 4096 "$f" 2>&1)"
		done
		grep -H '' options/* per_cpu/*/buffer_size_kb events/enable events/*/enable \
			events/*/*/enable events/*/*/filter 2>&1
	)
}

# tracefs_same BEFORE AFTER [first-use]: true when two tracefs_state
# fingerprints are equal.  With "first-use" (only for tests that ran an
# oracle tool such as trace-cmd extract, never for strobe itself), one
# change is allowed: after boot the top-level buffer reads
# "7 (expanded: 1408)" until the first tracing use anywhere expands it, and
# no write can undo that.  It then reads the expanded size, rounded up to
# whole ring-buffer pages (page size minus a 16-byte header), in KiB.
tracefs_same() {
	local m x p
	[ "$1" = "$2" ] && return 0
	[ "$3" = first-use ] || return 1
	m=$(sed -n 's/^buffer_size_kb: [0-9]* (expanded: \([0-9]*\))$/\1/p' <<<"$1")
	x=$(sed -n 's/^buffer_size_kb: \([0-9]*\)$/\1/p' <<<"$2")
	[ -n "$m" ] && [ -n "$x" ] || return 1
	p=$(( $(getconf PAGESIZE) - 16 ))
	[ "$x" = "$m" ] || [ "$x" = $(( (m * 1024 + p - 1) / p * p / 1024 )) ] || return 1
	[ "$(grep -v '^buffer_size_kb: ' <<<"$1")" = "$(grep -v '^buffer_size_kb: ' <<<"$2")" ]
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
# Wait (at most 60 s) until every named container is gone.  run_ct's
# containers remove themselves when they end; `podman wait A B` fails at
# once when A is already gone, without waiting for B.
ct_wait_gone() {
	local i c left
	for i in $(seq 300); do
		left=
		for c in "$@"; do
			$PODMAN container exists "$c" 2>/dev/null && left=1
		done
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	return 1
}

run_ct() {
	local d=
	[ "$1" = -d ] && { d=-d; shift; }
	$PODMAN run $d --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--name "$1" --rootfs $ROOTFS /bin/sh -c "$2" >/dev/null 2>$WORK/podman.err
}
