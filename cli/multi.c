/*
 * multi.c - what the commands that read several trace files at once
 * (strobe report -i A -i B, strobe sql, the analyses) share: the one
 * stderr note on how the files' clocks were put on one timeline, and how
 * far that can be trusted.
 *
 * Also the analyses over several files (cli_analyze_files): each file is
 * analysed alone (its own task model: TIDs repeat across hosts) and the
 * tables of one name are printed as one, with a host column
 * (strobe_table_merge_hosts); log rows (--log) are kept and printed on
 * the common timeline after every file is read; LAMI results are one
 * object (strobe_lami_write_results_merged).
 *
 * The uncertainty a merge can state: each file's pairings of its trace
 * clock with its host's wall clock were taken between two wall-clock
 * reads (the bracket, +- error), and the offset moved between the start
 * and end pairings (drift, interpolated away but a sign of how steady the
 * clocks were).  What no recording can see is how far the hosts' wall
 * clocks themselves disagree (NTP, PTP): the note says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli.h"

/* ns as a short human quantity ("1.4 us", "2.50 ms"). */
static const char *human_ns(char *b, size_t size, double ns)
{
	if (ns < 0)
		ns = -ns;
	if (ns < 1000)
		snprintf(b, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(b, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, size, "%.2f ms", ns / 1e6);
	else
		snprintf(b, size, "%.3f s", ns / 1e9);
	return b;
}

void cli_merge_clock_note(const char *cmd, const struct strobe_merge *m,
			  const char *const *paths)
{
	int i, n = strobe_merge_nr_sources(m);
	char e[32], d[32], sp[32];

	if (!strobe_merge_wall(m)) {
		for (i = 0; i < n; i++) {
			struct strobe_merge_clock c;

			strobe_merge_clock(m, i, &c);
			if (!c.nr_sync)
				cli_warn(cmd, "%s (host %s) has no clock offsets (recorded by an "
					 "older strobe or by trace-cmd)", paths[i],
					 strobe_merge_host(m, i));
		}
		cli_warn(cmd, "the %d files are merged on their raw trace clocks: the order "
			 "across hosts is right only if they share one clock", n);
		return;
	}
	fprintf(stderr, "strobe %s: %d hosts on one timeline, wall-clock time "
		"(CLOCK_REALTIME) of each host; clock uncertainty:\n", cmd, n);
	for (i = 0; i < n; i++) {
		struct strobe_merge_clock c;

		strobe_merge_clock(m, i, &c);
		if (c.nr_sync == 2)
			fprintf(stderr, "  %s: +-%s (offset to the wall clock drifted %s over %s, "
				"interpolated)\n", strobe_merge_host(m, i),
				human_ns(e, sizeof(e), (double)c.error_ns),
				human_ns(d, sizeof(d), (double)c.drift_ns),
				human_ns(sp, sizeof(sp), (double)c.span_ns));
		else
			fprintf(stderr, "  %s: +-%s (one pairing only: drift unknown)\n",
				strobe_merge_host(m, i), human_ns(e, sizeof(e), (double)c.error_ns));
	}
	fprintf(stderr, "  plus however far the hosts' wall clocks disagree (NTP), which a "
		"recording cannot see\n");
}

int cli_json_add_key(struct strobe_buf *s, const char *key, const char *val)
{
	size_t len = strobe_buf_len(s);
	const char *d = strobe_buf_data(s);

	if (len < 2 || d[len - 2] != '}' || d[len - 1] != '\n')
		return 0;
	strobe_buf_truncate(s, len - 2);
	strobe_buf_printf(s, ",\"%s\":", key);
	if (strobe_json_escape(s, val, strlen(val)) < 0)
		return -ENOMEM;
	strobe_buf_puts(s, "}\n");
	return strobe_buf_failed(s) ? -ENOMEM : 0;
}

/* "+SECONDS" into ns; -1 for anything else. */
static int rel_seconds(const char *s, uint64_t *ns)
{
	double v;

	if (!s || s[0] != '+' || cli_parse_seconds(s + 1, &v) < 0 || v < 0)
		return -1;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/* ---- log rows of several hosts ---------------------------------------- */

/*
 * Log rows reach the analyses' log callback valid during the call only,
 * host by host (each file is analysed alone), each host's in the order
 * its occurrences ended.  To put them on one timeline they are kept until
 * every file is read:
 *  - the cells are copied into chunks of rows (nothing is copied as they
 *    grow) mapped from one temporary file (tmpfile(3), blocks reserved
 *    with posix_fallocate so that a full disk is an error, not a SIGBUS):
 *    the kernel can write them out instead of the process holding them
 *    (malloc when no temporary file can be made);
 *  - the strings, which point into the analysis' stack or its task model,
 *    are interned in one pool in memory, where comm, syscall and container
 *    names repeat (a column's string is most often its previous row's:
 *    that is checked first).
 * Printing orders each host's rows by their first timestamp (the
 * occurrence's start; a host whose rows came out of that order gets an
 * index sorted once, 8 bytes a row) and merges the hosts by that
 * timestamp on the merge's timeline, ties host by host, writing through
 * the table writers with the host cell first.
 */
#define MAX_LOG_TABLES 16
#define CHUNK_ROWS 65536

struct strpool {		/* open addressing, power-of-two size */
	char **slots;
	size_t cap, n;
};

struct log_store {		/* what every host's kept rows share */
	struct strpool pool;
	FILE *f;		/* the chunks' file, made at the first row */
	off_t size;
	bool in_memory;		/* no temporary file could be made: malloc */
};

struct kept_log {		/* one host's rows of one log table */
	const char *name;	/* the table's name (pooled) */
	int nr_cols;
	int ts_col;		/* the first timestamp column, -1: none */
	union strobe_value **chunks;	/* CHUNK_ROWS * nr_cols cells each, mapped */
	size_t nr_chunks, cap_chunks, nr_rows;
	const char **last;	/* per column: the previous row's pooled string */
	uint64_t last_ts;
	bool unsorted;		/* a row came with an earlier ts_col than the last */
};

struct host_logs {		/* the log callback's argument, one per host */
	struct kept_log tabs[MAX_LOG_TABLES];
	int nr;
	struct log_store *store;
	int failed;		/* an errno: out of memory or file space, or
				 * too many log tables (EMFILE) */
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The pooled copy of s, NULL on ENOMEM. */
static const char *pool_intern(struct strpool *p, const char *s)
{
	size_t i;

	if (!s)
		s = "";
	if (2 * (p->n + 1) > p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 256, j;
		char **n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < p->cap; j++)
			if (p->slots[j]) {
				for (i = str_hash(p->slots[j]) & (ncap - 1); n[i]; i = (i + 1) & (ncap - 1))
					;
				n[i] = p->slots[j];
			}
		free(p->slots);
		p->slots = n;
		p->cap = ncap;
	}
	for (i = str_hash(s) & (p->cap - 1); p->slots[i]; i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->slots[i], s))
			return p->slots[i];
	p->slots[i] = strdup(s);
	if (p->slots[i])
		p->n++;
	return p->slots[i];
}

static void pool_free(struct strpool *p)
{
	size_t i;

	for (i = 0; i < p->cap; i++)
		free(p->slots[i]);
	free(p->slots);
}

/* A new chunk of `bytes` from the store's file; NULL with errno set. */
static union strobe_value *store_chunk(struct log_store *st, size_t bytes)
{
	void *p;
	int ret;

	if (!st->f && !st->in_memory && !(st->f = tmpfile()))
		st->in_memory = true;	/* e.g. no writable /tmp */
	if (st->in_memory)
		return malloc(bytes);
	ret = posix_fallocate(fileno(st->f), st->size, (off_t)bytes);
	if (ret) {
		errno = ret;
		return NULL;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(st->f), st->size);
	if (p == MAP_FAILED)
		return NULL;
	st->size += (off_t)bytes;
	return p;
}

static size_t chunk_bytes(const struct kept_log *k)
{
	return CHUNK_ROWS * (size_t)k->nr_cols * sizeof(union strobe_value);
}

static union strobe_value *kept_row(const struct kept_log *k, size_t r)
{
	return k->chunks[r / CHUNK_ROWS] + (r % CHUNK_ROWS) * (size_t)k->nr_cols;
}

static void kept_free(struct kept_log *k, const struct log_store *st)
{
	size_t i;

	for (i = 0; i < k->nr_chunks; i++)
		if (st->in_memory)
			free(k->chunks[i]);
		else
			munmap(k->chunks[i], chunk_bytes(k));
	free(k->chunks);
	free(k->last);
}

/* Host h's kept_log of table t, made at its first row; NULL on error. */
static struct kept_log *kept_of(struct host_logs *h, const struct strobe_table *t)
{
	const char *name = strobe_table_name(t);
	struct kept_log *k;
	int i, c;

	for (i = 0; i < h->nr; i++)
		if (!strcmp(h->tabs[i].name, name))
			return &h->tabs[i];
	if (h->nr == MAX_LOG_TABLES || !strobe_table_nr_columns(t)) {
		errno = h->nr == MAX_LOG_TABLES ? EMFILE : EINVAL;
		return NULL;
	}
	if (!(name = pool_intern(&h->store->pool, name)))
		return NULL;
	k = &h->tabs[h->nr];
	*k = (struct kept_log){ .name = name, .nr_cols = strobe_table_nr_columns(t), .ts_col = -1 };
	k->last = calloc((size_t)(k->nr_cols ? k->nr_cols : 1), sizeof(*k->last));
	if (!k->last)
		return NULL;
	for (c = 0; c < k->nr_cols && k->ts_col < 0; c++)
		if (strobe_table_column(t, c)->type == STROBE_COL_TIMESTAMP)
			k->ts_col = c;
	h->nr++;
	return k;
}

/* The analyses' log callback: keep a copy of row of table t. */
static void keep_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct host_logs *h = arg;
	struct kept_log *k;
	union strobe_value *v;
	int c;

	if (h->failed)
		return;
	errno = ENOMEM;
	k = kept_of(h, t);
	if (!k)
		goto fail;
	if (k->nr_rows == k->nr_chunks * CHUNK_ROWS) {
		if (k->nr_chunks == k->cap_chunks) {
			size_t ncap = k->cap_chunks ? 2 * k->cap_chunks : 16;
			union strobe_value **n = realloc(k->chunks, ncap * sizeof(*n));

			if (!n)
				goto fail;
			k->chunks = n;
			k->cap_chunks = ncap;
		}
		k->chunks[k->nr_chunks] = store_chunk(h->store, chunk_bytes(k));
		if (!k->chunks[k->nr_chunks])
			goto fail;
		k->nr_chunks++;
	}
	v = kept_row(k, k->nr_rows);
	for (c = 0; c < k->nr_cols; c++) {
		v[c] = row[c];
		if (strobe_table_column(t, c)->type != STROBE_COL_STR)
			continue;
		if (!k->last[c] || strcmp(k->last[c], row[c].s ? row[c].s : "")) {
			k->last[c] = pool_intern(&h->store->pool, row[c].s);
			if (!k->last[c])
				goto fail;
		}
		v[c].s = k->last[c];
	}
	if (k->ts_col >= 0) {
		if (v[k->ts_col].u < k->last_ts)
			k->unsorted = true;
		else
			k->last_ts = v[k->ts_col].u;
	}
	k->nr_rows++;
	return;
fail:
	h->failed = errno ? errno : ENOMEM;
}

