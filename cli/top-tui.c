/*
 * top-tui.c - the interactive view of `strobe top` (top-tui.h), drawn
 * with ncurses as htop and procps top are: a screen redrawn from a
 * snapshot every interval, a sort key and a grouping chosen with keys,
 * the keys listed on `?`, and the terminal restored on every exit.
 *
 * How it is shaped:
 *  - Each draw copies the engine's table (strobe_top_table) into a
 *    snapshot of formatted cells (top_tui_cell) and lays it out from
 *    there, so that pausing keeps the screen as it was while tracing
 *    goes on, and moving the selection needs no engine call.  A key that
 *    changes the view (sort, grouping, filter, drill-down) calls the
 *    engine's strobe_top_set_*, which rebuilds the table at once, and
 *    takes a new snapshot.
 *  - The screen: a title line (and PAUSED), the caller's status line,
 *    the view line (grouping, sort, filter, the container opened), the
 *    column header bar, the rows, and a last line for the filter prompt
 *    or a message.  Column widths fit the snapshot's widest cell;
 *    columns that do not fit the width are dropped right to left.
 *  - Signals: handlers are installed before ncurses takes the terminal,
 *    so ncurses installs none of its own.  SIGINT/SIGTERM/SIGHUP set the
 *    caller's stop flag (the pipeline stops, the caller closes the view,
 *    endwin); SIGWINCH sets a flag top_tui_poll acts on (TIOCGWINSZ,
 *    resize_term).  The fatal ones put the saved termios back and write
 *    the terminal's own reset strings (sgr0, cnorm, rmkx, rmcup, read
 *    from terminfo at open), all async-signal-safe, then hand the signal
 *    to the handler that was there before.  An atexit hook calls endwin
 *    when the program exits with the view open.
 */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/top.h>

#include "top-tui.h"

#define STR_WIDTH_MAX 28	/* a name column is cut to this */
#define HEAD_LINES 4		/* title, status, view line, header bar */
#define PROMPT_MAX 120

enum { PAIR_HEAD = 1, PAIR_SEL, PAIR_SORT, PAIR_TITLE };

struct col {
	struct strobe_column c;	/* key and title owned (strdup) */
	int width;		/* widest of title and cells, names capped */
	bool right;		/* numbers right-aligned */
};

/* A copy of one table: cell (r, c) is text + off[r * ncols + c]. */
struct snap {
	char *name;		/* "top.container"; NULL: no table yet */
	struct col *cols;
	int ncols;
	size_t nrows;
	size_t *off;
	char *text;
	size_t len, cap;
};

struct top_tui {
	SCREEN *scr;
	struct strobe_top *t;
	char *title;
	char status[256];
	bool colors;
	struct snap s;
	size_t sel, first;	/* selected row, first row shown */
	bool paused;
	bool help;
	int help_first;		/* first help line shown */
	bool prompt;		/* reading a filter */
	char pbuf[PROMPT_MAX + 1];
	size_t plen;
	char msg[600];		/* shown on the last line until a key */
	enum strobe_top_group group_before_drill;
};

/* ---- terminal restoration (signals, atexit) ---------------------------- */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT };
#define NR_STOP (sizeof(stop_signals) / sizeof(*stop_signals))
#define NR_FATAL (sizeof(fatal_signals) / sizeof(*fatal_signals))

static struct top_tui *g_open;			/* the view on screen */
static volatile sig_atomic_t *g_stop;
static volatile sig_atomic_t g_winch;
static volatile sig_atomic_t g_active;		/* ncurses has the terminal */
static struct termios g_tio;			/* before ncurses took it */
static bool g_tio_ok;
static int g_fd = -1;				/* the terminal (stdout) */
static char g_reset[256];			/* sgr0 cnorm rmkx rmcup */
static size_t g_reset_len;
static struct sigaction g_old_stop[NR_STOP], g_old_fatal[NR_FATAL], g_old_winch;
static bool g_atexit_set;

/* Put the terminal back with async-signal-safe calls only. */
static void restore_raw(void)
{
	if (!g_active)
		return;
	g_active = 0;
	if (g_reset_len) {
		ssize_t r = write(g_fd, g_reset, g_reset_len);
		(void)r;
	}
	if (g_tio_ok)
		tcsetattr(g_fd, TCSANOW, &g_tio);
}

