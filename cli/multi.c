/*
 * multi.c - what the commands that read several trace files at once
 * (strobe report -i A -i B, strobe sql, the analyses) share: the one
 * stderr note on how the files' clocks were put on one timeline, and how
 * far that can be trusted.
 *
 * Also the results of the analyses over several files
 * (cli_analyze_write_hosts): every file is a source of one pipeline with
 * analyses of its own (its own task model and trace clock: TIDs repeat
 * across hosts), and the tables of one name are printed as one, with a
 * host column (strobe_table_merge_hosts); LAMI results are one object
 * (strobe_lami_write_results_merged).  Log rows (--log) went out as they
 * came, during the run (cmd-analyze.c).
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

int cli_analyze_write_hosts(const struct strobe_pipeline *p, struct strobe_analysis *const *an,
			    bool json, bool lami,
			    int (*log_rows)(void *arg, const struct strobe_table *t,
					    struct strobe_buf *s),
			    void *arg, struct strobe_buf *s)
{
	const struct strobe_merge *m = strobe_pipeline_merge(p);
	int i, j, k, ret, n = strobe_pipeline_nr_sources(p);
	const struct strobe_table **col = calloc((size_t)n, sizeof(*col));

	if (!col)
		return -ENOMEM;
	if (lami) {
		ret = strobe_lami_write_results_merged((const struct strobe_analysis *const *)an, n,
						       m, log_rows, arg, s);
		free(col);
		return ret;
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
				goto out;	/* main reports the write error */
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
		strobe_analysis_write_json_summary_merged(an[i],
							  strobe_pipeline_source(p, i)->tf, m, i, s);
out:
	free(col);
	return 0;
}
