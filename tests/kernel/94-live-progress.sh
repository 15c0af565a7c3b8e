# 94-live-progress.sh - live commands show the events and lost events so
# far on a terminal (issue 28): under a real terminal (tmux) `strobe
# record -- CMD` and a live `strobe syscalls -- CMD` draw "strobe CMD: N
# events, N lost, S s" after a carriage return a few times a second and
# erase it before the summary or the tables; with stderr in a file, with
# --quiet or with STROBE_NO_PROGRESS there is none.  The counts are the
# kernel buffers' (per_cpu stats of strobe's instance), so the last line
# drawn never says more events than the recording's summary.
. "$(dirname "$0")/lib.sh"
need_tracefs live_progress
command -v tmux >/dev/null || { skip live_progress "no tmux"; exit 0; }
before=$(tracefs_state)
SOCK=strobe-lprog-$$
trap 'tmux -L $SOCK kill-server 2>/dev/null; rm -rf "$WORK"' EXIT
tmux -L $SOCK -f /dev/null new-session -d -x 160 -y 40 "bash --norc --noprofile" ||
	{ skip live_progress "tmux cannot start"; exit 0; }
tmux -L $SOCK pipe-pane -o "cat >> $WORK/tty.log"

# run CMD in the terminal (1.2 s of sleep at least: five lines or so);
# its terminal output (raw bytes) in $WORK/N.log
n=0
in_tty() {
	n=$((n + 1))
	: > "$WORK/tty.log"
	tmux -L $SOCK send-keys "STROBE_PROGRESS_AFTER_MS=0 $*; echo E''ND-$n" Enter
	for _ in $(seq 600); do grep -aq "END-$n" "$WORK/tty.log" && break; sleep 0.1; done
	cp "$WORK/tty.log" "$WORK/$n.log"
}
# the progress lines of log $1 for command $2, one per line
lines() { tr '\r' '\n' < "$1" | sed 's/\x1b\[K//g' | grep -a "^strobe $2: [0-9.]* [kM]* *events, [0-9.]* [kM]* *lost, [0-9]* s$"; }

W="sh -c '$HELPERS/getppid_n 1000; sleep 1.2'"
in_tty "$STROBE record -o $WORK/r.dat -- $W"
c=$(lines $WORK/$n.log record | wc -l)
# erased: the summary line starts right after an erase
if [ "$c" -ge 2 ] && tr '\r' '\n' < $WORK/$n.log | grep -aq $'^\033\[Kstrobe record: '"$WORK/r.dat:"; then
	pass live_progress_record_shows_events_and_erases_the_line
else
	fail live_progress_record_shows_events_and_erases_the_line "$c lines: $(tr '\r' '\n' < $WORK/$n.log | head -c 600)"
fi
# the last count drawn is at most the file's (the buffers' own count)
last=$(lines $WORK/$n.log record | tail -1 | sed 's/^strobe record: \([0-9]*\) events.*/\1/')
total=$(tr '\r' '\n' < $WORK/$n.log | grep -a "strobe record: $WORK/r.dat:" |
	sed -n 's/.* \([0-9]*\) events, [0-9]* lost.*/\1/p' | head -1)
if [ -n "$last" ] && [ -n "$total" ] && [ "$last" -gt 2000 ] && [ "$last" -le "$total" ]; then
	pass live_progress_record_counts_the_buffers_events
else
	fail live_progress_record_counts_the_buffers_events "last drawn '$last', file '$total' (the 1000 getppid alone are 2000)"
fi

in_tty "$STROBE syscalls --top 1 -- $W"
c=$(lines $WORK/$n.log syscalls | wc -l)
if [ "$c" -ge 2 ] && tr '\r' '\n' < $WORK/$n.log | grep -aq "getppid"; then
	pass live_progress_live_analysis_shows_it_before_its_tables
else
	fail live_progress_live_analysis_shows_it_before_its_tables "$c lines: $(tr '\r' '\n' < $WORK/$n.log | head -c 600)"
fi

in_tty "$STROBE record -q -o $WORK/r.dat -- $W"
c1=$(lines $WORK/$n.log record | wc -l)
in_tty "STROBE_NO_PROGRESS=1 $STROBE record -o $WORK/r.dat -- $W"
c2=$(lines $WORK/$n.log record | wc -l)
in_tty "$STROBE record -o $WORK/r.dat -- $W 2> $WORK/err.txt"
c3=$(lines $WORK/err.txt record | wc -l)
grep -q "^strobe record: $WORK/r.dat" $WORK/err.txt && s3=1 || s3=0
[ "$c1 $c2 $c3 $s3" = "0 0 0 1" ] && pass live_progress_none_quiet_off_or_not_a_terminal ||
	fail live_progress_none_quiet_off_or_not_a_terminal "lines with --quiet, STROBE_NO_PROGRESS, stderr a file, summary in the file: $c1 $c2 $c3 $s3"

[ "$(tracefs_state)" = "$before" ] && pass live_progress_tracefs_left_as_found ||
	fail live_progress_tracefs_left_as_found
