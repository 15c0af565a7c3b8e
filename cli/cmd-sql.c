/*
 * cmd-sql.c - `strobe sql`: SQL queries over a trace file.
 *
 * The library builds the database (strobe_sql_open: in memory, or kept
 * with --db and reused while it is current); this file runs the queries
 * given on the command line and prints each result as an aligned table
 * (the default), JSON lines (one object per row, keys the column names,
 * as `strobe report --json` prints one object per event) or CSV (RFC
 * 4180 with a header line).  Tables are aligned over the whole result,
 * so their rows are held until the end; JSON and CSV stream.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli.h"

#define CMD		"sql"

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe sql [options] [-i FILE] QUERY...\n"
		"\n"
		"Answer SQL queries over a trace file (default trace.dat), loaded into an\n"
		"SQLite database: a table per event type (sched_switch, sys_enter, ...),\n"
		"the view events(seq, ts, cpu, tid, pid, comm, container, host, system,\n"
		"event, fields), tasks, containers, meta, and the results of the analyses\n"
		"(syscalls_stats, cputop_top, schedlat_stats, ...).  See strobe-sql(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE      trace file to read (default: trace.dat); several -i\n"
		"                        load files of several hosts into one database:\n"
		"                        every table gains a host column, ts is on one\n"
		"                        (wall-clock) timeline; --db is then always rebuilt\n"
		"      --db PATH         keep the database in PATH (an SQLite file) and reuse\n"
		"                        it while it is newer than the trace; default: memory\n"
		"      --rebuild         rebuild the kept database even when it is current\n"
		"      --json            one JSON object per result row\n"
		"      --csv             CSV with a header line\n"
		"      --host-name NAME  value of the host column (default: the recording's\n"
		"                        host name, else empty); one -i only\n"
		"      --analyses LIST   analyses loaded as tables (default "
		STROBE_SQL_ANALYSES ";\n"
		"                        \"\" for none)\n"
		"      --logs            also every occurrence: syscalls_log (each call and\n"
		"                        its duration), schedlat_log, cputop_log\n"
		"      --strict          fail on damaged data instead of skipping it with a\n"
		"                        warning (strobe-damage(7))\n"
		"      --safe            for queries from elsewhere: the database read-only,\n"
		"                        no ATTACH, no statement that writes, each QUERY\n"
		"                        bounded in memory and time (default --timeout 60)\n"
		"      --timeout SECS    stop a QUERY that runs longer than SECS\n"
		"      --jobs N          threads for the load (default: the CPUs strobe may\n"
		"                        use); 2 or more: SQLite on a thread of its own\n"
		"                        beside the decoding; 1: one thread\n"
		"  -v, --verbose         say how the database was made (events/s) on stderr\n"
		"  -h, --help            show this help\n"
		"\n"
		"Each QUERY may hold several statements separated by ';'.  With --db and\n"
		"no QUERY, the database is only built.\n"
		"\n"
		"Examples:\n"
		"  strobe sql \"SELECT event, count(*) FROM events GROUP BY event\"\n"
		"  strobe sql -i run.dat --db run.sqlite \\\n"
		"      \"SELECT comm, count(*) FROM sys_enter GROUP BY comm ORDER BY 2 DESC\"\n"
		"  strobe sql --json \"SELECT * FROM syscalls WHERE errors > 0\"\n"
		"  strobe sql --logs \"SELECT syscall, max(duration) FROM syscalls_log GROUP BY 1\"\n"
		"  sqlite3 run.sqlite '.tables'           the kept database, any SQLite tool\n");
}

/*
 * SQLite's page cache in one anonymous mapping the kernel may back with
 * huge pages, sized from the trace (the database takes about 1.25 times
 * its size; a file build keeps at most 256 MiB of pages in its cache):
 * a database grown in ordinary heap memory costs a page fault per 4 KiB,
 * about a quarter of the loading time.  Pages beyond it come from malloc
 * as before; without huge pages it changes nothing.  A process-wide
 * setting, made before SQLite starts: hence here, not in the library.
 */