/* qsort_r: row indexes of one host by their timestamp, then arrival. */
static int cmp_row(const void *pa, const void *pb, void *arg)
{
	const struct kept_log *k = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint64_t ta = kept_row(k, a)[k->ts_col].u, tb = kept_row(k, b)[k->ts_col].u;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a < b ? -1 : a > b;
}

struct log_print {
	struct host_logs *hl;	/* n hosts' kept rows */
	int n;
	const struct strobe_merge *m;
	bool json, lami;
};

/* One host's rows of the table being written, in time order. */
struct cursor {
	const struct kept_log *k;	/* NULL: none */
	size_t *order;			/* NULL: rows already in order */
	size_t pos;
	uint64_t ts;			/* the next row's, mapped */
};

/* The next row of cursor c (its ts set), NULL at the end. */
static const union strobe_value *cursor_row(struct cursor *c, const struct strobe_merge *m,
					    int host)
{
	const union strobe_value *v;

	if (!c->k || c->pos >= c->k->nr_rows)
		return NULL;
	v = kept_row(c->k, c->order ? c->order[c->pos] : c->pos);
	c->ts = c->k->ts_col < 0 || !v[c->k->ts_col].u ? 0
		: strobe_merge_map_ts(m, host, v[c->k->ts_col].u);
	return v;
}

