/*
 * diag.c - what is wrong with a trace file, as a list every reader of the
 * file shows the same way (include/strobe/tracefile.h, "diagnostics").
 *
 * Some facts are known when the file is opened (formats skipped as
 * damaged, data cut short, a recording that says it stopped early, the
 * process table missing); others only once its events have been read
 * (events lost, time going backwards): whoever reads the events passes
 * each to strobe_tracefile_see_event() and ends with
 * strobe_tracefile_events_done(), which turns what was seen into entries.
 * The library never prints them: the commands do, each once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

#include "tracefile-int.h"
#include "format/format-int.h"

static int add(struct strobe_tracefile *tf, enum strobe_tf_diag_kind kind,
	       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int add(struct strobe_tracefile *tf, enum strobe_tf_diag_kind kind,
	       const char *fmt, ...)
{
	struct tf_diag *d;
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	d = realloc(tf->diags, (size_t)(tf->nr_diags + 1) * sizeof(*d));
	if (!d) {
		free(msg);
		return -ENOMEM;
	}
	tf->diags = d;
	d[tf->nr_diags].kind = kind;
	d[tf->nr_diags].msg = msg;
	tf->nr_diags++;
	return 0;
}

void tf_diag_bad_format(struct strobe_tracefile *tf, const char *system,
			const char *text, size_t len)
{
	const char *name = NULL, *p;
	size_t used = strlen(tf->bad_names), nlen = 0;

	tf->nr_bad_formats++;
	/* "name: NAME" is the format's first line when it is not damaged */
	if (len > 6 && !memcmp(text, "name: ", 6)) {
		name = text + 6;
		for (p = name; (size_t)(p - text) < len && *p > ' ' && *p < 0x7f && nlen < 64;
		     p++)
			nlen++;
	}
	if (used + nlen + strlen(system) + 8 >= sizeof(tf->bad_names))
		return;
	if (tf->nr_bad_formats > 4) {
		if (!strstr(tf->bad_names, ", ..."))
			snprintf(tf->bad_names + used, sizeof(tf->bad_names) - used, ", ...");
		return;
	}
	snprintf(tf->bad_names + used, sizeof(tf->bad_names) - used, "%s%.64s:%.*s",
		 used ? ", " : "", system, (int)nlen, nlen ? name : "?");
}

int tf_diag_open(struct strobe_tracefile *tf, const char *model_problem,
		 struct strobe_error *err)
{
	const char *why = strobe_tracefile_info(tf, "incomplete");
	int r = 0;

	if (tf->nr_bad_formats)
		r = add(tf, STROBE_TF_DIAG_BAD_FORMATS,
			"%u event format%s in the file %s damaged and %s skipped (%s): "
			"%s events are not decoded, and analyses that need them miss them",
			tf->nr_bad_formats, tf->nr_bad_formats > 1 ? "s" : "",
			tf->nr_bad_formats > 1 ? "are" : "is",
			tf->nr_bad_formats > 1 ? "were" : "was", tf->bad_names,
			tf->nr_bad_formats > 1 ? "their" : "its");
	if (!r && tf->t.nr_id_clashes)
		r = add(tf, STROBE_TF_DIAG_BAD_FORMATS,
			"2 event formats in the file have the same ID %d (%s): which one its "
			"events are is unknown, so they are not decoded, and analyses that need "
			"them miss them%s", tf->t.clash_id, tf->t.clash_names,
			tf->t.nr_id_clashes > 1 ? " (more formats share an ID with another)" : "");
	if (!r && tf->damage[0] && (!model_problem || strcmp(model_problem, tf->damage)))
		r = add(tf, STROBE_TF_DIAG_TRUNCATED, "%s", tf->damage);
	if (!r && why)
		r = add(tf, STROBE_TF_DIAG_INCOMPLETE, "the recording was incomplete: %s", why);
	if (!r && model_problem)
		r = add(tf, STROBE_TF_DIAG_NO_MODEL, "%s", model_problem);
	if (r)
		return strobe_err(err, r, "%s: out of memory", tf->path);
	return 0;
}

