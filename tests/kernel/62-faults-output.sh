#!/bin/bash
# 62-faults-output.sh - strobe record's output in a folder another user
# owns: a symlink planted at the output name never makes root write its
# target (the file is written under a random name and renamed over the
# link), and the output is private to its owner (mode 0600: it holds
# kernel addresses and every process's command line).
. "$(dirname "$0")/lib.sh"
need_tracefs faults-output
id nobody >/dev/null 2>&1 || { skip faults-output "no user nobody"; exit 0; }
BEFORE=$(tracefs_state)

U=$WORK/user-folder		# owned by nobody, as a user's home would be
chmod 711 "$WORK"	# nobody may pass through to its folder
mkdir "$U" && chown nobody "$U"
VICTIM=$WORK/root-only		# a file root owns that nobody must not reach
printf 'root-only content\n' > "$VICTIM"
chmod 600 "$VICTIM"
before=$(sha256sum < "$VICTIM"; stat -c '%s %a %U' "$VICTIM")
setpriv --reuid nobody --regid nogroup --clear-groups ln -s "$VICTIM" "$U/trace.dat" ||
	ln -s "$VICTIM" "$U/trace.dat"

timeout 60 "$STROBE" record -q -o "$U/trace.dat" -e sched:sched_process_exit -- true 2>"$WORK/rec.err"
rc=$?
after=$(sha256sum < "$VICTIM"; stat -c '%s %a %U' "$VICTIM")
if [ $rc = 0 ] && [ "$before" = "$after" ] && [ -f "$U/trace.dat" ] && [ ! -L "$U/trace.dat" ] &&
   timeout 30 "$STROBE" report -i "$U/trace.dat" 2>/dev/null | grep -q sched_process_exit; then
	pass faults-output-symlink-at-output-target-unchanged
else
	fail faults-output-symlink-at-output-target-unchanged \
		"rc=$rc $(head -1 "$WORK/rec.err") victim: $before -> $after; $(ls -l "$U" | tr '\n' ' ')"
fi
mode=$(stat -c %a "$U/trace.dat" 2>/dev/null)
[ "$mode" = 600 ] && pass faults-output-mode-0600 || fail faults-output-mode-0600 "mode $mode"
left=$(ls -A "$U" | grep -v '^trace\.dat$')
[ -z "$left" ] && pass faults-output-no-temporary-file-left ||
	fail faults-output-no-temporary-file-left "$left"

# A umask of 0 does not make the output readable by others.
rm -f "$U/trace.dat"
(umask 0; timeout 60 "$STROBE" record -q -o "$U/trace.dat" -e sched:sched_process_exit -- true)
mode=$(stat -c %a "$U/trace.dat" 2>/dev/null)
[ "$mode" = 600 ] && pass faults-output-mode-0600-whatever-the-umask ||
	fail faults-output-mode-0600-whatever-the-umask "mode $mode"

# A run whose command cannot be started keeps an older file, and leaves
# no temporary file (the per-CPU files have no names at all).
printf 'keep me\n' > "$U/keep.dat"
timeout 60 "$STROBE" record -q -o "$U/keep.dat" -- /nonexistent/cmd 2>/dev/null
rc=$?
[ $rc = 127 ] && [ "$(cat "$U/keep.dat")" = "keep me" ] && [ -z "$(ls -A "$U" | grep -v '^trace\.dat$\|^keep\.dat$')" ] &&
	pass faults-output-failed-command-keeps-the-old-file ||
	fail faults-output-failed-command-keeps-the-old-file "rc=$rc $(head -c 40 "$U/keep.dat") $(ls -A "$U" | tr '\n' ' ')"

# SIGKILL 3 s into a busy recording: within a second nothing traces and
# no instance is left (strobe's guardian); the guardian then finishes the
# output (a busy machine's 1 GB or so takes it a few seconds: waited for,
# up to 60 s), which holds the events captured up to the kill and says
# the recording was cut.
B=$WORK/busy.dat
"$STROBE" record -q -o "$B" -e sched -e syscalls -- "$HELPERS/getppid_n" 100000000 &
P=$!
tracing_started $P	# the guardian starts before tracing does
sleep 2
G=$(pgrep -P $P -x strobe-guard)
kill -KILL $P
wait $P 2>/dev/null
sleep 1
inst=$(ls $TRACEFS/instances | grep "^strobe-$P\$")
pkill -f "getppid_n 100000000"
[ -n "$G" ] && [ -z "$inst" ] && pass faults-output-sigkill-instance-gone-within-1s ||
	fail faults-output-sigkill-instance-gone-within-1s "guardian='$G' instance='$inst'"
running() {	# a process that has not exited (a zombie has)
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null
}
for _ in $(seq 600); do
	running "$G" || break
	sleep 0.1
done
gone=yes
running "$G" && gone="no: still running after 60 s"
n=$(timeout 60 "$STROBE" report -i "$B" 2>"$WORK/killed.err" | grep -c sys_enter)
if [ "$gone" = yes ] && [ "$n" -gt 1000 ] && grep -q 'killed; its guardian saved' "$WORK/killed.err" &&
	[ "$(stat -c %a "$B")" = 600 ]
then pass "faults-output-sigkill-guardian-saves-the-events ($n syscall entries)"
else fail faults-output-sigkill-guardian-saves-the-events "guardian gone: $gone events=$n $(head -2 "$WORK/killed.err" | tr '\n' ' ')"; fi

[ "$(tracefs_state)" = "$BEFORE" ] && pass faults-output-tracefs-untouched ||
	fail faults-output-tracefs-untouched "$(diff <(echo "$BEFORE") <(tracefs_state) | tr '\n' ' ')"
