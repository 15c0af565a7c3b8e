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

/* Decimal digits of v, written backwards ending at `end`; returns start. */
static char *utoa_rev(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
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
	const char *comm, *name = event ? event->name : NULL;
	size_t comm_len, name_len = name ? strlen(name) : 0;
	size_t bname_len = buffer_name ? strlen(buffer_name) : 0;
	int width;
	char line[512];
	char *p = line;

	if (!opts)
		opts = &defaults;
	width = opts->buffer_width > 0 ? opts->buffer_width : 0;
	comm = opts->cache ? strobe_cache_comm(opts->cache, ev->pid)
			   : tep_data_comm_from_pid(tep, ev->pid);
	comm_len = strlen(comm);

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
		*p = '\0';
		trace_seq_puts(s, line);
		p = line;
		put_dropped(s, ev);
	}

	/* "%16s-%-5d [%03d]" */
	if (comm_len < 16)
		p = put_blanks(p, 16 - (int)comm_len);
	memcpy(p, comm, comm_len);
	p += comm_len;
	*p++ = '-';
	p = put_int_left(p, ev->pid, 5);
	*p++ = ' ';
	*p++ = '[';
	p = put_uint(p, (unsigned)ev->cpu, 0, 3);
	*p++ = ']';
	p = strobe_put_time(p, ev->ts, opts->ts_style);

	/* " %s: " and the name padded to 20 columns */
	if (name) {
		*p++ = ' ';
		memcpy(p, name, name_len);
		p += name_len;
		*p++ = ':';
		*p++ = ' ';
		if (name_len < 20)
			p = put_blanks(p, 20 - (int)name_len);
	}
	*p = '\0';
	trace_seq_puts(s, line);

info:
	if (!event) {
		put_unknown(s, ev);
	} else if (!opts->cache || !strobe_cache_info(opts->cache, ev, s)) {
		if (!strobe_event_fits(ev)) {	/* damaged file: see bounds.c */
			strobe_put_bad_record(s, ev);
			goto end;
		}
		strobe_fill_record(&rec, ev);
		tep_print_event(tep, s, &rec, "%s", TEP_PRINT_INFO);
		if (s->len && s->buffer[s->len - 1] == '\n')
			s->len--;
	}
end:
	trace_seq_putc(s, '\n');
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}