/*
 * Write every host's kept rows of log table t (merged: the host column
 * first) in time order: text lines, JSON lines, or comma-separated LAMI
 * rows (then also strobe_lami_write_results_merged's log_rows).  Flushes
 * s on the way.  0, -ENOMEM or -EIO.
 */
static int write_log_rows(void *arg, const struct strobe_table *t, struct strobe_buf *s)
{
	struct log_print *lp = arg;
	struct cursor *cur = calloc((size_t)lp->n, sizeof(*cur));
	const union strobe_value **next = calloc((size_t)lp->n, sizeof(*next));
	union strobe_value *out = NULL;
	int i, c, nc = strobe_table_nr_columns(t), ret = -ENOMEM;
	bool any = false;
	size_t r;

	if (!cur || !next)
		goto out;
	out = calloc((size_t)nc, sizeof(*out));
	if (!out)
		goto out;
	for (i = 0; i < lp->n; i++) {
		int j;

		for (j = 0; j < lp->hl[i].nr; j++) {
			const struct kept_log *k = &lp->hl[i].tabs[j];

			if (strcmp(k->name, strobe_table_name(t)) || k->nr_cols != nc - 1)
				continue;
			cur[i].k = k;
			if (k->unsorted) {
				cur[i].order = malloc(k->nr_rows * sizeof(*cur[i].order));
				if (!cur[i].order)
					goto out;
				for (r = 0; r < k->nr_rows; r++)
					cur[i].order[r] = r;
				qsort_r(cur[i].order, k->nr_rows, sizeof(*cur[i].order), cmp_row,
					(void *)k);
			}
		}
		next[i] = cursor_row(&cur[i], lp->m, i);
	}
	for (;;) {
		int h = -1;

		for (i = 0; i < lp->n; i++)	/* the earliest next row; ties: the first host */
			if (next[i] && (h < 0 || cur[i].ts < cur[h].ts))
				h = i;
		if (h < 0)
			break;
		out[0].s = strobe_merge_host(lp->m, h);
		for (c = 1; c < nc; c++) {
			out[c] = next[h][c - 1];
			if (strobe_table_column(t, c)->type == STROBE_COL_TIMESTAMP && out[c].u)
				out[c].u = strobe_merge_map_ts(lp->m, h, out[c].u);
		}
		if (lp->lami) {
			if (any)
				strobe_buf_putc(s, ',');
			strobe_lami_write_row(t, out, s);
		} else if (lp->json) {
			strobe_table_write_json_row(t, out, s);
		} else {
			strobe_table_write_text_row(t, out, s);
		}
		any = true;
		if (strobe_buf_failed(s))
			goto out;
		if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s)) {
			ret = -EIO;
			goto out;
		}
		cur[h].pos++;
		next[h] = cursor_row(&cur[h], lp->m, h);
	}
	ret = 0;
