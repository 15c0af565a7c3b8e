#!/bin/bash
# 76-top-tui.sh - `strobe top`'s interactive view in a real terminal
# (tmux, 150x40), read with capture-pane while a spinner (analysis_work
# busy) runs on the host:
#   - the first interval draws rows grouped by container, "host" among
#     them, under a header bar with CPU%;
#   - > and s change the sort key named on the view line;
#   - g cycles the grouping container -> pod -> process, and grouped by
#     process the spinner is a row;
#   - / with the spinner's name keeps only its rows; / with nothing
#     clears the filter;
#   - Enter on the host row opens its processes (the spinner among them),
#     Esc goes back to the containers;
#   - ? shows the keys and the columns with their presets; p shows
#     PAUSED; a narrower window drops columns from the right;
#   - q, Ctrl-C, SIGTERM and an error (no such container) each end it
#     with the terminal as it was (stty -a unchanged, the shell's prompt
#     usable after it; the error's message readable on it);
# and tracefs is left as it was found.
. "$(dirname "$0")/lib.sh"
need_tracefs top-tui
command -v tmux >/dev/null || { skip top-tui "no tmux"; exit 0; }
BEFORE=$(tracefs_state)

SOCK=strobe-top-tui-$$
SPIN=
cleanup() {
	tmux -L $SOCK kill-server 2>/dev/null
	[ -n "$SPIN" ] && kill "$SPIN" 2>/dev/null && wait "$SPIN" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

$HELPERS/analysis_work busy 600000 > /dev/null &
SPIN=$!

tmux -L $SOCK -f /dev/null new-session -d -x 150 -y 40 "bash --norc --noprofile" ||
	{ skip top-tui "tmux cannot start"; exit 0; }

screen() { tmux -L $SOCK capture-pane -p; }
# wait_for PATTERN [SECONDS]: until the screen has a line matching the
# extended regular expression; false after the time (default 15 s)
wait_for() {
	local i
	for i in $(seq $((${2:-15} * 10))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tmux -L $SOCK send-keys "$@"; }
# the value after "NAME: " on the view line (line 3)
view() { screen | sed -n 3p | sed -n "s/.*$1: \([^ ]*\).*/\1/p"; }
# the rows: the lines after the header bar (line 4) but the last, non-empty
rows() { screen | sed -n '5,39p' | grep -v '^ *$'; }
shot() { screen | head -c 1500 | tr '\n' '|'; }

# a shell command in the pane; waits for its marker line
n=0
shell() {
	n=$((n + 1))
	keys "$1; echo MARK-$n" Enter
	wait_for "^MARK-$n" 30
}
shell "clear; stty -a > $WORK/stty.before" || { fail top-tui-shell "$(shot)"; exit 0; }

# ---- the view ---------------------------------------------------------
keys "clear; $STROBE top --interval 1; echo EXIT-q=\$?" Enter
if wait_for '^strobe top' 20 && wait_for '^host ' 20 && screen | sed -n 4p | grep -q 'CPU%'
then pass top-tui-draws-rows-by-container
else fail top-tui-draws-rows-by-container "$(shot)"; fi

s0=$(view sort)
keys '>'
for _ in $(seq 30); do [ "$(view sort)" != "$s0" ] && break; sleep 0.1; done
s1=$(view sort)
keys s
for _ in $(seq 30); do [ "$(view sort)" != "$s1" ] && break; sleep 0.1; done
s2=$(view sort)
if [ -n "$s0" ] && [ -n "$s1" ] && [ "$s1" != "$s0" ] && [ -n "$s2" ] && [ "$s2" != "$s1" ]
then pass "top-tui-sort-keys-change-the-sort ($s0 > $s1 s $s2)"
else fail top-tui-sort-keys-change-the-sort "'$s0' '$s1' '$s2' $(shot)"; fi
# back to the CPU share (the spinner on top of its group's rows)
keys '<' '<'
for _ in $(seq 30); do [ "$(view sort)" = "$s0" ] && break; sleep 0.1; done
[ "$(view sort)" = "$s0" ] && pass top-tui-sort-key-back-left ||
	fail top-tui-sort-key-back-left "$(shot)"

keys g
wait_for '^group: pod ' 5 && g1=pod
keys g
wait_for '^group: process ' 5 && g2=process
if [ "$g1" = pod ] && [ "$g2" = process ] && wait_for 'analysis_work' 5 &&
   screen | sed -n 4p | grep -qiw comm
then pass top-tui-g-cycles-the-grouping
else fail top-tui-g-cycles-the-grouping "'$g1' '$g2' $(shot)"; fi

keys /
keys -l analysis_w
wait_for '^filter: analysis_w' 5
keys Enter
wait_for 'filter: analysis_w( |$)' 5
sleep 1.5	# the next interval, filtered too
if [ "$(view filter)" = analysis_w ] && [ "$(rows | wc -l)" -ge 1 ] &&
   ! rows | grep -v analysis_work | grep -q .
then pass "top-tui-filter-keeps-the-named-rows ($(rows | wc -l) rows)"
else fail top-tui-filter-keeps-the-named-rows "$(shot)"; fi
keys / Enter
for _ in $(seq 50); do [ -z "$(view filter)" ] && break; sleep 0.1; done
[ -z "$(view filter)" ] && rows | grep -vq analysis_work &&
	pass top-tui-empty-filter-clears-it ||
	fail top-tui-empty-filter-clears-it "$(shot)"

# back to containers (process -> thread -> container); the host row
# alone (a filter, so that no new interval moves it), Enter on it, then
# the filter cleared: the host's processes, the spinner among them
keys g g
wait_for '^group: container ' 5
keys /
keys -l host
keys Enter
wait_for 'filter: host( |$)' 5
rows=$(rows | wc -l)
keys Enter
wait_for 'container: host' 5
keys /
keys Enter
# the cleared filter shows at the next redraw: wait for it (a loaded
# machine drew the view with the old filter after the keys were sent)
for _ in $(seq 50); do [ -z "$(view filter)" ] && break; sleep 0.1; done
if wait_for 'container: host' 5 && [ "$(view group)" = process ] && [ -z "$(view filter)" ] &&
   wait_for 'analysis_work' 5
then pass "top-tui-enter-opens-a-containers-processes ($rows row(s) for host)"
else fail top-tui-enter-opens-a-containers-processes "$(shot)"; fi
keys Escape
if wait_for '^group: container ' 5 && ! screen | sed -n 3p | grep -q 'container: '
then pass top-tui-esc-goes-back
else fail top-tui-esc-goes-back "$(shot)"; fi

keys '?'
if wait_for 'keys and columns' 5 && screen | grep -Eq '^  cpu_pct +[a-z]' &&
   screen | grep -q '^  q  '
then pass top-tui-help-lists-keys-and-columns
else fail top-tui-help-lists-keys-and-columns "$(shot)"; fi
keys x
wait_for '^group: ' 5 || fail top-tui-help-closes "$(shot)"

keys p
if wait_for 'PAUSED' 5; then
	keys p
	for _ in $(seq 30); do screen | grep -q PAUSED || break; sleep 0.1; done
	screen | grep -q PAUSED && fail top-tui-p-pauses "still PAUSED: $(shot)" || pass top-tui-p-pauses
else fail top-tui-p-pauses "$(shot)"; fi

head1=$(screen | sed -n 4p)
tmux -L $SOCK resize-window -x 60 -y 40
for _ in $(seq 30); do [ "$(screen | sed -n 4p | wc -w)" -lt "$(wc -w <<<"$head1")" ] && break; sleep 0.1; done
head2=$(screen | sed -n 4p)
# the narrow header's titles are the wide one's first ones
if [ "$(wc -w <<<"$head2")" -lt "$(wc -w <<<"$head1")" ] && [ "$(wc -w <<<"$head2")" -ge 2 ] &&
   [ "$(echo $head1 | cut -d' ' -f1-"$(wc -w <<<"$head2")")" = "$(echo $head2)" ] &&
   awk '{ print $1 }' <<<"$head2" | grep -qix container
then pass "top-tui-resize-drops-columns-from-the-right ($(wc -w <<<"$head1") -> $(wc -w <<<"$head2") columns)"
else fail top-tui-resize-drops-columns-from-the-right "'$head1' -> '$head2' $(shot)"; fi
tmux -L $SOCK resize-window -x 150 -y 40
sleep 0.5

# ---- leaving it -------------------------------------------------------
# stty_same WAY: the terminal's modes as before, and the prompt answers
stty_same() {
	if shell "stty -a > $WORK/stty.$1" && cmp -s $WORK/stty.before $WORK/stty.$1 &&
	   shell "echo usable-after-$1" && screen | grep -q "^usable-after-$1"
	then pass "top-tui-terminal-restored-after-$1"
	else fail "top-tui-terminal-restored-after-$1" \
		"$(diff $WORK/stty.before $WORK/stty.$1 2>&1 | head -5 | tr '\n' ' ') $(shot)"; fi
}
keys q
if wait_for '^EXIT-q=0' 10
then pass top-tui-q-quits-with-0
else fail top-tui-q-quits-with-0 "$(shot)"; fi
stty_same q

keys "clear; $STROBE top --interval 1; echo EXIT-int=\$?" Enter
wait_for '^host ' 20 || fail top-tui-ctrl-c-started "$(shot)"
keys C-c
wait_for '^EXIT-int=' 10 && pass "top-tui-ctrl-c-stops ($(screen | sed -n 's/^EXIT-int=//p'))" ||
	fail top-tui-ctrl-c-stops "$(shot)"
stty_same ctrl-c

keys "clear; sh -c 'echo \$\$ > $WORK/top.pid; exec $STROBE top --interval 1'; echo EXIT-term=\$?" Enter
wait_for '^host ' 20 || fail top-tui-sigterm-started "$(shot)"
kill -TERM "$(cat $WORK/top.pid)"
wait_for '^EXIT-term=' 10 && pass "top-tui-sigterm-stops ($(screen | sed -n 's/^EXIT-term=//p'))" ||
	fail top-tui-sigterm-stops "$(shot)"
stty_same sigterm

# an error (no such container): the message on the terminal as it was
keys "clear; $STROBE top -c strobe-no-such-container-$$; echo EXIT-error=\$?" Enter
if wait_for '^EXIT-error=[1-9]' 20 && screen | grep -q "^strobe top: .*strobe-no-such-container-$$"
then pass top-tui-error-message-after-the-view
else fail top-tui-error-message-after-the-view "$(shot)"; fi
stty_same error

tracefs_same "$BEFORE" "$(tracefs_state)" && pass top-tui-tracefs-unchanged ||
	fail top-tui-tracefs-unchanged
