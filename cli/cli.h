/*
 * cli.h - what every strobe subcommand shares: the command signature,
 * error printing in one format ("strobe CMD: message"), and strict
 * number parsing.  Subcommands live in cmd-<name>.c, are listed in the
 * table in main.c, and return the process exit status; a command file
 * calls the shared files declared here, never another command file
 * (tests/cli/06-layering.sh).
 */
#ifndef STROBE_CLI_H
#define STROBE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <strobe/strobe.h>

/* Each command: argv[0] is the command name ("record"). */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_cputop(int argc, char **argv);
int cmd_syscalls(int argc, char **argv);
int cmd_schedlat(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_io(int argc, char **argv);
int cmd_irq(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_periods(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/* The analysis commands' shared option parser and run loop
 * (cmd-analyze.c): names NULL takes -a.  cli_periods_usage is the help
 * of `strobe periods`, cli_live_usage the live options' help
 * (analysis-help.c). */
#include <stdio.h>
int cli_analyze_main(const char *cmd, const char *names, int argc, char **argv);
void cli_periods_usage(FILE *f);
extern const char cli_live_usage[];
int cmd_export(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_opensnoop(int argc, char **argv);	/* cmd-snoop.c */
int cmd_execsnoop(int argc, char **argv);
int cmd_syncsnoop(int argc, char **argv);
int cmd_tcpretrans(int argc, char **argv);
int cmd_runqlat(int argc, char **argv);	/* cmd-histtool.c */
int cmd_biolatency(int argc, char **argv);
/* `strobe export --format perfetto` (export-perfetto.c), called by
 * cmd_export with its whole command line. */
int cli_export_perfetto(int argc, char **argv);
int cli_export_otlp(int argc, char **argv);

/*
 * What to trace, as `strobe record` takes it (cli/target.c), for record
 * and the analysis commands run live.  Zero it, hand each option letter
 * your getopt loop gets to cli_target_option ('e', 'f', 'P' = --preset,
 * 'o', 'b', 'C', 'p', 'c', 'M' = --no-model, 'd'): 1 taken, 0 not a
 * target option, < 0 bad (message printed).  cli_target_finish sets the
 * command (argv, may be NULL), the default buffer and checks conflicts
 * (< 0: message printed); cli_target_record runs strobe_record with
 * SIGINT/SIGTERM/SIGHUP stopping it (stop_signal: the one that did).
 */
/* see cli_live_progress_init below */
struct cli_live_progress {
	const char *cmd;
	long first_ms;
	bool drawn;
};

struct cli_target {
	struct strobe_record_opts o;
	bool given;			/* a target option or a command */
	int stop_signal;
	struct strobe_record_event *ev;
	size_t nev;
	const char **conts;
	char **bufs;			/* --preset copies */
	size_t nbufs;
	/* events and lost events so far on a terminal while recording:
	 * set by the commands that show it (cli_target_progress) */
	struct cli_live_progress progress;
};
int cli_target_option(struct cli_target *t, const char *cmd, int c, const char *arg);
int cli_target_add_event(struct cli_target *t, const char *spec);
/* The same with a copy of spec (kept until cli_target_free); a spec
 * already given is not added twice. */
int cli_target_add_event_copy(struct cli_target *t, const char *spec);
/* --preset LIST: each preset of the comma list once, as an -e. */
int cli_target_add_presets(struct cli_target *t, const char *cmd, const char *list);
int cli_target_finish(struct cli_target *t, const char *cmd, char **argv);
int cli_target_record(struct cli_target *t, struct strobe_record_result *res,
		      struct strobe_error *err);
/* The same with run(&t->o, arg, err) in strobe_record's place: a library
 * call that records from t's options (strobe_profile_run). */
int cli_target_run(struct cli_target *t,
		   int (*run)(const struct strobe_record_opts *o, void *arg,
			      struct strobe_error *err),
		   void *arg, struct strobe_error *err);
void cli_target_free(struct cli_target *t);
/* Show cmd's events and lost events so far while cli_target_record runs
 * (stderr a terminal, not quiet). */
void cli_target_progress(struct cli_target *t, const char *cmd, bool quiet);
/* The events the --period definitions name (a live periods analysis:
 * strobe periods, the flight recorder's --trigger; target.c), added to t's: syscall_entry_X/syscall_exit_X names are
 * the syscalls preset's, for the caller to add.  A definition that does
 * not parse is skipped (the caller checked them); a name this kernel
 * lacks is warned about.  0, or -ENOMEM (message printed). */
int cli_period_events(const char *cmd, const char *const *periods, int nr_periods,
		      struct cli_target *t);
/* The flag cli_target_record's recording stops on (a signal's number, or
 * what a caller stores there to end it: strobe top after N refreshes). */
#include <signal.h>
volatile sig_atomic_t *cli_target_stop_flag(void);
/* The oldest live task of each running container names[0..n) (a name,
 * full ID or ID prefix; from a /proc snapshot) into out[0..n): a task to
 * find its cgroup by, or a check that it runs (strobe runqlat -c, the
 * snoop tools).  0, or < 0 with the message printed ("no running
 * container 'NAME'"). */
#include <sys/types.h>
int cli_container_pids(const char *cmd, const char *const *names, size_t n, pid_t *out);
/* The words after "--" in argv (NULL-terminated; the first is NULL when
 * nothing follows), *argc cut to the options before it; NULL without
 * "--". */
char **cli_split_command(int *argc, char **argv);
/* argv joined by spaces (the "command=" a recording stores); NULL: ENOMEM. */
char *cli_join_args(int argc, char **argv);

/* Print "strobe <cmd>: <message>\n" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, with a struct strobe_error's message. */
void cli_error_e(const char *cmd, const struct strobe_error *err);
void cli_warn(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What the library found wrong with a trace file (cli/diag.c): each
 * diagnostic once on stderr as a warning; or as a JSON array of
 * {"kind":..,"message":..} objects appended to s. */
struct strobe_buf;
void cli_warn_diags(const char *cmd, const struct strobe_tracefile *tf);
/*
 * The damage policy's ending (strobe-damage(7)): every diagnostic of the
 * pipeline's sources once as a warning; with strict, damage is instead
 * one error "damaged data (strict): ..." and CLI_FAIL.  CLI_OK otherwise.
 * With several files, a message that does not start with its file's
 * name gets it first.
 * cli_diag_kind_is_damage: the same question by a kind's JSON name.
 */
int cli_pipeline_diags(const char *cmd, const struct strobe_pipeline *p, bool strict);

/*
 * One picture from one trace file (one-file.c).  cli_run_one_consumer:
 * open inputs (cli_open_one_file), a pipeline (strict as asked, jobs
 * threads: --jobs as given, 0 for cli_jobs's default) with it
 * as its only source, the consumer that consumer(arg, source, &c) makes,
 * and run it; 0, or -1 with the message printed (after the file's
 * diagnostics as warnings, unless strict).  *pp and *tfp are the caller's to free
 * (NULL when not made), *pp also for cli_pipeline_diags.
 * cli_write_buf: b into path (created) or, NULL, to stdout; 0, or
 * -errno with the message printed.
 */
struct strobe_consumer;
struct strobe_tracefile;
int cli_run_one_consumer(const char *cmd, const char *const *inputs, int n, bool strict,
			 int jobs, int (*consumer)(void *arg, int source, struct strobe_consumer *c),
			 void *arg, struct strobe_pipeline **pp, struct strobe_tracefile **tfp);
/* The first of inputs[0..n) opened into *tfp (the caller's to close, also
 * on failure); the others must be the same file (by any path: a notice
 * among its diagnostics, as the pipeline words it) or it is an error.  0,
 * or -1 with the message printed. */
int cli_open_one_file(const char *cmd, const char *const *inputs, int n,
		      struct strobe_tracefile **tfp);
/* An error after p's diagnostics as warnings (p may be NULL): what was
 * skipped is said even when nothing could be drawn; with strict, damage
 * among them is the error instead (cli_pipeline_diags). */
void cli_one_fail(const char *cmd, const struct strobe_pipeline *p, bool strict,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int cli_write_buf(const char *cmd, const char *path, struct strobe_buf *b);
/* Consumer c over the trace file at path, through a pipeline of options
 * po (strict, tick_ns), then the pipeline's diagnostics as warnings
 * (cli_pipeline_diags, po->strict's policy): strobe runqlat, biolatency
 * and the snoop tools with -i.  0, or < 0 with the message printed
 * (-EPIPE, the consumer's closed stdout, silently). */
struct strobe_pipeline_opts;
int cli_run_file(const char *cmd, const char *path, const struct strobe_pipeline_opts *po,
		 const struct strobe_consumer *c);

/* Progress of p's file reading on stderr (progress.c) when stderr is a
 * terminal and not quiet; a command that prints as it reads
 * (prints_as_it_reads) shows it only when its output goes to a file.
 * NULL when nothing is shown; stop erases the line (NULL ok).  p may be
 * NULL at start, for a pipeline the library makes (strobe sql's):
 * cli_progress_set names it while it runs, NULL once it ended (pr NULL
 * ok); cli_progress_on_run is that as strobe_sql_opts.on_run. */
struct cli_progress;
struct cli_progress *cli_progress_start(const char *cmd, const struct strobe_pipeline *p,
					 bool quiet, bool prints_as_it_reads);
void cli_progress_set(struct cli_progress *pr, const struct strobe_pipeline *p);
void cli_progress_on_run(const struct strobe_pipeline *p, bool running, void *pr);
void cli_progress_stop(struct cli_progress *pr);
/* A live command's events and lost events so far on stderr (progress.c):
 * init says whether to show them (a terminal, not quiet); pass
 * cli_live_progress as strobe_record_opts.on_progress with lp as its
 * argument; its last call erases the line. */
bool cli_live_progress_init(struct cli_live_progress *lp, const char *cmd, bool quiet);
void cli_live_progress(const struct strobe_record_progress *pg, bool last, void *arg);
/* Erase the line before a message of the recording's thread (NULL ok);
 * the next call draws it again. */
void cli_live_progress_clear(struct cli_live_progress *lp);
bool cli_diag_kind_is_damage(const char *name);
/* Several input files merged (multi.c): once on stderr, how their clocks
 * were put on one timeline and how uncertain that is. */
void cli_merge_clock_note(const char *cmd, const struct strobe_merge *m,
			  const char *const *paths);
/* Add "key":"val" to the JSON object that ends s ("...}\n").  0/-ENOMEM. */
int cli_json_add_key(struct strobe_buf *s, const char *key, const char *val);
/* The results of the analyses over several files (multi.c): an[i], the
 * finished analyses of source i of pipeline p (two or more sources), one
 * table per name with a host column (histograms per host), JSON lines
 * with a summary per host, or one LAMI results object (log_rows as
 * strobe_lami_write_results_merged takes it; the other views' log rows
 * went out during the run).  0 (a failed stdout included: main reports
 * it), -ENOMEM or log_rows' error. */
int cli_analyze_write_hosts(const struct strobe_pipeline *p, struct strobe_analysis *const *an,
			    bool json, bool lami,
			    int (*log_rows)(void *arg, const struct strobe_table *t,
					    struct strobe_buf *s),
			    void *arg, struct strobe_buf *s);

/* Strict parsers: whole string must be a number in range.  Return 0 or
 * -EINVAL/-ERANGE. */
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_int(const char *s, int min, int max, int *out);
/* Seconds with optional fraction, e.g. "2.5" (no suffix or 's'). */
int cli_parse_seconds(const char *s, double *out);
/* A size: "512M", "1G", "4096" (bytes), K/M/G/T with an optional "iB"/"B". */
int cli_parse_size(const char *s, uint64_t *out);
/* --jobs N of the commands that read files (cli/jobs.c): N, or with 0
 * (not given) the CPUs strobe may use. */
#define CLI_MAX_JOBS 1024
int cli_jobs(int given);

/* Output goes through a strobe_buf, written to stdout in chunks of about
 * CLI_FLUSH_BYTES: cli_flush writes what is there and empties it.
 * Returns false once stdout has failed (a closed pipe, a full disk).
 * cli_buf_new() exits with a message when memory is out. */
#define CLI_FLUSH_BYTES (256 * 1024)
struct strobe_buf *cli_buf_new(void);
bool cli_flush(struct strobe_buf *s);
/* After a write failed with EPIPE, on any thread: SIGPIPE to the process,
 * so that a --jobs worker (signals blocked) ends the command as the main
 * thread's write would (status 141 in a shell); returns where SIGPIPE is
 * ignored or handled. */
void cli_broken_pipe(void);

/* Exit codes */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/*
 * The options the picture commands share (picture-opts.c): in their
 * getopt tables as CLI_PICTURE_LONGOPTS (-i, -o, --title, --strict,
 * --jobs, -q, -h) plus { "width", ..., CLI_PIC_WIDTH } and -c/-p where they take
 * them.  cli_picture_init: the arrays for argc arguments (-1 with the
 * message printed).  cli_picture_opt: one getopt_long result; 1 taken,
 * 0 not one of these (the command's own), -1 the command ends with
 * *status (-h: help on stdout and CLI_OK; a bad value or an unknown
 * option: CLI_USAGE).  --width accepts min_width to 100000.
 * cli_picture_end: no argument left over; the default input trace.dat;
 * 0 or -1 (printed).  cli_picture_free: the arrays (not the strings,
 * argv's).
 */
enum { CLI_PIC_TITLE = 0x4000, CLI_PIC_WIDTH, CLI_PIC_STRICT, CLI_PIC_JOBS };
#define CLI_PICTURE_LONGOPTS \
	{ "input", required_argument, NULL, 'i' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "title", required_argument, NULL, CLI_PIC_TITLE }, \
	{ "strict", no_argument, NULL, CLI_PIC_STRICT }, \
	{ "jobs", required_argument, NULL, CLI_PIC_JOBS }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }
struct cli_picture {
	const char **inputs;	/* ninputs; after cli_picture_end at least 1 */
	int ninputs;
	const char *output;	/* NULL: none given */
	const char *title;	/* NULL: none given */
	const char **conts;	/* -c, nconts */
	int nconts;
	int *pids;		/* -p, npids */
	int npids;
	int width;		/* --width; 0 none given */
	int jobs;		/* --jobs; 0 none given (cli_jobs) */
	int min_width;		/* set by the command before parsing */
	bool strict, quiet;
};
int cli_picture_init(struct cli_picture *pc, const char *cmd, int argc);
int cli_picture_opt(struct cli_picture *pc, const char *cmd, int opt, const char *arg,
		    void (*usage)(FILE *f), int *status);
int cli_picture_end(struct cli_picture *pc, const char *cmd, int argc, char **argv);
void cli_picture_free(struct cli_picture *pc);

#endif
