/*
 * multi-log.c - the --log rows of analyses over several trace files
 * (cli_analyze_files in multi.c): kept host by host as each file is
 * analysed, then written on the merge's one timeline with a host column.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

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

struct cli_logs {
	struct host_logs *hl;	/* n hosts' kept rows */
	int n;
	struct log_store store;
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
int cli_logs_write(void *arg, const struct strobe_table *t, struct strobe_buf *s)
{
	struct cli_logs *lp = arg;
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
size_t cli_logs_rows(const struct cli_logs *lp, const char *name)
{
	size_t nr = 0;
	int i, j;

	for (i = 0; i < lp->n; i++)
		for (j = 0; j < lp->hl[i].nr; j++)
			if (!strcmp(lp->hl[i].tabs[j].name, name))
				nr += lp->hl[i].tabs[j].nr_rows;
	return nr;
}

struct cli_logs *cli_logs_new(int n, bool json, bool lami)
{
	struct cli_logs *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->hl = calloc((size_t)n, sizeof(*l->hl));
	if (!l->hl) {
		free(l);
		return NULL;
	}
	l->n = n;
	l->json = json;
	l->lami = lami;
	return l;
}

void cli_logs_keep(struct cli_logs *l, int host, struct strobe_analysis_opts *o)
{
	l->hl[host].store = &l->store;
	o->log = keep_log;
	o->log_arg = &l->hl[host];
}

int cli_logs_failed(const struct cli_logs *l, int host)
{
	return l->hl[host].failed;
}

void cli_logs_set_merge(struct cli_logs *l, const struct strobe_merge *m)
{
	l->m = m;
}

void cli_logs_free(struct cli_logs *l)
{
	int i, j;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->hl[i].nr; j++)
			kept_free(&l->hl[i].tabs[j], &l->store);
	pool_free(&l->store.pool);
	if (l->store.f)
		fclose(l->store.f);
	free(l->hl);
	free(l);
}
