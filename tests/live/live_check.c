/*
 * live_check - drives a live capture through the public C API only, for
 * tests/kernel/70-live.sh (root, real tracing).  Each mode prints
 * "key=value" facts the script checks, and exits 0 unless the API failed.
 *
 *   live_check count CMD...     trace CMD (fork following, released once
 *                               tracing is on) with syscalls:sys_enter_getppid
 *                               and sched; until it exits, then drain:
 *                               getppid=<events of the child's TID>
 *                               order_errors=<ts going backwards> cpus=<seen>
 *                               events=<total> lost=<reported lost>
 *   live_check latency          whole system, syscalls:sys_enter_getppid
 *                               (trace clock "mono"); a child on CPU 1 makes one getppid
 *                               call every 300 ms, five times, while CPU 0
 *                               is left quiet; prints the worst delay from
 *                               the event's time to its delivery:
 *                               worst_ms=<ms> seen=<getppid events>
 *   live_check storm BUFKB      a tiny buffer, a consumer that sleeps, and
 *                               a getppid storm: lost=<events reported
 *                               lost> lost_marks=<pages saying "some">
 *                               kernel_lost=<the kernel's exact count>
 *   live_check stop-after N     stop after the N-th event (a callback
 *                               asking to stop): events=N
 *   live_check tee DIR CMD...   one capture into files and a live stream:
 *                               syscalls+schedlat live, then on the file
 *                               the files make; DIR/live.txt, DIR/file.txt
 *   live_check noop [-b KB] CMD...
 *                               sched+syscalls of CMD into a no-op callback,
 *                               at a buffer of KB per CPU (default: the
 *                               kernel's): events=N lost=N wall_s=S
 *                               cpu_s=<this process, start to drained>
 *                               consumer_cpu_s=<the iterating thread>
 *                               (make bench)
 *   live_check until-signal     whole system until SIGINT/SIGTERM, then a
 *                               clean stop: "stopped-by-signal events=N"
 * Every mode prints "instance=<dir>" first, so the script can check it is
 * gone afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void die(const char *what, const struct strobe_error *err)
{
	fprintf(stderr, "live_check: %s: %s\n", what, err->msg);
	exit(1);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* User + system time of this process (every thread; not its children). */
static uint64_t self_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

struct live {
	struct strobe_session *s;
	struct strobe_capture *c;
	struct strobe_stream *st;
	struct strobe_error err;
};

static void live_open(struct live *l, unsigned buffer_kb, const char *const *events,
		      unsigned queue_pages, const char *clock)
{
	struct strobe_session_opts so = { .size = sizeof(so), .buffer_kb = buffer_kb,
					  .clock = clock };
	struct strobe_capture_opts co = { .size = sizeof(co), .queue_pages = queue_pages };

	if (strobe_session_open(&so, &l->s, &l->err) < 0)
		die("session", &l->err);
	printf("instance=%s\n", strobe_session_dir(l->s));
	fflush(stdout);
	for (; *events; events++)
		if (strobe_session_enable(l->s, *events, NULL, &l->err) < 0)
			die(*events, &l->err);
	if (strobe_capture_open(l->s, &co, &l->c, &l->err) < 0)
		die("capture", &l->err);
	if (strobe_capture_stream(l->c, &l->st, &l->err) < 0)
		die("stream", &l->err);
}

static void live_start(struct live *l)
{
	if (strobe_capture_start(l->c, &l->err) < 0)
		die("start", &l->err);
}

static void live_close(struct live *l)
{
	strobe_stream_close(l->st);
	strobe_capture_free(l->c);
	strobe_session_close(l->s);
}

/* The kernel's lost events over every CPU (strobe_capture_lost). */
static uint64_t kernel_lost(struct live *l)
{
	uint64_t sum = 0, k;
	int i;

	for (i = 0; i < strobe_session_nr_cpus(l->s); i++)
		if (strobe_capture_lost(l->c, i, &k, NULL) == 0)
			sum += k;
	return sum;
}