static void page_cache_setup(const char *input, bool memory)
{
	struct stat sb;
	size_t slot, n, bytes;
	void *p;
	int hdr = 0;

	if (stat(input, &sb) < 0 ||
	    sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK || hdr <= 0)
		return;
	slot = ((size_t)STROBE_SQL_PAGE_SIZE + (size_t)hdr + 7) & ~(size_t)7;
	n = ((size_t)sb.st_size + (size_t)sb.st_size / 4 + (size_t)sb.st_size / 16) /
	    STROBE_SQL_PAGE_SIZE + 64;
	if (!memory && n > (256u << 20) / STROBE_SQL_PAGE_SIZE)
		n = (256u << 20) / STROBE_SQL_PAGE_SIZE;
	if (n > 1u << 20)	/* 64 GiB of address space, never more */
		n = 1u << 20;
	bytes = n * slot;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise(p, bytes, MADV_HUGEPAGE);
	if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, p, (int)slot, (int)n) != SQLITE_OK)
		munmap(p, bytes);
}

/*
 * A --db build writes PATH.tmp-PID (strobe_sql_open) and renames it over
 * PATH when complete.  Killed by SIGINT, SIGTERM or SIGHUP meanwhile,
 * strobe removes that file (and its journal) and dies of the signal, so
 * PATH is either the complete new database or the old one (a signal
 * ignored when strobe started, as nohup's SIGHUP, stays ignored).  SIGXFSZ is
 * ignored: a file-size limit then fails the write, which the library
 * reports as such, instead of killing strobe with the file left behind.
 */
static const int build_signals[] = { SIGINT, SIGTERM, SIGHUP };
static char build_tmp[4096], build_journal[4096 + 8];

static void on_build_signal(int sig)
{
	unlink(build_tmp);
	unlink(build_journal);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Between build_guard(path, old) and build_unguard(old); path NULL: none. */
static void build_guard(const char *db_path, struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_build_signal };
	size_t i;

	signal(SIGXFSZ, SIG_IGN);
	build_tmp[0] = '\0';
	if (!db_path)
		return;
	if (snprintf(build_tmp, sizeof(build_tmp), "%s.tmp-%d", db_path,
		     (int)getpid()) >= (int)sizeof(build_tmp)) {
		build_tmp[0] = '\0';	/* the library cannot build there either */
		return;
	}
	snprintf(build_journal, sizeof(build_journal), "%s-journal", build_tmp);
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(build_signals) / sizeof(*build_signals); i++) {
		sigaction(build_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)	/* nohup's SIGHUP stays ignored */
			sigaction(build_signals[i], &sa, NULL);
	}
}

static void build_unguard(const char *db_path, const struct sigaction *old)
{
	size_t i;

	if (!db_path || !build_tmp[0])
		return;
	for (i = 0; i < sizeof(build_signals) / sizeof(*build_signals); i++)
		sigaction(build_signals[i], &old[i], NULL);
}

/* ---- --safe and --timeout --------------------------------------------- */

/*
 * --safe is for a query that comes from somewhere else (a dashboard, a
 * script that builds queries), --timeout SECS bounds each QUERY's time:
 * both are the library's strobe_sql_guard (strobe-sql(3)), which says
 * what it refused or stopped in the words of these options.
 */
static struct strobe_sql_guard_opts guard_opts;
static struct strobe_sql_guard *guard;

/* Say why a statement of db failed, in the words of the limit it hit. */
static void sql_error(sqlite3 *db)
{
	struct strobe_error err = { 0, "" };

	strobe_sql_guard_error(guard, &err);
	cli_error(CMD, "%s", err.msg);
}

/* A statement --safe refuses before it runs (saying so): one that writes. */
static bool safe_refuses(sqlite3_stmt *st)
{
	struct strobe_error err = { 0, "" };

	if (strobe_sql_guard_check(guard, st, &err) == 0)
		return false;
	cli_error(CMD, "%s", err.msg);
	return true;
}

/* ---- output ---------------------------------------------------------- */

static void put_hex(struct strobe_buf *s, const unsigned char *p, int n)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < n; i++) {
		strobe_buf_putc(s, hex[p[i] >> 4]);
		strobe_buf_putc(s, hex[p[i] & 15]);
	}
}

static void put_csv(struct strobe_buf *s, const char *v, size_t n)
{
	size_t i;

	if (!strpbrk(v, ",\"\r\n") && n == strlen(v)) {
		strobe_buf_puts(s, v);
		return;
	}
	strobe_buf_putc(s, '"');
	for (i = 0; i < n; i++) {
		if (v[i] == '"')
			strobe_buf_putc(s, '"');
		strobe_buf_putc(s, v[i] ? v[i] : ' ');
	}
	strobe_buf_putc(s, '"');
}

