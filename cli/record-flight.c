/*
 * record-flight.c - the command-line side of the flight recorder (see
 * record-flight.h): options into struct strobe_record_opts, SIGUSR1 as a
 * trigger (the handler only counts; the library reads the count), a
 * line per snapshot as it is written, and the summary at exit, which
 * never lets a suppressed trigger or a lost event go without a word.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "record-flight.h"

static const char *const cmd = "record";
static volatile sig_atomic_t usr1_count;
static struct sigaction old_usr1;
static bool armed;

#define DEFAULT_SPAN_SIZE (64ull << 20)

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
}

/* SIZE, or SECS[,SIZE] (seconds end with 's'). */
static int parse_flight(const char *arg, struct strobe_record_opts *o)
{
	const char *comma = strchr(arg, ',');
	char secs[64];
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (n && n < sizeof(secs) && arg[n - 1] == 's') {
		memcpy(secs, arg, n);
		secs[n] = '\0';
		if (cli_parse_seconds(secs, &o->flight_span) < 0 || o->flight_span <= 0)
			return -EINVAL;
		o->flight_size = DEFAULT_SPAN_SIZE;
		return comma ? cli_parse_size(comma + 1, &o->flight_size) : 0;
	}
	if (comma)
		return -EINVAL;
	return cli_parse_size(arg, &o->flight_size);
}

/* "NAME > 500ms", "req/sleep >= 2s": a name, > or >=, a duration with
 * its unit (ns, us, ms, s). */
static int parse_ptrig(const char *arg, struct rec_flight_ptrig *t)
{
	const char *op = strchr(arg, '>'), *p;
	size_t n;
	double v, mul;
	char *end;

	if (!op)
		return -EINVAL;
	for (n = (size_t)(op - arg); n && arg[n - 1] == ' '; n--)
		;
	for (p = arg; p < arg + n && *p == ' '; p++)
		;
	if (p == arg + n || (size_t)(arg + n - p) >= sizeof(t->name) || memchr(p, ' ', n - (p - arg)))
		return -EINVAL;
	memcpy(t->name, p, (size_t)(arg + n - p));
	t->name[arg + n - p] = '\0';
	t->ge = op[1] == '=';
	p = op + 1 + t->ge;
	errno = 0;
	v = strtod(p, &end);
	if (end == p || errno || v < 0 || v != v)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -EINVAL;
	if (v * mul > 1.8e19)
		return -EINVAL;
	t->ns = (uint64_t)(v * mul + 0.5);
	t->text = arg;
	return 0;
}

