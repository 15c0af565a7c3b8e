/*
 * progress.c - progress of long file reads on stderr, as zstd and pv show
 * it: when stderr is a terminal, a run that takes more than about a
 * second gets one line, redrawn four times a second, with how much of the
 * files' trace data was read, the rate and the time left; the line is
 * erased when the run ends.  Never in pipes, never with --quiet.
 *
 * Live commands (record, a live analysis) show the events and lost
 * events so far the same way (cli_live_progress, at the end).
 *
 * STROBE_NO_PROGRESS (set) turns it off; STROBE_PROGRESS_AFTER_MS shows it
 * sooner (the tests' small files).
 *
 * A thread of its own reads the pipeline's counters
 * (strobe_pipeline_progress, safe while the run goes on), so the event
 * loop does nothing for it.  A pipeline the library makes and frees (the
 * one strobe sql's database is loaded by) is named to the thread while
 * it runs (cli_progress_set, under the thread's lock: it never reads a
 * freed pipeline).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define FIRST_MS 1000		/* nothing for runs shorter than this */
#define EVERY_MS 250
#define WAIT_MS 20		/* no pipeline running yet: look again soon */

struct cli_progress {
	const char *cmd;
	const struct strobe_pipeline *p;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, drawn;
	long first_ms;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *mib(char *b, size_t n, double bytes)
{
	if (bytes >= 1024.0 * 1024 * 1024)
		snprintf(b, n, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
	else
		snprintf(b, n, "%.1f MiB", bytes / (1024.0 * 1024));
	return b;
}

/* The line, or false when no pipeline runs (not yet, or no more). */
static bool draw(struct cli_progress *pr, double elapsed)
{
	struct strobe_pipeline_progress g = { sizeof(g), 0, 0 };
	char done[32], total[32], rate[32], left[32] = "";
	double r;

	if (!pr->p)
		return false;
	strobe_pipeline_progress(pr->p, &g);
	r = elapsed > 0 ? (double)g.bytes_done / elapsed : 0;
	mib(done, sizeof(done), (double)g.bytes_done);
	mib(rate, sizeof(rate), r);
	if (g.bytes_total && r > 0)
		snprintf(left, sizeof(left), ", %.0f s left",
			 (double)(g.bytes_total - g.bytes_done) / r + 0.5);
	if (g.bytes_total)
		fprintf(stderr, "\r\033[Kstrobe %s: %3.0f%% %s of %s, %s/s%s", pr->cmd,
			100.0 * (double)g.bytes_done / (double)g.bytes_total, done,
			mib(total, sizeof(total), (double)g.bytes_total), rate, left);
	else
		fprintf(stderr, "\r\033[Kstrobe %s: %s read, %s/s", pr->cmd, done, rate);
	fflush(stderr);
	pr->drawn = true;
	return true;
}

static void *run(void *arg)
{
	struct cli_progress *pr = arg;
	double t0 = mono_s();
	struct timespec until;

	pthread_mutex_lock(&pr->lock);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += pr->first_ms * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	while (!pr->stop) {
		if (pthread_cond_timedwait(&pr->cond, &pr->lock, &until) == ETIMEDOUT && !pr->stop) {
			until.tv_nsec += (draw(pr, mono_s() - t0) ? EVERY_MS : WAIT_MS) * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
		}
	}
	if (pr->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_unlock(&pr->lock);
	return NULL;
}

/* stdout is a file (or /dev/null), not a terminal or a pipe to a pager */
static bool stdout_is_a_file(void)
{
	struct stat st;

	return fstat(STDOUT_FILENO, &st) == 0 && !isatty(STDOUT_FILENO) &&
	       (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
}

struct cli_progress *cli_progress_start(const char *cmd, const struct strobe_pipeline *p,
					 bool quiet, bool prints_as_it_reads)
{
	struct cli_progress *pr;
	pthread_condattr_t ca;
	const char *after;

	if (quiet || !isatty(STDERR_FILENO) || getenv("STROBE_NO_PROGRESS"))
		return NULL;
	/* output while it reads: only into a file (a line between a pager's
	 * or the terminal's lines would spoil them) */
	if (prints_as_it_reads && !stdout_is_a_file())
		return NULL;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->cmd = cmd;
	pr->p = p;
	/* STROBE_PROGRESS_AFTER_MS: sooner (tests show it on small files) */
	after = getenv("STROBE_PROGRESS_AFTER_MS");
	pr->first_ms = after && *after ? strtol(after, NULL, 10) : FIRST_MS;
	if (pr->first_ms < 0 || pr->first_ms > 3600000)
		pr->first_ms = FIRST_MS;
	pthread_mutex_init(&pr->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pr->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&pr->thread, NULL, run, pr) != 0) {
		pthread_cond_destroy(&pr->cond);
		pthread_mutex_destroy(&pr->lock);
		free(pr);
		return NULL;
	}
	return pr;
}

void cli_progress_set(struct cli_progress *pr, const struct strobe_pipeline *p)
{
	if (!pr)
		return;
	pthread_mutex_lock(&pr->lock);
	pr->p = p;
	pthread_mutex_unlock(&pr->lock);
}

void cli_progress_on_run(const struct strobe_pipeline *p, bool running, void *pr)
{
	cli_progress_set(pr, running ? p : NULL);
}

void cli_progress_stop(struct cli_progress *pr)
{
	if (!pr)
		return;
	pthread_mutex_lock(&pr->lock);
	pr->stop = true;
	pthread_cond_signal(&pr->cond);
	pthread_mutex_unlock(&pr->lock);
	pthread_join(pr->thread, NULL);
	pthread_cond_destroy(&pr->cond);
	pthread_mutex_destroy(&pr->lock);
	free(pr);
}

/*
 * Live commands (strobe record, a live analysis): the events and lost
 * events so far, drawn from strobe_record's on_progress on the
 * recording's own thread (a few times a second, nothing to lock), from
 * about a second after tracing went on, and erased when it ends.
 */
static const char *count(char *b, size_t n, uint64_t v)
{
	if (v >= 1000000)
		snprintf(b, n, "%.2f M", (double)v / 1e6);
	else if (v >= 100000)
		snprintf(b, n, "%.0f k", (double)v / 1e3);
	else
		snprintf(b, n, "%" PRIu64, v);
	return b;
}

void cli_live_progress(const struct strobe_record_progress *pg, bool last, void *arg)
{
	struct cli_live_progress *lp = arg;
	char ev[32], lost[32], sz[32] = "";

	if (last) {
		cli_live_progress_clear(lp);
		return;
	}
	if (pg->elapsed * 1000 < lp->first_ms)
		return;
	if (pg->bytes) {
		snprintf(sz, sizeof(sz), ", ");
		mib(sz + 2, sizeof(sz) - 2, (double)pg->bytes);
		strncat(sz, " written", sizeof(sz) - strlen(sz) - 1);
	}
	fprintf(stderr, "\r\033[Kstrobe %s: %s events, %s lost%s, %.0f s", lp->cmd,
		count(ev, sizeof(ev), pg->events), count(lost, sizeof(lost), pg->lost), sz,
		pg->elapsed);
	fflush(stderr);
	lp->drawn = true;
}

void cli_live_progress_clear(struct cli_live_progress *lp)
{
	if (lp && lp->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		lp->drawn = false;
	}
}

bool cli_live_progress_init(struct cli_live_progress *lp, const char *cmd, bool quiet)
{
	const char *after = getenv("STROBE_PROGRESS_AFTER_MS");

	memset(lp, 0, sizeof(*lp));
	if (quiet || !isatty(STDERR_FILENO) || getenv("STROBE_NO_PROGRESS"))
		return false;
	lp->cmd = cmd;
	lp->first_ms = after && *after ? strtol(after, NULL, 10) : FIRST_MS;
	if (lp->first_ms < 0 || lp->first_ms > 3600000)
		lp->first_ms = FIRST_MS;
	return true;
}
