/*
 * cmd-analyze.c - `strobe analyze -a a,b,c` and the one-analysis commands
 * `strobe cputop|syscalls|schedlat|io|irq|mem`.
 *
 * All of them are the same thin loop over libstrobe: parse the shared
 * view and filter options into a struct strobe_analysis_opts, run the
 * analyses over the file in one pass (strobe_analysis_run_file), and
 * print every result table through the shared writers (text, JSON lines
 * or LAMI 1.0).  Log rows (--log) are printed while the file is read, so
 * they never pile up in memory; LAMI needs them inside its one results
 * object, after the time range is known, so with --lami they go to a
 * temporary file per log table and are copied into the results at the
 * end.  What is wrong with the file (cli/diag.c) and the analyses' notes
 * (missing events, dropped measurements) go to stderr, and with --json
 * into the summary object too.
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
	struct strobe_analysis_opts o;
	const char *begin, *end;
	bool json, lami, mi_version, metadata;
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
};

static void usage(FILE *f, const char *cmd)
{
	bool all = !strcmp(cmd, "analyze");

	if (!strcmp(cmd, "periods")) {
		cli_periods_usage(f);
		return;
	}

	if (all)
		fprintf(f,
			"usage: strobe analyze -a ANALYSES [options] [FILE]\n"
			"\n"
			"Run several analyses over a trace file (default trace.dat) in one\n"
			"pass: cputop, syscalls, schedlat, io, irq, mem, periods\n"
			"(comma-separated).\n");
	else
		fprintf(f,
			"usage: strobe %s [options] [FILE]\n"
			"\n"
			"%s, from a trace file (default trace.dat).\n"
			"See strobe-%s(1) for what is measured and how.\n",
			cmd, strobe_analysis_summary(cmd), cmd);
	fprintf(f,
		"\n"
		"Options:\n"
		"%s"
		"  -i, --input FILE        trace file to read (default: trace.dat)\n"
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
		"      --lami              LAMI 1.0 results for Trace Compass; also\n"
		"                          --mi-version and --metadata\n"
		"  -h, --help              show this help\n"
		"\n"
		"When the file lacks the events an analysis needs, strobe says which\n"
		"events and which 'strobe record --preset' records them.\n"
		"\n"
		"Examples:\n",
		all ? "  -a, --analyses LIST     cputop,syscalls,schedlat,io,irq,mem,periods\n"
		      "      --period DEF, --period-captures CAPS, --aggregate-by NAME\n"
		      "                          periods: see strobe-periods(1)\n" : "");
	if (all)
		fprintf(f,
			"  strobe analyze -a cputop,syscalls,schedlat -i run.dat\n"
			"  strobe analyze -a syscalls,io --group-by container --json\n");
	else
		fprintf(f,
			"  strobe %s                          ./trace.dat, top 10\n"
			"  strobe %s --group-by container --top 0\n"
			"  strobe %s --stats --freq --pid 1234 -i run.dat\n",
			cmd, cmd, cmd);
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
};

/* The temporary file of log table t, created on first use; NULL on error. */
static FILE *lami_file(struct log_ctx *l, const struct strobe_table *t)
{
	int i;

	for (i = 0; i < l->nr_files; i++)
		if (l->files[i].t == t)
			return l->files[i].f;
	if (l->nr_files == MAX_LOG_TABLES)
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
	FILE *f = lami_file(l, t);

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
	char buf[65536];
	size_t n;
	int i;

	for (i = 0; i < l->nr_files && l->files[i].t != t; i++)
		;
	if (i == l->nr_files)
		return 0;	/* no rows */
	if (!cli_flush(s) || fflush(l->files[i].f) || fseek(l->files[i].f, 0, SEEK_SET))
		return -EIO;
	while ((n = fread(buf, 1, sizeof(buf), l->files[i].f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			return -EIO;
	return ferror(l->files[i].f) ? -EIO : 0;
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

/* Timestamp of the first event of the file (for +SECONDS), 0 if none. */
static uint64_t first_ts(struct strobe_tracefile *tf)
{
	struct strobe_stream *st;
	struct strobe_event ev;
	uint64_t ts = 0;

	if (strobe_stream_open_file(tf, NULL, &st, NULL) < 0)
		return 0;
	if (strobe_stream_next(st, &ev, NULL) > 0)
		ts = ev.ts;
	strobe_stream_close(st);
	return ts;
}

static int run(struct analyze_args *a)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_analysis *an = NULL;
	struct log_ctx lc = { 0 };
	struct strobe_buf *s;
	bool rel_b = false, rel_e = false;
	int i, n, ret, status = CLI_FAIL;

	s = cli_buf_new();
	lc.row = cli_buf_new();
	if (a->mi_version) {
		strobe_lami_write_version(s);
		cli_flush(s);
		strobe_buf_free(s);
		strobe_buf_free(lc.row);
		return CLI_OK;
	}
	if (a->metadata) {
		if (strobe_lami_write_metadata(a->names, &a->o, s) < 0) {
			cli_error(a->cmd, "cannot describe '%s'", a->names);
			strobe_buf_free(s);
			strobe_buf_free(lc.row);
			return CLI_FAIL;
		}
		cli_flush(s);
		strobe_buf_free(s);
		strobe_buf_free(lc.row);
		return CLI_OK;
	}
	if ((a->begin && parse_time(a->begin, a->lami, &a->o.begin, &rel_b) < 0) ||
	    (a->end && parse_time(a->end, a->lami, &a->o.end, &rel_e) < 0)) {
		cli_error(a->cmd, "bad time '%s' (seconds like 366.25, or +SECONDS)",
			  a->begin && parse_time(a->begin, a->lami, &a->o.begin, &rel_b) < 0
			  ? a->begin : a->end);
		goto out;
	}
	if (strobe_tracefile_open(a->input, &tf, &err) < 0) {
		cli_error_e(a->cmd, &err);
		goto out;
	}
	if (rel_b || rel_e) {
		uint64_t t0 = first_ts(tf);

		if (rel_b)
			a->o.begin += t0;
		if (rel_e)
			a->o.end += t0;
	}
	lc.s = s;
	lc.json = a->json;
	lc.lami = a->lami;
	if (a->o.views & STROBE_VIEW_LOG) {
		a->o.log = on_log;
		a->o.log_arg = &lc;
	}
	ret = strobe_analysis_new(a->names, &a->o, &an, &err);
	if (ret < 0) {
		cli_error_e(a->cmd, &err);
		status = ret == -EINVAL ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	ret = strobe_analysis_run_file(an, tf, &err);
	cli_flush(s);
	if (ret < 0) {
		cli_warn_diags(a->cmd, tf);	/* may be why, e.g. a damaged format */
		cli_error_e(a->cmd, &err);
		goto out;
	}
	if (lc.last && !a->json)
		strobe_buf_putc(s, '\n');
	n = strobe_analysis_nr_tables(an);
	if (a->lami) {
		if (lc.failed) {
			cli_error(a->cmd, "cannot keep the log rows for LAMI in a temporary "
				  "file: %s", strerror(errno ? errno : EIO));
			goto out;
		}
		if (strobe_lami_write_results_logs(an, a->o.views & STROBE_VIEW_LOG
						   ? lami_log_rows : NULL, &lc, s) == -EIO) {
			cli_error(a->cmd, "cannot copy the log rows: %s",
				  strerror(errno ? errno : EIO));
			goto out;
		}
	} else {
		for (i = 0; i < n; i++) {
			const struct strobe_table *t = strobe_analysis_table(an, i);

			if (strobe_table_view(t) == STROBE_VIEW_LOG)
				continue;	/* its rows went out as they came */
			if (a->json)
				strobe_table_write_json(t, s);
			else
				strobe_table_write_text(t, s);
			if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
				break;
		}
		if (a->json) {
			uint64_t b, e;

			strobe_analysis_window(an, &b, &e);
			strobe_buf_printf(s, "{\"summary\":{\"analyses\":\"%s\",\"begin\":%llu,"
					 "\"end\":%llu,\"notes\":[", a->names,
					 (unsigned long long)b, (unsigned long long)e);
			for (i = 0; i < strobe_analysis_nr_notes(an); i++) {
				const char *note = strobe_analysis_note(an, i);

				if (i)
					strobe_buf_putc(s, ',');
				strobe_json_escape(s, note, strlen(note));
			}
			strobe_buf_puts(s, "],\"diagnostics\":");
			cli_json_diags(s, tf);
			strobe_buf_puts(s, "}}\n");
		}
	}
	if (strobe_buf_failed(s)) {
		cli_error(a->cmd, "out of memory");
		goto out;
	}
	cli_flush(s);
	cli_warn_diags(a->cmd, tf);
	for (i = 0; i < strobe_analysis_nr_notes(an); i++)
		cli_warn(a->cmd, "%s", strobe_analysis_note(an, i));
	status = CLI_OK;
out:
	strobe_buf_free(s);
	strobe_buf_free(lc.row);
	for (i = 0; i < lc.nr_files; i++)
		fclose(lc.files[i].f);
	strobe_analysis_free(an);
	strobe_tracefile_close(tf);
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
		OPT_PERIOD, OPT_PERIOD_CAPTURES, OPT_AGGREGATE_BY, OPT_FILTER,
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
		{ "lami", no_argument, NULL, OPT_LAMI },
		{ "mi-version", no_argument, NULL, OPT_MI_VERSION },
		{ "metadata", no_argument, NULL, OPT_METADATA },
		{ "output-progress", no_argument, NULL, OPT_PROGRESS },
		{ "period", required_argument, NULL, OPT_PERIOD },
		{ "period-captures", required_argument, NULL, OPT_PERIOD_CAPTURES },
		{ "aggregate-by", required_argument, NULL, OPT_AGGREGATE_BY },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct analyze_args a = { 0 };
	const char *bad = NULL;
	int c, status = CLI_USAGE;

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

	optind = 1;
	while ((c = getopt_long(argc, argv, names ? "i:h" : "i:a:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a.input = optarg;
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
		case 'h':
			usage(stdout, cmd);
			status = CLI_OK;
			goto out;
		default:
			usage(stderr, cmd);
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
	    (a.o.nr_periods || a.o.nr_period_captures || a.o.aggregate_by)) {
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
		struct strobe_expr *fe = NULL;
		struct strobe_error err = { 0 };

		if (strobe_expr_parse(a.filters[c], STROBE_EXPR_EVT_ONLY, &fe, &err) < 0) {
			cli_error(cmd, "--filter '%.60s': %.400s", a.filters[c], err.msg);
			goto out;
		}
		strobe_expr_free(fe);
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
	return status;
}

int cmd_analyze(int argc, char **argv)
{
	return cli_analyze_main("analyze", NULL, argc, argv);
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
