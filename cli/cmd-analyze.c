/*
 * cmd-analyze.c - `strobe analyze -a a,b,c` and the one-analysis commands
 * `strobe cputop|syscalls|schedlat|io|irq|mem|periods`.
 *
 * All of them are the same thin consumer of one pipeline: parse the
 * shared view and filter options into a struct strobe_analysis_opts, run
 * the analyses over the files in one pass (one analysis object per
 * source, each the consumer of its source's events), and print every
 * result table through the shared writers (text, JSON lines or LAMI 1.0;
 * several files: one table per name with a host column, cli/multi.c).
 * Log rows (--log) are printed while the files are read, so they never
 * pile up in memory (several files: the host first, timestamps on the
 * timeline); LAMI needs them inside its one results object, after the
 * time range is known, so with --lami they go to a temporary file per log
 * table and are copied into the results at the end.  What is wrong with
 * the files (cli_pipeline_diags, strobe-damage(7)) and the analyses'
 * notes (missing events, dropped measurements) go to stderr, and with
 * --json into the summary object too.
 *
 * Live: with the target options of `strobe record` (-- CMD, -p PID, -c
 * NAME, -d SECS, --live; parsed by cli/target.c) the same analyses run on
 * the events as they are captured (run_live: strobe_record with a live
 * consumer, the events each analysis needs enabled from its presets, no
 * file unless -o FILE), and the tables come when the command exits, the
 * duration passes or Ctrl-C stops it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli.h"


struct analyze_args {
	const char *cmd;	/* "analyze", "cputop", ... */
	const char *names;	/* analyses to run */
	const char *input;
	const char *inputs[64];	/* every -i (several: cli_analyze_files) */
	int nr_inputs;
	struct strobe_analysis_opts o;
	const char *begin, *end;
	bool json, lami, mi_version, metadata;
	bool strict;		/* --strict: damage fails (strobe-damage(7)) */
	int jobs;		/* --jobs (0: the CPUs strobe may use) */
	/* storage for the filter lists */
	int *tids, *pids;
	const char **comms, **containers;
	bool *cpu_mask;
	char *copies[64];	/* strings the comm/container lists point into */
	int nr_copies;
	/* periods: --period and --period-captures arguments */
	const char *periods[64], *captures[64];
	const char *filters[64];	/* --filter expressions */
	bool group_key;		/* --group-by names a capture key */
	struct cli_target *live;	/* live: what to trace (NULL: a file) */
	bool live_failed;	/* live: the tables came, but -o's file is short */
};

static void usage(FILE *f, const char *cmd)
{
	bool all = !strcmp(cmd, "analyze"), why = !strcmp(cmd, "why");

	if (!strcmp(cmd, "periods")) {
		cli_periods_usage(f);
		return;
	}

	if (why)
		fprintf(f,
			"usage: strobe why -c NAME|ID | -p PID [options] -i FILE\n"
			"       strobe why -c NAME|ID | -p PID [options] [-d SECS]   live\n"
			"       strobe why [options] [target options] -- CMD [ARGS...]\n"
			"\n"
			"Where the selected tasks' wall time goes (running, waiting for a CPU,\n"
			"blocked in D or S) and whom they wait for: what ended each block (a\n"
			"task, a lock holder, a disk, the network, a timer, an interrupt),\n"
			"followed along the wake-up chain to the task that did the work, across\n"
			"containers; the answer first, in sentences, then the tables.  -c, -p\n"
			"and -- CMD select in user space: live, the whole machine is recorded\n"
			"(--preset why), so chains through other containers and the host are\n"
			"seen.  With a recording made with --stacks, the blocking kernel stacks.\n"
			"See strobe-why(1) for the rule and its limits.\n");
	else if (all)
		fprintf(f,
			"usage: strobe analyze -a ANALYSES [options] [FILE]\n"
			"       strobe analyze -a ANALYSES [options] [target options] [-- CMD [ARGS...]]\n"
			"\n"
			"Run several analyses over a trace file (default trace.dat) in one\n"
			"pass: cputop, syscalls, schedlat, io, irq, mem, periods\n"
			"(comma-separated); or live, on what a command, a process, containers\n"
			"or the whole system do, until it ends, --duration or Ctrl-C.\n");
	else
		fprintf(f,
			"usage: strobe %s [options] [FILE]\n"
			"       strobe %s [options] [target options] [-- CMD [ARGS...]]\n"
			"\n"
			"%s, from a trace file (default trace.dat), or live\n"
			"(the target options below).\n"
			"See strobe-%s(1) for what is measured and how.\n",
			cmd, cmd, strobe_analysis_summary(cmd), cmd);
	fprintf(f,
		"\n"
		"Options:\n"
		"%s"
		"  -i, --input FILE        trace file to read (default: trace.dat); several\n"
		"                          -i: every table gains a host column (--log:\n"
		"                          every host's rows on one timeline)\n"
		"      --top N             rows per ranking (default 10, 0 = all)\n"
		"      --stats             latency statistics (count, min, avg, max, stddev)\n"
		"      --freq              latency histograms (log2 of usecs, as bcc)\n"
		"      --freq-resolution N   N linear buckets instead of log2\n"
		"      --log               one line per occurrence, as they happen\n"
		"      --min DUR, --max DUR  only occurrences this long (10us, 1.5ms, 2s;\n"
		"                          a bare number is microseconds)\n"
		"      --begin T, --end T  window in trace seconds (366.2), or +SECONDS\n"
		"                          from the first event; with --lami, nanoseconds\n"
		"      --cpu LIST          only these CPUs, e.g. 0,2-3\n"
		"      --tid LIST          only these threads\n"
		"      --pid LIST          only these processes (thread group ids)\n"
		"      --comm LIST         only tasks with these command names (globs)\n"
		"      --container LIST    only tasks of these containers (name or id)\n"
		"      --filter EXPR       only what EXPR holds for (strobe-expr(7); $evt's\n"
		"                          tid, pid, procname, container are the task a\n"
		"                          measurement is charged to); repeatable, ANDed\n"
		"      --group-by WHAT     thread (default), process, container or cpu\n"
		"      --json              JSON lines: one object per table (and log row)\n"
		"      --strict            fail on damaged data instead of skipping it with\n"
		"                          a warning (strobe-damage(7))\n"
		"      --jobs N            threads for a file (default: the CPUs strobe may\n"
		"                          use; 1: one thread); the output is the same\n"
		"      --lami              LAMI 1.0 results for Trace Compass; also\n"
		"                          --mi-version and --metadata\n"
		"  -h, --help              show this help\n"
		"\n"
		"%s"
		"\n"
		"When the file lacks the events an analysis needs, strobe says which\n"
		"events and which 'strobe record --preset' records them.\n"
		"\n"
		"Examples:\n",
		all ? "  -a, --analyses LIST     cputop,syscalls,schedlat,io,irq,mem,periods,why\n"
		      "      --period DEF, --period-captures CAPS, --aggregate-by NAME\n"
		      "                          periods: see strobe-periods(1)\n"
		    : why ? "  -c NAME|ID              the container(s) to explain (comma list)\n"
			    "  -p PID                  the process(es) to explain (comma list)\n"
			    "      --per-thread        the split per thread too (table why.threads)\n"
			    "      --period DEF        per request: each period's owner split the\n"
			    "                          same way, the slowest --top with what they\n"
			    "                          mostly waited on (strobe-periods(1))\n"
			    : "",
		cli_live_usage);
	if (why)
		fprintf(f,
			"  strobe record --preset why -d 30 -o run.dat   the whole machine\n"
			"  strobe why -c web -i run.dat\n"
			"  strobe why -c web -d 10                  live, 10 s\n"
			"  strobe why -p 1234 --per-thread --json -i run.dat\n");
	else if (all)
		fprintf(f,
			"  strobe analyze -a cputop,syscalls,schedlat -i run.dat\n"
			"  strobe analyze -a syscalls,io --group-by container --json\n"
			"  strobe analyze -a cputop,syscalls -- make -j2    live, a build\n");
	else
		fprintf(f,
			"  strobe %s                          ./trace.dat, top 10\n"
			"  strobe %s --group-by container --top 0\n"
			"  strobe %s --stats --freq --pid 1234 -i run.dat\n"
			"  strobe %s -- ./a.out                live: a command\n"
			"  strobe %s -c web -d 10 --group-by container   live: a container, 10 s\n",
			cmd, cmd, cmd, cmd, cmd);
}

