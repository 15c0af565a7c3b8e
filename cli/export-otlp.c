/*
 * export-otlp.c - `strobe export --format otlp`: periods (and, with
 * --min, slow system calls) as OpenTelemetry spans sent over OTLP/HTTP
 * JSON to a collector.  The library's exporter (strobe_otlp_*, otlp.h)
 * is a consumer of one pipeline over the files (-i) or strobe_record's
 * live stream (-c NAME, -p PID, -- CMD, -d SECS; recorded with the
 * "mono" clock so span times are exact Unix times); its sender delivers
 * from a thread of its own.  This file parses options, applies the OTLP
 * exporter conventions (OTEL_EXPORTER_OTLP_ENDPOINT and _TRACES_ENDPOINT,
 * _HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), waits up to
 * --timeout for the last deliveries and says what was delivered, or
 * why not and where the undelivered spans were kept.  cmd-export.c
 * hands it the whole command line when the format is otlp.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/clickhouse.h>
#include <strobe/otlp.h>

#include "cli.h"
#include "export-run.h"

#define CMD "export"
#define DEF_ENDPOINT "http://localhost:4318"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe export --format otlp [--endpoint URL] --period DEF [options]\n"
		"                     [-i FILE]...\n"
		"       strobe export --format otlp [--endpoint URL] --period DEF [options]\n"
		"                     (-c NAME | -p PID | -d SECS | -- CMD [ARGS])\n"
		"       strobe export --format otlp [--endpoint URL] --spool SPOOL\n"
		"\n"
		"Send periods (strobe-periods(1)) and, with --min, slow system calls as\n"
		"OpenTelemetry spans over OTLP/HTTP JSON to URL/v1/traces (a collector,\n"
		"Jaeger): child periods as child spans, process, thread and container\n"
		"attributes, batching, retries with backoff, the collector's Retry-After.\n"
		"From trace files (default trace.dat) or live, spans sent as periods end.\n"
		"See strobe-export(1), OTLP.\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file to read (default: trace.dat); several -i\n"
		"      --endpoint URL      the collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT,\n"
		"                          else " DEF_ENDPOINT "); spans go to URL/v1/traces\n"
		"                          ($OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: as it is)\n"
		"      --header 'NAME: VALUE'  an HTTP header; repeatable (also\n"
		"                          $OTEL_EXPORTER_OTLP_HEADERS: name=value,...)\n"
		"      --service-name NAME service.name (default: $OTEL_SERVICE_NAME, else\n"
		"                          strobe); $OTEL_RESOURCE_ATTRIBUTES are added\n"
		"      --host-name NAME    host.name (default: the file's host, live this one)\n"
		"      --period DEF        periods to send as spans (strobe-periods(1));\n"
		"                          repeatable; --period-captures CAPS too\n"
		"      --min DURATION      also system calls at least this long (10ms, 500us)\n"
		"      --traceparent-from KEY  a period whose capture KEY holds a W3C\n"
		"                          traceparent joins that trace, under that span\n"
		"      --batch-spans N     spans per request (default 512)\n"
		"      --timeout SECONDS   at the end, how long to keep trying to deliver\n"
		"                          (default 10); what is left is kept in a spool\n"
		"      --spool SPOOL       deliver the spans an earlier export kept in SPOOL\n"
		"      --strict            fail on damaged data (strobe-damage(7))\n"
		"  -q, --quiet             no summary\n"
		"  -h, --help              show this help\n"
		"\n"
		"Live (what strobe record takes; nothing is written):\n"
		"  -c NAME                 trace every task of a container; repeatable\n"
		"  -p PID                  trace a process and its children\n"
		"  -d, --duration SECS     stop after SECS\n"
		"  -e EVENT, --preset LIST  events (default: the events the periods need)\n"
		"  -b KIB                  per-CPU buffer\n"
		"  -- CMD [ARGS]           run CMD and trace it\n"
		"\n"
		"Examples:\n"
		"  strobe export --format otlp --endpoint http://jaeger:4318 -i req.dat \\\n"
		"      --period 'req : $evt.$name == \"syscall_exit_accept4\" : ...'\n"
		"  strobe export --format otlp -c web -d 30 --min 50ms\n");
}

static int parse_duration(const char *s, uint64_t *ns)
{
	double v, mul = 1000.0;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v <= 0)
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
	return *ns ? 0 : -EINVAL;
}

struct strs {
	char **v;
	int n, cap;
};

static int strs_add(struct strs *l, char *s)
{
	if (!s)
		return -ENOMEM;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v) {
			free(s);
			return -ENOMEM;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
	return 0;
}

static void strs_free(struct strs *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* OTEL_EXPORTER_OTLP_HEADERS's name=value into "name: value". */
static int env_header(void *arg, const char *key, const char *value)
{
	char *h;

	if (asprintf(&h, "%s: %s", key, value) < 0)
		return -ENOMEM;
	return strs_add(arg, h);
}

