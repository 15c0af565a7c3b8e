/*
 * clickhouse_live - trace a command live and send its events, and the
 * per-second per-container aggregates, straight into ClickHouse: a small
 * program on libstrobe's public C API (session, capture, live stream,
 * task model, ClickHouse sink), with no trace file in between.
 *
 *   clickhouse_live [-u URL] [-D DATABASE] [-H HOST] [-e EVENT]... -- CMD ARGS...
 *
 * URL defaults to http://localhost:8123, DATABASE to strobe, HOST to
 * this machine's node name; EVENT is anything `strobe record -e` takes
 * (default: the sched and syscalls presets).  Credentials come from
 * $CLICKHOUSE_USER and $CLICKHOUSE_PASSWORD.  Tracing runs from CMD's
 * first instruction until it exits; the exit status is CMD's.  Needs root.
 *
 * Build: cc clickhouse_live.c $(pkg-config --cflags --libs strobe)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

struct ctx {
	struct strobe_model *m;
	struct strobe_ch_sink *k;
	struct strobe_error err;
};

/* Every event, in timestamp order: the model first (who is this task,
 * in which container), then the sink (a row, and the aggregates). */
static int on_event(const struct strobe_event *ev, void *arg)
{
	struct ctx *c = arg;

	strobe_model_update(c->m, ev);
	return strobe_ch_sink_feed(c->k, ev, &c->err);	/* < 0 stops the iteration */
}

int main(int argc, char **argv)
{
	struct strobe_session_opts so = { .size = sizeof(so) };
	struct strobe_iterate_opts io = { sizeof(io), 0, 0, NULL, NULL };
	struct strobe_clickhouse_opts co = { .url = "http://localhost:8123" };
	struct strobe_ch_sink_opts ko = { 0 };
	struct strobe_error err = { 0, "" };
	struct strobe_session *s = NULL;
	struct strobe_capture *cap = NULL;
	struct strobe_stream *st = NULL;
	struct strobe_clickhouse *ch = NULL;
	struct strobe_ch_stats stats;
	struct ctx c = { 0 };
	struct utsname un;
	const char *events[64];
	int nev = 0, opt, go[2] = { -1, -1 }, i, status = 0;
	unsigned long long lost = 0;
	pid_t child;

	while ((opt = getopt(argc, argv, "u:D:H:e:h")) != -1) {
		if (opt == 'u')
			co.url = optarg;
		else if (opt == 'D')
			co.database = optarg;
		else if (opt == 'H')
			ko.host = optarg;
		else if (opt == 'e' && nev < 64)
			events[nev++] = optarg;
		else {
			fprintf(stderr, "usage: clickhouse_live [-u URL] [-D DATABASE] [-H HOST] "
				"[-e EVENT]... -- CMD ARGS...\n");
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "clickhouse_live: which command?\n");
		return 2;
	}
	if (!nev) {
		events[nev++] = "sched";
		events[nev++] = "syscalls";
	}
	if (!ko.host && uname(&un) == 0)
		ko.host = un.nodename;

	/* the server first: no point tracing if it cannot take the rows */
	if (strobe_clickhouse_new(&co, &ch, &err) < 0 ||
	    strobe_clickhouse_create_schema(ch, &err) < 0)
		goto fail;
	if (strobe_session_open(&so, &s, &err) < 0)
		goto fail;
	for (i = 0; i < nev; i++)
		if (strobe_session_enable(s, events[i], NULL, &err) < 0)
			goto fail;
	/* the command waits on a pipe until tracing is on */
	if (pipe(go) < 0 || (child = fork()) < 0)
		return 1;
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(go[0]);
	if (strobe_session_set_pids(s, &child, 1, true, &err) < 0)
		goto fail;
	io.target = child;
	/* the tasks alive now (the command among them), then what the
	 * events say about forks, execs and exits */
	if (strobe_model_new(&c.m, &err) < 0 || strobe_model_load_proc(c.m, &err) < 0)
		goto fail;
	if (strobe_capture_open(s, NULL, &cap, &err) < 0 ||
	    strobe_capture_stream(cap, &st, &err) < 0 ||
	    strobe_ch_sink_new_stream(st, c.m, &ko, strobe_clickhouse_send, ch, &c.k, &err) < 0 ||
	    strobe_capture_start(cap, &err) < 0)
		goto fail;
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	io.capture = cap;
	if (strobe_stream_iterate(st, on_event, &c, &io, &err) < 0) {
		if (c.err.code)
			err = c.err;
		goto fail;
	}
	waitpid(child, &status, 0);
	if (strobe_ch_sink_finish(c.k, &err) < 0)
		goto fail;
	strobe_ch_sink_stats(c.k, &stats);
	for (i = 0; i < strobe_session_nr_cpus(s); i++) {
		uint64_t l = 0;

		if (strobe_capture_lost(cap, i, &l, NULL) == 0)
			lost += l;
	}
	fprintf(stderr, "clickhouse_live: %llu events and %llu container-second rows sent, "
		"%llu lost\n", (unsigned long long)stats.rows_sent,
		(unsigned long long)stats.agg_rows_sent, lost);
	strobe_ch_sink_free(c.k);
	strobe_stream_close(st);
	strobe_capture_free(cap);
	strobe_session_close(s);
	strobe_model_free(c.m);
	strobe_clickhouse_free(ch);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
fail:
	fprintf(stderr, "clickhouse_live: %s\n", err.msg);
	strobe_ch_sink_free(c.k);
	strobe_stream_close(st);
	strobe_capture_free(cap);
	if (s)
		strobe_session_close(s);
	strobe_model_free(c.m);
	strobe_clickhouse_free(ch);
	return 1;
}
