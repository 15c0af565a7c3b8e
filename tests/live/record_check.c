/*
 * record_check - strobe_record() with a live consumer (on_event), through
 * the public C API only, for tests/kernel/72-record-live.sh (root, real
 * tracing).  Each mode traces CMD (fork following) with
 * syscalls:sys_enter_getppid and prints "key=value" facts the script
 * checks; it exits 0 unless the API failed.
 *
 *   record_check tee FILE CMD...    file and consumer: callback=<getppid
 *                                   events of the command's PID handed to
 *                                   on_event> file=<the same, read back
 *                                   from FILE> stream_events=N
 *                                   stream_missed=N ticks=N final=0|1
 *   record_check live CMD...        no_output: callback=N, and no file
 *                                   (the script runs it in an empty folder)
 *   record_check slow FILE CMD...   a consumer that sleeps 1 ms every 100
 *                                   events, no model events: every stream
 *                                   event is a getppid of the command, so
 *                                   callback + stream_missed = the calls,
 *                                   while the file has every one of them
 *   record_check stop-after N CMD...  on_event returns -ECANCELED after N
 *                                   events: rc=<strobe_record's return>
 *                                   callback=N msg=<*err>
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

struct counter {
	pid_t *child;		/* res.child_pid, set when forked */
	unsigned long getppid, events, ticks, stop_after;
	int finals;
	unsigned sleep_every;	/* slow mode */
	struct strobe_error *err;
};

static int on_event(const struct strobe_event *ev, struct strobe_model *m, void *arg)
{
	struct counter *c = arg;
	const char *name = strobe_event_name(ev);
	const struct strobe_task *t = strobe_model_task(m, ev->pid);

	c->events++;
	if (name && !strcmp(name, "sys_enter_getppid") && ev->pid == *c->child &&
	    t && t->tid == ev->pid)
		c->getppid++;
	if (c->sleep_every && c->events % c->sleep_every == 0) {
		struct timespec ts = { 0, 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	if (c->stop_after && c->events == c->stop_after) {
		snprintf(c->err->msg, sizeof(c->err->msg), "consumer stopped after %lu events",
			 c->events);
		return -ECANCELED;
	}
	return 0;
}

static int on_tick(bool final, void *arg)
{
	struct counter *c = arg;

	c->ticks++;
	c->finals += final;
	return 0;
}

/* sys_enter_getppid events of pid in file path, -1 on error. */
static long file_count(const char *path, pid_t pid)
{
	struct strobe_tracefile *tf = NULL;
	struct strobe_stream *st = NULL;
	struct strobe_error err = { 0, "" };
	struct strobe_event ev;
	long n = 0;
	int r;

	if (strobe_tracefile_open(path, &tf, &err) < 0 ||
	    strobe_stream_open_file(tf, NULL, &st, &err) < 0) {
		fprintf(stderr, "record_check: %s: %s\n", path, err.msg);
		strobe_tracefile_close(tf);
		return -1;
	}
	while ((r = strobe_stream_next(st, &ev, &err)) != 0) {
		const char *name = strobe_event_name(&ev);

		if (r < 0)
			continue;
		if (name && !strcmp(name, "sys_enter_getppid") && ev.pid == pid)
			n++;
	}
	strobe_stream_close(st);
	strobe_tracefile_close(tf);
	return n;
}

int main(int argc, char **argv)
{
	static const struct strobe_record_event evs[] = {
		{ "syscalls:sys_enter_getppid", NULL },
	};
	struct strobe_record_opts o;
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" }, cerr = { 0, "" };
	struct counter c = { 0 };
	const char *mode, *file = NULL;
	int first = 3, r;

	if (argc < 3) {
		fprintf(stderr, "usage: record_check tee|live|slow|stop-after ... CMD...\n");
		return 2;
	}
	mode = argv[1];
	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	o.size = sizeof(o);
	o.events = evs;
	o.nr_events = 1;
	o.buffer_kb = 8192;
	o.on_event = on_event;
	o.on_tick = on_tick;
	o.event_arg = &c;
	o.event_err = &cerr;
	c.child = &res.child_pid;
	c.err = &cerr;
	if (!strcmp(mode, "tee") || !strcmp(mode, "slow")) {
		if (argc < 4)
			return 2;
		file = argv[2];
		o.output = file;
		if (!strcmp(mode, "slow")) {
			c.sleep_every = 100;
			o.no_model = true;	/* only the command's getppid */
		}
	} else if (!strcmp(mode, "live")) {
		o.no_output = true;
		first = 2;
	} else if (!strcmp(mode, "stop-after")) {
		c.stop_after = strtoul(argv[2], NULL, 10);
		o.no_output = true;
	} else {
		fprintf(stderr, "record_check: unknown mode '%s'\n", mode);
		return 2;
	}
	o.argv = &argv[first];
	r = strobe_record(&o, &res, &err);
	if (c.stop_after) {
		printf("rc=%d callback=%lu msg=%s\n", r, c.events, err.msg);
		strobe_record_result_free(&res);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "record_check: %s\n", err.msg);
		return 1;
	}
	printf("callback=%lu stream_events=%llu stream_missed=%llu ticks=%lu final=%d "
	       "output=%s\n", c.getppid, (unsigned long long)res.stream_events,
	       (unsigned long long)res.stream_missed, c.ticks, c.finals,
	       res.output[0] ? res.output : "-");
	if (file)
		printf("file=%ld\n", file_count(file, res.child_pid));
	strobe_record_result_free(&res);
	return 0;
}
