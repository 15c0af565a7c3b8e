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