static void on_stop(int sig)
{
	(void)sig;
	if (g_stop)
		*g_stop = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	g_winch = 1;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	size_t i;

	(void)uc;
	restore_raw();
	for (i = 0; i < NR_FATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &g_old_fatal[i], NULL);
	/* A fault returns to the faulting instruction, which faults again
	 * under the earlier handler (the default: die, or a sanitizer's);
	 * a signal sent (kill, abort's raise) is sent again. */
	if (si->si_code <= 0 || sig == SIGABRT || sig == SIGQUIT)
		raise(sig);
}

static void at_exit(void)
{
	if (g_active && g_open) {
		endwin();
		g_active = 0;
	}
	restore_raw();
}

static void install_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	for (i = 0; i < NR_STOP; i++)
		sigaction(stop_signals[i], &sa, &g_old_stop[i]);
	sa.sa_handler = on_winch;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGWINCH, &sa, &g_old_winch);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	for (i = 0; i < NR_FATAL; i++)
		sigaction(fatal_signals[i], &sa, &g_old_fatal[i]);
}

static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < NR_STOP; i++)
		sigaction(stop_signals[i], &g_old_stop[i], NULL);
	sigaction(SIGWINCH, &g_old_winch, NULL);
	for (i = 0; i < NR_FATAL; i++)
		sigaction(fatal_signals[i], &g_old_fatal[i], NULL);
}

/* Append terminfo string capability `cap` to g_reset, its padding
 * ("$<5>") left out. */
static void add_reset(const char *cap)
{
	const char *s = tigetstr(cap);

	if (!s || s == (char *)-1)
		return;
	while (*s && g_reset_len + 1 < sizeof(g_reset)) {
		if (s[0] == '$' && s[1] == '<') {
			const char *e = strchr(s, '>');

			if (e) {
				s = e + 1;
				continue;
			}
		}
		g_reset[g_reset_len++] = *s++;
	}
}

/* ---- the snapshot ------------------------------------------------------ */

static void snap_clear(struct snap *s)
{
	int i;

	for (i = 0; i < s->ncols; i++) {
		free((char *)s->cols[i].c.key);
		free((char *)s->cols[i].c.title);
	}
	free(s->cols);
	free(s->name);
	free(s->off);
	s->cols = NULL;
	s->name = NULL;
	s->off = NULL;
	s->ncols = 0;
	s->nrows = 0;
	s->len = 0;
}

static void snap_free(struct snap *s)
{
	snap_clear(s);
	free(s->text);
	s->text = NULL;
	s->cap = 0;
}

static const char *cell(const struct snap *s, size_t r, int c)
{
	return s->text + s->off[r * s->ncols + c];
}

static int snap_add(struct snap *s, const char *text)
{
	size_t n = strlen(text) + 1;

	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *p;

		while (cap < s->len + n)
			cap *= 2;
		p = realloc(s->text, cap);
		if (!p)
			return -ENOMEM;
		s->text = p;
		s->cap = cap;
	}
	memcpy(s->text + s->len, text, n);
	s->len += n;
	return 0;
}

/* "RunQ p99(us)" -> "RunQ p99": the view's latencies carry their unit */
static void strip_unit(char *title)
{
	size_t n = strlen(title);
	char *open = strrchr(title, '(');

	if (!n || title[n - 1] != ')' || !open || open == title)
		return;
	while (open > title && open[-1] == ' ')
		open--;
	*open = 0;
}

/* Copy the engine's table (NULL: none yet) into s.  -ENOMEM leaves s
 * empty. */