void tf_diag_free(struct strobe_tracefile *tf)
{
	int i;

	for (i = 0; i < tf->nr_diags; i++)
		free(tf->diags[i].msg);
	free(tf->diags);
}

/* ---- public ------------------------------------------------------------ */

int strobe_tracefile_nr_diags(const struct strobe_tracefile *tf)
{
	return tf ? tf->nr_diags : 0;
}

const char *strobe_tracefile_diag(const struct strobe_tracefile *tf, int idx,
				  enum strobe_tf_diag_kind *kind)
{
	if (!tf || idx < 0 || idx >= tf->nr_diags)
		return NULL;
	if (kind)
		*kind = tf->diags[idx].kind;
	return tf->diags[idx].msg;
}

const char *strobe_tf_diag_name(enum strobe_tf_diag_kind kind)
{
	switch (kind) {
	case STROBE_TF_DIAG_BAD_FORMATS: return "bad_formats";
	case STROBE_TF_DIAG_TRUNCATED: return "truncated";
	case STROBE_TF_DIAG_INCOMPLETE: return "incomplete";
	case STROBE_TF_DIAG_NO_MODEL: return "no_process_table";
	case STROBE_TF_DIAG_LOST_EVENTS: return "lost_events";
	case STROBE_TF_DIAG_TIME_BACKWARDS: return "time_backwards";
	case STROBE_TF_DIAG_BAD_DATA: return "bad_data";
	case STROBE_TF_DIAG_SAME_FILE: return "same_file";
	}
	return "other";
}

bool strobe_tf_diag_is_damage(enum strobe_tf_diag_kind kind)
{
	switch (kind) {
	case STROBE_TF_DIAG_BAD_FORMATS:
	case STROBE_TF_DIAG_TRUNCATED:
	case STROBE_TF_DIAG_NO_MODEL:
	case STROBE_TF_DIAG_TIME_BACKWARDS:
	case STROBE_TF_DIAG_BAD_DATA:
		return true;
	case STROBE_TF_DIAG_INCOMPLETE:
	case STROBE_TF_DIAG_LOST_EVENTS:
	case STROBE_TF_DIAG_SAME_FILE:
		break;
	}
	return false;
}

void strobe_tracefile_note_bad_data(struct strobe_tracefile *tf, const char *msg)
{
	if (!tf->bad_data++)
		snprintf(tf->bad_first, sizeof(tf->bad_first), "%.300s", msg && *msg ? msg : "?");
}

uint64_t strobe_tracefile_bad_data(const struct strobe_tracefile *tf)
{
	return tf ? tf->bad_data : 0;
}

int strobe_tracefile_add_diag(struct strobe_tracefile *tf, enum strobe_tf_diag_kind kind,
			      const char *msg)
{
	return add(tf, kind, "%s", msg);
}

void tf_note_short_record(void *ctx, const struct strobe_event *ev)
{
	struct strobe_tracefile *tf = ctx;

	if (!tf->short_records++) {
		tf->short_fmt = ev->format;
		tf->short_size = ev->size;
		tf->short_cpu = ev->cpu;
	} else if (ev->format != tf->short_fmt) {
		tf->short_more = true;
	}
}

void strobe_tracefile_see_event(struct strobe_tracefile *tf, const struct strobe_event *ev)
{
	if (__builtin_expect(ev->ts >= tf->max_ts, 1)) {
		tf->max_ts = ev->ts;
		return;
	}
	if (!tf->backwards++) {
		tf->back_ts = ev->ts;
		tf->back_by = tf->max_ts - ev->ts;
		tf->back_cpu = ev->cpu;
	}
}

static bool cpu_selected(const struct strobe_stream_opts *o, int cpu)
{
	return !o || !o->cpu_mask || (cpu >= 0 && cpu < o->nr_cpu_mask && o->cpu_mask[cpu]);
}