int rec_flight_option(struct rec_flight *fl, struct strobe_record_opts *o, int c,
		      const char *arg)
{
	int n;

	switch (c) {
	case REC_FLIGHT_OPT:
		if (parse_flight(arg, o) < 0 || o->flight_size < 8192) {
			cli_error(cmd, "bad --flight-recorder '%s' (a size per CPU such as 64M, "
				  "or seconds such as 30s, optionally with a size: 30s,128M)", arg);
			return -1;
		}
		fl->given = true;
		return 1;
	case REC_FLIGHT_POST:
		if (cli_parse_seconds(arg, &o->flight_post) < 0) {
			cli_error(cmd, "bad --post '%s' (seconds, e.g. 2)", arg);
			return -1;
		}
		break;
	case REC_FLIGHT_ON_EXIT:
		o->flight_on_exit = true;
		break;
	case REC_FLIGHT_MIN_INTERVAL:
		if (cli_parse_seconds(arg, &o->flight_min_interval) < 0) {
			cli_error(cmd, "bad --min-interval '%s' (seconds, e.g. 10)", arg);
			return -1;
		}
		break;
	case REC_FLIGHT_MAX:
		if (cli_parse_int(arg, 1, 1000000, &n) < 0) {
			cli_error(cmd, "bad --max-snapshots '%s' (1 or more)", arg);
			return -1;
		}
		o->flight_max_snapshots = (unsigned)n;
		break;
	case REC_FLIGHT_TRIGGER_ON:
	case REC_FLIGHT_TRIGGER_OOM: {
		struct strobe_error err = { 0, "" };
		const char *text = c == REC_FLIGHT_TRIGGER_OOM ? "$evt.$name == \"mark_victim\""
							       : arg;

		if (fl->nr_exprs == REC_FLIGHT_MAX_EXPRS) {
			cli_error(cmd, "at most %d --trigger-on and --trigger-oom",
				  REC_FLIGHT_MAX_EXPRS);
			return -1;
		}
		if (strobe_expr_parse(text, STROBE_EXPR_EVT_ONLY, &fl->exprs[fl->nr_exprs],
				      &err) < 0) {
			cli_error(cmd, "bad --trigger-on '%s': %s", text, err.msg);
			return -1;
		}
		fl->expr_text[fl->nr_exprs] = text;
		fl->expr_trigger[fl->nr_exprs] = c == REC_FLIGHT_TRIGGER_OOM ? "oom" : "expr";
		fl->nr_exprs++;
		break;
	}
	case REC_FLIGHT_TRIGGER_EXIT:
		fl->trigger_exit = true;
		break;
	case REC_FLIGHT_PERIOD:
		if (fl->nr_periods == REC_FLIGHT_MAX_PERIODS) {
			cli_error(cmd, "at most %d --period", REC_FLIGHT_MAX_PERIODS);
			return -1;
		}
		fl->periods[fl->nr_periods++] = arg;
		break;
	case REC_FLIGHT_TRIGGER:
		if (fl->nr_ptrig == REC_FLIGHT_MAX_EXPRS) {
			cli_error(cmd, "at most %d --trigger", REC_FLIGHT_MAX_EXPRS);
			return -1;
		}
		if (parse_ptrig(arg, &fl->ptrig[fl->nr_ptrig]) < 0) {
			cli_error(cmd, "bad --trigger '%s' (a period's name, > or >=, and a "
				  "duration: 'req > 500ms')", arg);
			return -1;
		}
		fl->nr_ptrig++;
		break;
	default:
		return 0;
	}
	fl->other = true;
	return 1;
}

static void on_snapshot(const struct strobe_flight_snapshot *s, void *arg)
{
	const struct rec_flight *fl = arg;

	cli_live_progress_clear(fl->progress);
	if (s->error) {
		cli_error(cmd, "snapshot %u (%s) failed: %s", s->seq, s->trigger, s->msg);
		return;
	}
	if (fl->quiet)
		return;
	fprintf(stderr, "strobe record: snapshot %u: %s (%s%s%s), %" PRIu64 " events over "
		"%.3f s, %" PRIu64 " lost, %" PRIu64 " left out before the common span\n",
		s->seq, s->path, s->trigger, s->reason[0] ? ": " : "", s->reason, s->events,
		s->last_ts > s->first_ts ? (s->last_ts - s->first_ts) / 1e9 : 0.0, s->lost,
		s->trimmed);
}

static void on_flight(struct strobe_flight *f, void *arg)
{
	((struct rec_flight *)arg)->f = f;
}

/* ---- --trigger-exit ----------------------------------------------------
 * sched_process_exit carries no exit code on this kernel, so the status
 * of a main process is what its own events said before it: the
 * error_code of its exit_group (syscalls:sys_enter_exit_group, & 0xff as
 * wait() sees it), or a fatal signal: signal_generate's sig when the
 * sender is traced (a fatal signal's default action makes the kernel
 * deliver SIGKILL to every thread, so signal_deliver then says 9), else
 * signal_deliver's sig when the action is the default one.  The main
 * process's sched_process_exit (its leader's) decides. */

/* Signals whose default action ends the process (signal(7)). */
static bool fatal_by_default(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
	case SIGURG: case SIGWINCH:
		return false;
	}
	return sig > 0 && sig <= 64;
}

/* Is tgid a main process: -p PID, the command (strobe's child), or a
 * target container's PID 1? */