/* "10us", "1.5ms", "2s", "100ns"; a bare number is microseconds. */
static int parse_duration(const char *s, uint64_t *ns)
{
	double v, mul = 1000.0;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ns"))
		mul = 1.0;
	else if (!strcmp(end, "us") || !*end)
		mul = 1000.0;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -EINVAL;
	*ns = (uint64_t)(v * mul + 0.5);
	return 0;
}

/* Trace time: "366.25" seconds, "+1.5" seconds after the first event
 * (*relative set), or with LAMI an integer of nanoseconds. */
static int parse_time(const char *s, bool lami, uint64_t *ns, bool *relative)
{
	double secs;

	*relative = *s == '+';
	if (*relative)
		s++;
	if (lami && !*relative && !strchr(s, '.')) {
		uint64_t v;

		if (cli_parse_u64(s, &v) < 0)
			return -EINVAL;
		*ns = v;
		return 0;
	}
	if (cli_parse_seconds(s, &secs) < 0)
		return -EINVAL;
	*ns = (uint64_t)(secs * 1e9 + 0.5);
	return 0;
}

static int parse_ints(const char *list, int *out, int max, int *n)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int v;

		if (*n >= max || cli_parse_int(tok, 0, 1 << 30, &v) < 0) {
			ret = -EINVAL;
			break;
		}
		out[(*n)++] = v;
	}
	free(copy);
	return ret;
}

/* Split a comma list into strings pointing into a copy kept in a. */
static int parse_strs(struct analyze_args *a, const char *list, const char **out, int max,
		      int *n)
{
	char *copy, *tok, *save = NULL;

	if (a->nr_copies == (int)(sizeof(a->copies) / sizeof(a->copies[0])))
		return -EINVAL;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	a->copies[a->nr_copies++] = copy;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max)
			return -EINVAL;
		out[(*n)++] = tok;
	}
	return 0;	/* copy is referenced by out */
}

#define MAX_LOG_TABLES 16

struct log_ctx {
	struct strobe_buf *s;
	bool json, lami;
	const struct strobe_table *last;	/* header printed for */
	/* --lami: each log table's rows, comma-separated, in a temporary file */
	struct strobe_buf *row;
	struct {
		const struct strobe_table *t;
		FILE *f;
	} files[MAX_LOG_TABLES];
	int nr_files;
	bool failed;		/* a row could not be kept */
	/* several hosts (set when the run starts): each log table with a
	 * host column first (strobe_table_merge_hosts' schema), and a row
	 * of it to fill */
	const struct strobe_merge *merge;
	struct {
		struct strobe_table *t;
		union strobe_value *row;
	} hosts[MAX_LOG_TABLES];
	int nr_hosts;
};

/* The log callback's argument of one source's analyses. */
struct log_host {
	struct log_ctx *l;
	int source;
};

/* The temporary file of log table t (by name: the LAMI writer of several
 * hosts hands out tables of its own), created on first use; NULL on error. */
static FILE *lami_file(struct log_ctx *l, const struct strobe_table *t, bool create)
{
	int i;

	for (i = 0; i < l->nr_files; i++)
		if (!strcmp(strobe_table_name(l->files[i].t), strobe_table_name(t)))
			return l->files[i].f;
	if (!create || l->nr_files == MAX_LOG_TABLES)
		return NULL;
	l->files[i].f = tmpfile();
	if (!l->files[i].f)
		return NULL;
	l->files[i].t = t;
	l->nr_files++;
	return l->files[i].f;
}

static void lami_log(struct log_ctx *l, const struct strobe_table *t,
		     const union strobe_value *row)
{
	FILE *f = lami_file(l, t, true);

	if (!f || l->failed) {
		l->failed = true;
		return;
	}
	if (ftell(f) > 0)
		strobe_buf_putc(l->row, ',');
	strobe_lami_write_row(t, row, l->row);
	if (strobe_buf_failed(l->row) ||
	    fwrite(strobe_buf_data(l->row), 1, strobe_buf_len(l->row), f) != strobe_buf_len(l->row))
		l->failed = true;
	strobe_buf_reset(l->row);
}