static int snap_take(struct snap *s, const struct strobe_table *t)
{
	char buf[512];
	size_t r;
	int c, nc;

	snap_clear(s);
	if (!t)
		return 0;
	nc = strobe_table_nr_columns(t);
	s->name = strdup(strobe_table_name(t));
	s->cols = calloc(nc > 0 ? nc : 1, sizeof(*s->cols));
	if (!s->name || !s->cols)
		goto nomem;
	for (c = 0; c < nc; c++) {
		const struct strobe_column *col = strobe_table_column(t, c);
		struct col *d = &s->cols[c];

		d->c.type = col->type;
		d->c.key = strdup(col->key);
		d->c.title = strdup(col->title ? col->title : col->key);
		s->ncols++;
		if (!d->c.key || !d->c.title)
			goto nomem;
		if (col->type == STROBE_COL_DURATION)
			strip_unit((char *)d->c.title);
		d->right = col->type != STROBE_COL_STR;
		d->width = (int)strlen(d->c.title);
	}
	s->nrows = strobe_table_nr_rows(t);
	s->off = calloc(s->nrows * nc + 1, sizeof(*s->off));
	if (!s->off)
		goto nomem;
	for (r = 0; r < s->nrows; r++) {
		const union strobe_value *row = strobe_table_row(t, r);

		for (c = 0; c < nc; c++) {
			struct col *d = &s->cols[c];
			int w;

			top_tui_cell(buf, sizeof(buf), &d->c, &row[c]);
			s->off[r * nc + c] = s->len;
			if (snap_add(s, buf))
				goto nomem;
			w = (int)strlen(buf);
			if (d->c.type == STROBE_COL_STR && w > STR_WIDTH_MAX)
				w = STR_WIDTH_MAX;
			if (w > d->width)
				d->width = w;
		}
	}
	return 0;
nomem:
	snap_clear(s);
	return -ENOMEM;
}

static int snap_col(const struct snap *s, const char *key)
{
	int c;

	for (c = 0; c < s->ncols; c++)
		if (key && !strcmp(s->cols[c].c.key, key))
			return c;
	return -1;
}

/* ---- drawing ----------------------------------------------------------- */

static const char *const group_names[] = {
	[STROBE_TOP_CONTAINER] = "container",
	[STROBE_TOP_POD] = "pod",
	[STROBE_TOP_PROCESS] = "process",
	[STROBE_TOP_THREAD] = "thread",
};

static const char *group_name(enum strobe_top_group g)
{
	return (unsigned)g < sizeof(group_names) / sizeof(*group_names) ? group_names[g] : "?";
}

/* What each column means (top.h); keys the engine adds later show with
 * no text. */
static const struct {
	const char *key, *text;
} col_help[] = {
	{ "container", "container name (\"host\": tasks in no container)" },
	{ "pod", "Kubernetes pod" },
	{ "namespace", "Kubernetes namespace" },
	{ "pid", "process ID" },
	{ "tid", "thread ID" },
	{ "comm", "command name" },
	{ "cpu_pct", "CPU share, percent of one core" },
	{ "syscalls_ps", "system calls ended per second" },
	{ "errors_ps", "of which failed, per second" },
	{ "runq_p50", "run-queue latency (wake-up to run), median" },
	{ "runq_p99", "run-queue latency, 99th percentile" },
	{ "runq_max", "run-queue latency, longest" },
	{ "read_bps", "block IO bytes read per second" },
	{ "write_bps", "block IO bytes written per second" },
	{ "blkio_p99", "block request latency, 99th percentile" },
	{ "switches_ps", "context switches (switch-ins) per second" },
	{ "mem_bytes", "cgroup memory usage (containers and pods)" },
	{ "faults_ps", "page faults per second, where recorded" },
	{ "tasks", "threads of the group seen alive in the interval" },
};

static const char *column_text(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(col_help) / sizeof(*col_help); i++)
		if (!strcmp(col_help[i].key, key))
			return col_help[i].text;
	return "";
}

static const char *const key_help[] = {
	"q                quit",
	"? h              this help (arrows and PgUp/PgDn scroll it, any other key closes it)",
	"< >              sort by the column left / right of the sorted one",
	"s F6             sort by the next column (cycles)",
	"g                group by container, pod, process, thread (cycles)",
	"p                pause the display (tracing goes on); p again resumes",
	"/                filter by name: type, Enter applies, Esc cancels, empty clears",
	"Enter o          open the selected container's processes",
	"Esc Backspace    back from a container's processes",
	"Up Down PgUp PgDn Home End   move the selection",
	"",
	"Cells: - is a figure the trace cannot give (the column's reason below).",
	"Sizes in K/M/G (1024; read and write per second); latencies in ns, us, ms, s.",
	"",
};