static bool is_main(struct rec_flight *fl, struct strobe_model *m, int tgid)
{
	const struct strobe_record_opts *o = fl->o;
	const struct strobe_task *t;
	size_t i;

	if (tgid <= 0)
		return false;
	if (o->pid)
		return tgid == o->pid;
	if (o->argv) {
		if (!fl->cmd_pid) {
			t = strobe_model_task(m, tgid);
			if (t && t->ppid == (int)getpid())
				fl->cmd_pid = tgid;
		}
		return tgid == fl->cmd_pid;
	}
	t = strobe_model_task(m, tgid);
	if (!t || t->nstgid != 1)
		return false;
	for (i = 0; i < o->nr_containers; i++)
		if (strobe_container_matches(t->container, o->containers[i]))
			return true;
	return false;
}

static struct rec_flight_main *main_slot(struct rec_flight *fl, int tgid, bool add)
{
	size_t i, n = sizeof(fl->mains) / sizeof(fl->mains[0]);

	for (i = 0; i < n; i++)
		if (fl->mains[i].tgid == tgid)
			return &fl->mains[i];
	if (!add)
		return NULL;
	for (i = 0; i < n; i++)
		if (!fl->mains[i].tgid) {
			fl->mains[i] = (struct rec_flight_main){ .tgid = tgid, .code = -1 };
			return &fl->mains[i];
		}
	return NULL;
}

static int field_int(const struct strobe_event *ev, const char *name)
{
	struct strobe_field f;

	if (strobe_field_resolve(ev->format, name, &f) < 0)
		return 0;
	return (int)strobe_field_int(ev, &f);
}

/* The tgid of tid (tid itself when the model does not know). */
static int tgid_of(struct strobe_model *m, int tid)
{
	const struct strobe_task *t = strobe_model_task(m, tid);

	return t && t->tgid > 0 ? t->tgid : tid;
}

static void exit_event(struct rec_flight *fl, const struct strobe_event *ev,
		       struct strobe_model *m)
{
	struct rec_flight_main *s;
	char reason[256], who[128];
	const struct strobe_task *t;
	int tgid, sig;

	if (!fl->formats_found) {
		struct strobe_formats *c = strobe_format_catalogue(ev->format);

		fl->formats_found = true;
		fl->fmt_exit_group = strobe_formats_find(c, "syscalls", "sys_enter_exit_group");
		fl->fmt_deliver = strobe_formats_find(c, "signal", "signal_deliver");
		fl->fmt_generate = strobe_formats_find(c, "signal", "signal_generate");
		fl->fmt_proc_exit = strobe_formats_find(c, "sched", "sched_process_exit");
	}
	if (!ev->format)
		return;
	if (ev->format == fl->fmt_exit_group) {
		struct strobe_field f;

		tgid = tgid_of(m, ev->pid);
		if (!is_main(fl, m, tgid) || !(s = main_slot(fl, tgid, true)) ||
		    strobe_field_resolve(ev->format, "error_code", &f) < 0)
			return;
		s->code = (int)(strobe_field_uint(ev, &f) & 0xff);
		s->sig = 0;	/* what it says now is how it ends */
		s->generated = false;
	} else if (ev->format == fl->fmt_generate) {
		sig = field_int(ev, "sig");
		tgid = tgid_of(m, field_int(ev, "pid"));
		/* result 0: TRACE_SIGNAL_DELIVERED (queued, not ignored) */
		if (!fatal_by_default(sig) || field_int(ev, "result") != 0 ||
		    !is_main(fl, m, tgid) || !(s = main_slot(fl, tgid, true)))
			return;
		s->sig = sig;
		s->generated = true;
	} else if (ev->format == fl->fmt_deliver) {
		struct strobe_field f;
		bool dfl;

		sig = field_int(ev, "sig");
		tgid = tgid_of(m, ev->pid);
		if (!is_main(fl, m, tgid) || !(s = main_slot(fl, tgid, true)) ||
		    strobe_field_resolve(ev->format, "sa_handler", &f) < 0)
			return;
		dfl = strobe_field_uint(ev, &f) == 0;	/* SIG_DFL */
		if (!dfl || !fatal_by_default(sig)) {
			if (s->sig == sig)	/* handled or ignored: not how it ends */
				s->sig = 0;
		} else if (!(sig == SIGKILL && s->sig && s->generated)) {
			s->sig = sig;
			s->generated = false;
		}
	} else if (ev->format == fl->fmt_proc_exit) {
		/* the leader's exit: tid == tgid */
		if (tgid_of(m, ev->pid) != ev->pid || !(s = main_slot(fl, ev->pid, false)))
			return;
		t = strobe_model_task(m, ev->pid);
		if (t && t->container && t->container->index > STROBE_CONTAINER_HOST)
			snprintf(who, sizeof(who), "pid %d (%s) in container %.64s", ev->pid,
				 t->comm, t->container->name);
		else
			snprintf(who, sizeof(who), "pid %d (%s)", ev->pid, t ? t->comm : "?");
		if (s->sig)
			snprintf(reason, sizeof(reason), "%s killed by signal %d (SIG%s, %s)", who,
				 s->sig, sigabbrev_np(s->sig) ? sigabbrev_np(s->sig) : "?",
				 s->generated ? "signal_generate" : "signal_deliver");
		else if (s->code > 0)
			snprintf(reason, sizeof(reason), "%s exited with status %d (exit_group)",
				 who, s->code);
		else
			reason[0] = '\0';
		*s = (struct rec_flight_main){ 0 };
		if (reason[0])
			strobe_flight_trigger(fl->f, "exit-status", reason);
	}
}