/* strobe_lami_write_results_logs' callback: copy t's rows to stdout. */
static int lami_log_rows(void *arg, const struct strobe_table *t, struct strobe_buf *s)
{
	struct log_ctx *l = arg;
	FILE *f = lami_file(l, t, false);
	char buf[65536];
	size_t n;

	if (!f)
		return 0;	/* no rows */
	if (!cli_flush(s) || fflush(f) || fseek(f, 0, SEEK_SET))
		return -EIO;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			return -EIO;
	return ferror(f) ? -EIO : 0;
}

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct log_ctx *l = arg;

	if (l->lami) {
		lami_log(l, t, row);
		return;
	}
	if (l->json) {
		strobe_table_write_json_row(t, row, l->s);
	} else {
		if (l->last != t) {
			strobe_table_write_text_header(t, l->s);
			l->last = t;
		}
		strobe_table_write_text_row(t, row, l->s);
	}
	if (strobe_buf_len(l->s) >= CLI_FLUSH_BYTES)
		cli_flush(l->s);
}

/*
 * The log callback over files.  Several hosts: rows are written as they
 * come, as with one file (the pipeline hands out every host's events in
 * the timeline's order, so rows come in the order their occurrences end
 * on it), with the host cell first and timestamps mapped onto the
 * timeline.
 */
static void on_host_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct log_host *h = arg;
	struct log_ctx *l = h->l;
	int i, c, nc = strobe_table_nr_columns(t);

	if (!l->merge) {
		on_log(l, t, row);
		return;
	}
	for (i = 0; i < l->nr_hosts; i++)
		if (!strcmp(strobe_table_name(l->hosts[i].t), strobe_table_name(t)))
			break;
	if (i == l->nr_hosts) {
		if (i == MAX_LOG_TABLES ||
		    strobe_table_merge_hosts(&t, 1, l->merge, &l->hosts[i].t) < 0 ||
		    !(l->hosts[i].row = calloc((size_t)nc + 1, sizeof(*row)))) {
			l->failed = true;	/* out of memory */
			return;
		}
		l->nr_hosts++;
	}
	l->hosts[i].row[0].s = strobe_merge_host(l->merge, h->source);
	for (c = 0; c < nc; c++) {
		l->hosts[i].row[c + 1] = row[c];
		if (strobe_table_column(t, c)->type == STROBE_COL_TIMESTAMP && row[c].u)
			l->hosts[i].row[c + 1].u = strobe_merge_map_ts(l->merge, h->source,
								       row[c].u);
	}
	on_log(l, l->hosts[i].t, l->hosts[i].row);
}

static void log_ctx_free(struct log_ctx *l)
{
	int i;

	for (i = 0; i < l->nr_files; i++)
		fclose(l->files[i].f);
	for (i = 0; i < l->nr_hosts; i++) {
		strobe_table_free(l->hosts[i].t);
		free(l->hosts[i].row);
	}
	strobe_buf_free(l->row);
}

/* ---- live: the analyses as strobe_record's consumer ----------------- */

struct live_run {
	struct analyze_args *a;
	struct strobe_analysis **an;	/* made at the first event */
	struct strobe_buf *s;
	const struct strobe_record_result *res;
	struct strobe_error err;	/* the consumer's message */
	bool rel_b, rel_e;
	bool finished;			/* *an finished at the final tick */
};

/* What the recording traced, for the analyses (as a file's info tells
 * strobe_analysis_run_file): the command, the process, or the target
 * containers' full IDs as the model knows them. */
static int live_target(struct live_run *l, struct strobe_model *m)
{
	const struct strobe_record_opts *o = &l->a->live->o;
	char pids[32], *ids;
	size_t off = 0, k;
	int i, n, ret;

	if (o->argv || o->pid > 0) {
		snprintf(pids, sizeof(pids), "%d", o->argv ? (int)l->res->child_pid : (int)o->pid);
		return strobe_analysis_set_target(*l->an, !o->argv ? "pid" : o->argv_whole_system
							  ? "command-all" : "command",
						  pids, NULL, &l->err);
	}
	if (!o->nr_containers)
		return 0;
	n = strobe_model_nr_containers(m);
	ids = calloc((size_t)(n > 0 ? n : 1), 66);
	if (!ids) {
		snprintf(l->err.msg, sizeof(l->err.msg), "out of memory");
		return -ENOMEM;
	}
	for (i = 2; i < n; i++) {
		const struct strobe_container *c = strobe_model_container(m, i);

		for (k = 0; c && c->id[0] && k < o->nr_containers; k++)
			if (strobe_container_matches(c, o->containers[k])) {
				off += (size_t)sprintf(ids + off, "%s%s", off ? "," : "", c->id);
				break;
			}
	}
	ret = strobe_analysis_set_target(*l->an, "container", NULL, ids, &l->err);
	free(ids);
	return ret;
}

/* First event: the analyses, on the formats of the capture. */
static int live_attach(struct live_run *l, const struct strobe_event *ev,
		       struct strobe_model *m)
{
	struct strobe_formats *f = strobe_format_catalogue(ev->format);
	struct analyze_args *a = l->a;
	int ret;

	if (!f)
		return 0;	/* an event of no known type: nothing to analyse */
	if (l->rel_b)
		a->o.begin += ev->ts;
	if (l->rel_e)
		a->o.end += ev->ts;
	ret = strobe_analysis_new(a->names, &a->o, l->an, &l->err);
	if (ret == 0)
		ret = live_target(l, m);
	if (ret == 0)
		ret = strobe_analysis_attach(*l->an, f, m, &l->err);
	return ret < 0 ? ret : 1;
}

static int live_event(const struct strobe_event *ev, struct strobe_model *m, void *arg)
{
	struct live_run *l = arg;
	int ret;

	if (!*l->an) {
		ret = live_attach(l, ev, m);
		if (ret <= 0)
			return ret;
	}
	strobe_analysis_feed(*l->an, ev);
	return 0;
}