/* Line i of the help text into buf; false past the end. */
static bool help_line(struct top_tui *u, int i, char *buf, size_t n)
{
	const char *const *keys = strobe_top_column_keys();
	int nk = (int)(sizeof(key_help) / sizeof(*key_help)), c = 0;

	if (i < nk) {
		snprintf(buf, n, "  %s", key_help[i]);
		return true;
	}
	i -= nk;
	if (i == 0) {
		snprintf(buf, n, "Columns: key, preset it needs, meaning");
		return true;
	}
	i--;
	for (c = 0; keys && keys[c]; c++) {
		const char *why = strobe_top_unavailable(u->t, keys[c]);
		const char *preset = strobe_top_column_preset(keys[c]);

		if (i == 0) {
			snprintf(buf, n, "  %-12s %-9s %s", keys[c], preset ? preset : "-",
				 column_text(keys[c]));
			return true;
		}
		i--;
		if (why) {
			if (i == 0) {
				snprintf(buf, n, "  %-12s %-9s shows -: %s", "", "", why);
				return true;
			}
			i--;
		}
	}
	return false;
}

static attr_t attr(const struct top_tui *u, int pair, attr_t mono)
{
	return u->colors ? (attr_t)COLOR_PAIR(pair) : mono;
}

/* s at (y, x), cut at the right edge */
static void put(int y, int x, const char *s)
{
	if (x < COLS)
		mvaddnstr(y, x, s, COLS - x);
}

static int help_lines(struct top_tui *u)
{
	char buf[8];
	int n = 0;

	while (help_line(u, n, buf, sizeof(buf)))
		n++;
	return n;
}

static void render_help(struct top_tui *u)
{
	char buf[512];
	int y, rows = LINES - 2, n = help_lines(u);

	if (u->help_first > n - rows)
		u->help_first = n - rows;
	if (u->help_first < 0)
		u->help_first = 0;
	erase();
	attrset(attr(u, PAIR_HEAD, A_REVERSE));
	mvhline(0, 0, ' ', COLS);
	put(0, 0, "strobe top: keys and columns");
	attrset(A_NORMAL);
	for (y = 1; y <= rows; y++)
		if (help_line(u, u->help_first + y - 1, buf, sizeof(buf)))
			put(y, 0, buf);
	attrset(A_BOLD);
	snprintf(buf, sizeof(buf), "%s-- any key returns to the view",
		 u->help_first + rows < n ? "-- more: Down/PgDn " : "");
	put(LINES - 1, 0, buf);
	attrset(A_NORMAL);
	refresh();
}

/* How many columns fit the width, from the left (at least one). */
static int fitting_columns(const struct snap *s)
{
	int c, x = 0;

	for (c = 0; c < s->ncols; c++) {
		int need = (c ? 1 : 0) + s->cols[c].width;

		if (c && x + need > COLS)
			break;
		x += need;
	}
	return c;
}