/* One cell of a buffered text table. */
struct cell {
	char *text;		/* NULL for SQL NULL */
	bool number;		/* an SQL INTEGER or REAL */
};

struct text_table {
	int ncols;
	struct cell *cells;	/* rows * ncols */
	size_t rows, cap;
	int *width;
	bool *text;		/* the column holds text: left-aligned */
};

static char *cell_text(sqlite3_stmt *st, int i, bool *number)
{
	int type = sqlite3_column_type(st, i);

	*number = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
	if (type == SQLITE_NULL)
		return NULL;
	if (type == SQLITE_BLOB) {
		const unsigned char *p = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i), j;
		char *h = malloc(2 * (size_t)n + 1);

		for (j = 0; h && j < n; j++)
			sprintf(h + 2 * j, "%02x", p[j]);
		if (h)
			h[2 * n] = '\0';
		return h;
	}
	return strdup((const char *)sqlite3_column_text(st, i));
}

/* Display width of UTF-8 text: code points, a fair guess for a terminal. */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static int table_add_row(struct text_table *t, sqlite3_stmt *st)
{
	int i;

	if (t->rows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct cell *c = realloc(t->cells, cap * (size_t)t->ncols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++) {
		struct cell *c = &t->cells[t->rows * (size_t)t->ncols + i];

		c->text = cell_text(st, i, &c->number);
		if (!c->text && sqlite3_column_type(st, i) != SQLITE_NULL) {
			while (i-- > 0)
				free(t->cells[t->rows * (size_t)t->ncols + i].text);
			return -ENOMEM;
		}
		if (c->text && text_width(c->text) > t->width[i])
			t->width[i] = text_width(c->text);
		if (c->text && !c->number)
			t->text[i] = true;
	}
	t->rows++;
	return 0;
}

/* Two blanks between columns, columns of numbers right-aligned, no
 * trailing blanks. */
static void table_line(struct strobe_buf *s, const struct text_table *t,
		       const struct cell *row)
{
	int i, pending = 0;

	for (i = 0; i < t->ncols; i++) {
		const char *v = row[i].text ? row[i].text : "";
		int pad = t->width[i] - text_width(v);

		if (i)
			pending += 2;
		if (!t->text[i] && t->rows) {
			pending += pad;
			pad = 0;
		}
		if (*v) {
			strobe_buf_printf(s, "%*s%s", pending, "", v);
			pending = 0;
		}
		pending += pad;
	}
	strobe_buf_putc(s, '\n');
}

static void table_free(struct text_table *t)
{
	size_t i;

	for (i = 0; i < t->rows * (size_t)t->ncols; i++)
		free(t->cells[i].text);
	free(t->cells);
	free(t->width);
	free(t->text);
}

static void json_row(struct strobe_buf *s, sqlite3_stmt *st, int ncols)
{
	int i;

	strobe_buf_putc(s, '{');
	for (i = 0; i < ncols; i++) {
		const char *name = sqlite3_column_name(st, i);

		if (i)
			strobe_buf_putc(s, ',');
		strobe_json_escape(s, name ? name : "", name ? strlen(name) : 0);
		strobe_buf_putc(s, ':');
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			strobe_buf_printf(s, "%lld", (long long)sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT: {
			double d = sqlite3_column_double(st, i);

			if (isfinite(d))
				strobe_buf_printf(s, "%.17g", d);
			else
				strobe_buf_puts(s, "null");
			break;
		}
		case SQLITE_TEXT:
			strobe_json_escape(s, (const char *)sqlite3_column_text(st, i),
					   (size_t)sqlite3_column_bytes(st, i));
			break;
		case SQLITE_BLOB:
			strobe_buf_putc(s, '"');
			put_hex(s, sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
			strobe_buf_putc(s, '"');
			break;
		default:
			strobe_buf_puts(s, "null");
		}
	}
	strobe_buf_puts(s, "}\n");
}

static void csv_row(struct strobe_buf *s, sqlite3_stmt *st, int ncols, bool header)
{
	int i;

	for (i = 0; i < ncols; i++) {
		if (i)
			strobe_buf_putc(s, ',');
		if (header) {
			const char *name = sqlite3_column_name(st, i);

			put_csv(s, name ? name : "", name ? strlen(name) : 0);
			continue;
		}
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			break;
		case SQLITE_BLOB:
			put_hex(s, sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
			break;
		default:
			put_csv(s, (const char *)sqlite3_column_text(st, i),
				(size_t)sqlite3_column_bytes(st, i));
		}
	}
	strobe_buf_puts(s, "\r\n");
}

/* Bytes of a database's pages (in memory: what it holds). */
static unsigned long long db_size(sqlite3 *db)
{
	unsigned long long n[2] = { 0, 0 };
	const char *q[2] = { "PRAGMA page_count", "PRAGMA page_size" };
	sqlite3_stmt *st;
	int i;

	for (i = 0; i < 2; i++) {
		if (sqlite3_prepare_v2(db, q[i], -1, &st, NULL) != SQLITE_OK)
			return 0;
		if (sqlite3_step(st) == SQLITE_ROW)
			n[i] = (unsigned long long)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n[0] * n[1];
}

/*
 * What the data lacks or what was wrong with it, as every command says it
 * (strobe-damage(7)): meta's diagnostic.* rows, in the order found; when
 * the database holds several files, each names its file (meta's trace
 * of its host) unless its text does.  Returns whether any is damage, the
 * first in first; strict: damage is left to the error.
 */
static bool warn_diags(sqlite3 *db, bool strict, char *first, size_t size)
{
	sqlite3_stmt *st;
	bool damage = false;

	if (sqlite3_prepare_v2(db, "SELECT d.key, d.value, t.value FROM meta d LEFT JOIN meta t "
			       "ON t.host = d.host AND t.key = 'trace' WHERE d.key LIKE "
			       "'diagnostic.%' ORDER BY d.rowid", -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT key, value, NULL FROM meta WHERE key LIKE "
			       "'diagnostic.%' ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *msg = (const char *)sqlite3_column_text(st, 1);
		const char *file = (const char *)sqlite3_column_text(st, 2);

		if (!key || !msg)
			continue;
		if (file && strstr(msg, file))
			file = NULL;	/* it says which */
		if (cli_diag_kind_is_damage(key + strlen("diagnostic."))) {
			if (!damage)
				snprintf(first, size, "%s%s%s", file ? file : "", file ? ": " : "",
					 msg);
			damage = true;
			if (strict)
				continue;	/* the error says it */
		}
		cli_warn(CMD, "%s%s%s", file ? file : "", file ? ": " : "", msg);
	}
	sqlite3_finalize(st);
	return damage;
}

/* Run one prepared statement and print its rows; returns an exit status. */
static int run_stmt(sqlite3 *db, sqlite3_stmt *st, enum fmt fmt, struct strobe_buf *s,
		    int *results)
{
	int ncols = sqlite3_column_count(st), rc, i;
	struct text_table t = { .ncols = ncols };

	if (ncols && fmt == FMT_TABLE) {
		t.width = calloc((size_t)ncols, sizeof(*t.width));
		t.text = calloc((size_t)ncols, sizeof(*t.text));
		if (!t.width || !t.text) {
			cli_error(CMD, "out of memory");
			return CLI_FAIL;
		}
		for (i = 0; i < ncols; i++) {
			const char *name = sqlite3_column_name(st, i);

			t.width[i] = name ? text_width(name) : 0;
		}
	}
	if (ncols && fmt == FMT_CSV)
		csv_row(s, st, ncols, true);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == FMT_JSON)
			json_row(s, st, ncols);
		else if (fmt == FMT_CSV)
			csv_row(s, st, ncols, false);
		else if (table_add_row(&t, st) < 0) {
			cli_error(CMD, "out of memory");
			table_free(&t);
			return CLI_FAIL;
		}
		if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		cli_flush(s);
		sql_error(db);
		table_free(&t);
		return CLI_FAIL;
	}
	if (ncols && fmt == FMT_TABLE) {
		struct cell *head = calloc((size_t)ncols, sizeof(*head));
		size_t r;

		if (!head) {
			cli_error(CMD, "out of memory");
			table_free(&t);
			return CLI_FAIL;
		}
		if ((*results)++)
			strobe_buf_putc(s, '\n');
		for (i = 0; i < ncols; i++)
			head[i].text = (char *)sqlite3_column_name(st, i);
		table_line(s, &t, head);
		free(head);
		for (r = 0; r < t.rows; r++) {
			table_line(s, &t, &t.cells[r * (size_t)ncols]);
			if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
				break;
		}
	}
	table_free(&t);
	return CLI_OK;
}

/* Every statement of one query text; returns an exit status. */
static int run_query(sqlite3 *db, const char *sql, enum fmt fmt, struct strobe_buf *s,
		     int *results)
{
	const char *tail = sql;
	int status = CLI_OK;

	strobe_sql_guard_start(guard);

	while (tail && *tail && status == CLI_OK) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			sql_error(db);
			return CLI_FAIL;
		}
		if (!st)	/* blanks or a comment */
			continue;
		if (safe_refuses(st)) {
			sqlite3_finalize(st);
			return CLI_FAIL;
		}
		status = run_stmt(db, st, fmt, s, results);
		sqlite3_finalize(st);
	}
	return status;
}

