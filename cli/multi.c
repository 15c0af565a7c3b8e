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
 * the common timeline after every file is read (multi-log.c); LAMI
 * results are one object (strobe_lami_write_results_merged).
 *
 * The uncertainty a merge can state: each file's pairings of its trace
 * clock with its host's wall clock were taken between two wall-clock
 * reads (the bracket, +- error), and the offset moved between the start
 * and end pairings (drift, interpolated away but a sign of how steady the
 * clocks were).  What no recording can see is how far the hosts' wall
 * clocks themselves disagree (NTP, PTP): the note says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct cli_logs *lp = cli_logs_new(n, json, lami);
	bool logs = o->views & STROBE_VIEW_LOG;
	struct strobe_merge *m = NULL;
	struct strobe_buf *s = cli_buf_new();
	uint64_t rb = 0, re = 0;
	int i, j, k, ret, status = CLI_FAIL;

	if (!tfs || !an || !oo || !col || !lp) {
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
	cli_logs_set_merge(lp, m);
	cli_merge_clock_note(cmd, m, inputs);
	for (i = 0; i < n; i++) {
		oo[i] = *o;
		if (begin || end) {
			uint64_t t0 = cli_first_ts(tfs[i]);

			oo[i].begin = begin ? t0 + rb : 0;
			oo[i].end = end ? t0 + re : 0;
		}
		if (logs)	/* kept, printed on one timeline at the end */
			cli_logs_keep(lp, i, &oo[i]);
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
		if (cli_logs_failed(lp, i)) {
			cli_error(cmd, "%s: cannot keep the log rows (in a temporary file): %s",
				  inputs[i], strerror(cli_logs_failed(lp, i)));
			goto out;
		}
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (lami) {
		ret = strobe_lami_write_results_merged((const struct strobe_analysis *const *)an, n,
						       m, logs ? cli_logs_write : NULL, lp, s);
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
			    !cli_logs_rows(lp, strobe_table_name(t)))
				continue;	/* (one file: no rows, no header) */
			tables_named(an, n, strobe_table_name(t), col);
			ret = strobe_table_merge_hosts(col, n, m, &merged);
			if (ret == 0) {
				if (!json)
					strobe_table_write_text_header(merged, s);
				ret = cli_logs_write(lp, merged, s);
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
	cli_logs_free(lp);
	free(tfs);
	free(an);
	free(oo);
	free(col);
	return status;
}