static void render_view(struct top_tui *u)
{
	struct snap *s = &u->s;
	const char *sort = strobe_top_sort(u->t), *filter = strobe_top_filter(u->t);
	const char *drill = strobe_top_drill(u->t);
	char buf[600];
	int rows = LINES - 1 - HEAD_LINES, nc, c, x, y;
	size_t r;

	erase();
	attrset(attr(u, PAIR_TITLE, A_BOLD) | A_BOLD);
	snprintf(buf, sizeof(buf), "strobe top: %s", u->title);
	put(0, 0, buf);
	if (u->paused && COLS > 8) {
		attrset(A_BOLD | A_REVERSE);
		put(0, COLS - 8, " PAUSED ");
	}
	attrset(A_NORMAL);
	put(1, 0, u->status);
	snprintf(buf, sizeof(buf), "group: %s  sort: %s%s%s%s%s%s",
		 group_name(drill ? STROBE_TOP_PROCESS : strobe_top_group(u->t)),
		 sort ? sort : "-", filter ? "  filter: " : "", filter ? filter : "",
		 drill ? "  container: " : "", drill ? drill : "",
		 drill ? " (Esc: back)" : "");
	put(2, 0, buf);
	if ((int)strlen(buf) + 18 <= COLS)
		put(2, COLS - 16, "? help  q quit");

	attrset(attr(u, PAIR_HEAD, A_REVERSE));
	mvhline(3, 0, ' ', COLS);
	if (!s->name) {
		attrset(A_NORMAL);
		put(HEAD_LINES, 0, "waiting for the first interval ...");
		goto last;
	}
	nc = fitting_columns(s);
	for (c = 0, x = 0; c < nc; c++) {
		const struct col *d = &s->cols[c];
		bool sorted = sort && !strcmp(d->c.key, sort);

		attrset(sorted ? attr(u, PAIR_SORT, A_REVERSE | A_BOLD | A_UNDERLINE) | A_BOLD
			       : attr(u, PAIR_HEAD, A_REVERSE));
		snprintf(buf, sizeof(buf), d->right ? "%*.*s" : "%-*.*s", d->width, d->width,
			 d->c.title);
		put(3, x, buf);
		x += d->width + 1;
	}
	attrset(A_NORMAL);
	if (!s->nrows) {
		put(HEAD_LINES, 0, filter ? "no rows match the filter (/ then Enter clears it)"
					  : "no rows in this interval");
		goto last;
	}
	if (u->sel >= s->nrows)
		u->sel = s->nrows - 1;
	if (rows < 1)
		rows = 1;
	if (u->sel < u->first)
		u->first = u->sel;
	if (u->sel >= u->first + (size_t)rows)
		u->first = u->sel - rows + 1;
	if (u->first + rows > s->nrows)
		u->first = s->nrows > (size_t)rows ? s->nrows - rows : 0;
	for (y = HEAD_LINES, r = u->first; r < s->nrows && y < HEAD_LINES + rows; r++, y++) {
		bool selected = r == u->sel;

		attrset(selected ? attr(u, PAIR_SEL, A_REVERSE) : A_NORMAL);
		if (selected)
			mvhline(y, 0, ' ', COLS);
		for (c = 0, x = 0; c < nc; c++) {
			const struct col *d = &s->cols[c];

			snprintf(buf, sizeof(buf), d->right ? "%*.*s" : "%-*.*s", d->width,
				 d->width, cell(s, r, c));
			put(y, x, buf);
			x += d->width + 1;
		}
	}
	attrset(A_NORMAL);
last:
	attrset(A_NORMAL);
	if (u->prompt) {
		snprintf(buf, sizeof(buf), "filter: %s_", u->pbuf);
		attrset(A_BOLD);
		put(LINES - 1, 0, buf);
		attrset(A_NORMAL);
	} else if (u->msg[0]) {
		put(LINES - 1, 0, u->msg);
	}
	refresh();
}

static void render(struct top_tui *u)
{
	if (LINES < HEAD_LINES + 2 || COLS < 20) {
		erase();
		put(0, 0, "terminal too small");
		refresh();
	} else if (u->help) {
		render_help(u);
	} else {
		render_view(u);
	}
}

/* ---- keys -------------------------------------------------------------- */

/* A new snapshot of the engine's table; the selection stays on the row
 * whose first cell it was on (the same container, process ...). */
static void retake(struct top_tui *u)
{
	char was[256] = "";
	size_t r;

	if (u->s.name && u->sel < u->s.nrows && u->s.ncols)
		snprintf(was, sizeof(was), "%s", cell(&u->s, u->sel, 0));
	if (snap_take(&u->s, strobe_top_table(u->t)))
		snprintf(u->msg, sizeof(u->msg), "out of memory");
	if (!was[0])
		return;
	for (r = 0; r < u->s.nrows; r++)
		if (!strcmp(cell(&u->s, r, 0), was)) {
			u->sel = r;
			return;
		}
}

static void set_msg(struct top_tui *u, const struct strobe_error *err)
{
	snprintf(u->msg, sizeof(u->msg), "%s", err->msg[0] ? err->msg : strerror(-err->code));
}

/* Sort by the next column in direction dir (+1, -1) that the engine
 * takes (group keys are not sort keys); wrap: around the ends. */
