#!/bin/bash
# 10-progress.sh - progress of long file reads on stderr, under a real
# terminal (tmux): a report written to a file shows "N% X MiB of Y MiB,
# R MiB/s, S s left" and erases it at the end; an analysis (tables at the
# end) shows it too; a report printing to a pipe or to the terminal shows
# none, nor does any command whose stderr is not a terminal.
# STROBE_PROGRESS_AFTER_MS=0 shows it at once (the file is small).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/build/strobe
command -v tmux >/dev/null || { echo "SKIP progress: no tmux"; exit 0; }
D=$(mktemp -d /tmp/strobe-progress.XXXXXX)
SOCK=strobe-progress-$$
trap 'tmux -L $SOCK kill-server 2>/dev/null; rm -rf "$D"' EXIT
"$ROOT/build/bench/synth-trace" -n 400000 -c 2 "$D/t.dat" >/dev/null || { echo "FAIL progress_fixture"; exit 0; }
tmux -L $SOCK -f /dev/null new-session -d -x 160 -y 40 "bash --norc --noprofile" || { echo "SKIP progress: tmux cannot start"; exit 0; }
tmux -L $SOCK pipe-pane -o "cat >> $D/tty.log"

# run CMD in the terminal; its terminal output (raw bytes) in $D/N.log
n=0
in_tty() {
	n=$((n + 1))
	: > "$D/tty.log"
	tmux -L $SOCK send-keys "STROBE_PROGRESS_AFTER_MS=0 $*; echo END-$n" Enter
	for _ in $(seq 300); do grep -aq "^END-$n" "$D/tty.log" && break; sleep 0.1; done
	cp "$D/tty.log" "$D/$n.log"
}
# the progress lines of log $1: "strobe CMD: ..%" after a carriage return
progress() { tr '\r' '\n' < "$1" | grep -a "strobe $2: *[0-9]*% [0-9.]* MiB of [0-9.]* MiB, [0-9.]* MiB/s"; }

in_tty "$S report -i $D/t.dat > $D/out.txt"
if progress "$D/$n.log" report >/dev/null && tr '\r' '\n' < "$D/$n.log" | grep -aq $'^\033\[KEND-'"$n"; then
	echo "PASS progress_report_to_a_file_shows_and_erases_it"
else
	echo "FAIL progress_report_to_a_file_shows_and_erases_it: $(cat -v "$D/$n.log" | tail -3)"
fi
cmp -s <("$S" report -i "$D/t.dat") "$D/out.txt" && echo "PASS progress_report_output_unchanged" ||
	echo "FAIL progress_report_output_unchanged"
in_tty "$S analyze -a cputop,syscalls -i $D/t.dat > /dev/null"
progress "$D/$n.log" analyze >/dev/null && echo "PASS progress_analysis_shows_it" ||
	echo "FAIL progress_analysis_shows_it: $(cat -v "$D/$n.log" | tail -3)"
in_tty "$S report -i $D/t.dat | tail -1"
progress "$D/$n.log" report >/dev/null && echo "FAIL progress_not_while_printing_to_a_pipe" ||
	echo "PASS progress_not_while_printing_to_a_pipe"
in_tty "$S report -i $D/t.dat 2> $D/err > $D/out2.txt"
progress "$D/$n.log" report >/dev/null || [ -s "$D/err" ] &&
	echo "FAIL progress_not_when_stderr_is_not_a_terminal: $(cat -v "$D/err" | head -2)" ||
	echo "PASS progress_not_when_stderr_is_not_a_terminal"
in_tty "STROBE_NO_PROGRESS=1 $S report -i $D/t.dat > $D/out3.txt"
progress "$D/$n.log" report >/dev/null && echo "FAIL progress_off_with_STROBE_NO_PROGRESS" ||
	echo "PASS progress_off_with_STROBE_NO_PROGRESS"