out:
	for (i = 0; cur && i < lp->n; i++)
		free(cur[i].order);
	free(cur);
	free(next);
	free(out);
	return ret;
}

/* How many rows of log table `name` the hosts kept. */
static size_t kept_rows(const struct log_print *lp, const char *name)
{
	size_t nr = 0;
	int i, j;

	for (i = 0; i < lp->n; i++)
		for (j = 0; j < lp->hl[i].nr; j++)
			if (!strcmp(lp->hl[i].tabs[j].name, name))
				nr += lp->hl[i].tabs[j].nr_rows;
	return nr;
}

/* Is table j of host i the first of its name (no earlier host, and no
 * earlier table of host i, has one of that name)? */
static bool first_of_name(struct strobe_analysis *const *an, int i, int j)
{
	const char *name = strobe_table_name(strobe_analysis_table(an[i], j));
	int k, x;

	for (k = 0; k <= i; k++)
		for (x = 0; x < (k < i ? strobe_analysis_nr_tables(an[k]) : j); x++)
			if (!strcmp(strobe_table_name(strobe_analysis_table(an[k], x)), name))
				return false;
	return true;
}

/* Fill col[k] with host k's table `name` (NULL: none). */
static void tables_named(struct strobe_analysis *const *an, int n, const char *name,
			 const struct strobe_table **col)
{
	int k, x;

	for (k = 0; k < n; k++) {
		col[k] = NULL;
		for (x = 0; x < strobe_analysis_nr_tables(an[k]) && !col[k]; x++)
			if (!strcmp(strobe_table_name(strobe_analysis_table(an[k], x)), name))
				col[k] = strobe_analysis_table(an[k], x);
	}
}