static void sort_step(struct top_tui *u, int dir, bool wrap)
{
	struct strobe_error err = { 0 };
	int n = u->s.ncols, cur = snap_col(&u->s, strobe_top_sort(u->t)), i, c;

	if (!n)
		return;
	for (i = 1; i < n; i++) {
		c = cur + dir * i;
		if (wrap)
			c = ((c % n) + n) % n;
		else if (c < 0 || c >= n)
			break;
		if (strobe_top_set_sort(u->t, u->s.cols[c].c.key, &err) == 0) {
			retake(u);
			return;
		}
	}
	snprintf(u->msg, sizeof(u->msg), "no column further %s to sort by",
		 dir > 0 ? "right" : "left");
}

static void group_next(struct top_tui *u)
{
	struct strobe_error err = { 0 };
	enum strobe_top_group g = strobe_top_group(u->t);

	if (strobe_top_drill(u->t)) {
		g = u->group_before_drill;
		if (strobe_top_set_drill(u->t, NULL, &err))
			set_msg(u, &err);
	}
	g = (g + 1) % (STROBE_TOP_THREAD + 1);
	if (strobe_top_set_group(u->t, g, &err))
		set_msg(u, &err);
	u->sel = u->first = 0;
	retake(u);
}

static void drill_in(struct top_tui *u)
{
	struct strobe_error err = { 0 };
	enum strobe_top_group g = strobe_top_group(u->t);
	const char *name;
	int c;

	if (strobe_top_drill(u->t)) {
		snprintf(u->msg, sizeof(u->msg), "showing the processes of %s: Esc goes back",
			 strobe_top_drill(u->t));
		return;
	}
	c = snap_col(&u->s, "container");
	if (c < 0) {
		snprintf(u->msg, sizeof(u->msg),
			 "Enter opens a container's processes: group by container (g) first");
		return;
	}
	if (!u->s.nrows)
		return;
	name = cell(&u->s, u->sel, c);
	if (strobe_top_set_drill(u->t, name, &err)) {
		set_msg(u, &err);
		return;
	}
	u->group_before_drill = g;
	u->sel = u->first = 0;
	retake(u);
}

static void drill_out(struct top_tui *u)
{
	struct strobe_error err = { 0 };

	if (!strobe_top_drill(u->t))
		return;
	if (strobe_top_set_drill(u->t, NULL, &err))
		set_msg(u, &err);
	else if (strobe_top_group(u->t) != u->group_before_drill &&
		 strobe_top_set_group(u->t, u->group_before_drill, &err))
		set_msg(u, &err);
	u->sel = u->first = 0;
	retake(u);
}

static void prompt_key(struct top_tui *u, int ch)
{
	struct strobe_error err = { 0 };

	switch (ch) {
	case 27:
		u->prompt = false;
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		u->prompt = false;
		if (strobe_top_set_filter(u->t, u->plen ? u->pbuf : NULL, &err))
			set_msg(u, &err);
		u->sel = u->first = 0;
		retake(u);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (u->plen)
			u->pbuf[--u->plen] = 0;
		return;
	default:
		if (ch >= 0x20 && ch < 0x7f && u->plen < PROMPT_MAX) {
			u->pbuf[u->plen++] = (char)ch;
			u->pbuf[u->plen] = 0;
		}
	}
}

static void move_sel(struct top_tui *u, long by)
{
	long n = (long)u->s.nrows, to = (long)u->sel + by;

	if (to >= n)
		to = n - 1;
	if (to < 0)
		to = 0;
	u->sel = (size_t)to;
}

/* One key; 1 when it quits. */
static int key(struct top_tui *u, int ch)
{
	long page = LINES - 1 - HEAD_LINES > 1 ? LINES - 1 - HEAD_LINES : 1;

	u->msg[0] = 0;
	if (ch == KEY_RESIZE)
		return 0;
	if (u->prompt) {
		prompt_key(u, ch);
		return 0;
	}
	if (u->help) {
		switch (ch) {
		case KEY_UP: u->help_first--; break;
		case KEY_DOWN: u->help_first++; break;
		case KEY_PPAGE: u->help_first -= LINES - 2; break;
		case KEY_NPAGE: case ' ': u->help_first += LINES - 2; break;
		case KEY_HOME: u->help_first = 0; break;
		case KEY_END: u->help_first = 1 << 20; break;
		default: u->help = false;
		}
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case '?':
	case 'h':
		u->help = true;
		u->help_first = 0;
		break;
	case '<':
		sort_step(u, -1, false);
		break;
	case '>':
		sort_step(u, +1, false);
		break;
	case 's':
	case KEY_F(6):
		sort_step(u, +1, true);
		break;
	case 'g':
		group_next(u);
		break;
	case 'p':
	case 'P':
		u->paused = !u->paused;
		if (!u->paused)
			retake(u);
		break;
	case '/':
		u->prompt = true;
		u->plen = 0;
		u->pbuf[0] = 0;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case 'o':
		drill_in(u);
		break;
	case 27:
	case KEY_BACKSPACE:
	case 127:
	case 8:
		drill_out(u);
		break;
	case KEY_UP: move_sel(u, -1); break;
	case KEY_DOWN: move_sel(u, 1); break;
	case KEY_PPAGE: move_sel(u, -page); break;
	case KEY_NPAGE: move_sel(u, page); break;
	case KEY_HOME: move_sel(u, -(long)u->s.nrows); break;
	case KEY_END: move_sel(u, (long)u->s.nrows); break;
	default:
		break;
	}
	return 0;
}