/* ---- --period / --trigger ------------------------------------------------
 * A periods analysis (lib/analyses/periods.c) runs on the live stream,
 * with its log view only: each period hands over its row as it ends,
 * and one that ends longer than a --trigger's threshold is a trigger
 * "period". */

static int col_of(const struct strobe_table *t, const char *key)
{
	int i, n = strobe_table_nr_columns(t);

	for (i = 0; i < n; i++)
		if (!strcmp(strobe_table_column(t, i)->key, key))
			return i;
	return -1;
}

static void on_period(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct rec_flight *fl = arg;
	const char *name, *last;
	char reason[256];
	uint64_t dur;
	int i;

	if (t != fl->log_table) {
		if (strcmp(strobe_table_name(t), "periods.log"))
			return;
		fl->log_table = t;
		fl->col_name = col_of(t, "name");
		fl->col_dur = col_of(t, "duration");
		fl->col_status = col_of(t, "status");
		fl->col_tid = col_of(t, "tid");
		fl->col_begin = col_of(t, "begin");
	}
	if (fl->col_name < 0 || fl->col_dur < 0 || fl->col_begin < 0 ||
	    (fl->col_status >= 0 && strcmp(row[fl->col_status].s, "closed")))
		return;		/* one cut short by the trace's end is no measure */
	name = row[fl->col_name].s;
	last = strrchr(name, '/');
	dur = row[fl->col_dur].u;
	for (i = 0; i < fl->nr_ptrig; i++) {
		const struct rec_flight_ptrig *p = &fl->ptrig[i];

		if (strcmp(p->name, name) && (!last || strcmp(p->name, last + 1)))
			continue;
		if (p->ge ? dur < p->ns : dur <= p->ns)
			continue;
		snprintf(reason, sizeof(reason), "%.100s: period %.60s of tid %" PRId64 " from %"
			 PRIu64 ".%06" PRIu64 " lasted %.3f ms", p->text, name,
			 fl->col_tid >= 0 ? row[fl->col_tid].i : -1,
			 row[fl->col_begin].u / 1000000000, row[fl->col_begin].u % 1000000000 / 1000,
			 dur / 1e6);
		strobe_flight_trigger(fl->f, "period", reason);
	}
}

/* First event: the periods analysis on the capture's formats and the
 * live model. */
static int periods_attach(struct rec_flight *fl, const struct strobe_event *ev,
			  struct strobe_model *m, struct strobe_error *err)
{
	struct strobe_formats *f = strobe_format_catalogue(ev->format);
	struct strobe_analysis_opts ao = {
		.size = sizeof(ao), .views = STROBE_VIEW_LOG, .log = on_period, .log_arg = fl,
		.periods = fl->periods, .nr_periods = fl->nr_periods,
	};
	int ret;

	if (!f)
		return 0;
	ret = strobe_analysis_new("periods", &ao, &fl->an, err);
	if (ret == 0)
		ret = strobe_analysis_attach(fl->an, f, m, err);
	if (ret < 0) {
		strobe_analysis_free(fl->an);
		fl->an = NULL;
	}
	return ret;
}

