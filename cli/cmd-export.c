/*
 * cmd-export.c - `strobe export`: trace files into an external store.
 * --format perfetto (Chrome trace-event JSON) is export-perfetto.c's,
 * --format otlp (OpenTelemetry spans) export-otlp.c's,
 * handed the whole command line; here ClickHouse (the library's strobe_clickhouse_*:
 * schema created when missing, events and per-second per-container
 * aggregates inserted in compressed batches over HTTP); this file parses
 * options, reads the password from a file or the environment (never from
 * argv, which every user of the machine can read in /proc), runs the
 * export consumer over one pipeline (several -i: one table, each file's
 * rows under its own host name; damage as strobe-damage(7) says, with
 * --strict), shows progress on long exports and says what was delivered
 * and what was wrong with the data (the summary, or --json's).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/clickhouse.h>

#include "cli.h"

#define CMD "export"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe export --format clickhouse [options] [-i FILE]...\n"
		"       strobe export --format clickhouse [options] --spool SPOOL\n"
		"       strobe export --format perfetto -o OUT.json [options] [-i FILE]...\n"
		"         (its options: strobe export --format perfetto --help)\n"
		"       strobe export --format otlp --endpoint URL --period DEF [options] ...\n"
		"         (OpenTelemetry spans; strobe export --format otlp --help)\n"
		"\n"
		"Export trace files (default trace.dat) to ClickHouse over HTTP: the\n"
		"database and its tables are created when missing, then every event goes\n"
		"into DB.events(host, ts, time, cpu, tid, pid, comm, container, system,\n"
		"event, fields) and per-second per-container CPU time, system calls,\n"
		"errors and latency histograms into DB.container_seconds.  Several -i\n"
		"go into the same tables in one pass, each file's rows with its own\n"
		"host name.  Damaged data is skipped with a warning (strobe-damage(7)).\n"
		"See strobe-export(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file to read (default: trace.dat); several\n"
		"                          -i export several files (hosts) in one pass\n"
		"      --format FORMAT     clickhouse, perfetto (Chrome trace-event JSON\n"
		"                          for Perfetto UI) or otlp (spans; required)\n"
		"      --url URL           server's HTTP interface (default:\n"
		"                          http://localhost:8123)\n"
		"      --database DB       database (default: strobe)\n"
		"      --host-name NAME    value of the host column (default: the\n"
		"                          recording's host name, else empty; one file)\n"
		"      --user USER         user (default: $CLICKHOUSE_USER, else the\n"
		"                          server's default user)\n"
		"      --password-file F   read the password from the first line of F\n"
		"                          (default: $CLICKHOUSE_PASSWORD, else none)\n"
		"      --batch-rows N      events per INSERT (default %d)\n"
		"      --no-compress       send batches uncompressed (default: gzip)\n"
		"      --retry SECONDS     while the server cannot be reached, retry each\n"
		"                          request for up to SECONDS (default 0: fail)\n"
		"      --spool SPOOL       deliver the rows a live recording (strobe record\n"
		"                          --sink) could not deliver and kept in SPOOL;\n"
		"                          SPOOL is removed once everything is delivered\n"
		"      --wall-offset NS    trace clock to wall clock offset, ns (default:\n"
		"                          the file's clock pairings, else its close time\n"
		"                          less its clock then; one file)\n"
		"      --strict            fail on damaged data instead of skipping it with\n"
		"                          a warning (rows already sent stay sent)\n"
		"      --json              the summary as one JSON object on stdout\n"
		"                          (with the diagnostics)\n"
		"      --progress          progress lines on stderr even when it is not\n"
		"                          a terminal\n"
		"  -q, --quiet             no progress and no summary\n"
		"  -h, --help              show this help\n"
		"\n"
		"Examples:\n"
		"  strobe export --format clickhouse --url http://db1:8123 --host-name web1\n"
		"  CLICKHOUSE_PASSWORD=... strobe export --format clickhouse --user strobe \\\n"
		"      --database traces -i web1.dat\n"
		"  strobe export --format clickhouse -i web1.dat -i web2.dat --strict\n",
		STROBE_CH_BATCH_ROWS);
}

/* --progress when stderr is not a terminal: a line a second, for logs
 * (a terminal gets progress.c's line instead) */
struct progress {
	bool tty;
	struct timespec t0, last;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

static void on_progress(void *arg, const struct strobe_ch_stats *st)
{
	struct progress *p = arg;
	struct timespec now;
	double el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&p->last, &now) < 1.0)
		return;
	p->last = now;
	el = since(&p->t0, &now);
	fprintf(stderr, "strobe export: %llu events read, %llu rows delivered, %.0f events/s\n",
		(unsigned long long)st->events, (unsigned long long)st->rows_sent,
		el > 0 ? (double)st->events / el : 0.0);
}

