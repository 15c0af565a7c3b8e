/*
 * flight_check - a flight recorder driven through the public C API only
 * (strobe_record with flight_size, on_flight, strobe_flight_trigger from
 * another thread, on_snapshot), for tests/kernel/78-flight.sh (root, real
 * tracing, sanitizers).
 *
 *   flight_check OUTPUT DELAY CMD...
 *
 * Records CMD with syscalls:sys_enter_getppid into 4 MiB rings per CPU;
 * a thread calls strobe_flight_trigger(f, "api", "from a thread") DELAY
 * seconds after the flight recorder runs, then once more at once (the
 * second is within --min-interval 10: suppressed).  Prints key=value facts:
 * rc=, snapshots=, suppressed_interval=, path=, trigger=, reason=,
 * events=, callbacks= (on_snapshot calls); exits 0 unless the API failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strobe/strobe.h>

struct ctx {
	struct strobe_flight *f;
	double delay;
	pthread_t t;
	bool started;
	int callbacks, trig_rc[2];
};

static void *trigger_later(void *arg)
{
	struct ctx *c = arg;
	struct timespec ts = { (time_t)c->delay, (long)((c->delay - (time_t)c->delay) * 1e9) };

	nanosleep(&ts, NULL);
	c->trig_rc[0] = strobe_flight_trigger(c->f, "api", "from a thread");
	c->trig_rc[1] = strobe_flight_trigger(c->f, NULL, "too soon");
	return NULL;
}

static void on_flight(struct strobe_flight *f, void *arg)
{
	struct ctx *c = arg;

	if (!f)		/* f goes; the thread triggered DELAY s after the start */
		return;
	c->f = f;
	/* a bad trigger word is refused */
	if (strobe_flight_trigger(f, "Bad Word", NULL) != -EINVAL)
		fprintf(stderr, "flight_check: a bad trigger word was accepted\n");
	c->started = pthread_create(&c->t, NULL, trigger_later, c) == 0;
}

static void on_snapshot(const struct strobe_flight_snapshot *s, void *arg)
{
	((struct ctx *)arg)->callbacks++;
}

int main(int argc, char **argv)
{
	struct strobe_record_event ev = { "syscalls:sys_enter_getppid", NULL };
	struct strobe_record_opts o;
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	struct ctx c = { 0 };
	size_t i;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: flight_check OUTPUT DELAY CMD...\n");
		return 2;
	}
	c.delay = atof(argv[2]);
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.output = argv[1];
	o.events = &ev;
	o.nr_events = 1;
	o.argv = &argv[3];
	o.flight_size = 4 << 20;
	o.flight_min_interval = 10;
	o.on_flight = on_flight;
	o.on_snapshot = on_snapshot;
	o.event_arg = &c;
	rc = strobe_record(&o, &res, &err);
	if (c.started)
		pthread_join(c.t, NULL);
	printf("rc=%d\nsnapshots=%zu\nsuppressed_interval=%llu\ncallbacks=%d\ntrigger_rc=%d,%d\n",
	       rc, res.flight.nr_snapshots, (unsigned long long)res.flight.suppressed_interval,
	       c.callbacks, c.trig_rc[0], c.trig_rc[1]);
	for (i = 0; i < res.flight.nr_snapshots; i++) {
		const struct strobe_flight_snapshot *s = &res.flight.snapshots[i];

		printf("path=%s\ntrigger=%s\nreason=%s\nevents=%llu\nerror=%d\n", s->path,
		       s->trigger, s->reason, (unsigned long long)s->events, s->error);
	}
	if (rc < 0)
		fprintf(stderr, "flight_check: %s\n", err.msg);
	strobe_record_result_free(&res);
	return rc < 0;
}
