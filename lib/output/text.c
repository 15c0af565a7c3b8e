/*
 * text.c - events as `trace-cmd report` prints them.
 *
 * trace-cmd builds each line with three tep_print_event() calls (task
 * column, time column, info) plus its own event-name column.  Calling
 * tep_print_event() for the first two costs a format-string parse and a
 * vsnprintf per column per event, which is most of the time spent on
 * simple events, so this file lays out the comm, pid, cpu and time
 * columns itself with the same rules libtraceevent applies (the unit
 * tests check both agree, edge cases included) and leaves only the info
 * part, which depends on print formats and plugins, to libtraceevent.
 *
 * With a struct strobe_format_cache (strobe report), a line is written
 * in place in the strobe_buf's memory, its columns from per-pid and
 * per-type text cached there and its info by the cache's fast path, with
 * no trace_seq call, strlen or printf per event; the rest goes through
 * trace_seq as before.
 *
 * The quirks kept on purpose, because the output must diff clean against
 * trace-cmd: the buffer column is printed once per record, so a "CPU:N
 * [EVENTS DROPPED]" line takes it and the event line that follows has
 * none; a trailing newline in the info is dropped before the line's own
 * newline.  (Older libtraceevents printed times under one second as a
 * bare 12-column number; 1.7 always prints seconds.fraction, and the unit
 * test compares with the installed library.)
 */
#include <errno.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/output.h>
#include <strobe/stream.h>

#include "format/format-int.h"
#include "output/output-int.h"
#include "util/err.h"

enum strobe_ts_style strobe_ts_style_for_clock(const char *clock)
{
	/* The clocks trace-cmd (trace-input.c) treats as nanoseconds. */
	static const char *const ns_clocks[] = {
		"local", "global", "uptime", "perf", "tai", "tsc2nsec",
	};
	size_t i;

	if (!clock || !*clock)
		return STROBE_TS_USECS;
	if (!strncmp(clock, "mono", 4))
		return STROBE_TS_USECS;
	for (i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clock, ns_clocks[i]))
			return STROBE_TS_USECS;
	return STROBE_TS_RAW;
}

STROBE_HIDDEN const char strobe_digit_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

#define utoa_rev strobe_utoa_rev

/* Exactly six digits of v < 1000000 at p. */
static inline char *put_6digits(char *p, unsigned v)
{
	unsigned hi = v / 10000, lo = v % 10000;

	memcpy(p, strobe_digit_pairs + 2 * hi, 2);
	memcpy(p + 2, strobe_digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 4, strobe_digit_pairs + 2 * (lo % 100), 2);
	return p + 6;
}

/* Append v right-aligned in `width` columns, zero-padded to `zeros`
 * digits (printf "%<width>.<zeros>llu"-like); returns the new end. */
static char *put_uint(char *p, unsigned long long v, int width, int zeros)
{
	char tmp[24];
	char *start = utoa_rev(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - start);
	int digits = n > zeros ? n : zeros;

	while (width-- > digits)
		*p++ = ' ';
	while (digits-- > n)
		*p++ = '0';
	memcpy(p, start, n);
	return p + n;
}