/* The final tick: the analysis goes before the model it points into. */
static int on_tick(bool final, void *arg)
{
	struct rec_flight *fl = arg;

	if (final) {
		strobe_analysis_free(fl->an);
		fl->an = NULL;
	}
	return 0;
}

/* --trigger-oom: oom:mark_victim names the victim (pid, comm, its
 * memory), which may not be the task the event was recorded for (the
 * one whose allocation failed).  With -c, a victim outside the target
 * containers is no trigger.  -1: not one of ours. */
static int oom_reason(struct rec_flight *fl, const struct strobe_event *ev,
		      struct strobe_model *m, char *reason, size_t size)
{
	const struct strobe_task *t;
	struct strobe_field f;
	const char *comm = NULL;
	char where[128] = "";
	uint32_t len = 0;
	int pid = field_int(ev, "pid");
	uint64_t rss = 0;
	size_t i;

	if (strobe_field_resolve(ev->format, "comm", &f) == 0)
		comm = strobe_field_str(ev, &f, &len);
	if (strobe_field_resolve(ev->format, "anon_rss", &f) == 0)
		rss = strobe_field_uint(ev, &f);
	t = pid > 0 ? strobe_model_task(m, pid) : NULL;
	if (fl->o->nr_containers) {
		for (i = 0; t && i < fl->o->nr_containers; i++)
			if (strobe_container_matches(t->container, fl->o->containers[i]))
				break;
		if (!t || i == fl->o->nr_containers)
			return -1;
	}
	if (t && t->container && t->container->index > STROBE_CONTAINER_HOST)
		snprintf(where, sizeof(where), " in container %.64s", t->container->name);
	snprintf(reason, size, "OOM kill of pid %d (%.*s)%s, anon-rss %" PRIu64 " kB "
		 "(oom:mark_victim at %" PRIu64 ".%06" PRIu64 ")", pid,
		 comm ? (int)strnlen(comm, len) : 1, comm ? comm : "?", where, rss,
		 ev->ts / 1000000000, ev->ts % 1000000000 / 1000);
	return 0;
}

/* The live stream's events against the --trigger-on expressions: a
 * match is a trigger whose reason names the expression and the event. */
static int on_event(const struct strobe_event *ev, struct strobe_model *m, void *arg)
{
	struct rec_flight *fl = arg;
	struct strobe_expr_env env;
	char reason[256];
	int i;

	if (!fl->f)
		return 0;
	if (fl->trigger_exit)
		exit_event(fl, ev, m);
	if (fl->nr_ptrig) {
		if (!fl->an && !fl->an_tried) {
			int ret;

			fl->an_tried = true;
			ret = periods_attach(fl, ev, m, fl->o->event_err);
			if (ret < 0)
				return ret;
		}
		if (fl->an)
			strobe_analysis_feed(fl->an, ev);
	}
	strobe_expr_env_model(&env, m);
	for (i = 0; i < fl->nr_exprs; i++) {
		if (!strobe_expr_match_event(fl->exprs[i], &env, ev))
			continue;
		if (!strcmp(fl->expr_trigger[i], "oom")) {
			if (oom_reason(fl, ev, m, reason, sizeof(reason)) < 0)
				continue;
		} else {
			snprintf(reason, sizeof(reason), "%.150s (%s of pid %d at %" PRIu64 ".%06"
				 PRIu64 ")", fl->expr_text[i],
				 ev->format ? strobe_format_name(ev->format) : "?", ev->pid,
				 ev->ts / 1000000000, ev->ts % 1000000000 / 1000);
		}
		strobe_flight_trigger(fl->f, fl->expr_trigger[i], reason);
	}
	return 0;
}

