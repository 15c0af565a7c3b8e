/*
 * record-flight.h - `strobe record --flight-recorder` (record-flight.c):
 * the flight recorder's options, the SIGUSR1 handler that triggers a
 * snapshot, a line per snapshot as it is written and the exit summary.
 * cmd-record.c hands it the options it does not know (REC_FLIGHT_OPTIONS)
 * and calls it around cli_target_record; the flight recorder itself is
 * the library's (strobe_record with flight_size, record.h).
 */
#ifndef STROBE_CLI_RECORD_FLIGHT_H
#define STROBE_CLI_RECORD_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include <strobe/strobe.h>

/* Where running flight recorders keep their control FIFOs (root only). */
#define REC_FLIGHT_DIR "/run/strobe"

enum {
	REC_FLIGHT_OPT = 300, REC_FLIGHT_POST, REC_FLIGHT_ON_EXIT, REC_FLIGHT_MIN_INTERVAL,
	REC_FLIGHT_MAX, REC_FLIGHT_TRIGGER_ON, REC_FLIGHT_TRIGGER_OOM,
	REC_FLIGHT_TRIGGER_EXIT = 307, REC_FLIGHT_PERIOD, REC_FLIGHT_TRIGGER,
};

#define REC_FLIGHT_OPTIONS \
	{ "flight-recorder", required_argument, NULL, REC_FLIGHT_OPT }, \
	{ "post", required_argument, NULL, REC_FLIGHT_POST }, \
	{ "snapshot-on-exit", no_argument, NULL, REC_FLIGHT_ON_EXIT }, \
	{ "min-interval", required_argument, NULL, REC_FLIGHT_MIN_INTERVAL }, \
	{ "max-snapshots", required_argument, NULL, REC_FLIGHT_MAX }, \
	{ "trigger-on", required_argument, NULL, REC_FLIGHT_TRIGGER_ON }, \
	{ "trigger-oom", no_argument, NULL, REC_FLIGHT_TRIGGER_OOM }, \
	{ "trigger-exit", no_argument, NULL, REC_FLIGHT_TRIGGER_EXIT }, \
	{ "period", required_argument, NULL, REC_FLIGHT_PERIOD }, \
	{ "trigger", required_argument, NULL, REC_FLIGHT_TRIGGER }

#define REC_FLIGHT_USAGE \
	"      --flight-recorder SIZE|SECS[,SIZE]\n" \
	"                        keep the recent past in memory instead of writing\n" \
	"                        a file: the last SIZE of events per CPU (e.g. 64M;\n" \
	"                        memory: SIZE x CPUs), or the last SECS seconds\n" \
	"                        within SIZE per CPU (default 64M); a trigger writes\n" \
	"                        a snapshot OUTPUT.SEQ-TIME-TRIGGER.EXT: SIGUSR1,\n" \
	"                        strobe trigger [--reason TEXT] [PID]\n" \
	"      --post SECS       a snapshot also holds SECS after its trigger\n" \
	"      --snapshot-on-exit  one more snapshot when the recording ends\n" \
	"      --min-interval SECS  at least SECS between snapshots' triggers\n" \
	"      --max-snapshots N at most N snapshots (later triggers counted)\n" \
	"      --trigger-on EXPR a snapshot when an event matches EXPR (strobe-expr(7),\n" \
	"                        as --filter; enable its events with -e); repeatable\n" \
	"      --trigger-oom     a snapshot when the kernel's OOM killer picks a\n" \
	"                        victim (oom:mark_victim, enabled)\n" \
	"      --trigger-exit    a snapshot when the target's main process (the\n" \
	"                        command, -p PID, each container's PID 1) exits\n" \
	"                        with a non-zero status or a fatal signal\n" \
	"      --period DEF      a period (strobe-periods(1)) for --trigger; repeatable\n" \
	"      --trigger 'NAME > DURATION'  a snapshot when a period NAME ends longer\n" \
	"                        than DURATION (500ms, 2s, 100us; > or >=); repeatable\n"

#define REC_FLIGHT_MAX_EXPRS 16
#define REC_FLIGHT_MAX_PERIODS 64

struct strobe_analysis;
struct strobe_expr;
struct strobe_flight;
struct strobe_table;
struct cli_target;

struct rec_flight {
	bool given;		/* --flight-recorder */
	bool other;		/* one of the other flight options */
	bool quiet;
	struct cli_live_progress *progress;	/* erased before a snapshot's line */
	/* --trigger-on / --trigger-oom: expressions the live stream's
	 * events are matched against, each with its trigger word */
	struct strobe_expr *exprs[REC_FLIGHT_MAX_EXPRS];
	const char *expr_text[REC_FLIGHT_MAX_EXPRS];
	const char *expr_trigger[REC_FLIGHT_MAX_EXPRS];
	int nr_exprs;
	/* --trigger-exit: the main process's status as its events say it
	 * (exit_group's error_code, a fatal signal), until its exit */
	bool trigger_exit;
	const struct strobe_record_opts *o;
	int cmd_pid;			/* -- CMD's process, once seen */
	bool formats_found;		/* the four below, from the first event */
	const struct strobe_format *fmt_exit_group, *fmt_deliver, *fmt_generate,
		*fmt_proc_exit;
	struct rec_flight_main {	/* main processes with a status so far */
		int tgid;
		int code;		/* exit_group's; -1: none seen */
		int sig;		/* a fatal signal's; 0: none */
		bool generated;		/* sig from signal_generate (the sender's) */
	} mains[REC_FLIGHT_MAX_EXPRS];
	/* --period / --trigger: a live periods analysis whose log rows
	 * (one per period as it ends) are checked against the thresholds */
	const char *periods[REC_FLIGHT_MAX_PERIODS];
	int nr_periods;
	struct rec_flight_ptrig {
		const char *text;	/* the --trigger argument */
		char name[128];		/* a period's name ("req", "req/sleep") */
		uint64_t ns;
		bool ge;		/* >= rather than > */
	} ptrig[REC_FLIGHT_MAX_EXPRS];
	int nr_ptrig;
	struct strobe_analysis *an;	/* made at the first event */
	bool an_tried;
	struct strobe_error err;	/* what the analysis says when it fails */
	int col_name, col_dur, col_status, col_tid, col_begin;
	const struct strobe_table *log_table;	/* the columns above are its */
	struct strobe_flight *f;	/* the running flight recorder */
};

/* One of REC_FLIGHT_OPTIONS into o.  1: taken, 0: not ours, -1: bad
 * (message printed). */
int rec_flight_option(struct rec_flight *fl, struct strobe_record_opts *o, int c,
		      const char *arg);
/* After parsing: -1 (message printed) if the options do not go together. */
int rec_flight_finish(struct rec_flight *fl, struct strobe_record_opts *o);
/* --trigger-oom's, --trigger-exit's and --period's events go into the target's events (before
 * cli_target_finish).  -1 on ENOMEM (message printed). */
int rec_flight_add_events(struct rec_flight *fl, struct cli_target *t);
/* Free the expressions. */
void rec_flight_free(struct rec_flight *fl);
/* Around the recording: the SIGUSR1 handler (each signal a trigger). */
void rec_flight_arm(struct rec_flight *fl, struct strobe_record_opts *o);
void rec_flight_disarm(struct rec_flight *fl);
/* The exit summary on stderr (snapshots, reasons, lost events, suppressed
 * triggers); stopped_by: the signal that ended the recording, or 0. */
void rec_flight_summary(const struct rec_flight *fl, const struct strobe_record_opts *o,
			const struct strobe_record_result *res, int stopped_by);

#endif
