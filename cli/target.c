/*
 * target.c - what to trace, as `strobe record` takes it, shared by
 * `strobe record` and the analysis commands that run live (`strobe
 * syscalls -- CMD`, `strobe periods -c web ...`): one parser for the
 * target options (-e/-f/--preset, -o, -b, -C, -p, -c, --no-model, -d)
 * into a struct strobe_record_opts, the default buffer size, and the run
 * of strobe_record() between signal handlers that stop it cleanly (the
 * library installs none); and the events --period definitions name, for
 * the commands that run the periods analysis live (strobe periods, the
 * flight recorder's period triggers); the command after "--" and the
 * running containers' tasks, which the live tools (profile, runqlat,
 * biolatency, the snoop tools) look up the same way.
 *
 * The commands keep their own getopt loops (their other options differ)
 * and hand every option they do not know to cli_target_option().
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/model.h>

#include "cli.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;
}

/*
 * The per-CPU buffer when -b is not given.  The kernel's default (1.4 MiB)
 * loses events of the sched and syscalls presets on a 2-CPU machine whose
 * CPUs are both busy (make bench, workload "2 M getppid"); 8 MiB did not
 * lose any in the same runs.  Capped so that many-CPU machines do not
 * give the ring buffers more than 256 MiB in all.
 */
static unsigned default_buffer_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned kb = 8192;

	if (cpus > 0 && (256u << 10) / (unsigned long)cpus < kb)
		kb = (unsigned)((256u << 10) / (unsigned long)cpus);
	return kb < 1408 ? 1408 : kb;
}