int rec_flight_add_events(struct rec_flight *fl, struct cli_target *t)
{
	bool oom = false;
	int i;

	for (i = 0; i < fl->nr_exprs; i++)
		oom |= !strcmp(fl->expr_trigger[i], "oom");
	if (fl->nr_periods) {
		/* the syscall_entry_X names are the periods analysis's preset's */
		if (cli_target_add_presets(t, cmd, strobe_analysis_preset("periods")) < 0 ||
		    cli_period_events(cmd, fl->periods, fl->nr_periods, t) < 0)
			return -1;
		t->o.events = t->ev;
		t->o.nr_events = t->nev;
	}
	if (!oom && !fl->trigger_exit)
		return 0;
	/* after cli_target_finish: the default presets stay the default */
	if ((!t->nev && (cli_target_add_event_copy(t, "sched") < 0 ||
			 cli_target_add_event_copy(t, "syscalls") < 0)) ||
	    (oom && cli_target_add_event_copy(t, "oom:mark_victim") < 0) ||
	    (fl->trigger_exit && (cli_target_add_event_copy(t, "syscalls:sys_enter_exit_group") < 0 ||
				  cli_target_add_event_copy(t, "signal:signal_generate") < 0 ||
				  cli_target_add_event_copy(t, "signal:signal_deliver") < 0))) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	t->o.events = t->ev;
	t->o.nr_events = t->nev;
	return 0;
}

void rec_flight_free(struct rec_flight *fl)
{
	int i;

	for (i = 0; i < fl->nr_exprs; i++)
		strobe_expr_free(fl->exprs[i]);
	fl->nr_exprs = 0;
	strobe_analysis_free(fl->an);	/* a recording that failed early */
	fl->an = NULL;
}

int rec_flight_finish(struct rec_flight *fl, struct strobe_record_opts *o)
{
	if (fl->other && !fl->given) {
		cli_error(cmd, "--post, --snapshot-on-exit, --min-interval, --max-snapshots, "
			  "--trigger-on, --trigger-oom, --trigger-exit, --period and --trigger go "
			  "with --flight-recorder");
		return -1;
	}
	if (!fl->given)
		return 0;
	if (fl->trigger_exit && !o->argv && !o->pid && !o->nr_containers) {
		cli_error(cmd, "--trigger-exit needs a target whose main process it watches "
			  "(-- CMD, -p PID or -c NAME)");
		return -1;
	}
	if (fl->trigger_exit && o->no_model) {
		cli_error(cmd, "--trigger-exit needs the process table (sched_process_exit)");
		return -1;
	}
	if (!fl->nr_ptrig != !fl->nr_periods) {
		cli_error(cmd, fl->nr_ptrig ? "--trigger needs the --period it names"
					    : "--period goes with --trigger 'NAME > DURATION'");
		return -1;
	}
	if (fl->nr_periods) {	/* a bad definition is a usage error */
		struct strobe_analysis_opts ao = {
			.size = sizeof(ao), .views = STROBE_VIEW_LOG,
			.periods = fl->periods, .nr_periods = fl->nr_periods,
		};
		struct strobe_analysis *probe = NULL;
		struct strobe_error err = { 0, "" };
		int i, k, ret = strobe_analysis_new("periods", &ao, &probe, &err);

		strobe_analysis_free(probe);
		if (ret < 0) {
			cli_error_e(cmd, &err);
			return -1;
		}
		for (k = 0; k < fl->nr_ptrig; k++) {	/* each names a period */
			bool found = false;

			for (i = 0; i < fl->nr_periods && !found; i++) {
				struct strobe_period_def *d = NULL;

				if (strobe_period_def_parse(fl->periods[i], &d, NULL) < 0)
					continue;
				found = d->name && (!strcmp(d->name, fl->ptrig[k].name) ||
						    (d->parent && !strncmp(fl->ptrig[k].name, d->parent,
									   strlen(d->parent)) &&
						     fl->ptrig[k].name[strlen(d->parent)] == '/' &&
						     !strcmp(fl->ptrig[k].name + strlen(d->parent) + 1,
							     d->name)));
				strobe_period_def_free(d);
			}
			if (!found) {
				cli_error(cmd, "--trigger '%s': no --period is named '%s'",
					  fl->ptrig[k].text, fl->ptrig[k].name);
				return -1;
			}
		}
	}
	fl->o = o;
	if (o->on_event || o->nr_consumers) {
		cli_error(cmd, "--flight-recorder does not go with --sink");
		return -1;
	}
	o->flight_control_dir = REC_FLIGHT_DIR;
	o->flight_signal = &usr1_count;
	o->on_snapshot = on_snapshot;
	o->on_flight = on_flight;
	o->event_arg = fl;
	if (fl->nr_exprs || fl->trigger_exit || fl->nr_ptrig)
		o->on_event = on_event;	/* the recording runs live */
	if (fl->nr_ptrig)
		o->on_tick = on_tick;
	if (!o->event_err)
		o->event_err = &fl->err;
	return 0;
}

