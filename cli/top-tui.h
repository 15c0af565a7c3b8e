/*
 * top-tui.h - the interactive terminal view of `strobe top` (ncurses):
 * the engine's rows (strobe_top_table) redrawn every interval, and the
 * keys that change the view (sort, grouping, filter, one container's
 * processes, pause, help).  cmd-top.c opens it when standard output is
 * a terminal and --batch is not given, calls top_tui_poll from the
 * pipeline's poll hook and top_tui_draw after each interval.
 *
 * Every function runs on the one thread that runs the engine (the
 * pipeline's calling thread): the table read here is valid until the
 * engine's next interval or strobe_top_set_* call, both on that thread.
 *
 * The terminal is restored on every exit path: top_tui_close, an exit()
 * while it is open (atexit), and the fatal signals (SIGSEGV, SIGBUS,
 * SIGABRT: termios and the screen modes put back with async-signal-safe
 * calls before the signal goes on to its earlier handler).  SIGINT,
 * SIGTERM and SIGHUP only set the caller's stop flag, so the caller's
 * normal path (pipeline stops, top_tui_close) restores it.
 */
#ifndef STROBE_CLI_TOP_TUI_H
#define STROBE_CLI_TOP_TUI_H

#include <signal.h>
#include <stddef.h>

#include <strobe/table.h>

struct strobe_top;
struct strobe_error;
struct top_tui;

/*
 * Take the terminal (standard input and output must be one): cbreak,
 * noecho, keypad, no blocking reads, no cursor, colours only where the
 * terminal has them; SIGINT/SIGTERM/SIGHUP set *stop; SIGWINCH re-lays
 * the screen out at the next top_tui_poll.  title: the first line (what
 * is watched).  0, or -ENOTTY (not a terminal, or an unknown TERM),
 * -EBUSY (already open) or -ENOMEM, with a message in *err.
 */
int top_tui_open(struct top_tui **out, struct strobe_top *t, const char *title,
		 volatile sig_atomic_t *stop, struct strobe_error *err);
/* Handle pending keys and resizes without blocking (every ~100 ms).
 * Returns 0, or 1 when the user quit (q). */
int top_tui_poll(struct top_tui *u);
/* Redraw from strobe_top_table() after an interval (not while paused:
 * then only the status line changes).  status: one line, the caller's
 * (events/s, lost, interval); NULL keeps the last one. */
void top_tui_draw(struct top_tui *u, const char *status);
/* Restore the terminal and the signal handlers, free; NULL ok. */
void top_tui_close(struct top_tui *u);

/*
 * One cell as the view prints it, into buf (n bytes, always
 * NUL-terminated, cut to fit): "-" for a cell with no value
 * (strobe_value_none) and for negative figures (an older engine's -1);
 * PERCENT with one decimal; DURATION as 850ns, 12us, 3.4ms, 1.2s, 95s;
 * BYTES as 512, 1.5K, 12M, 3.0G (binary units), and so RATE columns of
 * bytes (keys ending in _bps: per second); other RATEs and INT counts
 * per second (keys ending in _ps) as 0.5, 950, 12345, 123k, 1.2M; other
 * INTs (pid, tid, tasks) in full; bytes outside printable ASCII in
 * strings as '?'.  Returns buf.
 */
const char *top_tui_cell(char *buf, size_t n, const struct strobe_column *c,
			 const union strobe_value *v);

#endif