/* service.name in OTEL_RESOURCE_ATTRIBUTES (the spec: OTEL_SERVICE_NAME wins). */
static int res_service(void *arg, const char *key, const char *value)
{
	char **out = arg;

	if (!strcmp(key, "service.name") && !*out)
		*out = strdup(value);
	return 0;
}

/* The traces URL: --endpoint or $OTEL_EXPORTER_OTLP_ENDPOINT plus
 * /v1/traces, else $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is. */
static char *traces_url(const char *endpoint)
{
	const char *base = endpoint, *traces = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
	char *u;
	size_t n;

	if (!base && traces && *traces)
		return strdup(traces);
	if (!base)
		base = getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
	if (!base || !*base)
		base = DEF_ENDPOINT;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	if (asprintf(&u, "%.*s/v1/traces", (int)n, base) < 0)
		return NULL;
	return u;
}

/* Reading files: each file's clock offset (span times in Unix time),
 * then the exporter. */
struct files_run {
	const char **paths;
	int64_t *walls;
	struct strobe_otlp_opts *oo;
	struct strobe_otlp **xp;
};

static int file_opened(void *arg, int i, struct strobe_tracefile *tf)
{
	struct files_run *fr = arg;

	if (strobe_ch_file_wall_offset(tf, fr->paths[i], &fr->walls[i]) < 0)
		cli_warn(CMD, "%s: no clock pairing: span times are its trace clock's, "
			 "not Unix times", fr->paths[i]);
	return 0;
}

static int files_consumer(void *arg, struct strobe_consumer *c)
{
	struct files_run *fr = arg;
	struct strobe_error err = { 0, "" };

	if (strobe_otlp_new(fr->oo, fr->xp, &err) < 0) {
		cli_error_e(CMD, &err);
		return -1;
	}
	strobe_otlp_consumer(*fr->xp, c);
	return 0;
}

/* The files through one pipeline; a CLI status. */
static int run_files(const char **paths, int n, struct strobe_otlp_opts *oo,
		     struct strobe_otlp **xp, bool strict, bool quiet)
{
	struct files_run fr = { paths, calloc((size_t)n, sizeof(int64_t)), oo, xp };
	struct cli_export_how how = { .opened = file_opened, .consumer = files_consumer,
				      .arg = &fr, .raw_time = true };
	int status;

	if (!fr.walls) {
		cli_error(CMD, "out of memory");
		return CLI_FAIL;
	}
	oo->wall_offsets = fr.walls;
	oo->nr_wall_offsets = n;
	status = cli_export_files(CMD, paths, n, strict, quiet, &how);
	free(fr.walls);
	oo->wall_offsets = NULL;
	oo->nr_wall_offsets = 0;
	return status;
}