/* The first line of path, without its newline (free() it); NULL with a
 * message on failure. */
static char *read_secret(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		cli_error(CMD, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		cli_error(CMD, "'%s' is empty", path);
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

/* --spool: the schema, then every undelivered record of the spool. */
static int replay_spool(struct strobe_clickhouse *ch, const char *spool, bool quiet)
{
	struct strobe_error err = { 0 };
	uint64_t rows = 0, agg = 0;
	int ret;

	ret = strobe_clickhouse_create_schema(ch, &err);
	if (ret == 0)
		ret = strobe_ch_spool_replay(spool, strobe_clickhouse_send, ch, &rows, &agg, &err);
	if (ret < 0) {
		cli_error_e(CMD, &err);
		cli_error(CMD, "%llu events and %llu container-second rows delivered from '%s'; "
			  "the rest stays there (run this again to resume)",
			  (unsigned long long)rows, (unsigned long long)agg, spool);
		return CLI_FAIL;
	}
	if (!quiet)
		fprintf(stderr, "strobe export: %llu events and %llu container-second rows "
			"delivered from spool '%s' (removed)\n", (unsigned long long)rows,
			(unsigned long long)agg, spool);
	return CLI_OK;
}

/* The inputs' files, each opened once. */
struct inputs {
	const char **paths;
	struct strobe_tracefile **tfs;
	int n;
};

static void inputs_close(struct inputs *in)
{
	int i;

	for (i = 0; in->tfs && i < in->n; i++)
		strobe_tracefile_close(in->tfs[i]);
	free(in->tfs);
	free(in->paths);
}

/*
 * The summary as JSON on stdout: what was delivered, per host and in
 * all, and every diagnostic of the data (strobe-damage(7)) with the file
 * it is about.
 */
static void print_json(const struct strobe_pipeline *p, const struct strobe_ch_export *x,
		       double el)
{
	const struct strobe_pipeline_source *src;
	struct strobe_ch_stats st;
	enum strobe_tf_diag_kind k;
	struct strobe_buf *s = cli_buf_new();
	const char *msg, *path;
	int i, source;

	strobe_ch_export_stats(x, -1, &st);
	strobe_buf_printf(s, "{\"events\":%llu,\"rows\":%llu,\"container_seconds\":%llu,"
			  "\"batches\":%llu,\"bytes\":%llu,\"seconds\":%.3f,\"hosts\":[",
			  (unsigned long long)st.events, (unsigned long long)st.rows_sent,
			  (unsigned long long)st.agg_rows_sent, (unsigned long long)st.batches,
			  (unsigned long long)st.bytes, el);
	for (i = 0; (src = strobe_pipeline_source(p, i)); i++) {
		char host[256];
		const char *h = strobe_tracefile_host(src->tf, host, sizeof(host));

		path = strobe_tracefile_path(src->tf);
		strobe_ch_export_stats(x, i, &st);
		strobe_buf_puts(s, i ? ",{\"file\":" : "{\"file\":");
		strobe_json_escape(s, path, strlen(path));
		strobe_buf_puts(s, ",\"host\":");
		strobe_json_escape(s, h, strlen(h));
		strobe_buf_printf(s, ",\"events\":%llu,\"rows\":%llu,\"container_seconds\":%llu}",
				  (unsigned long long)st.events, (unsigned long long)st.rows_sent,
				  (unsigned long long)st.agg_rows_sent);
	}
	strobe_buf_puts(s, "],\"diagnostics\":[");
	for (i = 0; (msg = strobe_pipeline_diag(p, i, &k, &source)); i++) {
		src = strobe_pipeline_source(p, source);
		path = src ? strobe_tracefile_path(src->tf) : "";
		strobe_buf_printf(s, "%s{\"kind\":\"%s\",\"damage\":%s,\"file\":", i ? "," : "",
				  strobe_tf_diag_name(k), strobe_tf_diag_is_damage(k) ? "true"
				  : "false");
		strobe_json_escape(s, path, strlen(path));
		strobe_buf_puts(s, ",\"message\":");
		strobe_json_escape(s, msg, strlen(msg));
		strobe_buf_puts(s, "}");
	}
	strobe_buf_puts(s, "]}\n");
	cli_flush(s);
	strobe_buf_free(s);
}

/* Export the files through one pipeline; an exit status. */
static int export_files(struct strobe_clickhouse *ch, struct inputs *in,
			const struct strobe_ch_export_opts *eo, bool strict, bool quiet,
			bool json, bool force_progress, bool one_host)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict,
					   .raw_time = true };
	struct strobe_ch_export_opts o = *eo;
	struct strobe_ch_export *x = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_error err = { 0, "" };
	struct strobe_consumer c;
	struct strobe_ch_stats st;
	struct progress pr = { 0 };
	struct cli_progress *bar = NULL;
	int i, ret, status = CLI_FAIL, nr_diags, nr_damage = 0;
	enum strobe_tf_diag_kind k;
	double el;

	pr.tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	pr.last = pr.t0;
	/* a terminal gets progress.c's line (how much of the files was read,
	 * the rate, the time left; erased at the end); --progress without a
	 * terminal gets a line a second, for logs */
	if (!quiet && force_progress && !pr.tty) {
		o.progress = on_progress;
		o.progress_arg = &pr;
		o.progress_every = 100000;
	}
	if (strobe_pipeline_new(&po, &p, &err) < 0 || strobe_ch_export_new(ch, &o, &x, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	for (i = 0; i < in->n; i++) {
		if (strobe_pipeline_add_file(p, in->tfs[i], NULL, &err) < 0) {
			cli_error(CMD, "%s: %s", in->paths[i], err.msg);
			goto out;
		}
	}
	if (one_host && strobe_pipeline_nr_sources(p) > 1) {
		cli_error(CMD, "--host-name and --wall-offset are about one file: with several "
			  "-i, each file's rows carry its own host name and clock");
		status = CLI_USAGE;
		goto out;
	}
	strobe_ch_export_consumer(x, &c);
	ret = strobe_pipeline_add_consumer(p, &c, &err);
	if (ret >= 0) {
		bar = cli_progress_start(CMD, p, quiet, false);
		ret = strobe_pipeline_run(p, &err);
		cli_progress_stop(bar);
	}
	clock_gettime(CLOCK_MONOTONIC, &pr.last);
	el = since(&pr.t0, &pr.last);
	strobe_ch_export_stats(x, -1, &st);
	if (ret < 0) {
		/* what the data said before it failed, then why it failed */
		for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
			const char *msg = strobe_pipeline_diag(p, i, &k, NULL);

			if (!strobe_tf_diag_is_damage(k))
				cli_warn(CMD, "%s", msg);
		}
		cli_error_e(CMD, &err);
		if (!st.rows_sent)
			cli_error(CMD, "nothing was delivered");
		else if (ret == -EBADMSG)
			cli_error(CMD, "%llu events delivered before the damage; not delivered: "
				  "the %llu events read since and the rest of the input",
				  (unsigned long long)st.rows_sent,
				  (unsigned long long)(st.events - st.rows_sent));
		else
			cli_error(CMD, "%llu events delivered; not delivered: the %llu events read "
				  "since (%llu in the refused batch) and the rest of the input",
				  (unsigned long long)st.rows_sent,
				  (unsigned long long)(st.events - st.rows_sent),
				  (unsigned long long)st.rows_failed);
		goto out;
	}
	nr_diags = strobe_pipeline_nr_diags(p);
	for (i = 0; i < nr_diags; i++)
		if (strobe_pipeline_diag(p, i, &k, NULL) && strobe_tf_diag_is_damage(k))
			nr_damage++;
	if (json)
		print_json(p, x, el);
	else if (!quiet)
		fprintf(stderr, "strobe export: %llu events and %llu container-second rows "
			"delivered in %llu batches (%llu bytes before compression) in %.3f s: "
			"%.0f events/s%s%s%s\n",
			(unsigned long long)st.rows_sent, (unsigned long long)st.agg_rows_sent,
			(unsigned long long)st.batches, (unsigned long long)st.bytes, el,
			el > 0 ? (double)st.rows_sent / el : 0.0,
			nr_damage ? "; the data was damaged: " : nr_diags ? "; " : "",
			!nr_diags ? "" : nr_diags > 1 ? "warnings follow" : "a warning follows",
			nr_damage && strict ? " (strict)" : "");
	/* the policy's ending: each diagnostic once (strict: damage fails) */
	status = cli_pipeline_diags(CMD, p, strict);
out:
	strobe_pipeline_free(p);
	strobe_ch_export_free(x);
	return status;
}

/* --format NAME anywhere before a "--": perfetto is export-perfetto.c's,
 * otlp export-otlp.c's. */
static bool wants(int argc, char **argv, const char *name)
{
	char eq[64];
	int i;

	snprintf(eq, sizeof(eq), "--format=%s", name);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], eq) ||
		    (!strcmp(argv[i], "--format") && i + 1 < argc && !strcmp(argv[i + 1], name)))
			return true;
	return false;
}