/* Print table t of host `host` that cannot be merged (a histogram). */
/* Print table t of host `host` that cannot be merged (a histogram). */
static void per_host_table(const struct strobe_table *t, const char *host, bool json,
			   struct strobe_buf *s)
{
	if (json) {
		strobe_table_write_json(t, s);
		cli_json_add_key(s, "host", host);
	} else {
		strobe_buf_printf(s, "host %s:\n", host);
		strobe_table_write_text(t, s);
	}
}

int cli_analyze_files(const char *cmd, const char *names, const struct strobe_analysis_opts *o,
		      const char *const *inputs, int n, bool json, bool lami, const char *begin,
		      const char *end)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile **tfs = calloc((size_t)n, sizeof(*tfs));
	struct strobe_analysis **an = calloc((size_t)n, sizeof(*an));
	struct strobe_analysis_opts *oo = calloc((size_t)n, sizeof(*oo));
	const struct strobe_table **col = calloc((size_t)n, sizeof(*col));
	struct host_logs *hl = calloc((size_t)n, sizeof(*hl));
	struct log_store store = { 0 };
	struct log_print lp = { hl, n, NULL, json, lami };
	bool logs = o->views & STROBE_VIEW_LOG;
	struct strobe_merge *m = NULL;
	struct strobe_buf *s = cli_buf_new();
	uint64_t rb = 0, re = 0;
	int i, j, k, ret, status = CLI_FAIL;

	if (!tfs || !an || !oo || !col || !hl) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	if ((begin && rel_seconds(begin, &rb) < 0) || (end && rel_seconds(end, &re) < 0)) {
		cli_error(cmd, "with several -i, --begin and --end take +SECONDS (from each "
			  "file's first event), got '%s'", begin && rel_seconds(begin, &rb) < 0
			  ? begin : end);
		status = CLI_USAGE;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (strobe_tracefile_open(inputs[i], &tfs[i], &err) < 0) {
			cli_error_e(cmd, &err);
			goto out;
		}
	if (strobe_merge_open(tfs, n, NULL, NULL, &m, &err) < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}
	lp.m = m;
	cli_merge_clock_note(cmd, m, inputs);
	for (i = 0; i < n; i++) {
		oo[i] = *o;
		if (begin || end) {
			uint64_t t0 = cli_first_ts(tfs[i]);

			oo[i].begin = begin ? t0 + rb : 0;
			oo[i].end = end ? t0 + re : 0;
		}
		if (logs) {	/* kept, printed on one timeline at the end */
			hl[i].store = &store;
			oo[i].log = keep_log;
			oo[i].log_arg = &hl[i];
		}
		ret = strobe_analysis_new(names, &oo[i], &an[i], &err);
		if (ret < 0) {
			cli_error_e(cmd, &err);
			status = ret == -EINVAL ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
		if (strobe_analysis_run_file(an[i], tfs[i], &err) < 0) {
			cli_warn_diags(cmd, tfs[i]);
			cli_error(cmd, "%s: %s", inputs[i], err.msg);
			goto out;
		}
		if (hl[i].failed) {
			cli_error(cmd, "%s: cannot keep the log rows (in a temporary file): %s",
				  inputs[i], strerror(hl[i].failed));
			goto out;
		}
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (lami) {
		ret = strobe_lami_write_results_merged((const struct strobe_analysis *const *)an, n,
						       m, logs ? write_log_rows : NULL, &lp, s);
		if (ret < 0) {
			cli_error(cmd, "cannot write the results: %s", strerror(-ret));
			goto out;
		}
		goto written;
	}
	/* log tables first (single file: their rows come as they happen),
	 * each name once, all hosts' rows in time order */
	for (i = 0; logs && i < n; i++)
		for (j = 0; j < strobe_analysis_nr_tables(an[i]); j++) {
			const struct strobe_table *t = strobe_analysis_table(an[i], j);
			struct strobe_table *merged = NULL;

			if (strobe_table_view(t) != STROBE_VIEW_LOG || !first_of_name(an, i, j) ||
			    !kept_rows(&lp, strobe_table_name(t)))
				continue;	/* (one file: no rows, no header) */
			tables_named(an, n, strobe_table_name(t), col);
			ret = strobe_table_merge_hosts(col, n, m, &merged);
			if (ret == 0) {
				if (!json)
					strobe_table_write_text_header(merged, s);
				ret = write_log_rows(&lp, merged, s);
				if (!json)
					strobe_buf_putc(s, '\n');
			}
			strobe_table_free(merged);
			if (ret < 0) {
				cli_error(cmd, "cannot write the log rows: %s", strerror(-ret));
				goto out;
			}
		}
	/* each table name once, all hosts' rows with a host column */
	for (i = 0; i < n; i++) {
		for (j = 0; j < strobe_analysis_nr_tables(an[i]); j++) {
			const struct strobe_table *t = strobe_analysis_table(an[i], j);
			struct strobe_table *merged = NULL;

			if (strobe_table_view(t) == STROBE_VIEW_LOG ||
			    strobe_table_view(t) == STROBE_VIEW_FREQ || !first_of_name(an, i, j))
				continue;
			tables_named(an, n, strobe_table_name(t), col);
			ret = strobe_table_merge_hosts(col, n, m, &merged);
			if (ret == 0) {
				if (json)
					strobe_table_write_json(merged, s);
				else
					strobe_table_write_text(merged, s);
			} else {	/* columns differ: each host's own */
				for (k = 0; k < n; k++)
					if (col[k])
						per_host_table(col[k], strobe_merge_host(m, k), json, s);
			}
			strobe_table_free(merged);
			if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
				goto flushed;
		}
	}
	/* histograms stay per host */
	for (i = 0; i < n; i++)
		for (j = 0; j < strobe_analysis_nr_tables(an[i]); j++) {
			const struct strobe_table *t = strobe_analysis_table(an[i], j);

			if (strobe_table_view(t) == STROBE_VIEW_FREQ)
				per_host_table(t, strobe_merge_host(m, i), json, s);
		}
	for (i = 0; json && i < n; i++)
		strobe_analysis_write_json_summary_merged(an[i], tfs[i], m, i, s);
written:
	if (strobe_buf_failed(s)) {
		cli_error(cmd, "out of memory");
		goto out;
	}
flushed:
	cli_flush(s);
	for (i = 0; i < n; i++) {
		cli_warn_diags(cmd, tfs[i]);
		for (j = 0; j < strobe_analysis_nr_notes(an[i]); j++)
			cli_warn(cmd, "%s: %s", strobe_merge_host(m, i), strobe_analysis_note(an[i], j));
	}
	status = CLI_OK;
out:
	strobe_buf_free(s);
	strobe_merge_close(m);
	for (i = 0; an && i < n; i++)
		strobe_analysis_free(an[i]);
	for (i = 0; tfs && i < n; i++)
		strobe_tracefile_close(tfs[i]);
	for (i = 0; hl && i < n; i++)
		for (j = 0; j < hl[i].nr; j++)
			kept_free(&hl[i].tabs[j], &store);
	pool_free(&store.pool);
	if (store.f)
		fclose(store.f);
	free(hl);
	free(tfs);
	free(an);
	free(oo);
	free(col);
	return status;
}