/* Live: strobe_record's stream into the exporter; a CLI status. */
static int run_live(struct cli_target *t, struct strobe_otlp_opts *oo, struct strobe_otlp **xp)
{
	struct strobe_error err = { 0, "" };
	struct strobe_consumer c;

	if (strobe_otlp_new(oo, xp, &err) < 0) {
		cli_error_e(CMD, &err);
		return CLI_FAIL;
	}
	if (!t->o.clock)
		t->o.clock = "mono";	/* trace time + REALTIME - MONOTONIC = Unix time */
	else if (strcmp(t->o.clock, "mono"))
		cli_warn(CMD, "with --clock %s span times are approximate (mono is exact)",
			 t->o.clock);
	strobe_otlp_consumer(*xp, &c);
	return cli_export_live(CMD, t, &c);
}

static int replay(const char *spool, const char *url, struct strs *hdrs, bool quiet)
{
	struct strobe_error err = { 0, "" };
	uint64_t spans = 0;

	if (strobe_otlp_spool_replay(spool, url, (const char *const *)hdrs->v, hdrs->n, &spans,
				     &err) < 0) {
		cli_error(CMD, "%s (%llu spans delivered before)", err.msg,
			  (unsigned long long)spans);
		return CLI_FAIL;
	}
	if (!quiet)
		fprintf(stderr, "strobe export: %llu spans from spool '%s' delivered to %s\n",
			(unsigned long long)spans, spool, url);
	return CLI_OK;
}