/* Several -i: one database of every file, in one pipeline run
 * (strobe_sql_open_pipeline; a file given twice is read once, with a
 * notice), then the note on how their clocks were merged. */
static int sql_open_many(const char **inputs, int n, const char *db_path,
			 const struct strobe_sql_opts *o, sqlite3 **db,
			 struct strobe_sql_stats *st, struct strobe_error *err)
{
	struct strobe_tracefile **tfs = calloc((size_t)n, sizeof(*tfs));
	const char **paths = calloc((size_t)n, sizeof(*paths));
	struct strobe_pipeline *p = NULL;
	int i, r = 0;

	if (!tfs || !paths) {
		free(tfs);
		free(paths);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n && r >= 0; i++)
		r = strobe_tracefile_open(inputs[i], &tfs[i], err);
	if (r >= 0)
		r = strobe_pipeline_new(NULL, &p, err);
	for (i = 0; i < n && r >= 0; i++) {
		r = strobe_pipeline_add_file(p, tfs[i], NULL, err);
		if (r >= 0 && !paths[r])
			paths[r] = inputs[i];
	}
	if (r >= 0)
		r = strobe_sql_open_pipeline(p, db_path, o, db, st, err);
	if (r >= 0 && strobe_pipeline_nr_sources(p) > 1)
		cli_merge_clock_note(CMD, strobe_pipeline_merge(p), paths);
	strobe_pipeline_free(p);
	for (i = 0; i < n; i++)
		strobe_tracefile_close(tfs[i]);
	free(tfs);
	free(paths);
	return r < 0 ? r : 0;
}