/* A child that waits on a pipe before exec'ing argv (go: write end). */
static pid_t spawn(char **argv, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static bool is(const struct strobe_event *e, const char *name)
{
	const char *n = strobe_event_name(e);

	return n && !strcmp(n, name);
}

struct counts {
	pid_t child;
	uint64_t last, n, getppid, order_errors;
	bool cpus[1024];
	int nr_cpus;
};

static int count_event(const struct strobe_event *ev, void *arg)
{
	struct counts *c = arg;

	c->n++;
	if (ev->ts < c->last)
		c->order_errors++;
	c->last = ev->ts;
	if (ev->cpu >= 0 && ev->cpu < 1024 && !c->cpus[ev->cpu]) {
		c->cpus[ev->cpu] = true;
		c->nr_cpus++;
	}
	if (ev->pid == c->child && is(ev, "sys_enter_getppid"))
		c->getppid++;
	return 0;
}

/* count: strobe_stream_iterate() with the command as its target */
static int mode_count(char **argv)
{
	static const char *const evs[] = { "syscalls:sys_enter_getppid", "sched", NULL };
	struct strobe_iterate_opts io = { sizeof(io), 0, 0, NULL, NULL };
	struct strobe_stream_stats stats;
	struct counts *c = calloc(1, sizeof(*c));
	struct live l = { 0 };
	int go, st, r;

	live_open(&l, 0, evs, 0, NULL);
	c->child = spawn(argv, &go);
	if (strobe_session_set_pids(l.s, &c->child, 1, true, &l.err) < 0)
		die("pids", &l.err);
	live_start(&l);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	io.target = c->child;
	io.capture = l.c;
	r = strobe_stream_iterate(l.st, count_event, c, &io, &l.err);
	if (r < 0)
		die("iterate", &l.err);
	waitpid(c->child, &st, 0);
	strobe_stream_stats(l.st, &stats);
	printf("getppid=%llu order_errors=%llu cpus=%d events=%llu lost=%llu end=%s\n",
	       (unsigned long long)c->getppid, (unsigned long long)c->order_errors, c->nr_cpus,
	       (unsigned long long)c->n, (unsigned long long)stats.missed,
	       r == STROBE_ITER_TARGET_EXIT ? "target-exit" : "other");
	free(c);
	live_close(&l);
	return 0;
}

static int mode_latency(void)
{
	static const char *const evs[] = { "syscalls:sys_enter_getppid", NULL };
	struct strobe_event ev;
	struct live l = { 0 };
	uint64_t worst = 0, seen = 0, now;
	int st, r;
	pid_t child, cpid;

	live_open(&l, 0, evs, 0, "mono");
	live_start(&l);
	child = fork();
	if (child == 0) {
		cpu_set_t set;
		int i;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (i = 0; i < 5; i++) {
			struct timespec d = { 0, 300 * 1000 * 1000 };

			nanosleep(&d, NULL);
			getppid();
		}
		_exit(0);
	}
	cpid = child;
	for (;;) {
		r = strobe_stream_next(l.st, &ev, &l.err);
		if (r == -EAGAIN) {
			if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
				strobe_capture_stop(l.c, NULL);
				child = -1;
			}
			strobe_stream_wait(l.st, 20);
			continue;
		}
		if (r <= 0)
			break;
		if (ev.pid != cpid || !is(&ev, "sys_enter_getppid"))
			continue;
		/* the "mono" trace clock is CLOCK_MONOTONIC: the delay from
		 * the call to its delivery here */
		now = mono_ns();
		if (now > ev.ts && now - ev.ts > worst)
			worst = now - ev.ts;
		seen++;
	}
	printf("worst_ms=%.1f seen=%llu\n", worst / 1e6, (unsigned long long)seen);
	live_close(&l);
	return 0;
}

