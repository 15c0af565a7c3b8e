/*
 * cmd-ps.c - `strobe ps [-i FILE]...`: the process and container table,
 * of the live system (/proc and runtime metadata) or of trace files (the
 * table strobe record stored, brought up to date by replaying the file's
 * events through a pipeline, whose task model per source this command
 * only reads: it is a consumer with nothing to do per event).
 *
 * One line per process by default, every thread with -T; host and
 * innermost-namespace PIDs side by side, the container by name.  Several
 * files are several hosts: a HOST column first (a "host" key in JSON),
 * rows by host, then PID.  --json prints one object per task for
 * programs.  What is wrong with a file is said as for every command that
 * reads one (strobe-damage(7), cli/diag.c), and --strict fails on damage.
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
		"Several -i list several hosts, with a HOST column.\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE      a trace file instead of the live system;\n"
		"                        repeatable (one host per file)\n"
		"  -T, --threads         one line per thread (TID column) instead of\n"
		"                        per process\n"
		"  -c, --container NAME  only tasks of this container (name, ID or ID\n"
		"                        prefix, \"host\"); repeatable\n"
		"      --json            one JSON object per task\n"
		"      --strict          fail on damaged data in a file instead of\n"
		"                        skipping it with a warning (strobe-damage(7))\n"
		"  -h, --help            this help\n"
		"\n"
		"Columns: PID (host), TID (-T), PPID, NSPID (PID inside the container's\n"
		"PID namespace; - unknown), COMM, CONTAINER (name; \"host\", or \"unknown\"\n"
		"for files without strobe's table), RUNTIME, ID (short container ID).\n"
		"\n"
		"Examples:\n"
		"  strobe ps                     processes and containers right now\n"
		"  strobe ps -c web -T           every thread of container web\n"
		"  strobe ps -i trace.dat --json\n"
		"  strobe ps -i web1.dat -i web2.dat -c web\n");
}

struct row {
	const struct strobe_task *t;
	struct strobe_task_info info;
	int host;		/* its source (several files), else 0 */
};