int cmd_sql(int argc, char **argv)
{
	enum { OPT_DB = 256, OPT_REBUILD, OPT_JSON, OPT_CSV, OPT_HOST, OPT_ANALYSES, OPT_LOGS,
	       OPT_STRICT, OPT_SAFE, OPT_TIMEOUT, OPT_JOBS };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "rebuild", no_argument, NULL, OPT_REBUILD },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "host-name", required_argument, NULL, OPT_HOST },
		{ "analyses", required_argument, NULL, OPT_ANALYSES },
		{ "logs", no_argument, NULL, OPT_LOGS },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "safe", no_argument, NULL, OPT_SAFE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_sql_opts o = { 0 };
	struct strobe_sql_stats st;
	struct strobe_error err = { 0 };
	const char *input = "trace.dat", *db_path = NULL;
	const char **inputs = calloc((size_t)argc + 1, sizeof(*inputs));
	int nr_inputs = 0;
	enum fmt fmt = FMT_TABLE;
	bool verbose = false, strict = false;
	char damage[1024];
	struct strobe_buf *s;
	struct cli_progress *pr;
	sqlite3 *db = NULL;
	struct sigaction old_sa[sizeof(build_signals) / sizeof(*build_signals)];
	int c, i, r, results = 0, status = CLI_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			if (inputs)
				inputs[nr_inputs++] = optarg;
			break;
		case OPT_DB:
			db_path = optarg;
			break;
		case OPT_REBUILD:
			o.rebuild = true;
			break;
		case OPT_JSON:
		case OPT_CSV:
			if (fmt != FMT_TABLE) {
				cli_error(CMD, "--json and --csv exclude each other");
				return CLI_USAGE;
			}
			fmt = c == OPT_JSON ? FMT_JSON : FMT_CSV;
			break;
		case OPT_HOST:
			o.host = optarg;
			break;
		case OPT_ANALYSES:
			o.analyses = optarg;
			break;
		case OPT_LOGS:
			o.logs = true;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_SAFE:
			guard_opts.safe = true;
			break;
		case OPT_TIMEOUT: {
			char *end;

			errno = 0;
			guard_opts.timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(guard_opts.timeout > 0) ||
			    guard_opts.timeout > 1e9) {
				cli_error(CMD, "--timeout: '%s' is not a number of seconds above 0",
					  optarg);
				return CLI_USAGE;
			}
			break;
		}
		case OPT_JOBS:
			if (cli_parse_int(optarg, 1, CLI_MAX_JOBS, &o.jobs) < 0) {
				cli_error(CMD, "--jobs: '%s' is not a number from 1 to %d", optarg,
					  CLI_MAX_JOBS);
				return CLI_USAGE;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			usage(stderr);
			return CLI_USAGE;
		}
	}
	if (optind == argc && !db_path) {
		cli_error(CMD, "which query? e.g. strobe sql \"SELECT count(*) FROM events\"");
		return CLI_USAGE;
	}
	if (o.analyses && *o.analyses) {
		struct strobe_analysis *a;

		if (strobe_analysis_new(o.analyses, NULL, &a, &err) < 0) {
			cli_error_e(CMD, &err);
			return CLI_USAGE;
		}
		strobe_analysis_free(a);
	}
	/* No global allocation statistics: they take a mutex per malloc. */
	if (!guard_opts.safe)	/* --safe's heap limit needs them */
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	o.jobs = cli_jobs(o.jobs);
	page_cache_setup(input, !db_path);
	build_guard(db_path, old_sa);
	/* the load's progress (the library makes its pipeline: on_run names it) */
	pr = cli_progress_start(CMD, NULL, false, false);
	o.on_run = cli_progress_on_run;
	o.on_run_arg = pr;
	r = nr_inputs > 1 ? sql_open_many(inputs, nr_inputs, db_path, &o, &db, &st, &err)
			  : strobe_sql_open(input, db_path, &o, &db, &st, &err);
	cli_progress_stop(pr);
	build_unguard(db_path, old_sa);
	if (r < 0) {
		cli_error_e(CMD, &err);
		free(inputs);
		return CLI_FAIL;
	}
	free(inputs);
	if (verbose) {
		if (st.reused)
			fprintf(stderr, "strobe sql: %s is current for %s (%llu events): reused\n",
				db_path, input, (unsigned long long)st.events);
		else
			fprintf(stderr, "strobe sql: loaded %llu events (%d event tables) in "
				"%.3f s: %.0f events/s (%.3f CPU s: %.0f events per CPU s); "
				"trace %llu bytes, database %s%llu bytes\n",
				(unsigned long long)st.events, st.nr_event_tables, st.seconds,
				st.seconds > 0 ? (double)st.events / st.seconds : 0.0,
				st.cpu_seconds,
				st.cpu_seconds > 0 ? (double)st.events / st.cpu_seconds : 0.0,
				(unsigned long long)st.trace_bytes, db_path ? "" : "in memory, ",
				(unsigned long long)(db_path ? st.db_bytes : db_size(db)));
	}
	if (strobe_sql_guard_new(&db, db_path, &guard_opts, &guard, &err) < 0) {
		cli_error_e(CMD, &err);
		sqlite3_close(db);
		return CLI_FAIL;
	}
	if (warn_diags(db, strict, damage, sizeof(damage)) && strict) {
		cli_error(CMD, "damaged data (strict): %s", damage);
		strobe_sql_guard_free(guard);
		sqlite3_close(db);
		return CLI_FAIL;
	}
	s = cli_buf_new();
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	for (i = optind; i < argc && status == CLI_OK; i++)
		status = run_query(db, argv[i], fmt, s, &results);
	if (strobe_buf_failed(s)) {
		cli_error(CMD, "out of memory");
		status = CLI_FAIL;
	}
	cli_flush(s);
	strobe_buf_free(s);
	strobe_sql_guard_free(guard);
	sqlite3_close(db);
	return status;
}