static int mode_storm(unsigned buffer_kb)
{
	static const char *const evs[] = { "syscalls:sys_enter_getppid", NULL };
	struct strobe_stream_stats stats;
	struct strobe_event ev;
	struct live l = { 0 };
	char *argv[] = { "getppid_n", "3000000", NULL };
	uint64_t n = 0, lost = 0, marks = 0, klost = 0;
	bool exited = false;
	int go, st, r;
	pid_t child;
	char path[4096], *slash;

	/* the helper lives next to this program's build folder */
	snprintf(path, sizeof(path), "%s", getenv("HELPERS") ? getenv("HELPERS") : ".");
	slash = path + strlen(path);
	snprintf(slash, sizeof(path) - (slash - path), "/getppid_n");
	argv[0] = path;
	live_open(&l, buffer_kb, evs, 2, NULL);
	child = spawn(argv, &go);
	if (strobe_session_set_pids(l.s, &child, 1, true, &l.err) < 0)
		die("pids", &l.err);
	live_start(&l);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	for (;;) {
		r = strobe_stream_next(l.st, &ev, &l.err);
		if (r == -EAGAIN) {
			if (!exited && waitpid(child, &st, WNOHANG) == child) {
				exited = true;
				strobe_capture_stop(l.c, NULL);
			}
			strobe_stream_wait(l.st, 50);
			continue;
		}
		if (r <= 0)
			break;
		n++;
		if (ev.missed > 0)
			lost += ev.missed;
		else if (ev.missed < 0)
			marks++;
		if (n % 4096 == 0) {	/* a slow consumer */
			struct timespec d = { 0, 2 * 1000 * 1000 };

			nanosleep(&d, NULL);
		}
	}
	strobe_stream_stats(l.st, &stats);
	klost = kernel_lost(&l);
	printf("events=%llu lost=%llu lost_marks=%llu stats_lost=%llu stats_marks=%llu "
	       "kernel_lost=%llu\n",
	       (unsigned long long)n, (unsigned long long)lost, (unsigned long long)marks,
	       (unsigned long long)stats.missed, (unsigned long long)stats.missed_unknown,
	       (unsigned long long)klost);
	live_close(&l);
	return 0;
}

static int mode_stop_after(long want)
{
	static const char *const evs[] = { "sched", NULL };
	struct strobe_event ev;
	struct live l = { 0 };
	long n = 0;
	int r;

	live_open(&l, 0, evs, 0, NULL);
	live_start(&l);
	while (n < want) {
		r = strobe_stream_next(l.st, &ev, &l.err);
		if (r == -EAGAIN) {
			strobe_stream_wait(l.st, 100);
			continue;
		}
		if (r <= 0)
			break;
		n++;
	}
	/* the consumer stops early: stop, and close without draining */
	strobe_capture_stop(l.c, NULL);
	printf("events=%ld\n", n);
	live_close(&l);
	return 0;
}

static int mode_until_signal(void)
{
	static const char *const evs[] = { "sched", NULL };
	struct strobe_event ev;
	struct live l = { 0 };
	struct sigaction sa;
	long n = 0;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	live_open(&l, 0, evs, 0, NULL);
	live_start(&l);
	printf("started\n");
	fflush(stdout);
	while (!got_signal) {
		r = strobe_stream_next(l.st, &ev, &l.err);
		if (r == -EAGAIN) {
			strobe_stream_wait(l.st, 100);	/* -EINTR on the signal */
			continue;
		}
		if (r <= 0)
			break;
		n++;
	}
	strobe_capture_stop(l.c, NULL);
	while ((r = strobe_stream_next(l.st, &ev, &l.err)) != 0)
		if (r == 1)
			n++;
		else if (r != -EAGAIN)
			break;
	printf("stopped-by-signal events=%ld\n", n);
	live_close(&l);
	return 0;
}

/* Print every row of every table, one line each; name columns (*comm)
 * and "container" are left out (the file's model knows names from its
 * process table, the live run only from the events). */
