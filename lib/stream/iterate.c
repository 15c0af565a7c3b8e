/*
 * iterate.c - strobe_stream_iterate(): the callback loop every consumer
 * of a stream would otherwise write itself (see stream.h).
 *
 * Stop conditions are checked whenever the stream has nothing to hand
 * out, and at least every CHECK_EVERY events while it does, so a flood of
 * events cannot hide a timeout or a signal.  A live capture is stopped at
 * most once; its remaining pages then drain through the callback and the
 * stream ends by itself.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <strobe/strobe.h>
#include "../util/err.h"

#define CHECK_EVERY 4096
#define WAIT_MS 100

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Has pid exited?  A child is looked at without being reaped. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	if (errno == ECHILD)
		return kill(pid, 0) < 0 && errno == ESRCH;
	return false;
}

/* opts->field is there if the caller's struct is long enough for it. */
#define HAS(o, field) ((o) && offsetof(struct strobe_iterate_opts, field) + \
	sizeof((o)->field) <= ((o)->size ? (o)->size : sizeof(*(o))))

int strobe_stream_iterate(struct strobe_stream *s, strobe_event_cb cb, void *arg,
			  const struct strobe_iterate_opts *opts, struct strobe_error *err)
{
	int timeout = HAS(opts, timeout_ms) ? opts->timeout_ms : 0;
	pid_t target = HAS(opts, target) ? opts->target : 0;
	volatile sig_atomic_t *stop = HAS(opts, stop) ? opts->stop : NULL;
	struct strobe_capture *cap = HAS(opts, capture) ? opts->capture : NULL;
	int64_t deadline = timeout > 0 ? mono_ms() + timeout : 0;
	enum strobe_iter_end why = STROBE_ITER_END;
	struct strobe_event ev;
	unsigned since_check = 0;
	bool stopping = false;
	int r, w;

	strobe_err_clear(err);
	for (;;) {
		r = strobe_stream_next(s, &ev, err);
		if (r == 1) {
			r = cb(&ev, arg);
			if (r == STROBE_ITER_STOP)
				return STROBE_ITER_STOPPED;
			if (r < 0)
				return err && !err->code ? strobe_err(err, r, "the callback failed: %s",
								     strerror(-r)) : r;
			if (++since_check < CHECK_EVERY)
				continue;
		} else if (r == 0) {
			return why;
		} else if (r != -EAGAIN) {
			return r;
		}
		since_check = 0;
		if (!stopping) {
			if (stop && *stop)
				why = STROBE_ITER_SIGNAL;
			else if (deadline && mono_ms() >= deadline)
				why = STROBE_ITER_TIMEOUT;
			else if (target > 0 && exited(target))
				why = STROBE_ITER_TARGET_EXIT;
			if (why != STROBE_ITER_END) {
				if (!cap)
					return why;	/* a file stream: nothing to drain */
				stopping = true;
				r = strobe_capture_stop(cap, err);
				if (r < 0)
					return r;
			}
		}
		if (r != -EAGAIN)
			continue;
		w = strobe_stream_wait(s, WAIT_MS);
		if (w < 0 && w != -EINTR)
			return strobe_err(err, w, "waiting for events: %s", strerror(-w));
	}
}