/* "%-5d"-style: signed, left-aligned in `width` columns. */
static char *put_int_left(char *p, long long v, int width)
{
	char tmp[24];
	char *start;
	int n;

	start = utoa_rev(tmp + sizeof(tmp),
			 v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		*--start = '-';
	n = (int)(tmp + sizeof(tmp) - start);
	memcpy(p, start, n);
	p += n;
	while (n++ < width)
		*p++ = ' ';
	return p;
}

STROBE_HIDDEN char *strobe_put_time(char *p, unsigned long long ts,
				    enum strobe_ts_style style)
{
	unsigned long long t, p10;
	int prec;

	switch (style) {
	case STROBE_TS_RAW:
		/* trace-cmd's "%12d:" */
		p = put_uint(p, ts, 12, 0);
		*p++ = ':';
		return p;
	case STROBE_TS_NSECS:
		/* " %9.1d:" */
		t = ts;
		p10 = 1000000000ULL;
		prec = 9;
		break;
	case STROBE_TS_USECS:
	default:
		/* " %6.1000d:": microseconds, rounded to nearest */
		t = (ts + 500) / 1000;
		if (t < 100000ULL * 1000000ULL) {	/* seconds fit "%5llu" */
			/* " %5llu": six columns */
			memset(p, ' ', 6);
			utoa_rev(p + 6, t / 1000000);
			p += 6;
			*p++ = '.';
			p = put_6digits(p, (unsigned)(t % 1000000));
			*p++ = ':';
			return p;
		}
		p10 = 1000000ULL;
		prec = 6;
		break;
	}
	*p++ = ' ';
	p = put_uint(p, t / p10, 5, 0);
	*p++ = '.';
	p = put_uint(p, t % p10, 0, prec);
	*p++ = ':';
	return p;
}

/*
 * strobe_put_time of STROBE_TS_USECS through memo m: the second's text
 * is kept while ts stays in it.  The microseconds are rounded to nearest
 * as there, so the second of ts is that of (ts + 500) / 1000: it covers
 * ts in [s * 1e9 - 500, (s + 1) * 1e9 - 500).
 */
static inline char *put_time_memo(char *p, uint64_t ts, struct strobe_ts_memo *m)
{
	uint64_t t, s;

	if (__builtin_expect(ts - m->lo >= m->span, 0)) {
		t = (ts + 500) / 1000;
		s = t / 1000000;
		/* wider than "%5llu", or ts + 500 wraps: no memo */
		if (s >= 100000 || ts > UINT64_MAX - 500)
			return strobe_put_time(p, ts, STROBE_TS_USECS);
		m->lo = s * 1000000000ULL >= 500 ? s * 1000000000ULL - 500 : 0;
		m->span = (s + 1) * 1000000000ULL - 500 - m->lo;
		m->us0 = s * 1000000;
		memset(m->txt, ' ', 6);
		utoa_rev(m->txt + 6, s);
		m->txt[6] = '.';
		m->txt[7] = '\0';
	}
	memcpy(p, m->txt, 8);	/* 7 bytes, and one the next store covers */
	p = put_6digits(p + 7, (unsigned)((ts + 500) / 1000 - m->us0));
	*p++ = ':';
	return p;
}

/* Append n blanks at p; returns the new end. */
static char *put_blanks(char *p, int n)
{
	if (n > 0) {
		memset(p, ' ', n);
		p += n;
	}
	return p;
}

STROBE_HIDDEN void strobe_fill_record(struct tep_record *rec,
				      const struct strobe_event *ev)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = ev->ts;
	rec->offset = ev->file_offset;
	rec->missed_events = ev->missed;
	rec->size = (int)ev->size;
	rec->record_size = (int)ev->size;
	rec->data = (void *)ev->data;
	rec->cpu = ev->cpu;
	rec->locked = 1;
}

static void put_unknown(struct trace_seq *s, const struct strobe_event *ev)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *d = ev->data;
	char buf[3 * 64 + 1];
	uint32_t i = 0;

	trace_seq_printf(s, " [UNKNOWN TYPE %d]", ev->type);
	while (i < ev->size) {
		int n = 0;

		for (; i < ev->size && n < (int)sizeof(buf) - 3; i++) {
			buf[n++] = ' ';
			buf[n++] = hex[d[i] >> 4];
			buf[n++] = hex[d[i] & 15];
		}
		buf[n] = '\0';
		trace_seq_puts(s, buf);
	}
}

/* trace-cmd's line for a gap before ev (ev->missed != 0). */
static void put_dropped(struct trace_seq *s, const struct strobe_event *ev)
{
	if (ev->missed > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu,
				 (long long)ev->missed);
	else
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
}

/*
 * The slow path for absurd widths (a buffer name or comm of more than a
 * few hundred bytes): the same columns through trace_seq_printf.
 */
static void put_columns_slow(struct trace_seq *s, const struct strobe_event *ev,
			     const char *buffer_name, int width, bool dropped,
			     const char *comm, const char *name,
			     enum strobe_ts_style style)
{
	char tbuf[48];
	char *t;

	if (width > 0) {
		if (buffer_name && *buffer_name)
			trace_seq_printf(s, "%*s: ", width, buffer_name);
		else
			trace_seq_printf(s, "%*s  ", width, "");
	}
	if (dropped)
		return;
	t = strobe_put_time(tbuf, ev->ts, style);
	*t = '\0';
	trace_seq_printf(s, "%16s-%-5d [%03d]%s", comm, ev->pid, ev->cpu, tbuf);
	if (name)
		trace_seq_printf(s, " %s: %*s", name,
				 strlen(name) < 20 ? 20 - (int)strlen(name) : 0, "");
}

/* Room for the columns before the info: a buffer column of at most 200 +
 * 202, a comm of at most 100, pid, cpu, time, a name of at most 100. */
#define COLUMNS_MAX 640

