/*
 * eventcount - count kernel events by name, live, for a command or for
 * the whole system: a small program on libstrobe's public C API (session,
 * capture, live stream, strobe_stream_iterate).
 *
 *   eventcount [-e EVENT]... [-d SECONDS] [-- CMD ARGS...]
 *
 * EVENT is anything `strobe record -e` takes (a preset, system:event with
 * globs); default: the "syscalls" preset.  With CMD, only CMD and its
 * descendants are traced, from their first instruction, until CMD exits;
 * without, the whole system until Ctrl-C or -d.  Needs root.
 *
 * Build: cc eventcount.c $(pkg-config --cflags --libs strobe)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strobe/strobe.h>

#define MAX_NAMES 512

struct counts {
	const char *name[MAX_NAMES];	/* owned by the stream's formats */
	unsigned long long n[MAX_NAMES];
	int nr;
	unsigned long long lost;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Called for every event, in timestamp order across CPUs. */
static int count(const struct strobe_event *ev, void *arg)
{
	struct counts *c = arg;
	const char *name = strobe_event_name(ev);
	int i;

	if (ev->missed)
		c->lost += ev->missed > 0 ? (unsigned long long)ev->missed : 0;
	if (!name)
		return 0;
	for (i = 0; i < c->nr && strcmp(c->name[i], name); i++)
		;
	if (i == c->nr) {
		if (c->nr == MAX_NAMES)
			return 0;
		c->name[c->nr++] = name;
	}
	c->n[i]++;
	return 0;
}

static int by_count(const void *a, const void *b, void *arg)
{
	const struct counts *c = arg;
	unsigned long long x = c->n[*(const int *)a], y = c->n[*(const int *)b];

	return x < y ? 1 : x > y ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct strobe_session_opts so = { .size = sizeof(so) };
	struct strobe_iterate_opts io = { sizeof(io), 0, 0, &stop, NULL };
	struct strobe_error err = { 0, "" };
	struct strobe_session *s = NULL;
	struct strobe_capture *cap = NULL;
	struct strobe_stream *st = NULL;
	static struct counts c;
	const char *events[64];
	int nev = 0, opt, go[2], i, r, order[MAX_NAMES], status = 0;
	pid_t child = 0;

	while ((opt = getopt(argc, argv, "e:d:h")) != -1) {
		if (opt == 'e' && nev < 64)
			events[nev++] = optarg;
		else if (opt == 'd')
			io.timeout_ms = (int)(atof(optarg) * 1000);
		else {
			fprintf(stderr, "usage: eventcount [-e EVENT]... [-d SECONDS] [-- CMD ARGS...]\n");
			return 2;
		}
	}
	if (!nev)
		events[nev++] = "syscalls";
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (strobe_session_open(&so, &s, &err) < 0)
		goto fail;
	for (i = 0; i < nev; i++)
		if (strobe_session_enable(s, events[i], NULL, &err) < 0)
			goto fail;
	if (optind < argc) {
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
	}
	if (strobe_capture_open(s, NULL, &cap, &err) < 0 ||
	    strobe_capture_stream(cap, &st, &err) < 0 ||
	    strobe_capture_start(cap, &err) < 0)
		goto fail;
	if (child > 0) {
		if (write(go[1], "g", 1) != 1)
			return 1;
		close(go[1]);
	}
	io.capture = cap;
	r = strobe_stream_iterate(st, count, &c, &io, &err);
	if (r < 0)
		goto fail;
	if (child > 0)
		waitpid(child, &status, 0);

	for (i = 0; i < c.nr; i++)
		order[i] = i;
	qsort_r(order, c.nr, sizeof(order[0]), by_count, &c);
	printf("%12s  %s\n", "COUNT", "EVENT");
	for (i = 0; i < c.nr; i++)
		printf("%12llu  %s\n", c.n[order[i]], c.name[order[i]]);
	for (i = 0; i < strobe_session_nr_cpus(s); i++) {
		uint64_t lost = 0;

		if (strobe_capture_lost(cap, i, &lost, NULL) == 0)
			c.lost += lost;
	}
	if (c.lost)
		printf("%12llu  (lost)\n", c.lost);
	strobe_stream_close(st);
	strobe_capture_free(cap);
	strobe_session_close(s);
	return child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 0;
fail:
	fprintf(stderr, "eventcount: %s\n", err.msg);
	strobe_stream_close(st);
	strobe_capture_free(cap);
	if (s)
		strobe_session_close(s);
	return 1;
}
