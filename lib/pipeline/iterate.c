/*
 * iterate.c - strobe_stream_iterate() (stream.h): a callback over one
 * stream, as a pipeline with that stream as its source and the callback
 * as its consumer.  Stop conditions, draining a live capture and the
 * damage policy are the pipeline's.
 */
#include <errno.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include "../util/err.h"

struct cb {
	strobe_event_cb fn;
	void *arg;
	bool stopped;
};

static int cb_event(const struct strobe_event *ev, int source, void *arg,
		    struct strobe_error *err)
{
	struct cb *c = arg;
	int r = c->fn(ev, c->arg);

	if (r == STROBE_ITER_STOP) {
		c->stopped = true;
		return STROBE_CONSUMER_DONE;
	}
	return r < 0 ? r : 0;
}

/* opts->field is there if the caller's struct is long enough for it. */
#define HAS(o, field) ((o) && offsetof(struct strobe_iterate_opts, field) + \
	sizeof((o)->field) <= ((o)->size ? (o)->size : sizeof(*(o))))

int strobe_stream_iterate(struct strobe_stream *s, strobe_event_cb fn, void *arg,
			  const struct strobe_iterate_opts *opts, struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct cb c = { fn, arg, false };
	struct strobe_consumer cons = {
		.size = sizeof(cons), .name = "the callback", .event = cb_event, .arg = &c,
	};
	struct strobe_pipeline *p;
	int r;

	strobe_err_clear(err);
	po.timeout_ms = HAS(opts, timeout_ms) ? opts->timeout_ms : 0;
	po.target = HAS(opts, target) ? opts->target : 0;
	po.stop = HAS(opts, stop) ? opts->stop : NULL;
	r = strobe_pipeline_new(&po, &p, err);
	if (r < 0)
		return r;
	r = strobe_pipeline_add_stream(p, s, HAS(opts, capture) ? opts->capture : NULL, NULL,
				       err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(p, &cons, err);
	if (r >= 0)
		r = strobe_pipeline_run(p, err);
	strobe_pipeline_free(p);
	switch (r) {
	case STROBE_PIPELINE_END: return STROBE_ITER_END;
	case STROBE_PIPELINE_DONE: return STROBE_ITER_STOPPED;
	case STROBE_PIPELINE_TIMEOUT: return STROBE_ITER_TIMEOUT;
	case STROBE_PIPELINE_TARGET_EXIT: return STROBE_ITER_TARGET_EXIT;
	case STROBE_PIPELINE_SIGNAL: return STROBE_ITER_SIGNAL;
	}
	return r;
}