static void dump_tables(const struct strobe_analysis *a, FILE *out)
{
	int t, c;
	size_t r;

	for (t = 0; t < strobe_analysis_nr_tables(a); t++) {
		const struct strobe_table *tb = strobe_analysis_table(a, t);

		for (r = 0; r < strobe_table_nr_rows(tb); r++) {
			const union strobe_value *row = strobe_table_row(tb, r);

			fprintf(out, "%s", strobe_table_name(tb));
			for (c = 0; c < strobe_table_nr_columns(tb); c++) {
				const struct strobe_column *col = strobe_table_column(tb, c);

				if (strstr(col->key, "comm") || !strcmp(col->key, "container"))
					continue;
				if (col->type == STROBE_COL_STR)
					fprintf(out, " %s=%s", col->key, row[c].s ? row[c].s : "");
				else if (col->type == STROBE_COL_PERCENT)
					fprintf(out, " %s=%.6f", col->key, row[c].d);
				else
					fprintf(out, " %s=%llu", col->key, (unsigned long long)row[c].u);
			}
			fprintf(out, "\n");
		}
	}
}

static struct strobe_analysis *new_analysis(const char *names)
{
	struct strobe_analysis_opts o = { 0 };
	struct strobe_analysis *a = NULL;
	struct strobe_error err = { 0 };

	o.views = STROBE_VIEW_TOP | STROBE_VIEW_STATS;
	if (strobe_analysis_new(names, &o, &a, &err) < 0)
		die("analysis", &err);
	return a;
}

/*
 * tee DIR CMD...: one capture, two sinks: raw pages into DIR/cpuN files
 * and a live stream into syscalls+schedlat analyses; afterwards the files
 * become DIR/trace.dat (the tracefile writer) and the same analyses run
 * on it.  Writes DIR/live.txt and DIR/file.txt.
 */
static int mode_tee(const char *dir, char **argv)
{
	static const char *const evs[] = { "sched", "syscalls", NULL };
	struct strobe_session_opts so = { .size = sizeof(so) };
	struct strobe_session_meta *meta = NULL;
	struct strobe_capture_opts co = { .size = sizeof(co) };
	struct strobe_analysis *live_a, *file_a;
	struct strobe_tf_writer *w = NULL;
	struct strobe_tracefile *tf = NULL;
	struct strobe_event ev;
	struct live l = { 0 };
	char path[4096];
	int *fds, go, st, r, i, n;
	bool exited = false;
	pid_t child;
	FILE *out;

	if (strobe_session_open(&so, &l.s, &l.err) < 0)
		die("session", &l.err);
	printf("instance=%s\n", strobe_session_dir(l.s));
	for (i = 0; evs[i]; i++)
		if (strobe_session_enable(l.s, evs[i], NULL, &l.err) < 0)
			die(evs[i], &l.err);
	child = spawn(argv, &go);
	if (strobe_session_set_pids(l.s, &child, 1, true, &l.err) < 0)
		die("pids", &l.err);
	if (strobe_session_meta_collect(l.s, NULL, &meta, &l.err) < 0)
		die("meta", &l.err);
	n = strobe_session_nr_cpus(l.s);
	fds = calloc(n, sizeof(*fds));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fds[i] < 0)
			return 1;
	}
	co.meta = meta;
	if (strobe_capture_open(l.s, &co, &l.c, &l.err) < 0 ||
	    strobe_capture_add_fds(l.c, fds, &l.err) < 0 ||
	    strobe_capture_stream(l.c, &l.st, &l.err) < 0)
		die("capture", &l.err);
	live_a = new_analysis("syscalls,schedlat");
	if (strobe_analysis_attach_stream(live_a, l.st, NULL, &l.err) < 0)
		die("attach", &l.err);
	live_start(&l);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	for (;;) {
		r = strobe_stream_next(l.st, &ev, &l.err);
		if (r == -EAGAIN) {
			if (!exited && waitpid(child, &st, WNOHANG) == child) {
				exited = true;
				if (strobe_capture_stop(l.c, &l.err) < 0)
					die("stop", &l.err);
			}
			strobe_stream_wait(l.st, 100);
			continue;
		}
		if (r < 0)
			die("next", &l.err);
		if (r == 0)
			break;
		strobe_analysis_feed(live_a, &ev);
	}
	if (strobe_analysis_finish(live_a, &l.err) < 0)
		die("finish", &l.err);
	snprintf(path, sizeof(path), "%s/live.txt", dir);
	out = fopen(path, "w");
	dump_tables(live_a, out);
	fclose(out);

	/* the same pages as a trace file */
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	if (strobe_tf_writer_open(path, strobe_session_meta_tf(meta), n, &w, &l.err) < 0)
		die("writer", &l.err);
	for (i = 0; i < n; i++)
		if (strobe_tf_writer_add_cpu(w, i, fds[i], UINT64_MAX, false, &l.err) < 0)
			die("writer cpu", &l.err);
	if (strobe_tf_writer_close(w, NULL, NULL, &l.err) < 0)
		die("writer close", &l.err);
	if (strobe_tracefile_open(path, &tf, &l.err) < 0)
		die("open trace.dat", &l.err);
	file_a = new_analysis("syscalls,schedlat");
	if (strobe_analysis_run_file(file_a, tf, &l.err) < 0)
		die("file analysis", &l.err);
	snprintf(path, sizeof(path), "%s/file.txt", dir);
	out = fopen(path, "w");
	dump_tables(file_a, out);
	fclose(out);
	printf("tee-done\n");
	strobe_analysis_free(live_a);
	strobe_analysis_free(file_a);
	strobe_tracefile_close(tf);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	live_close(&l);
	strobe_session_meta_free(meta);
	return 0;
}

