/*
 * record-sink.h - `strobe record --sink clickhouse://...` (record-sink.c):
 * every event of a recording also goes, as it is captured, to a
 * ClickHouse server through the library's sink and sender (a thread, a
 * bounded spool, retries), while the trace file is written as always.
 * cmd-record.c parses the options into struct rec_sink_opts and hands
 * the callbacks to strobe_record's live consumer hook.
 */
#ifndef STROBE_CLI_RECORD_SINK_H
#define STROBE_CLI_RECORD_SINK_H

#include <stdbool.h>
#include <stdint.h>

struct strobe_event;
struct strobe_model;
struct strobe_error;

struct rec_sink_opts {
	const char *url;	/* clickhouse://[USER[:PASS]@]HOST[:PORT]/DB[?host=NAME] */
	const char *spool;	/* NULL: OUTPUT.ch-spool */
	uint64_t spool_max;	/* 0: 1 GiB */
	double timeout_s;	/* last delivery attempts at the end; < 0: 30 s */
};

struct rec_sink;

/*
 * Parse o->url and connect nothing yet: the sender thread reaches the
 * server (and creates the schema) when it first answers.  The password
 * of the URL is copied, then overwritten in place (the URL is argv: so
 * neither /proc/PID/cmdline nor the command line stored in the trace
 * shows it).  output is the trace file (for the spool's default name).
 * Prints "strobe record: ..." and returns NULL on error, *usage set when
 * the URL is malformed.
 */
struct rec_sink *rec_sink_open(struct rec_sink_opts *o, char *url, const char *output,
			       bool *usage);
/* The live consumer's callbacks (arg = the rec_sink). */
int rec_sink_on_event(const struct strobe_event *ev, struct strobe_model *m, void *arg);
int rec_sink_on_tick(bool final, void *arg);
/*
 * After the recording: last delivery attempts (o->timeout_s), then the
 * summary on stderr (unless quiet, but what was not delivered is always
 * said).  stream_missed: events the live stream lost.  Returns 0 when
 * everything was delivered, 1 otherwise.  Frees s.
 */
int rec_sink_close(struct rec_sink *s, uint64_t stream_missed, bool quiet);

#endif
