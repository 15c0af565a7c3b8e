#!/bin/bash
# 63-faults-inputs.sh - a trace file cut short while strobe reads it (a
# copy still being written, a user truncating it): data that is gone is
# damage (strobe-damage(7)): a reader that runs through the pipeline skips
# it, says so in a warning naming the file and exits 0; never a signal
# (the reader used to map the file and died of SIGBUS, exit 135).  The reader is paced by a pipe:
# it blocks on its output while most of the file is still unread, the
# file is cut, then the output is drained.
. "$(dirname "$0")/lib.sh"
need_tracefs faults-inputs
SAN=$ROOT/build/san/strobe
[ -x "$SAN" ] || SAN=$STROBE
export ASAN_OPTIONS=detect_leaks=0:exitcode=99

F=$WORK/big.dat
if ! timeout 120 "$STROBE" record -q -o "$F" -e raw_syscalls -e sched -- \
	"$HELPERS/getppid_n" 200000 2>"$WORK/rec.err"; then
	fail faults-inputs-record "$(head -1 "$WORK/rec.err")"
	exit 0
fi
size=$(stat -c %s "$F")

# shrink NAME WANT CMD...: run CMD on a copy of $F that is cut to a third
# of its size (at a page boundary) once CMD has written its first line;
# WANT: "warning" (exit 0, the damage said) or "error" (exit 1: --strict)
shrink() {
	local name=$1 want=$2 rc err
	shift 2
	cp "$F" "$WORK/cut.dat"
	"$@" 2>"$WORK/err" | { read -r _; truncate -s $((size / 3 / 4096 * 4096)) "$WORK/cut.dat"; cat >/dev/null; }
	rc=${PIPESTATUS[0]}
	err=$(tail -1 "$WORK/err")
	if [ "$rc" = "$([ "$want" = warning ] && echo 0 || echo 1)" ] &&
	   [[ "$err" == *"cut.dat: the file shrank while being read"* ]] &&
	   [[ "$err" == *"$([ "$want" = error ] && echo "damaged data (strict)" ||
			    echo "warning: damaged data was skipped")"* ]] &&
	   ! grep -q Sanitizer "$WORK/err"; then
		pass "$name"
	else
		fail "$name" "rc=$rc $err"
	fi
}
shrink faults-inputs-report-of-shrinking-file-warns warning "$SAN" report -i "$WORK/cut.dat"
shrink faults-inputs-json-report-of-shrinking-file-warns warning "$SAN" report --json -i "$WORK/cut.dat"
shrink faults-inputs-strict-report-of-shrinking-file-errors error "$SAN" report --strict -i "$WORK/cut.dat"
shrink faults-inputs-syscalls-log-of-shrinking-file-warns warning "$SAN" syscalls --log -i "$WORK/cut.dat"
shrink faults-inputs-strict-syscalls-of-shrinking-file-errors error "$SAN" syscalls --strict --log -i "$WORK/cut.dat"
