/*
 * cmd-ps.c - `strobe ps [-i FILE]`: the process and container table, of
 * the live system (/proc and runtime metadata) or of a trace file (the
 * table strobe record stored, brought up to date by replaying the file's
 * events, so tasks born during the recording are listed too).
 *
 * One line per process by default, every thread with -T; host and
 * innermost-namespace PIDs side by side, the container by name.  --json
 * prints one object per task for programs.  What is wrong with a file
 * (such as its process table missing) is said as for every command that
 * reads one (cli/diag.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli.h"

static const char *const cmd = "ps";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe ps [options]\n"
		"\n"
		"List processes with their container: of this machine, or with -i, of\n"
		"a trace file (what strobe record stored, plus the tasks the recorded\n"
		"fork/exec events show; names stay known after the containers are gone).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE      a trace file instead of the live system\n"
		"  -T, --threads         one line per thread (TID column) instead of\n"
		"                        per process\n"
		"  -c, --container NAME  only tasks of this container (name, ID or ID\n"
		"                        prefix, \"host\"); repeatable\n"
		"      --json            one JSON object per task\n"
		"  -h, --help            this help\n"
		"\n"
		"Columns: PID (host), TID (-T), PPID, NSPID (PID inside the container's\n"
		"PID namespace; - unknown), COMM, CONTAINER (name; \"host\", or \"unknown\"\n"
		"for files without strobe's table), RUNTIME, ID (short container ID).\n"
		"\n"
		"Examples:\n"
		"  strobe ps                     processes and containers right now\n"
		"  strobe ps -c web -T           every thread of container web\n"
		"  strobe ps -i trace.dat --json\n");
}

struct row {
	const struct strobe_task *t;
	struct strobe_task_info info;
};

static int by_pid(const void *a, const void *b)
{
	const struct strobe_task *x = ((const struct row *)a)->t;
	const struct strobe_task *y = ((const struct row *)b)->t;
	int px = x->tgid >= 0 ? x->tgid : x->tid, py = y->tgid >= 0 ? y->tgid : y->tid;

	if (px != py)
		return px < py ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool wanted(const struct strobe_task *t, const char *const *conts, int nr)
{
	int i;

	if (!nr)
		return true;
	for (i = 0; i < nr; i++)
		if (strobe_container_matches(t->container, conts[i]))
			return true;
	return false;
}

/* Replay the file's events through the model. */
static int replay(struct strobe_model *m, struct strobe_tracefile *tf,
		  struct strobe_error *err)
{
	struct strobe_stream *s;
	struct strobe_event ev;
	int r;

	r = strobe_stream_open_file(tf, NULL, &s, err);
	if (r < 0)
		return r;
	while ((r = strobe_stream_next(s, &ev, err)) > 0) {
		strobe_tracefile_see_event(tf, &ev);
		strobe_model_update(m, &ev);
	}
	if (r == 0) {
		struct strobe_stream_stats st;

		strobe_stream_stats(s, &st);
		if (strobe_tracefile_events_done(tf, &st, NULL) < 0) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			r = err->code = -ENOMEM;
		}
	}
	strobe_stream_close(s);
	return r;
}

static void print_json(const struct row *r)
{
	const struct strobe_task *t = r->t;
	const struct strobe_container *c = t->container;
	struct strobe_buf *s;
	int i;

	s = cli_buf_new();
	strobe_buf_printf(s, "{\"pid\":%d,\"tid\":%d,\"ppid\":%d,\"nspid\":[",
			 t->tgid, t->tid, t->ppid);
	for (i = 0; i < r->info.nr_nspid; i++)
		strobe_buf_printf(s, i ? ",%d" : "%d", r->info.nspid[i]);
	strobe_buf_puts(s, "],\"comm\":");
	strobe_json_escape(s, t->comm, strlen(t->comm));
	strobe_buf_puts(s, ",\"container\":");
	strobe_json_escape(s, c->name, strlen(c->name));
	strobe_buf_printf(s, ",\"runtime\":\"%s\",\"container_id\":\"%s\"",
			 c->index == STROBE_CONTAINER_UNKNOWN ? "unknown"
							      : strobe_runtime_name(c->runtime),
			 c->id);
	if (c->pod_uid[0])
		strobe_buf_printf(s, ",\"pod_uid\":\"%s\"", c->pod_uid);
	strobe_buf_puts(s, ",\"cgroup\":");
	strobe_json_escape(s, r->info.cgroup_path, strlen(r->info.cgroup_path));
	strobe_buf_printf(s, ",\"pidns\":%" PRIu64 ",\"mntns\":%" PRIu64
			 ",\"cgroupns\":%" PRIu64 "%s}\n", t->pidns, r->info.mntns,
			 r->info.cgroupns, r->info.exited ? ",\"exited\":true" : "");
	fwrite(strobe_buf_data(s), 1, strobe_buf_len(s), stdout);
	strobe_buf_free(s);
}