/* Log rows reach the terminal within a tick.  The final tick builds the
 * tables, while the model they point into still exists. */
static int live_tick(bool final, void *arg)
{
	struct live_run *l = arg;
	int ret;

	if (final && *l->an) {
		ret = strobe_analysis_finish(*l->an, &l->err);
		if (ret < 0)
			return ret;
		l->finished = true;
	}

	if (!cli_flush(l->s) || fflush(stdout)) {
		snprintf(l->err.msg, sizeof(l->err.msg), "cannot write the output: %s",
			 strerror(errno ? errno : EPIPE));
		return -EPIPE;
	}
	return 0;
}

/*
 * Run the analyses live on what a->live says to trace, up to the point
 * where run() prints the tables: *an is then finished.  Returns a CLI
 * status, the message printed.
 */
static int run_live(struct analyze_args *a, struct strobe_buf *s, struct log_ctx *lc,
		    struct strobe_analysis **an, bool rel_b, bool rel_e)
{
	struct cli_target *t = a->live;
	struct live_run l = { a, an, s, NULL, { 0, "" }, rel_b, rel_e, false };
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	char *names = strdup(a->names), *tok, *save = NULL;
	int ret, status = CLI_FAIL;

	if (!names) {
		cli_error(a->cmd, "out of memory");
		return CLI_FAIL;
	}
	/* the events each analysis needs, besides the user's -e */
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *p = strobe_analysis_preset(tok);

		if (!p) {
			cli_error(a->cmd, "unknown analysis '%s'", tok);
			free(names);
			return CLI_USAGE;
		}
		if (cli_target_add_presets(t, a->cmd, p) < 0) {
			free(names);
			return CLI_FAIL;
		}
	}
	free(names);
	if ((strstr(a->names, "periods") || strstr(a->names, "why")) && cli_period_events(a->cmd, a->o.periods, a->o.nr_periods, t) < 0)
		return CLI_FAIL;
	t->o.events = t->ev;
	t->o.nr_events = t->nev;
	t->o.no_output = !t->o.output;	/* -o FILE: the trace is kept too */
	t->o.on_event = live_event;
	t->o.on_tick = live_tick;
	t->o.event_arg = &l;
	t->o.event_err = &l.err;
	l.res = &res;
	lc->s = s;
	lc->json = a->json;
	lc->lami = a->lami;
	if (a->o.views & STROBE_VIEW_LOG) {
		a->o.log = on_log;
		a->o.log_arg = lc;
	}
	if (!(a->o.views & STROBE_VIEW_LOG))	/* the log prints as it goes */
		cli_target_progress(t, a->cmd, false);
	ret = cli_target_record(t, &res, &err);
	cli_flush(s);
	if (ret < 0 && res.exec_errno) {
		cli_error_e(a->cmd, &err);
		status = res.exec_errno == ENOENT ? 127 : 126;
		goto out;
	}
	if (ret < 0 && ret != -ENOSPC) {
		cli_error_e(a->cmd, &err);
		goto out;
	}
	if (ret == -ENOSPC) {
		cli_error_e(a->cmd, &err);	/* the tables all the same */
		a->live_failed = true;
	}
	if (!*an || !l.finished) {
		cli_error(a->cmd, "no events were captured");
		goto out;
	}
	if (res.stream_missed)
		cli_warn(a->cmd, "%llu events were lost (the kernel's buffer or the analysis "
			 "fell behind): the figures are short of them; a bigger -b may help",
			 (unsigned long long)res.stream_missed);
	status = CLI_OK;
out:
	strobe_record_result_free(&res);
	return status;
}

/*
 * The analyses of one source, wrapped when they need more than their own
 * consumer: a window relative to that source's first event (--begin/--end
 * +SECONDS, set when the event comes, in the source's own clock: each
 * file's window starts at its own first event), and with several files
 * their file's name on what fails.
 */
struct host_run {
	struct strobe_consumer inner;	/* strobe_analysis_consumer's */
	struct strobe_analysis *an;
	struct log_host lh;		/* its log rows' host */
	const struct strobe_pipeline *p;
	int source;
	uint64_t begin, end;
	bool rel_b, rel_e, set;
};

/* r < 0 from source h's analyses: with several sources, its file's name
 * before the message. */
static int host_failed(struct host_run *h, int r, struct strobe_error *err)
{
	const struct strobe_pipeline_source *src = strobe_pipeline_source(h->p, h->source);
	char msg[sizeof(err->msg)];

	if (r >= 0 || !err || !err->code || strobe_pipeline_nr_sources(h->p) < 2 || !src)
		return r;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	snprintf(err->msg, sizeof(err->msg), "%.200s: %.300s", strobe_tracefile_path(src->tf), msg);
	return r;
}

static int host_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct host_run *h = arg;

	if (!h->set && source == h->source) {
		h->set = true;
		if (h->rel_b || h->rel_e)
			strobe_analysis_set_window(h->an, h->rel_b ? h->begin + ev->ts : h->begin,
						   h->rel_e ? h->end + ev->ts : h->end, err);
	}
	return host_failed(h, h->inner.event(ev, source, h->inner.arg, err), err);
}

static int host_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		      struct strobe_error *err)
{
	struct host_run *h = arg;

	return host_failed(h, h->inner.start(src, nr, h->inner.arg, err), err);
}

static int host_finish(void *arg, struct strobe_error *err)
{
	struct host_run *h = arg;

	return host_failed(h, h->inner.finish(h->inner.arg, err), err);
}

/*
 * The analyses over every -i: one pipeline, one analysis object per
 * source (a file given twice is one source), each the consumer of its
 * source; several sources are hosts on the pipeline's merged timeline.
 */
struct files_run {
	struct analyze_args *a;
	struct strobe_tracefile *tf[64];	/* every -i, in order */
	int nr_tf;
	struct host_run *hosts;		/* nr_tf of them, nr_hosts used */
	int nr_hosts;
	struct strobe_pipeline *p;
	struct log_ctx *lc;
};

/* Several -i: when the run starts, the clock note (several hosts) and
 * the merge log rows are mapped onto; no events. */