static int by_pid(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;
	const struct strobe_task *x = ra->t, *y = rb->t;
	int px = x->tgid >= 0 ? x->tgid : x->tid, py = y->tgid >= 0 ? y->tgid : y->tid;

	if (ra->host != rb->host)
		return ra->host < rb->host ? -1 : 1;
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

/* The pipeline updates each source's model before any consumer sees an
 * event: ps has nothing more to do per event. */
static int on_event(const struct strobe_event *ev, int source, void *arg,
		    struct strobe_error *err)
{
	return 0;
}

/*
 * Replay the files' events through their models (models[i] for file i,
 * the same file given twice is one source: *nr_src says how many) in one
 * pipeline.  An exit status (messages printed); *p the pipeline (its
 * diagnostics and hosts), to free.
 */
static int replay(struct strobe_tracefile **tfs, const char **paths, int n,
		  struct strobe_model **models, bool strict, struct strobe_pipeline **p,
		  int *nr_src)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };
	struct strobe_consumer c = {
		.size = sizeof(c), .name = "ps", .flags = STROBE_CONSUMER_MODEL,
		.event = on_event,
	};
	struct strobe_error err = { 0, "" };
	int i, src;

	if (strobe_pipeline_new(&po, p, &err) < 0) {
		cli_error_e(cmd, &err);
		return CLI_FAIL;
	}
	for (i = 0; i < n; i++) {
		src = strobe_pipeline_add_file(*p, tfs[i], NULL, &err);
		if (src < 0) {
			cli_error(cmd, "%s: %s", paths[i], err.msg);
			return CLI_FAIL;
		}
		if (src == strobe_pipeline_nr_sources(*p) - 1 &&
		    strobe_pipeline_set_model(*p, src, models[i], &err) < 0) {
			cli_error_e(cmd, &err);
			return CLI_FAIL;
		}
	}
	*nr_src = strobe_pipeline_nr_sources(*p);
	if (strobe_pipeline_add_consumer(*p, &c, &err) < 0 ||
	    strobe_pipeline_run(*p, &err) < 0) {
		cli_error_e(cmd, &err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

static void print_json(const struct row *r, const char *host)
{
	const struct strobe_task *t = r->t;
	const struct strobe_container *c = t->container;
	struct strobe_buf *s;
	int i;

	s = cli_buf_new();
	if (host) {
		strobe_buf_puts(s, "{\"host\":");
		strobe_json_escape(s, host, strlen(host));
		strobe_buf_puts(s, ",");
	} else {
		strobe_buf_puts(s, "{");
	}
	strobe_buf_printf(s, "\"pid\":%d,\"tid\":%d,\"ppid\":%d,\"nspid\":[",
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

static void print_text(const struct row *r, bool threads, const char *host, int host_w)
{
	const struct strobe_task *t = r->t;
	const struct strobe_container *c = t->container;
	char pid[16], ppid[16], nspid[16];

	if (host)
		printf("%-*s ", host_w, host);
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

/* Append the wanted tasks of model m (host index h) to *rows.  0 or -ENOMEM. */
static int collect(struct strobe_model *m, int h, bool threads, const char *const *conts,
		   int nconts, struct row **rows, size_t *nr, size_t *cap)
{
	const struct strobe_task *t;
	size_t cur = 0, first = *nr, i;

	while ((t = strobe_model_next_task(m, &cur))) {
		if (!threads && t->tgid >= 0 && t->tgid != t->tid)
			continue;
		if (t->tid == 0 || !wanted(t, conts, nconts))
			continue;
		if (*nr == *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			struct row *nv = realloc(*rows, ncap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			*rows = nv;
			*cap = ncap;
		}
		(*rows)[*nr].t = t;
		(*rows)[*nr].host = h;
		(*nr)++;
	}
	/* details after the walk: task_info must not run during iteration */
	for (i = first; i < *nr; i++)
		strobe_model_task_info(m, (*rows)[i].t->tid, &(*rows)[i].info);
	return 0;
}

/* The files' diagnostics as JSON lines {"diagnostics":[...]} (with a
 * "host" key when there are several). */
static void json_diags(const struct strobe_pipeline *p, int nr_src)
{
	const struct strobe_pipeline_source *src;
	struct strobe_buf *s;
	int i;

	for (i = 0; i < nr_src; i++) {
		src = strobe_pipeline_source(p, i);
		if (!src || !strobe_tracefile_nr_diags(src->tf))
			continue;
		s = cli_buf_new();
		strobe_buf_puts(s, "{");
		if (nr_src > 1) {
			strobe_buf_puts(s, "\"host\":");
			strobe_json_escape(s, src->host, strlen(src->host));
			strobe_buf_puts(s, ",");
		}
		strobe_buf_puts(s, "\"diagnostics\":");
		strobe_tracefile_write_json_diags(src->tf, s);
		strobe_buf_puts(s, "}\n");
		fwrite(strobe_buf_data(s), 1, strobe_buf_len(s), stdout);
		strobe_buf_free(s);
	}
}

int cmd_ps(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_STRICT };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "threads", no_argument, NULL, 'T' },
		{ "container", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile **tfs = NULL;
	struct strobe_model **models = NULL;
	struct strobe_pipeline *p = NULL;
	const char **conts = NULL, **inputs = NULL;
	struct row *rows = NULL;
	size_t nr = 0, cap = 0, i;
	bool json = false, threads = false, strict = false;
	int c, nconts = 0, ninputs = 0, nr_src = 0, host_w = 4, status = CLI_FAIL, k;

	conts = calloc((size_t)argc + 1, sizeof(*conts));
	inputs = calloc((size_t)argc + 1, sizeof(*inputs));
	if (!conts || !inputs) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:Tc:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			inputs[ninputs++] = optarg;
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
		case OPT_STRICT:
			strict = true;
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
	models = calloc((size_t)(ninputs ? ninputs : 1), sizeof(*models));
	tfs = calloc((size_t)(ninputs ? ninputs : 1), sizeof(*tfs));
	if (!models || !tfs) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	for (k = 0; k < (ninputs ? ninputs : 1); k++) {
		if (strobe_model_new(&models[k], &err) < 0) {
			cli_error_e(cmd, &err);
			goto out;
		}
	}
	if (ninputs) {
		for (k = 0; k < ninputs; k++) {
			if (strobe_tracefile_open(inputs[k], &tfs[k], &err) < 0) {
				cli_error_e(cmd, &err);
				goto out;
			}
			strobe_model_set_options(models[k], STROBE_MODEL_KEEP_EXITED);
			if (strobe_model_load_file(models[k], tfs[k], &err) < 0) {
				cli_error(cmd, "%s: %s", inputs[k], err.msg);
				goto out;
			}
		}
		status = replay(tfs, inputs, ninputs, models, strict, &p, &nr_src);
		if (status != CLI_OK)
			goto out;
		status = CLI_FAIL;
	} else if (strobe_model_load_proc(models[0], &err) < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}

	/* one model per host: the pipeline's sources (a file given twice is
	 * one), else the live system's */
	for (k = 0; k < (p ? nr_src : 1); k++) {
		struct strobe_model *m = p ? strobe_pipeline_source(p, k)->model : models[0];

		if (collect(m, k, threads, conts, nconts, &rows, &nr, &cap) < 0) {
			cli_error(cmd, "out of memory");
			goto out;
		}
		if (nr_src > 1 && (int)strlen(strobe_pipeline_source(p, k)->host) > host_w)
			host_w = (int)strlen(strobe_pipeline_source(p, k)->host);
	}
	if (nr)		/* qsort(NULL, 0, ...) is undefined */
		qsort(rows, nr, sizeof(*rows), by_pid);
	if (!json) {
		if (nr_src > 1)
			printf("%-*s ", host_w, "HOST");
		printf("%7s ", "PID");
		if (threads)
			printf("%7s ", "TID");
		printf("%7s %7s %-16s %-20s %-10s %s\n", "PPID", "NSPID", "COMM", "CONTAINER",
		       "RUNTIME", "ID");
	}
	for (i = 0; i < nr; i++) {
		const char *host = nr_src > 1 ? strobe_pipeline_source(p, rows[i].host)->host : NULL;

		if (json)
			print_json(&rows[i], host);
		else
			print_text(&rows[i], threads, host, host_w);
	}
	if (p && json)
		json_diags(p, nr_src);
	fflush(stdout);
	/* the policy's ending: each diagnostic once (strict: damage fails) */
	status = p ? cli_pipeline_diags(cmd, p, strict) : CLI_OK;
out:
	free(rows);
	free(conts);
	strobe_pipeline_free(p);
	for (k = 0; models && k < (ninputs ? ninputs : 1); k++)
		strobe_model_free(models[k]);
	for (k = 0; tfs && k < ninputs; k++)
		strobe_tracefile_close(tfs[k]);
	free(models);
	free(tfs);
	free(inputs);
	return status;
}
