/*
 * cmd-export.c - `strobe export`: a trace file into an external store.
 * Today one format, ClickHouse (the library's strobe_clickhouse_*:
 * schema created when missing, events and per-second per-container
 * aggregates inserted in compressed batches over HTTP); this file parses
 * options, reads the password from a file or the environment (never from
 * argv, which every user of the machine can read in /proc), shows
 * progress on long exports and says what was delivered.
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
		"usage: strobe export --format clickhouse [options] [-i FILE]\n"
		"       strobe export --format clickhouse [options] --spool SPOOL\n"
		"\n"
		"Export a trace file (default trace.dat) to ClickHouse over HTTP: the\n"
		"database and its tables are created when missing, then every event goes\n"
		"into DB.events(host, ts, time, cpu, tid, pid, comm, container, system,\n"
		"event, fields) and per-second per-container CPU time, system calls,\n"
		"errors and latency histograms into DB.container_seconds.  See\n"
		"strobe-export(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file to read (default: trace.dat)\n"
		"      --format FORMAT     clickhouse (the only one so far; required)\n"
		"      --url URL           server's HTTP interface (default:\n"
		"                          http://localhost:8123)\n"
		"      --database DB       database (default: strobe)\n"
		"      --host-name NAME    value of the host column (default: the\n"
		"                          recording's host name, else empty)\n"
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
		"                          the file's close time less its clock then)\n"
		"      --progress          progress lines on stderr even when it is not\n"
		"                          a terminal\n"
		"  -q, --quiet             no progress and no summary\n"
		"  -h, --help              show this help\n"
		"\n"
		"Examples:\n"
		"  strobe export --format clickhouse --url http://db1:8123 --host-name web1\n"
		"  CLICKHOUSE_PASSWORD=... strobe export --format clickhouse --user strobe \\\n"
		"      --database traces -i web1.dat\n",
		STROBE_CH_BATCH_ROWS);
}

struct progress {
	bool tty;	/* rewrite one line ("\r"), else print lines */
	bool shown;
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
	fprintf(stderr, "%sstrobe export: %llu events read, %llu rows delivered, %.0f events/s%s",
		p->tty ? "\r" : "", (unsigned long long)st->events,
		(unsigned long long)st->rows_sent, el > 0 ? (double)st->events / el : 0.0,
		p->tty ? "" : "\n");
	p->shown = true;
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

int cmd_export(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_URL, OPT_DB, OPT_HOST, OPT_USER, OPT_PWFILE, OPT_BATCH,
	       OPT_NOCOMP, OPT_WALL, OPT_PROGRESS, OPT_RETRY, OPT_SPOOL };
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_clickhouse_opts co = { .url = "http://localhost:8123" };
	struct strobe_ch_export_opts eo = { 0 };
	struct strobe_ch_stats st;
	struct strobe_error err = { 0 };
	struct strobe_clickhouse *ch = NULL;
	struct strobe_tracefile *tf = NULL;
	struct progress pr = { 0 };
	const char *input = "trace.dat", *format = NULL, *pwfile = NULL, *spool = NULL;
	char *password = NULL, *end;
	bool quiet = false, force_progress = false;
	uint64_t u;
	double el;
	int c, ret, status = CLI_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
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
				return CLI_USAGE;
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
				return CLI_USAGE;
			}
			eo.have_wall_offset = true;
			break;
		case OPT_RETRY:
			if (cli_parse_seconds(optarg, &co.retry_s) < 0) {
				cli_error(CMD, "--retry wants seconds, not '%s'", optarg);
				return CLI_USAGE;
			}
			break;
		case OPT_SPOOL:
			spool = optarg;
			break;
		case OPT_PROGRESS:
			force_progress = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			usage(stderr);
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		cli_error(CMD, "unexpected argument '%s'", argv[optind]);
		return CLI_USAGE;
	}
	if (!format) {
		cli_error(CMD, "which format? --format clickhouse");
		return CLI_USAGE;
	}
	if (strcmp(format, "clickhouse")) {
		cli_error(CMD, "unknown format '%s' (known: clickhouse)", format);
		return CLI_USAGE;
	}
	if (pwfile) {
		password = read_secret(pwfile);
		if (!password)
			return CLI_FAIL;
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
	if (strobe_tracefile_open(input, &tf, &err) < 0) {
		cli_error_e(CMD, &err);
		status = CLI_FAIL;
		goto out;
	}
	cli_warn_diags(CMD, tf);
	pr.tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	pr.last = pr.t0;
	if (!quiet && (pr.tty || force_progress)) {
		eo.progress = on_progress;
		eo.progress_arg = &pr;
		eo.progress_every = 100000;
	}
	ret = strobe_clickhouse_export_file(ch, tf, input, &eo, &st, &err);
	clock_gettime(CLOCK_MONOTONIC, &pr.last);
	el = since(&pr.t0, &pr.last);
	if (pr.shown && pr.tty)
		fputc('\n', stderr);
	if (ret < 0) {
		cli_error_e(CMD, &err);
		if (!st.events)
			cli_error(CMD, "nothing was delivered");
		else
			cli_error(CMD, "%llu events delivered; not delivered: the %llu events read "
				  "since (%llu in the refused batch) and the rest of the file",
				  (unsigned long long)st.rows_sent,
				  (unsigned long long)(st.events - st.rows_sent),
				  (unsigned long long)st.rows_failed);
		status = CLI_FAIL;
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "strobe export: %llu events and %llu container-second rows "
			"delivered in %llu batches (%llu bytes before compression) in %.3f s: "
			"%.0f events/s\n",
			(unsigned long long)st.rows_sent, (unsigned long long)st.agg_rows_sent,
			(unsigned long long)st.batches, (unsigned long long)st.bytes, el,
			el > 0 ? (double)st.rows_sent / el : 0.0);
out:
	strobe_tracefile_close(tf);
	strobe_clickhouse_free(ch);
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
	return status;
}