int cmd_export(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_URL, OPT_DB, OPT_HOST, OPT_USER, OPT_PWFILE, OPT_BATCH,
	       OPT_NOCOMP, OPT_WALL, OPT_PROGRESS, OPT_RETRY, OPT_SPOOL, OPT_STRICT, OPT_JSON };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "url", required_argument, NULL, OPT_URL },
		{ "database", required_argument, NULL, OPT_DB },
		{ "host-name", required_argument, NULL, OPT_HOST },
		{ "user", required_argument, NULL, OPT_USER },
		{ "password-file", required_argument, NULL, OPT_PWFILE },
		{ "batch-rows", required_argument, NULL, OPT_BATCH },
		{ "no-compress", no_argument, NULL, OPT_NOCOMP },
		{ "wall-offset", required_argument, NULL, OPT_WALL },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "retry", required_argument, NULL, OPT_RETRY },
		{ "spool", required_argument, NULL, OPT_SPOOL },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_clickhouse_opts co = { .url = "http://localhost:8123" };
	struct strobe_ch_export_opts eo = { 0 };
	struct strobe_error err = { 0 };
	struct strobe_clickhouse *ch = NULL;
	struct inputs in = { 0 };
	const char *format = NULL, *pwfile = NULL, *spool = NULL;
	char *password = NULL, *end;
	bool quiet = false, force_progress = false, strict = false, json = false;
	uint64_t u;
	int c, i, status = CLI_OK;

	if (wants(argc, argv, "perfetto"))
		return cli_export_perfetto(argc, argv);
	if (wants(argc, argv, "otlp"))
		return cli_export_otlp(argc, argv);
	in.paths = calloc((size_t)argc + 1, sizeof(*in.paths));
	if (!in.paths) {
		cli_error(CMD, "out of memory");
		return CLI_FAIL;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in.paths[in.n++] = optarg;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_URL:
			co.url = optarg;
			break;
		case OPT_DB:
			co.database = optarg;
			break;
		case OPT_HOST:
			eo.host = optarg;
			break;
		case OPT_USER:
			co.user = optarg;
			break;
		case OPT_PWFILE:
			pwfile = optarg;
			break;
		case OPT_BATCH:
			if (cli_parse_u64(optarg, &u) < 0 || u == 0) {
				cli_error(CMD, "--batch-rows wants a positive number, not '%s'",
					  optarg);
				status = CLI_USAGE;
				goto out;
			}
			eo.batch_rows = u;
			break;
		case OPT_NOCOMP:
			co.no_compress = true;
			break;
		case OPT_WALL:
			errno = 0;
			eo.wall_offset_ns = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end) {
				cli_error(CMD, "--wall-offset wants nanoseconds, not '%s'", optarg);
				status = CLI_USAGE;
				goto out;
			}
			eo.have_wall_offset = true;
			break;
		case OPT_RETRY:
			if (cli_parse_seconds(optarg, &co.retry_s) < 0) {
				cli_error(CMD, "--retry wants seconds, not '%s'", optarg);
				status = CLI_USAGE;
				goto out;
			}
			break;
		case OPT_SPOOL:
			spool = optarg;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_PROGRESS:
			force_progress = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			goto out;
		default:
			usage(stderr);
			status = CLI_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		cli_error(CMD, "unexpected argument '%s'", argv[optind]);
		status = CLI_USAGE;
		goto out;
	}
	if (!format) {
		cli_error(CMD, "which format? --format clickhouse or --format perfetto");
		status = CLI_USAGE;
		goto out;
	}
	if (strcmp(format, "clickhouse")) {
		cli_error(CMD, "unknown format '%s' (known: clickhouse, perfetto)", format);
		status = CLI_USAGE;
		goto out;
	}
	if (spool && in.n) {
		cli_error(CMD, "--spool delivers a spool, not a trace file: no -i with it");
		status = CLI_USAGE;
		goto out;
	}
	if (!in.n)
		in.paths[in.n++] = "trace.dat";
	if (pwfile) {
		password = read_secret(pwfile);
		if (!password) {
			status = CLI_FAIL;
			goto out;
		}
		co.password = password;
	}
	if (strobe_clickhouse_new(&co, &ch, &err) < 0) {
		cli_error_e(CMD, &err);
		status = err.code == -EINVAL ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	if (spool) {
		status = replay_spool(ch, spool, quiet);
		goto out;
	}
	in.tfs = calloc((size_t)in.n, sizeof(*in.tfs));
	if (!in.tfs) {
		cli_error(CMD, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	for (i = 0; i < in.n; i++) {
		if (strobe_tracefile_open(in.paths[i], &in.tfs[i], &err) < 0) {
			cli_error_e(CMD, &err);
			status = CLI_FAIL;
			goto out;
		}
	}
	status = export_files(ch, &in, &eo, strict, quiet, json, force_progress,
			      eo.host || eo.have_wall_offset);
out:
	inputs_close(&in);
	strobe_clickhouse_free(ch);
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
	return status;
}