int cli_export_otlp(int argc, char **argv)
{
	enum { OPT_ENDPOINT = 256, OPT_HEADER, OPT_SERVICE, OPT_HOST, OPT_MIN, OPT_TP, OPT_BATCH,
	       OPT_TIMEOUT, OPT_SPOOL };
	static const struct option longopts[] = {
		CLI_EXPORT_LONGOPTS,
		{ "endpoint", required_argument, NULL, OPT_ENDPOINT },
		{ "header", required_argument, NULL, OPT_HEADER },
		{ "service-name", required_argument, NULL, OPT_SERVICE },
		{ "host-name", required_argument, NULL, OPT_HOST },
		{ "min", required_argument, NULL, OPT_MIN },
		{ "traceparent-from", required_argument, NULL, OPT_TP },
		{ "batch-spans", required_argument, NULL, OPT_BATCH },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "spool", required_argument, NULL, OPT_SPOOL },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_otlp_opts oo = { .size = sizeof(oo) };
	struct strobe_otlp_stats st;
	struct strobe_error err = { 0, "" };
	struct strobe_otlp *x = NULL;
	struct cli_export_opts eo;
	struct cli_target *t = &eo.t;
	struct strs hdrs = { 0 };
	const char *endpoint = NULL, *spool = NULL, *env;
	char *url = NULL, *service = NULL;
	double timeout = 10, t0, secs;
	int c, r, status = CLI_USAGE;

	if (cli_export_opts_init(&eo, CMD, "otlp", argc) < 0) {
		status = CLI_FAIL;
		goto out;
	}
	env = getenv("OTEL_EXPORTER_OTLP_HEADERS");
	if (env && strobe_otlp_kv_parse(env, env_header, &hdrs) < 0) {
		cli_error(CMD, "bad OTEL_EXPORTER_OTLP_HEADERS (want name=value,...)");
		goto out;
	}
	env = getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS");
	if (env && strobe_otlp_kv_parse(env, env_header, &hdrs) < 0) {
		cli_error(CMD, "bad OTEL_EXPORTER_OTLP_TRACES_HEADERS (want name=value,...)");
		goto out;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, CLI_EXPORT_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ENDPOINT:
			endpoint = optarg;
			break;
		case OPT_HEADER:
			if (!strchr(optarg, ':') || optarg[0] == ':') {
				cli_error(CMD, "bad --header '%s' (want 'NAME: VALUE')", optarg);
				goto out;
			}
			if (strs_add(&hdrs, strdup(optarg)) < 0) {
				cli_error(CMD, "out of memory");
				status = CLI_FAIL;
				goto out;
			}
			break;
		case OPT_SERVICE:
			free(service);
			service = strdup(optarg);
			break;
		case OPT_HOST:
			oo.host_name = optarg;
			break;
		case OPT_MIN:
			if (parse_duration(optarg, &oo.syscall_min_ns) < 0) {
				cli_error(CMD, "bad --min '%s' (a duration: 10ms, 500us, 2s)", optarg);
				goto out;
			}
			break;
		case OPT_TP:
			oo.traceparent_from = optarg;
			break;
		case OPT_BATCH:
			if (cli_parse_int(optarg, 1, 1000000, &r) < 0) {
				cli_error(CMD, "bad --batch-spans '%s' (1 to 1000000)", optarg);
				goto out;
			}
			oo.batch_spans = (unsigned)r;
			break;
		case OPT_TIMEOUT:
			if (cli_parse_seconds(optarg, &secs) < 0 || secs > 86400) {
				cli_error(CMD, "bad --timeout '%s' (seconds)", optarg);
				goto out;
			}
			timeout = secs;
			break;
		case OPT_SPOOL:
			spool = optarg;
			break;
		default:
			if (cli_export_opt(&eo, CMD, c, optarg, usage, &status) < 0)
				goto out;
			break;
		}
	}
	if (cli_export_opts_end(&eo, CMD, argc, argv) < 0)
		goto out;
	url = traces_url(endpoint);
	if (!url) {
		cli_error(CMD, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		cli_error(CMD, "the endpoint '%s' is not an http(s) URL", url);
		goto out;
	}
	if (spool) {
		if (eo.ninputs || t->given || eo.nperiods || oo.syscall_min_ns) {
			cli_error(CMD, "--spool delivers a spool; no -i, live, --period or --min");
			goto out;
		}
		status = replay(spool, url, &hdrs, eo.quiet);
		goto out;
	}
	if (!eo.nperiods && !oo.syscall_min_ns) {
		cli_error(CMD, "nothing to send: --period DEF (spans of periods) or --min "
			  "DURATION (slow system calls)");
		goto out;
	}
	if (cli_export_opts_sources(&eo, CMD) < 0)
		goto out;
	if (!service && (env = getenv("OTEL_SERVICE_NAME")) && *env)
		service = strdup(env);
	env = getenv("OTEL_RESOURCE_ATTRIBUTES");
	if (env && *env) {
		if (strobe_otlp_kv_parse(env, res_service, &service) < 0) {
			cli_error(CMD, "bad OTEL_RESOURCE_ATTRIBUTES (want key=value,...)");
			goto out;
		}
		oo.resource_attributes = env;
	}
	oo.url = url;
	oo.headers = (const char *const *)hdrs.v;
	oo.nr_headers = hdrs.n;
	oo.service_name = service;
	oo.periods = eo.periods;
	oo.nr_periods = eo.nperiods;
	oo.period_captures = eo.caps;
	oo.nr_period_captures = eo.ncaps;
	t0 = cli_export_now();
	status = t->given ? run_live(t, &oo, &x)
			  : run_files(eo.inputs, eo.ninputs, &oo, &x, eo.strict, eo.quiet);
	if (!x)
		goto out;
	if (strobe_otlp_close(x, status == CLI_OK ? timeout : 0, &st, &err) < 0) {
		cli_error_e(CMD, &err);
		status = CLI_FAIL;
	} else if (status == CLI_OK && !eo.quiet) {
		fprintf(stderr, "strobe export: %llu spans (%llu periods, %llu system calls; %llu in "
			"an application's trace) delivered to %s in %llu requests, %.3f s\n",
			(unsigned long long)st.delivered, (unsigned long long)st.periods,
			(unsigned long long)st.syscalls, (unsigned long long)st.joined, url,
			(unsigned long long)st.batches, cli_export_now() - t0);
	}
out:
	strobe_otlp_free(x);
	cli_export_opts_free(&eo);
	strs_free(&hdrs);
	free(url);
	free(service);
	return status;
}