static int hosts_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		       struct strobe_error *err)
{
	struct files_run *fr = arg;
	const char *paths[64];
	int i;

	if (nr < 2)
		return 0;
	for (i = 0; i < nr; i++)
		paths[i] = strobe_tracefile_path(src[i].tf);
	fr->lc->merge = strobe_pipeline_merge(fr->p);
	cli_merge_clock_note(fr->a->cmd, fr->lc->merge, paths);
	return 0;
}

static int hosts_event(const struct strobe_event *ev, int source, void *arg,
		       struct strobe_error *err)
{
	return STROBE_CONSUMER_DONE;
}

/* The analyses of the next source, fr->hosts[fr->nr_hosts] (made before
 * its file is added: the stream options take their CPU mask; kept for
 * the next file when that one was a file given before).  0 or -errno. */
static int new_host(struct files_run *fr, struct strobe_error *err)
{
	struct host_run *h = &fr->hosts[fr->nr_hosts];
	struct strobe_analysis_opts o = fr->a->o;

	if (h->an)
		return 0;
	h->lh = (struct log_host){ fr->lc, fr->nr_hosts };
	if (o.views & STROBE_VIEW_LOG) {
		o.log = on_host_log;
		o.log_arg = &h->lh;
	}
	return strobe_analysis_new(fr->a->names, &o, &h->an, err);
}

/* Run the analyses over fr's files (fr->p: freed by the caller after
 * the tables, which point into its task models).  0 or -errno, *err set. */
static int run_files(struct files_run *fr, bool rel_b, bool rel_e, struct strobe_error *err)
{
	struct analyze_args *a = fr->a;
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = a->strict,
					   .jobs = cli_jobs(a->jobs) };
	struct strobe_stream_opts sopts = { .size = sizeof(sopts), .buffer = -1 };
	struct strobe_consumer c = { .size = sizeof(c), .name = "hosts", .start = hosts_start,
				     .event = hosts_event, .arg = fr };
	int i, r;

	if (fr->nr_tf > 1 && (a->o.views & STROBE_VIEW_LOG))
		po.jobs = 1;	/* every host's log rows in the timeline's order */
	r = strobe_pipeline_new(&po, &fr->p, err);
	if (r == 0 && fr->nr_tf > 1)
		r = strobe_pipeline_add_consumer(fr->p, &c, err);
	for (i = 0; r >= 0 && i < fr->nr_tf; i++) {
		struct host_run *h = &fr->hosts[fr->nr_hosts];

		r = new_host(fr, err);
		if (r < 0)
			break;
		sopts.nr_cpu_mask = strobe_analysis_cpu_mask(h->an, &sopts.cpu_mask);
		r = strobe_pipeline_add_file(fr->p, fr->tf[i], &sopts, err);
		if (r < fr->nr_hosts)
			continue;	/* read once (a notice says so), or an error */
		fr->nr_hosts++;
		strobe_analysis_consumer(h->an, r, &c);
		if (rel_b || rel_e || fr->nr_tf > 1) {
			h->inner = c;
			h->p = fr->p;
			h->source = r;
			h->begin = a->o.begin;
			h->end = a->o.end;
			h->rel_b = rel_b;
			h->rel_e = rel_e;
			c.start = host_start;
			c.event = host_event;
			c.finish = host_finish;
			c.arg = h;
		}
		r = strobe_pipeline_add_consumer(fr->p, &c, err);
	}
	if (r >= 0) {
		struct cli_progress *pr = cli_progress_start(fr->a->cmd, fr->p, false,
							     fr->a->o.views & STROBE_VIEW_LOG);

		r = strobe_pipeline_run(fr->p, err);
		cli_progress_stop(pr);
	}
	return r;
}

/* The tables of analyses an, run over one file (tf; NULL live).  0, or
 * -1 with the message printed. */
static int write_tables(struct analyze_args *a, struct strobe_analysis *an,
			const struct strobe_tracefile *tf, struct log_ctx *lc,
			struct strobe_buf *s)
{
	int i, n = strobe_analysis_nr_tables(an);