static int noop(const struct strobe_event *ev, void *arg)
{
	(*(uint64_t *)arg)++;
	return 0;
}

/* noop CMD...: sched+syscalls of CMD into a no-op callback (make bench) */
static int mode_noop(char **argv)
{
	static const char *const evs[] = { "sched", "syscalls", NULL };
	struct strobe_iterate_opts io = { sizeof(io), 0, 0, NULL, NULL };
	struct live l = { 0 };
	uint64_t n = 0, lost, t0, t1, c0, c1, m0, m1;
	unsigned buffer_kb = 0;
	int go, st, r;
	pid_t child;

	if (argv[0] && argv[1] && argv[2] && !strcmp(argv[0], "-b")) {
		buffer_kb = (unsigned)strtoul(argv[1], NULL, 10);
		argv += 2;
	}
	live_open(&l, buffer_kb, evs, 0, NULL);
	child = spawn(argv, &go);
	if (strobe_session_set_pids(l.s, &child, 1, true, &l.err) < 0)
		die("pids", &l.err);
	live_start(&l);
	t0 = mono_ns();
	c0 = self_cpu_ns();
	m0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	io.target = child;
	io.capture = l.c;
	r = strobe_stream_iterate(l.st, noop, &n, &io, &l.err);
	if (r < 0)
		die("iterate", &l.err);
	t1 = mono_ns();
	c1 = self_cpu_ns();
	m1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	waitpid(child, &st, 0);
	lost = kernel_lost(&l);
	printf("events=%llu lost=%llu wall_s=%.3f cpu_s=%.3f consumer_cpu_s=%.3f\n",
	       (unsigned long long)n, (unsigned long long)lost, (t1 - t0) / 1e9,
	       (c1 - c0) / 1e9, (m1 - m0) / 1e9);
	live_close(&l);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "count"))
		return mode_count(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "latency"))
		return mode_latency();
	if (argc == 3 && !strcmp(argv[1], "storm"))
		return mode_storm((unsigned)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "stop-after"))
		return mode_stop_after(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "noop"))
		return mode_noop(argv + 2);
	if (argc > 3 && !strcmp(argv[1], "tee"))
		return mode_tee(argv[2], argv + 3);
	if (argc == 2 && !strcmp(argv[1], "until-signal"))
		return mode_until_signal();
	fprintf(stderr, "usage: live_check count CMD... | latency | storm BUFKB | "
		"stop-after N | tee DIR CMD... | until-signal\n");
	return 2;
}