void rec_flight_arm(struct rec_flight *fl, struct strobe_record_opts *o)
{
	struct sigaction sa;

	if (!fl->given)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	usr1_count = 0;
	sigaction(SIGUSR1, &sa, &old_usr1);
	armed = true;
}

void rec_flight_disarm(struct rec_flight *fl)
{
	if (armed)
		sigaction(SIGUSR1, &old_usr1, NULL);
	armed = false;
}

static void mib(uint64_t b, char *buf, size_t size)
{
	snprintf(buf, size, "%.1f MiB", b / 1048576.0);
}

void rec_flight_summary(const struct rec_flight *fl, const struct strobe_record_opts *o,
			const struct strobe_record_result *res, int stopped_by)
{
	const struct strobe_flight_result *f = &res->flight;
	uint64_t supp = f->suppressed_interval + f->suppressed_limit + f->suppressed_busy;
	uint64_t lost = 0;
	char ring[32], resid[32];
	size_t i;
	int c;

	for (c = 0; c < res->nr_cpus; c++)
		lost += res->cpus[c].overrun;
	mib(f->ring_bytes, ring, sizeof(ring));
	mib(f->ring_resident, resid, sizeof(resid));
	/* what was suppressed or lost is said even with -q */
	if (!fl->quiet) {
		fprintf(stderr, "strobe record: flight recorder: %d CPUs x %s ring (%s resident), "
			"%.3f s, %zu snapshot%s, %" PRIu64 " trigger%s, %" PRIu64 " lost events\n",
			res->nr_cpus, ring, resid, res->duration, f->nr_snapshots,
			f->nr_snapshots == 1 ? "" : "s", f->triggers, f->triggers == 1 ? "" : "s",
			lost);
		for (i = 0; i < f->nr_snapshots; i++) {
			const struct strobe_flight_snapshot *s = &f->snapshots[i];
			char when[32];
			time_t t = (time_t)s->time;
			struct tm tm;

			localtime_r(&t, &tm);
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
			if (s->error)
				fprintf(stderr, "  #%u %s at %s.%03d: failed: %s\n", s->seq, s->trigger,
					when, (int)((s->time - (double)t) * 1000), s->msg);
			else
				fprintf(stderr, "  #%u %s at %s.%03d%s%s%s: %s, %" PRIu64 " events, %"
					PRIu64 " lost\n", s->seq, s->trigger, when,
					(int)((s->time - (double)t) * 1000),
					s->reason[0] ? " (" : "", s->reason, s->reason[0] ? ")" : "",
					s->path, s->events, s->lost);
		}
	}
	if (supp)
		fprintf(stderr, "strobe record: %" PRIu64 " trigger%s suppressed: %" PRIu64
			" within --min-interval %g s, %" PRIu64 " after --max-snapshots %u, %" PRIu64
			" while a snapshot's --post ran\n", supp, supp == 1 ? "" : "s",
			f->suppressed_interval, o->flight_min_interval, f->suppressed_limit,
			o->flight_max_snapshots, f->suppressed_busy);
	if (f->ring_waits)
		fprintf(stderr, "strobe record: the readers waited %.3f s for snapshots being "
			"written (%" PRIu64 " times); the kernel's buffer held the events meanwhile\n",
			f->ring_wait_s, f->ring_waits);
	if (lost)
		fprintf(stderr, "strobe record: warning: the kernel lost %" PRIu64 " events "
			"(a bigger -b helps)\n", lost);
	if (!o->flight_on_exit)
		fprintf(stderr, "strobe record: %s: the recent past in memory was not kept "
			"(--snapshot-on-exit keeps it)%s\n",
			stopped_by == SIGINT ? "interrupted" : stopped_by ? "stopped" : "ended",
			f->nr_snapshots ? "" : "; no snapshot was written");
}