	if (a->lami) {
		if (strobe_lami_write_results_logs(an, a->o.views & STROBE_VIEW_LOG
						   ? lami_log_rows : NULL, lc, s) == -EIO) {
			cli_error(a->cmd, "cannot copy the log rows: %s",
				  strerror(errno ? errno : EIO));
			return -1;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(an, i);

		if (strobe_table_view(t) == STROBE_VIEW_LOG)
			continue;	/* its rows went out as they came */
		if (a->json)
			strobe_table_write_json(t, s);
		else
			strobe_table_write_text(t, s);
		if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
			return 0;	/* main reports the write error */
	}
	if (a->json)
		strobe_analysis_write_json_summary(an, tf, s);
	return 0;
}

static int run(struct analyze_args *a)
{
	struct strobe_error err = { 0 };
	struct files_run fr = { .a = a };
	struct strobe_analysis *an = NULL;	/* live */
	struct strobe_analysis *hosts[64];
	struct log_ctx lc = { 0 };
	struct strobe_buf *s;
	bool rel_b = false, rel_e = false;
	int i, ret, status = CLI_FAIL;

	s = cli_buf_new();
	lc.row = cli_buf_new();
	lc.s = s;
	lc.json = a->json;
	lc.lami = a->lami;
	if (a->mi_version) {
		strobe_lami_write_version(s);
		cli_flush(s);
		status = CLI_OK;
		goto out;
	}
	if (a->metadata) {
		if ((a->nr_inputs > 1 ? strobe_lami_write_metadata_hosts(a->names, &a->o, s)
				      : strobe_lami_write_metadata(a->names, &a->o, s)) < 0) {
			cli_error(a->cmd, "cannot describe '%s'", a->names);
			goto out;
		}
		cli_flush(s);
		status = CLI_OK;
		goto out;
	}
	if ((a->begin && parse_time(a->begin, a->lami, &a->o.begin, &rel_b) < 0) ||
	    (a->end && parse_time(a->end, a->lami, &a->o.end, &rel_e) < 0)) {
		cli_error(a->cmd, "bad time '%s' (seconds like 366.25, or +SECONDS)",
			  a->begin && parse_time(a->begin, a->lami, &a->o.begin, &rel_b) < 0
			  ? a->begin : a->end);
		goto out;
	}
	if (a->nr_inputs > 1 && ((a->begin && !rel_b) || (a->end && !rel_e))) {
		cli_error(a->cmd, "with several -i, --begin and --end take +SECONDS (from each "
			  "file's first event), got '%s'", a->begin && !rel_b ? a->begin : a->end);
		status = CLI_USAGE;
		goto out;
	}
	if (a->live) {
		status = run_live(a, s, &lc, &an, rel_b, rel_e);
		if (status != CLI_OK)
			goto out;
		status = CLI_FAIL;
		goto tables;
	}
	if (!a->nr_inputs)
		a->inputs[a->nr_inputs++] = a->input;
	fr.hosts = calloc((size_t)a->nr_inputs, sizeof(*fr.hosts));
	fr.lc = &lc;
	if (!fr.hosts) {
		cli_error(a->cmd, "out of memory");
		goto out;
	}
	for (fr.nr_tf = 0; fr.nr_tf < a->nr_inputs; fr.nr_tf++)
		if (strobe_tracefile_open(a->inputs[fr.nr_tf], &fr.tf[fr.nr_tf], &err) < 0) {
			cli_error_e(a->cmd, &err);
			goto out;
		}
	ret = new_host(&fr, &err);	/* a bad option is a usage error */
	if (ret < 0) {
		cli_error_e(a->cmd, &err);
		status = ret == -EINVAL ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	ret = run_files(&fr, rel_b, rel_e, &err);
	cli_flush(s);
	if (ret < 0) {
		if (fr.p)	/* may be why, e.g. a damaged format */
			cli_pipeline_diags(a->cmd, fr.p, false);
		cli_error_e(a->cmd, &err);
		if (ret == -EINVAL)	/* an expression the trace cannot satisfy */
			status = CLI_USAGE;
		goto out;
	}
tables:
	if (lc.last && !a->json)
		strobe_buf_putc(s, '\n');
	if (lc.failed) {
		cli_error(a->cmd, "cannot keep the log rows%s: %s", a->lami
			  ? " for LAMI in a temporary file" : "", strerror(errno ? errno : EIO));
		goto out;
	}
	if (an || fr.nr_hosts == 1) {
		if (write_tables(a, an ? an : fr.hosts[0].an, fr.tf[0], &lc, s) < 0)
			goto out;
	} else {
		for (i = 0; i < fr.nr_hosts; i++)
			hosts[i] = fr.hosts[i].an;
		ret = cli_analyze_write_hosts(fr.p, hosts, a->json, a->lami, a->o.views &
					      STROBE_VIEW_LOG ? lami_log_rows : NULL, &lc, s);
		if (ret < 0) {
			cli_error(a->cmd, "cannot write the results: %s", strerror(-ret));
			goto out;
		}
	}
	if (strobe_buf_failed(s)) {
		cli_error(a->cmd, "out of memory");
		goto out;
	}
	cli_flush(s);
	status = fr.p ? cli_pipeline_diags(a->cmd, fr.p, a->strict) : CLI_OK;
	if (an)
		for (i = 0; i < strobe_analysis_nr_notes(an); i++)
			cli_warn(a->cmd, "%s", strobe_analysis_note(an, i));
	for (i = 0; i < fr.nr_hosts; i++) {
		struct strobe_analysis *h = fr.hosts[i].an;
		int j;

		for (j = 0; j < strobe_analysis_nr_notes(h); j++)
			if (fr.nr_hosts > 1)
				cli_warn(a->cmd, "%s: %s", strobe_pipeline_source(fr.p, i)->host,
					 strobe_analysis_note(h, j));
			else
				cli_warn(a->cmd, "%s", strobe_analysis_note(h, j));
	}
	if (a->live_failed)
		status = CLI_FAIL;
out:
	strobe_buf_free(s);
	log_ctx_free(&lc);
	strobe_pipeline_free(fr.p);	/* after the tables: they point into its models */
	strobe_analysis_free(an);
	for (i = 0; fr.hosts && i < fr.nr_tf; i++)
		strobe_analysis_free(fr.hosts[i].an);
	for (i = 0; i < fr.nr_tf; i++)
		strobe_tracefile_close(fr.tf[i]);
	free(fr.hosts);
	return status;
}

#define MAX_LIST 4096
#define MAX_CPUS 4096

int cli_analyze_main(const char *cmd, const char *names, int argc, char **argv)
{
	enum {
		OPT_TOP = 256, OPT_STATS, OPT_FREQ, OPT_FREQ_RES, OPT_LOG, OPT_MIN, OPT_MAX,
		OPT_BEGIN, OPT_END, OPT_CPU, OPT_TID, OPT_PID, OPT_COMM, OPT_CONTAINER,
		OPT_GROUP, OPT_JSON, OPT_LAMI, OPT_MI_VERSION, OPT_METADATA, OPT_PROGRESS,
		OPT_PERIOD, OPT_PERIOD_CAPTURES, OPT_AGGREGATE_BY, OPT_LIVE, OPT_FILTER,
		OPT_STRICT, OPT_PER_THREAD, OPT_JOBS,
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "analyses", required_argument, NULL, 'a' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "freq", no_argument, NULL, OPT_FREQ },
		{ "freq-resolution", required_argument, NULL, OPT_FREQ_RES },
		{ "log", no_argument, NULL, OPT_LOG },
		{ "min", required_argument, NULL, OPT_MIN },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "begin", required_argument, NULL, OPT_BEGIN },
		{ "end", required_argument, NULL, OPT_END },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		{ "group-by", required_argument, NULL, OPT_GROUP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "lami", no_argument, NULL, OPT_LAMI },
		{ "mi-version", no_argument, NULL, OPT_MI_VERSION },
		{ "metadata", no_argument, NULL, OPT_METADATA },
		{ "output-progress", no_argument, NULL, OPT_PROGRESS },
		{ "period", required_argument, NULL, OPT_PERIOD },
		{ "period-captures", required_argument, NULL, OPT_PERIOD_CAPTURES },
		{ "aggregate-by", required_argument, NULL, OPT_AGGREGATE_BY },
		/* live: the target options of strobe record (cli/target.c);
		 * -p and -c are short only (--pid/--container filter), and
		 * record's kernel filters (-f) are not taken: --filter is the
		 * analyses' own expression filter */
		{ "event", required_argument, NULL, 'e' },
		{ "preset", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "clock", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct analyze_args a = { 0 };
	struct cli_target t = { 0 };
	const char *bad = NULL;
	char **target_argv = NULL, *cmdline = NULL;
	bool live = false, why = !strcmp(cmd, "why"), why_target = false;
	int c, r, status = CLI_USAGE;

	a.cmd = cmd;
	a.names = names;
	a.o.top = 10;
	a.tids = calloc(MAX_LIST, sizeof(int));
	a.pids = calloc(MAX_LIST, sizeof(int));
	a.comms = calloc(MAX_LIST, sizeof(char *));
	a.containers = calloc(MAX_LIST, sizeof(char *));
	a.cpu_mask = calloc(MAX_CPUS, sizeof(bool));
	if (!a.tids || !a.pids || !a.comms || !a.containers || !a.cpu_mask) {
		cli_error(cmd, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	a.o.tids = a.tids;
	a.o.pids = a.pids;
	a.o.comms = a.comms;
	a.o.containers = a.containers;
	a.o.periods = a.periods;
	a.o.period_captures = a.captures;
	a.o.filters = a.filters;

	/* `-- CMD ARGS`: the command to trace live (a lone FILE stays the
	 * input file); options end at the "--" */
	cmdline = cli_join_args(argc, argv);	/* -o FILE stores it */
	for (r = 1; r < argc; r++)
		if (!strcmp(argv[r], "--")) {
			target_argv = &argv[r + 1];
			argc = r;
			break;
		}
	optind = 1;
	while ((c = getopt_long(argc, argv, names ? "i:he:o:b:C:p:c:d:" : "i:a:he:o:b:C:p:c:d:",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a.input = optarg;
			if (a.nr_inputs < 64)
				a.inputs[a.nr_inputs++] = optarg;
			break;
		case 'a':
			if (names) {
				bad = "-a";
				goto bad;
			}
			a.names = optarg;
			break;
		case OPT_TOP:
			if (cli_parse_int(optarg, 0, 1 << 30, &a.o.top) < 0)
				goto bad_arg;
			break;
		case OPT_STATS:
			a.o.views |= STROBE_VIEW_STATS;
			break;
		case OPT_FREQ:
			a.o.views |= STROBE_VIEW_FREQ;
			break;
		case OPT_FREQ_RES:
			if (cli_parse_int(optarg, 1, 1000, &a.o.freq_resolution) < 0)
				goto bad_arg;
			a.o.views |= STROBE_VIEW_FREQ;
			break;
		case OPT_LOG:
			a.o.views |= STROBE_VIEW_LOG;
			break;
		case OPT_MIN:
			if (parse_duration(optarg, &a.o.min_ns) < 0)
				goto bad_arg;
			break;
		case OPT_MAX:
			if (parse_duration(optarg, &a.o.max_ns) < 0)
				goto bad_arg;
			break;
		case OPT_BEGIN:
			a.begin = optarg;
			break;
		case OPT_END:
			a.end = optarg;
			break;
		case OPT_CPU: {
			struct strobe_error cerr = { 0 };

			if (strobe_cpu_list_parse(optarg, a.cpu_mask, MAX_CPUS, &cerr) < 0) {
				cli_error(cmd, "--cpu: %s", cerr.msg);
				goto out;
			}
			a.o.cpu_mask = a.cpu_mask;
			a.o.nr_cpu_mask = MAX_CPUS;
			break;
		}
		case OPT_TID:
			if (parse_ints(optarg, a.tids, MAX_LIST, &a.o.nr_tids) < 0)
				goto bad_arg;
			break;
		case OPT_PID:
			if (parse_ints(optarg, a.pids, MAX_LIST, &a.o.nr_pids) < 0)
				goto bad_arg;
			break;
		case OPT_COMM:
			if (parse_strs(&a, optarg, a.comms, MAX_LIST, &a.o.nr_comms) < 0)
				goto bad_arg;
			break;
		case OPT_CONTAINER:
			if (parse_strs(&a, optarg, a.containers, MAX_LIST, &a.o.nr_containers) < 0)
				goto bad_arg;
			break;
		case OPT_GROUP:
			if (!strcmp(optarg, "thread") || !strcmp(optarg, "tid"))
				a.o.group_by = STROBE_GROUP_THREAD;
			else if (!strcmp(optarg, "process") || !strcmp(optarg, "pid"))
				a.o.group_by = STROBE_GROUP_PROCESS;
			else if (!strcmp(optarg, "container"))
				a.o.group_by = STROBE_GROUP_CONTAINER;
			else if (!strcmp(optarg, "cpu"))
				a.o.group_by = STROBE_GROUP_CPU;
			else if (*optarg)
				a.group_key = true;	/* a period capture's key */
			else
				goto bad_arg;
			/* periods: by thread, process, container or a capture */
			a.o.period_group_by = strcmp(optarg, "cpu") ? optarg : NULL;
			break;
		case OPT_PERIOD:
			if (a.o.nr_periods == 64)
				goto bad_arg;
			a.periods[a.o.nr_periods++] = optarg;
			break;
		case OPT_PERIOD_CAPTURES:
			if (a.o.nr_period_captures == 64)
				goto bad_arg;
			a.captures[a.o.nr_period_captures++] = optarg;
			break;
		case OPT_AGGREGATE_BY:
			a.o.aggregate_by = optarg;
			break;
		case OPT_FILTER:
			if (a.o.nr_filters == 64)
				goto bad_arg;
			a.filters[a.o.nr_filters++] = optarg;
			break;
		case OPT_JSON:
			a.json = true;
			break;
		case OPT_STRICT:
			a.strict = true;
			break;
		case OPT_JOBS:
			if (cli_parse_int(optarg, 1, CLI_MAX_JOBS, &a.jobs) < 0)
				goto bad_arg;
			break;
		case OPT_LAMI:
			a.lami = true;
			break;
		case OPT_MI_VERSION:
			a.mi_version = true;
			break;
		case OPT_METADATA:
			a.metadata = true;
			break;
		case OPT_PROGRESS:
			break;
		case OPT_LIVE:
			live = true;
			break;
		case OPT_PER_THREAD:
			if (!why) {
				bad = "--per-thread";
				goto bad;
			}
			a.o.views |= STROBE_VIEW_STATS | STROBE_VIEW_TOP;
			break;
		case 'h':
			usage(stdout, cmd);
			status = CLI_OK;
			goto out;
		case 'c':
		case 'p':
			/*
			 * strobe why: the target is selected in user space, on a
			 * file as live, where the whole machine is recorded (a
			 * chain of wake-ups crosses containers: the kernel's PID
			 * filter would cut it)
			 */
			if (why) {
				if (c == 'c' ? parse_strs(&a, optarg, a.containers, MAX_LIST,
							  &a.o.nr_containers) < 0
					     : parse_ints(optarg, a.pids, MAX_LIST, &a.o.nr_pids) < 0)
					goto bad_arg;
				why_target = true;
				break;
			}
			/* fall through */
		default:
			r = c == '?' ? 0 : cli_target_option(&t, cmd, c, optarg);
			if (r == -ENOMEM)
				status = CLI_FAIL;
			if (r == 0)
				usage(stderr, cmd);
			if (r <= 0)
				goto out;
		}
	}
	if (optind < argc) {
		if (a.input || optind + 1 < argc) {
			cli_error(cmd, "one input file only (got '%s')", argv[argc - 1]);
			goto out;
		}
		a.input = argv[optind];
	}
	if (target_argv && !target_argv[0]) {
		cli_error(cmd, "no command after '--'");
		goto out;
	}
	if (why_target && !a.input && !t.given && !target_argv)
		live = true;	/* strobe why -c NAME: live, the whole machine */
	if (live || t.given || target_argv) {
		if (a.input) {
			cli_error(cmd, "a trace file ('%s') or live tracing (-- CMD, -p, -c, -d, "
				  "--live ...), not both", a.input);
			goto out;
		}
		if (cli_target_finish(&t, cmd, target_argv) < 0)
			goto out;
		t.o.command_line = cmdline;
		/* strobe why -- CMD: the whole machine, the command's tasks
		 * selected in user space (its wakers are other tasks) */
		if (why && target_argv)
			t.o.argv_whole_system = true;
		a.live = &t;
	}
	if (!a.input)
		a.input = "trace.dat";
	if (!a.names) {
		cli_error(cmd, "which analyses? -a cputop,syscalls,schedlat,io,irq,mem");
		goto out;
	}
	if (strstr(a.names, "periods") && !a.o.nr_periods && !a.mi_version && !a.metadata) {
		cli_error(cmd, "which periods? --period 'NAME : BEGIN_EXPR : END_EXPR' "
			  "(see strobe-periods(1))");
		goto out;
	}
	if (a.group_key && !strstr(a.names, "periods")) {
		cli_error(cmd, "bad value '%s' for --group-by (thread, process, container or "
			  "cpu; a capture key with periods)", a.o.period_group_by);
		goto out;
	}
	if (!strstr(a.names, "periods") &&
	    ((!strstr(a.names, "why") && (a.o.nr_periods || a.o.nr_period_captures)) ||
	     a.o.aggregate_by)) {
		cli_error(cmd, "--period, --period-captures and --aggregate-by need the "
			  "periods analysis (-a periods)");
		goto out;
	}
	if (a.o.aggregate_by && !a.o.views)	/* its rows are log rows */
		a.o.views = STROBE_VIEW_LOG | STROBE_VIEW_STATS;
	if (a.o.nr_periods) {	/* a bad definition is a usage error, file or not */
		struct strobe_analysis *probe = NULL;
		struct strobe_error err = { 0 };
		int ret = strobe_analysis_new("periods", &a.o, &probe, &err);

		strobe_analysis_free(probe);
		if (ret < 0) {
			cli_error_e(cmd, &err);
			status = ret == -EINVAL ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
	}
	for (c = 0; c < a.o.nr_filters; c++) {	/* a syntax error is a usage error */
		struct strobe_expr_filter *fe = NULL;
		struct strobe_error err = { -ENOMEM, "out of memory" };
		int rc = strobe_expr_filter_new(&fe) < 0 ? -ENOMEM :
			strobe_expr_filter_add(fe, a.filters[c], &err);

		strobe_expr_filter_free(fe);
		if (rc < 0) {
			cli_error_e(cmd, &err);
			goto out;
		}
	}
	if (a.json && a.lami) {
		cli_error(cmd, "--json and --lami exclude each other");
		goto out;
	}
	status = run(&a);
	goto out;
bad_arg:
	cli_error(cmd, "bad value '%s' for %s", optarg, argv[optind - 1]);
	goto out;
bad:
	cli_error(cmd, "unknown option %s", bad);
out:
	free(a.tids);
	free(a.pids);
	free(a.comms);
	free(a.containers);
	free(a.cpu_mask);
	while (a.nr_copies)
		free(a.copies[--a.nr_copies]);
	cli_target_free(&t);
	free(cmdline);
	return status;
}

int cmd_analyze(int argc, char **argv)
{
	return cli_analyze_main("analyze", NULL, argc, argv);
}

int cmd_why(int argc, char **argv)
{
	return cli_analyze_main("why", "why", argc, argv);
}

int cmd_cputop(int argc, char **argv)
{
	return cli_analyze_main("cputop", "cputop", argc, argv);
}

int cmd_syscalls(int argc, char **argv)
{
	return cli_analyze_main("syscalls", "syscalls", argc, argv);
}

int cmd_schedlat(int argc, char **argv)
{
	return cli_analyze_main("schedlat", "schedlat", argc, argv);
}

int cmd_io(int argc, char **argv)
{
	return cli_analyze_main("io", "io", argc, argv);
}

int cmd_irq(int argc, char **argv)
{
	return cli_analyze_main("irq", "irq", argc, argv);
}

int cmd_mem(int argc, char **argv)
{
	return cli_analyze_main("mem", "mem", argc, argv);
}

int cmd_periods(int argc, char **argv)
{
	return cli_analyze_main("periods", "periods", argc, argv);
}