int strobe_format_event_text(struct strobe_formats *fmts, const struct strobe_event *ev,
			     const char *buffer_name,
			     const struct strobe_text_opts *opts,
			     struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	struct tep_handle *tep = strobe_formats_tep(fmts);
	static const struct strobe_text_opts defaults;
	struct tep_event *event = strobe_format_tep(ev->format);
	struct tep_record rec;
	const char *comm, *name = event ? event->name : NULL, *head = NULL, *col = NULL;
	size_t comm_len, name_len = 0, head_len = 0, col_len = 0;
	size_t bname_len;
	int width, n;
	char *p;

	if (!opts)
		opts = &defaults;
	width = opts->buffer_width > 0 ? opts->buffer_width : 0;
	/* the buffer column is there only with a width (several buffers) */
	bname_len = buffer_name && width ? strlen(buffer_name) : 0;
	if (opts->cache) {
		col = strobe_cache_task_col(opts->cache, ev->pid, &col_len, &comm, &comm_len);
		if (event)
			head = strobe_cache_head(opts->cache, event, &head_len);
	} else {
		comm = strobe_tep_comm(tep, ev->pid);
		comm_len = strlen(comm);
	}
	if (name && !head)
		name_len = strlen(name);

	if (width > 200 || bname_len > 200 || comm_len > 100 || name_len > 100 ||
	    ev->cpu < 0) {
		put_columns_slow(s, ev, buffer_name, width, ev->missed != 0,
				 comm, name, opts->ts_style);
		if (ev->missed) {
			put_dropped(s, ev);
			put_columns_slow(s, ev, NULL, 0, false, comm, name,
					 opts->ts_style);
		}
		goto info;
	}

	/* The line is written in place, in the trace_seq's buffer. */
	if (!strobe_seq_reserve(s, COLUMNS_MAX + STROBE_INFO_MAX + 2))
		return -ENOMEM;
	p = s->buffer + s->len;

	/* "%*s: " for an instance, "%*s  " (blanks) for the top level */
	if (width) {
		if (bname_len) {
			p = put_blanks(p, width - (int)bname_len);
			memcpy(p, buffer_name, bname_len);
			p += bname_len;
			*p++ = ':';
			*p++ = ' ';
		} else {
			p = put_blanks(p, width + 2);
		}
	}
	if (ev->missed) {
		s->len = (unsigned)(p - s->buffer);
		put_dropped(s, ev);
		if (!strobe_seq_reserve(s, COLUMNS_MAX + STROBE_INFO_MAX + 2))
			return -ENOMEM;
		p = s->buffer + s->len;
	}

	/* "%16s-%-5d [%03d]" */
	if (col) {
		memcpy(p, col, 32);	/* col_len <= 29, readable as 32 */
		p += col_len;
		goto cpu;
	}
	if (comm_len < 16) {
		memset(p, ' ', 16);
		p += 16 - comm_len;
	}
	memcpy(p, comm, comm_len);
	p += comm_len;
	*p++ = '-';
	p = put_int_left(p, ev->pid, 5);
	*p++ = ' ';
cpu:
	*p++ = '[';
	if (ev->cpu < 1000) {
		p[0] = (char)('0' + ev->cpu / 100);
		memcpy(p + 1, strobe_digit_pairs + 2 * (ev->cpu % 100), 2);
		p += 3;
	} else {
		p = put_uint(p, (unsigned)ev->cpu, 0, 3);
	}
	*p++ = ']';
	if (opts->ts_style == STROBE_TS_USECS && opts->cache)
		p = put_time_memo(p, ev->ts, strobe_cache_ts_memo(opts->cache));
	else
		p = strobe_put_time(p, ev->ts, opts->ts_style);

	/* " %s: " and the name padded to 20 columns */
	if (head) {
		if (head_len <= 32)
			memcpy(p, head, 32);	/* readable as 32 */
		else
			memcpy(p, head, head_len);
		p += head_len;
	} else if (name) {
		*p++ = ' ';
		memcpy(p, name, name_len);
		p += name_len;
		*p++ = ':';
		*p++ = ' ';
		if (name_len < 20)
			p = put_blanks(p, 20 - (int)name_len);
	}
	if (event && opts->cache) {
		n = strobe_cache_info(opts->cache, ev, p, STROBE_INFO_MAX);
		if (n >= 0) {
			p += n;
			*p++ = '\n';
			s->len = (unsigned)(p - s->buffer);
			return 0;
		}
	}
	s->len = (unsigned)(p - s->buffer);

info:
	if (!event) {
		put_unknown(s, ev);
	} else {
		if (!strobe_event_fits(ev)) {	/* damaged file: see bounds.c */
			strobe_put_bad_record(s, ev);
			goto end;
		}
		strobe_fill_record(&rec, ev);
		strobe_tep_lock();
		tep_print_event(tep, s, &rec, "%s", TEP_PRINT_INFO);
		strobe_tep_unlock();
		if (s->len && s->buffer[s->len - 1] == '\n')
			s->len--;
	}
end:
	trace_seq_putc(s, '\n');
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}