int cli_target_add_event(struct cli_target *t, const char *spec)
{
	struct strobe_record_event *nv = realloc(t->ev, (t->nev + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[t->nev].spec = spec;
	nv[t->nev].filter = NULL;
	t->ev = nv;
	t->nev++;
	return 0;
}

/* Keep buf (malloc'd) until cli_target_free; NULL buf: ENOMEM. */
static int keep_buf(struct cli_target *t, char *buf)
{
	char **nb = buf ? realloc(t->bufs, (t->nbufs + 1) * sizeof(*nb)) : NULL;

	if (!nb) {
		free(buf);
		return -ENOMEM;
	}
	t->bufs = nb;
	t->bufs[t->nbufs++] = buf;
	return 0;
}

int cli_target_add_event_copy(struct cli_target *t, const char *spec)
{
	size_t i;

	for (i = 0; i < t->nev; i++)
		if (!strcmp(t->ev[i].spec, spec))
			return 0;
	if (keep_buf(t, strdup(spec)) < 0)
		return -ENOMEM;
	return cli_target_add_event(t, t->bufs[t->nbufs - 1]);
}

int cli_target_add_presets(struct cli_target *t, const char *cmd, const char *list)
{
	char *save = NULL, *tok, *buf;

	if (keep_buf(t, strdup(list)) < 0)
		return -ENOMEM;
	buf = t->bufs[t->nbufs - 1];
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strobe_preset_find(tok)) {
			cli_error(cmd, "unknown preset '%s' (see 'strobe list presets')", tok);
			return -EINVAL;
		}
		for (i = 0; i < t->nev && strcmp(t->ev[i].spec, tok); i++)
			;
		if (i == t->nev && cli_target_add_event(t, tok) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cli_target_option(struct cli_target *t, const char *cmd, int c, const char *arg)
{
	struct strobe_record_opts *o = &t->o;
	int v, e;

	switch (c) {
	case 'e':
		e = cli_target_add_event(t, arg);
		break;
	case 'f':
		if (!t->nev) {
			cli_error(cmd, "-f '%s' must follow the -e it filters", arg);
			return -EINVAL;
		}
		if (t->ev[t->nev - 1].filter) {
			cli_error(cmd, "two filters for -e '%s'", t->ev[t->nev - 1].spec);
			return -EINVAL;
		}
		t->ev[t->nev - 1].filter = arg;
		e = 0;
		break;
	case 'P':
		e = cli_target_add_presets(t, cmd, arg);
		break;
	case 'o':
		if (!*arg) {
			cli_error(cmd, "empty output file name");
			return -EINVAL;
		}
		o->output = arg;
		e = 0;
		break;
	case 'b':
		if (cli_parse_int(arg, 1, 1 << 30, &v) < 0) {
			cli_error(cmd, "bad buffer size '%s' (KiB, e.g. 4096)", arg);
			return -EINVAL;
		}
		o->buffer_kb = v;
		e = 0;
		break;
	case 'C':
		o->clock = arg;
		e = 0;
		break;
	case 'p':
		if (cli_parse_int(arg, 1, 1 << 30, &v) < 0) {
			cli_error(cmd, "bad PID '%s'", arg);
			return -EINVAL;
		}
		o->pid = v;
		e = 0;
		break;
	case 'c': {
		const char **nc = realloc(t->conts, (o->nr_containers + 1) * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		t->conts = nc;
		if (!*arg) {
			cli_error(cmd, "empty container name");
			return -EINVAL;
		}
		t->conts[o->nr_containers++] = arg;
		e = 0;
		break;
	}
	case 'M':
		o->no_model = true;
		e = 0;
		break;
	case 'd':
		if (cli_parse_seconds(arg, &o->duration) < 0 || o->duration <= 0) {
			cli_error(cmd, "bad duration '%s' (seconds, e.g. 2.5)", arg);
			return -EINVAL;
		}
		e = 0;
		break;
	default:
		return 0;	/* not a target option */
	}
	if (e == -ENOMEM)
		cli_error(cmd, "out of memory");
	if (e < 0)
		return e;
	t->given = true;
	return 1;
}

int cli_target_finish(struct cli_target *t, const char *cmd, char **argv)
{
	struct strobe_record_opts *o = &t->o;

	if (argv && argv[0]) {
		o->argv = argv;
		t->given = true;
	}
	if (!o->buffer_kb)
		o->buffer_kb = default_buffer_kb();
	if (o->argv && o->pid) {
		cli_error(cmd, "give either a command or -p PID, not both");
		return -EINVAL;
	}
	if (o->nr_containers && (o->argv || o->pid)) {
		cli_error(cmd, "give containers (-c), a command or -p PID, not two");
		return -EINVAL;
	}
	o->containers = t->conts;
	o->events = t->ev;
	o->nr_events = t->nev;
	return 0;
}

int cli_target_run(struct cli_target *t,
		   int (*run)(const struct strobe_record_opts *o, void *arg,
			      struct strobe_error *err),
		   void *arg, struct strobe_error *err)
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old[3];
	int i, r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: sleeps end early */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	stop_flag = 0;
	t->o.stop = &stop_flag;
	r = run(&t->o, arg, err);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	t->stop_signal = stop_flag;
	return r;
}

static int run_record(const struct strobe_record_opts *o, void *arg, struct strobe_error *err)
{
	return strobe_record(o, arg, err);
}

int cli_target_record(struct cli_target *t, struct strobe_record_result *res,
		      struct strobe_error *err)
{
	return cli_target_run(t, run_record, res, err);
}

void cli_target_progress(struct cli_target *t, const char *cmd, bool quiet)
{
	if (!cli_live_progress_init(&t->progress, cmd, quiet))
		return;
	t->o.on_progress = cli_live_progress;
	t->o.progress_arg = &t->progress;
}

volatile sig_atomic_t *cli_target_stop_flag(void)
{
	return &stop_flag;
}

int cli_container_pids(const char *cmd, const char *const *names, size_t n, pid_t *out)
{
	struct strobe_error err = { 0, "" };
	struct strobe_model *m = NULL;
	size_t i, cur;
	int r;

	r = strobe_model_new(&m, &err);
	if (r == 0)
		r = strobe_model_load_proc(m, &err);
	if (r < 0) {
		cli_error_e(cmd, &err);
		strobe_model_free(m);
		return r;
	}
	for (i = 0; i < n; i++) {
		const struct strobe_task *t;

		/* the oldest live task (the container's init, usually): the
		 * snapshot also holds tasks that have exited since */
		out[i] = 0;
		for (cur = 0; (t = strobe_model_next_task(m, &cur));)
			if (t->container && t->container->index >= 2 &&
			    strobe_container_matches(t->container, names[i]) &&
			    (!out[i] || t->tid < out[i]) && kill(t->tid, 0) == 0)
				out[i] = t->tid;
		if (!out[i]) {
			cli_error(cmd, "no running container '%s'", names[i]);
			strobe_model_free(m);
			return -ESRCH;
		}
	}
	strobe_model_free(m);
	return 0;
}

char **cli_split_command(int *argc, char **argv)
{
	int i;

	for (i = 1; i < *argc; i++)
		if (!strcmp(argv[i], "--")) {
			*argc = i;
			return &argv[i + 1];
		}
	return NULL;
}

char *cli_join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

void cli_target_free(struct cli_target *t)
{
	size_t k;

	free(t->ev);
	free(t->conts);
	for (k = 0; k < t->nbufs; k++)
		free(t->bufs[k]);
	free(t->bufs);
	memset(t, 0, sizeof(*t));
}

/* A live `strobe periods`: the events its definitions name are enabled
 * (the syscalls preset records syscall_entry_X / syscall_exit_X). */
struct period_events {
	struct cli_target *t;
	const char *cmd;
	const char *def;		/* the --period text */
	const struct strobe_strv *avail;	/* system:name of this kernel */
	int ret;
};

#define PERIOD_EVENTS_MAX 64	/* more: the name is too wide to enable */

static int period_event(void *arg, const char *lit, bool glob)
{
	struct period_events *pe = arg;
	char sys[128];
	size_t i, k = 0;
	int pass;

	if (!strncmp(lit, "syscall_entry_", 14) || !strncmp(lit, "syscall_exit_", 13))
		return 0;
	/* count first: a glob such as "*" would enable every event */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < pe->avail->n; i++) {
			const char *full = pe->avail->v[i], *colon = strchr(full, ':');
			size_t sl = colon ? (size_t)(colon - full) : 0;

			if (!colon || sl >= sizeof(sys))
				continue;
			memcpy(sys, full, sl);
			sys[sl] = '\0';
			if (!strobe_expr_name_matches(sys, colon + 1, lit, glob))
				continue;
			if (!pass)
				k++;
			else if (cli_target_add_event_copy(pe->t, full) < 0)
				return pe->ret = -ENOMEM;
		}
		if (!pass && !k) {
			cli_warn(pe->cmd, "--period '%.60s': this kernel has no event named '%s'",
				 pe->def, lit);
			return 0;
		}
		if (!pass && k > PERIOD_EVENTS_MAX) {
			cli_warn(pe->cmd, "--period '%.60s': '%s' names %zu events: enable those "
				 "it needs with -e", pe->def, lit, k);
			return 0;
		}
	}
	return 0;
}

static bool same_expr(const struct strobe_expr *x, const struct strobe_expr *y)
{
	char bx[512], by[512];

	return strobe_expr_print(x, bx, sizeof(bx)) < sizeof(bx) &&
	       strobe_expr_print(y, by, sizeof(by)) < sizeof(by) && !strcmp(bx, by);
}

int cli_period_events(const char *cmd, const char *const *periods, int nr_periods,
		      struct cli_target *t)
{
	struct strobe_strv avail = { 0 };
	struct strobe_error err = { 0, "" };
	struct period_events pe = { t, cmd, NULL, &avail, 0 };
	int i;

	if (strobe_events_list(NULL, &avail, &err) < 0)
		return 0;	/* the recording says why it cannot trace */
	for (i = 0; i < nr_periods && !pe.ret; i++) {
		struct strobe_period_def *d = NULL;

		if (strobe_period_def_parse(periods[i], &d, &err) < 0)
			continue;	/* checked before: cannot happen */
		pe.def = periods[i];
		if (strobe_expr_event_names(d->begin, period_event, &pe) >= 0 && d->end &&
		    !same_expr(d->begin, d->end))	/* no END_EXPR: begin's again */
			strobe_expr_event_names(d->end, period_event, &pe);
		strobe_period_def_free(d);
	}
	strobe_strv_free(&avail);
	if (pe.ret < 0)
		cli_error(cmd, "out of memory");
	return pe.ret;
}