static void print_text(const struct row *r, bool threads)
{
	const struct strobe_task *t = r->t;
	const struct strobe_container *c = t->container;
	char pid[16], ppid[16], nspid[16];

	snprintf(pid, sizeof(pid), t->tgid >= 0 ? "%d" : "-", t->tgid);
	snprintf(ppid, sizeof(ppid), t->ppid >= 0 ? "%d" : "-", t->ppid);
	snprintf(nspid, sizeof(nspid), "%d", threads ? t->nstid : t->nstgid);
	if ((threads ? t->nstid : t->nstgid) < 0)
		strcpy(nspid, "-");
	printf("%7s ", pid);
	if (threads)
		printf("%7d ", t->tid);
	printf("%7s %7s %-16s %-20s %-10s %s\n", ppid, nspid, t->comm, c->name,
	       c->index == STROBE_CONTAINER_UNKNOWN ? "unknown" : strobe_runtime_name(c->runtime),
	       c->short_id[0] ? c->short_id : "-");
}

int cmd_ps(int argc, char **argv)
{
	enum { OPT_JSON = 256 };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "threads", no_argument, NULL, 'T' },
		{ "container", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_model *m = NULL;
	const struct strobe_task *t;
	const char **conts = NULL;
	const char *input = NULL;
	struct row *rows = NULL;
	size_t nr = 0, cap = 0, cur = 0, i;
	bool json = false, threads = false;
	int c, nconts = 0, status = CLI_FAIL;

	conts = calloc((size_t)argc + 1, sizeof(*conts));
	if (!conts) {
		cli_error(cmd, "out of memory");
		return CLI_FAIL;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:Tc:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'T':
			threads = true;
			break;
		case 'c':
			conts[nconts++] = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage(stdout);
			status = CLI_OK;
			goto out;
		default:
			if (optopt && strchr("ic", optopt))
				cli_error(cmd, "option -%c needs an argument", optopt);
			else
				cli_error(cmd, "unknown option '%s'", argv[optind - 1]);
			fprintf(stderr, "See 'strobe ps --help'.\n");
			status = CLI_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unexpected argument '%s'", argv[optind]);
		status = CLI_USAGE;
		goto out;
	}
	if (strobe_model_new(&m, &err) < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}
	if (input) {
		if (strobe_tracefile_open(input, &tf, &err) < 0) {
			cli_error_e(cmd, &err);
			goto out;
		}
		strobe_model_set_options(m, STROBE_MODEL_KEEP_EXITED);
		if (strobe_model_load_file(m, tf, &err) < 0 || replay(m, tf, &err) < 0) {
			cli_error(cmd, "%s: %s", input, err.msg);
			goto out;
		}
	} else if (strobe_model_load_proc(m, &err) < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}

	while ((t = strobe_model_next_task(m, &cur))) {
		if (!threads && t->tgid >= 0 && t->tgid != t->tid)
			continue;
		if (t->tid == 0 || !wanted(t, conts, nconts))
			continue;
		if (nr == cap) {
			struct row *nv;

			cap = cap ? cap * 2 : 256;
			nv = realloc(rows, cap * sizeof(*nv));
			if (!nv) {
				cli_error(cmd, "out of memory");
				goto out;
			}
			rows = nv;
		}
		rows[nr++].t = t;
	}
	/* details after the walk: task_info must not run during iteration */
	for (i = 0; i < nr; i++)
		strobe_model_task_info(m, rows[i].t->tid, &rows[i].info);
	if (nr)		/* qsort(NULL, 0, ...) is undefined */
		qsort(rows, nr, sizeof(*rows), by_pid);
	if (!json) {
		printf("%7s ", "PID");
		if (threads)
			printf("%7s ", "TID");
		printf("%7s %7s %-16s %-20s %-10s %s\n", "PPID", "NSPID", "COMM", "CONTAINER",
		       "RUNTIME", "ID");
	}
	for (i = 0; i < nr; i++) {
		if (json)
			print_json(&rows[i]);
		else
			print_text(&rows[i], threads);
	}
	if (tf && json && strobe_tracefile_nr_diags(tf)) {
		struct strobe_buf *s;

		s = cli_buf_new();
		strobe_buf_puts(s, "{\"diagnostics\":");
		strobe_tracefile_write_json_diags(tf, s);
		strobe_buf_puts(s, "}\n");
		fwrite(strobe_buf_data(s), 1, strobe_buf_len(s), stdout);
		strobe_buf_free(s);
	}
	if (tf)
		cli_warn_diags(cmd, tf);
	status = CLI_OK;
out:
	free(rows);
	free(conts);
	strobe_model_free(m);
	strobe_tracefile_close(tf);
	return status;
}
