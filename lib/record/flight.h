/*
 * flight.h - the flight recorder inside strobe_record (flight.c),
 * internal.  record.c makes it when opts->flight_size is set, gives its
 * rings to the capture, calls flight_poll at every turn of its loop and
 * flight_end / flight_exit at the end.
 */
#ifndef STROBE_RECORD_FLIGHT_H
#define STROBE_RECORD_FLIGHT_H

#include <strobe/strobe.h>

#include "../util/err.h"

struct strobe_ring;

/* What a snapshot needs of the recording (borrowed, for f's life). */
struct flight_ctx {
	const struct strobe_record_opts *o;
	struct strobe_session *s;
	struct strobe_session_meta *meta;
	struct strobe_model *model;	/* the file's table, or NULL */
	const char *extra_cmdlines;
	const char *out;		/* OUTPUT: snapshots are named after it */
	int nr_cpus;
	/* The info lines a file of this recording starts with (version,
	 * host, clock pairings, target; no command=), malloc'd; NULL on
	 * ENOMEM. */
	char *(*base_info)(void *arg);
	void *arg;
};

int flight_open(const struct flight_ctx *ctx, struct strobe_flight **out,
		struct strobe_error *err) STROBE_HIDDEN;
/* The per-CPU rings, for strobe_capture_add_rings. */
struct strobe_ring *const *flight_rings(struct strobe_flight *f) STROBE_HIDDEN;
/* The control FIFO's path, or NULL (the guardian removes it). */
const char *flight_fifo(const struct strobe_flight *f) STROBE_HIDDEN;
/* In the guardian: let go of the FIFO (a dead recorder's FIFO must have
 * no reader, so that `strobe trigger` finds it gone). */
void flight_close_fifo(struct strobe_flight *f) STROBE_HIDDEN;
/* Every loop turn: take triggers, write snapshots, run a --post. */
void flight_poll(struct strobe_flight *f) STROBE_HIDDEN;
/* Before the capture stops: a snapshot in its --post ends now. */
void flight_end(struct strobe_flight *f) STROBE_HIDDEN;
/* After the capture stopped (the rings hold everything): the triggers
 * still pending, then the exit snapshot if asked for. */
void flight_exit(struct strobe_flight *f) STROBE_HIDDEN;
/* Move the snapshots and counts into *res (then free f). */
void flight_result(struct strobe_flight *f, struct strobe_flight_result *res) STROBE_HIDDEN;
/* Remove the FIFO, free the rings.  NULL ok. */
void flight_free(struct strobe_flight *f) STROBE_HIDDEN;

#endif