/* ---- the interface ----------------------------------------------------- */

static int fail(struct strobe_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct strobe_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

int top_tui_open(struct top_tui **out, struct strobe_top *t, const char *title,
		 volatile sig_atomic_t *stop, struct strobe_error *err)
{
	const char *term = getenv("TERM");
	struct top_tui *u;

	*out = NULL;
	if (g_open)
		return fail(err, -EBUSY, "the interactive view is already open");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return fail(err, -ENOTTY, "the interactive view needs a terminal on standard "
			    "input and output (--batch prints tables)");
	if (!term || !*term)
		return fail(err, -ENOTTY, "TERM is not set (--batch prints tables)");
	u = calloc(1, sizeof(*u));
	if (!u || !(u->title = strdup(title ? title : ""))) {
		free(u);
		return fail(err, -ENOMEM, "out of memory");
	}
	u->t = t;
	g_fd = STDOUT_FILENO;
	g_tio_ok = tcgetattr(g_fd, &g_tio) == 0;
	g_stop = stop;
	g_winch = 0;
	/* before ncurses, so that it installs no handlers of its own */
	install_signals();
	fflush(stdout);
	u->scr = newterm(NULL, stdout, stdin);
	if (!u->scr) {
		restore_signals();
		g_stop = NULL;
		free(u->title);
		free(u);
		return fail(err, -ENOTTY, "cannot drive the terminal type '%s' (--batch prints "
			    "tables)", term);
	}
	set_term(u->scr);
	g_open = u;
	g_active = 1;
	if (!g_atexit_set) {
		atexit(at_exit);
		g_atexit_set = true;
	}
	g_reset_len = 0;
	add_reset("sgr0");
	add_reset("cnorm");
	add_reset("rmkx");
	add_reset("rmcup");
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors() && start_color() == OK) {
		short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;

		init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_GREEN);
		init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_SORT, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_TITLE, COLOR_CYAN, bg);
		u->colors = true;
	}
	render(u);
	*out = u;
	return 0;
}

int top_tui_poll(struct top_tui *u)
{
	bool dirty = false;
	int ch, n = 0;

	if (!u || !g_active)
		return 0;
	if (g_winch) {
		struct winsize ws;

		g_winch = 0;
		if (ioctl(g_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
			resize_term(ws.ws_row, ws.ws_col);
		clearok(curscr, TRUE);
		dirty = true;
	}
	while (n++ < 256 && (ch = getch()) != ERR) {
		if (key(u, ch))
			return 1;
		dirty = true;
	}
	if (dirty)
		render(u);
	return 0;
}

void top_tui_draw(struct top_tui *u, const char *status)
{
	if (!u || !g_active)
		return;
	if (status)
		snprintf(u->status, sizeof(u->status), "%s", status);
	if (!u->paused)
		retake(u);
	render(u);
}

void top_tui_close(struct top_tui *u)
{
	if (!u)
		return;
	if (g_open == u) {
		if (g_active) {
			endwin();
			g_active = 0;
		}
		restore_signals();
		g_stop = NULL;
		g_open = NULL;
		fflush(stdout);
	}
	if (u->scr)
		delscreen(u->scr);
	snap_free(&u->s);
	free(u->title);
	free(u);
}
