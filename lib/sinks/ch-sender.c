/*
 * ch-sender.c - the ClickHouse sender of clickhouse.h (strobe_ch_sender_*,
 * strobe_ch_spool_replay): the one sender of sender.c with ClickHouse's
 * delivery.  What is ClickHouse's here and nothing else: an attempt after
 * a failure re-creates the schema first (a server that lost its tables
 * gets them again), batches of the events table count as "event rows"
 * and the other tables' as "aggregate rows", the client's gzip setting
 * and its abort flag, and the public counts' names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

#include "sinks/sender.h"
#include "sinks/sinks-int.h"
#include "util/err.h"

struct strobe_ch_sender {
	struct strobe_clickhouse *ch;
	bool need_schema;		/* (the sender thread's) */
	struct strobe_sender *s;
};

double strobe_ch_backoff(double prev, double min, double max)
{
	return strobe_sender_backoff(prev, min, max);
}

static int ch_klass(const char *table)
{
	return strcmp(table, "events") != 0;
}

static int ch_deliver(void *arg, const char *table, const void *body, size_t len, bool gz,
		      uint64_t rows, long cap_ms, double *retry_after_s, struct strobe_error *e)
{
	struct strobe_ch_sender *c = arg;
	int ret = 0;

	(void)rows;
	(void)retry_after_s;	/* ClickHouse does not say Retry-After */
	strobe_ch_cap_ms(c->ch, cap_ms);
	if (c->need_schema)
		ret = strobe_clickhouse_create_schema(c->ch, e);
	if (!ret)
		ret = strobe_ch_insert(c->ch, table, body, len, gz, e);
	c->need_schema = ret < 0;
	return ret;
}

static bool ch_gzips(void *arg)
{
	return strobe_ch_gzips(((struct strobe_ch_sender *)arg)->ch);
}

static void ch_abort_flag(void *arg, volatile int *flag)
{
	strobe_ch_abort_flag(((struct strobe_ch_sender *)arg)->ch, flag);
}

static const struct strobe_sender_ops ch_ops = {
	.what = "clickhouse",
	.unit = "rows",
	.kind = STROBE_SPOOL_CLICKHOUSE,
	.deliver = ch_deliver,
	.gzips = ch_gzips,
	.abort_flag = ch_abort_flag,
	.klass = ch_klass,
};

int strobe_ch_sender_new(struct strobe_clickhouse *ch, const struct strobe_ch_sender_opts *opts,
			 struct strobe_ch_sender **out, struct strobe_error *err)
{
	struct strobe_sender_opts so = { 0 };
	struct strobe_ch_sender *c;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return strobe_err(err, -ENOMEM, "out of memory");
	c->ch = ch;
	c->need_schema = true;
	if (opts) {
		so.spool_path = opts->spool_path;
		so.spool_max = opts->spool_max;
		so.mem_max = opts->mem_max;
		so.backoff_min_s = opts->backoff_min_s;
		so.backoff_max_s = opts->backoff_max_s;
		so.stop = opts->stop;
	}
	ret = strobe_sender_new(&ch_ops, c, &so, &c->s, err);
	if (ret < 0) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int strobe_ch_sender_send(void *arg, const char *table, const void *data, size_t len,
			  uint64_t rows, struct strobe_error *err)
{
	struct strobe_ch_sender *c = arg;

	if (!strobe_ch_valid_table(table))
		return strobe_err(err, -EINVAL, "clickhouse: bad table name");
	return strobe_sender_send(c->s, table, data, len, rows, err);
}

static void ch_stats(const struct strobe_sender_stats *g, struct strobe_ch_sender_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->rows_delivered = g->delivered[0];
	st->agg_rows_delivered = g->delivered[1];
	st->rows_pending = g->pending[0];
	st->agg_rows_pending = g->pending[1];
	st->rows_spooled = g->spooled[0];
	st->agg_rows_spooled = g->spooled[1];
	st->rows_dropped = g->dropped[0];
	st->agg_rows_dropped = g->dropped[1];
	st->bytes_dropped = g->bytes_dropped;
	st->batches_delivered = g->batches_delivered;
	st->failures = g->failures;
	st->spool_bytes = g->spool_bytes;
	st->spool_max = g->spool_max;
	memcpy(st->spool_path, g->spool_path, sizeof(st->spool_path));
	memcpy(st->last_error, g->last_error, sizeof(st->last_error));
	memcpy(st->spool_error, g->spool_error, sizeof(st->spool_error));
}

void strobe_ch_sender_stats(struct strobe_ch_sender *c, struct strobe_ch_sender_stats *st)
{
	struct strobe_sender_stats g;

	strobe_sender_stats(c->s, &g);
	ch_stats(&g, st);
}

int strobe_ch_sender_close(struct strobe_ch_sender *c, double timeout_s,
			   struct strobe_ch_sender_stats *st, struct strobe_error *err)
{
	struct strobe_sender_stats g;
	int ret = strobe_sender_close(c->s, timeout_s, &g, err);

	if (st)
		ch_stats(&g, st);
	return ret;
}

void strobe_ch_sender_free(struct strobe_ch_sender *c)
{
	if (!c)
		return;
	strobe_sender_free(c->s);	/* closes: the thread is done with c */
	free(c);
}

int strobe_ch_spool_replay(const char *path, strobe_ch_send_fn send, void *arg,
			   uint64_t *rows, uint64_t *agg_rows, struct strobe_error *err)
{
	uint64_t r[2] = { 0, 0 };
	int ret;

	ret = strobe_spool_replay(path, STROBE_SPOOL_CLICKHOUSE, ch_klass, send, arg, r, err);
	if (rows)
		*rows = r[0];
	if (agg_rows)
		*agg_rows = r[1];
	return ret;
}