int strobe_tracefile_events_done(struct strobe_tracefile *tf,
				 const struct strobe_stream_stats *st,
				 const struct strobe_stream_opts *opts)
{
	char list[1024];
	size_t i, len = 0;
	int64_t total = 0;
	int r = 0;

	if (tf->events_done)
		return 0;
	tf->events_done = true;
	list[0] = '\0';
	/* the per-CPU "overrun" statistics the recording stored */
	for (i = 0; i < tf->nr_stats; i++) {
		const struct tf_cpustat *s = &tf->stats[i];
		const char *bname = s->buffer >= 0 && s->buffer < tf->nr_bufs
				    ? tf->bufs[s->buffer].name : "";

		if (s->overrun <= 0 || !cpu_selected(opts, s->cpu) ||
		    (opts && opts->buffer >= 0 && s->buffer != opts->buffer))
			continue;
		total += s->overrun;
		if (len < sizeof(list) - 300)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s%s%sCPU %d: %lld",
						len ? ", " : "", *bname ? "buffer " : "", bname,
						*bname ? " " : "", s->cpu, (long long)s->overrun);
	}
	/* Gaps marked in the pages and the overrun statistics usually count
	 * the same loss; when they agree, say it once. */
	if (total && st && (uint64_t)total == st->missed && !st->missed_unknown) {
		r = add(tf, STROBE_TF_DIAG_LOST_EVENTS,
			"%lld events were lost: the ring buffer overran (%s)", (long long)total,
			list);
	} else {
		if (st && (st->missed || st->missed_unknown)) {
			char unknown[64] = "";

			if (st->missed_unknown)
				snprintf(unknown, sizeof(unknown), ", plus %llu gaps of unknown size",
					 (unsigned long long)st->missed_unknown);
			r = add(tf, STROBE_TF_DIAG_LOST_EVENTS,
				"%llu events were lost by the ring buffer%s",
				(unsigned long long)st->missed, unknown);
		}
		if (!r && total)
			r = add(tf, STROBE_TF_DIAG_LOST_EVENTS,
				"the kernel overwrote %lld events before they were recorded "
				"(ring-buffer overrun: %s)", (long long)total, list);
	}
	if (!r && tf->bad_data)
		r = add(tf, STROBE_TF_DIAG_BAD_DATA,
			"damaged data was skipped: %llu page%s or chunk%s could not be read "
			"(the first: %s); the events in %s are missing",
			(unsigned long long)tf->bad_data, tf->bad_data > 1 ? "s" : "",
			tf->bad_data > 1 ? "s" : "", tf->bad_first,
			tf->bad_data > 1 ? "them" : "it");
	if (!r && tf->short_records) {
		uint32_t end = 0;
		const char *field = strobe_format_reach_field(tf->short_fmt, &end);
		const char *sys = strobe_format_system(tf->short_fmt);
		const char *name = strobe_format_name(tf->short_fmt);

		r = add(tf, STROBE_TF_DIAG_BAD_FORMATS,
			"the event format %s:%s does not fit its records: its field '%s' ends "
			"at byte %u, past the end of %llu of its records (the first: %u bytes, "
			"on CPU %d)%s; fields past a record's end are not read (a damaged "
			"format)", sys ? sys : "?", name ? name : "?", field ? field : "?", end,
			(unsigned long long)tf->short_records, tf->short_size, tf->short_cpu,
			tf->short_more ? ", and records of other formats too" : "");
	}
	if (!r && tf->backwards)
		r = add(tf, STROBE_TF_DIAG_TIME_BACKWARDS,
			"time went backwards: %llu event%s earlier than one before %s (the "
			"first on CPU %d at %llu.%06llu, %llu ns back); durations around %s "
			"may be wrong", (unsigned long long)tf->backwards,
			tf->backwards > 1 ? "s are" : " is", tf->backwards > 1 ? "them" : "it",
			tf->back_cpu, (unsigned long long)(tf->back_ts / 1000000000ull),
			(unsigned long long)(tf->back_ts % 1000000000ull / 1000),
			(unsigned long long)tf->back_by, tf->backwards > 1 ? "them" : "it");
	return r;
}
