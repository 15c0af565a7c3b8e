/*
 * cmd-snoop.c - `strobe opensnoop` and `strobe execsnoop`: bcc's
 * one-line-per-call tools, per container.
 *
 * Each is a consumer of one pipeline (a command is a consumer, never a
 * loop of its own), fed from one of three inputs:
 *   - live with BPF (the default): the BPF source (lib/bpf, bpf.h) reads
 *     what the system-call tracepoints only point at (the path, the
 *     argument vector) and filters in the kernel by container cgroup or
 *     PID tree; its records are merged into a live recording
 *     (strobe_record with add_records, no file) whose tracefs events are
 *     only the task model's (fork, exec, exit), so the CONTAINER column
 *     and the names come from the same model as every other command.
 *     The session runs on the "mono" trace clock: the clock BPF reads,
 *     so both sources share one timeline without conversion.
 *   - live without BPF (--no-bpf, or when BPF cannot be loaded): the
 *     syscalls:sys_enter_* / sys_exit_* tracepoints of tracefs, filtered
 *     there; the columns they cannot fill (the path, the arguments) are
 *     said to be missing once, on stderr, and printed as "-".
 *   - a recording (-i FILE): its strobe_bpf:open / strobe_bpf:exec
 *     records when it holds them, else its system-call events as in the
 *     tracefs case; a file with neither is an error, never an empty
 *     result.
 *
 * Output: bcc's columns plus CONTAINER, one line per call as it comes,
 * or JSON lines (--json) with every field, argv as an array.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include <strobe/model.h>
#include <strobe/bpf.h>

#include "cli.h"

enum tool { T_OPEN, T_EXEC };

/* fields of one event kind, resolved once per format */
struct kind_fields {
	const struct strobe_format *fmt;
	struct strobe_field tgid, uid, ret, flags, dfd, comm, path, ppid, argc, cut, args,
		fname, argv;
	int role;		/* R_* */
};
enum { R_NONE, R_BPF, R_ENTER, R_EXIT };

/* a tracefs-only open or exec between its entry and exit, by thread */
struct pending {
	int tid;
	uint64_t flags;
	int64_t dfd;
};
#define PENDING 4096

struct snoop {
	const char *cmd;
	enum tool tool;
	bool json, times, uids, failed_only, bpf;
	const char *name;		/* -n */
	struct strobe_formats *fmts;
	struct strobe_model *model;
	struct kind_fields kf[8];
	int nkf;
	struct pending pend[PENDING];
	uint64_t t0;
	uint64_t rows, seen_bpf, seen_sys;
	struct strobe_buf *out;
	bool out_failed;
	bool header_done;
	bool missing_said;
};

static const char *errname(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

static struct kind_fields *fields_of(struct snoop *s, const struct strobe_format *fmt)
{
	struct kind_fields *k;
	const char *sys, *name;
	int i;

	for (i = 0; i < s->nkf; i++)
		if (s->kf[i].fmt == fmt)
			return &s->kf[i];
	if (s->nkf == (int)(sizeof(s->kf) / sizeof(s->kf[0])))
		return NULL;
	k = &s->kf[s->nkf++];
	memset(k, 0, sizeof(*k));
	k->fmt = fmt;
	sys = strobe_format_system(fmt);
	name = strobe_format_name(fmt);
	if (!strcmp(sys, "strobe_bpf") &&
	    !strcmp(name, s->tool == T_OPEN ? "open" : "exec")) {
		k->role = R_BPF;
	} else if (!strcmp(sys, "syscalls")) {
		static const char *const open_calls[] = { "openat", "openat2", "open", "creat",
							  NULL };
		static const char *const exec_calls[] = { "execve", "execveat", NULL };
		const char *const *c = s->tool == T_OPEN ? open_calls : exec_calls;

		for (; *c; c++) {
			if (!strncmp(name, "sys_enter_", 10) && !strcmp(name + 10, *c))
				k->role = R_ENTER;
			else if (!strncmp(name, "sys_exit_", 9) && !strcmp(name + 9, *c))
				k->role = R_EXIT;
		}
	}
	strobe_field_resolve(fmt, "tgid", &k->tgid);
	strobe_field_resolve(fmt, "uid", &k->uid);
	strobe_field_resolve(fmt, "ret", &k->ret);
	strobe_field_resolve(fmt, "flags", &k->flags);
	strobe_field_resolve(fmt, "dfd", &k->dfd);
	strobe_field_resolve(fmt, "comm", &k->comm);
	strobe_field_resolve(fmt, "path", &k->path);
	strobe_field_resolve(fmt, "ppid", &k->ppid);
	strobe_field_resolve(fmt, "argc", &k->argc);
	strobe_field_resolve(fmt, "cut", &k->cut);
	strobe_field_resolve(fmt, "args", &k->args);
	return k;
}

static struct pending *pending_of(struct snoop *s, int tid)
{
	return &s->pend[(unsigned)tid % PENDING];
}

/* One row's values, whichever input gave them. */
struct row {
	uint64_t ts;
	int pid, tid, ppid;
	int64_t uid;		/* -1 unknown */
	int64_t ret;
	uint64_t flags;
	bool has_flags;
	const char *comm;
	const char *container;
	const char *path;	/* NULL: not known (tracefs) */
	uint32_t path_len;
	const char *args;	/* NUL-separated; NULL: not known */
	uint32_t args_len;
	int argc;
	bool cut;
};

static void put_str(struct snoop *s, const char *p, size_t n)
{
	size_t i;

	/* a terminal gets no control characters from a traced program */
	for (i = 0; i < n && p[i]; i++)
		strobe_buf_putc(s->out, (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i]);
}

static void header(struct snoop *s)
{
	if (s->json || s->header_done)
		return;
	s->header_done = true;
	if (s->times)
		strobe_buf_printf(s->out, "%-9s ", "TIME(s)");
	if (s->uids)
		strobe_buf_printf(s->out, "%-6s ", "UID");
	if (s->tool == T_OPEN)
		strobe_buf_printf(s->out, "%-7s %-16s %-16s %4s %-8s %s\n", "PID", "COMM",
				  "CONTAINER", "FD", "ERR", "PATH");
	else
		strobe_buf_printf(s->out, "%-16s %-7s %-7s %-16s %4s %s\n", "PCOMM", "PID",
				  "PPID", "CONTAINER", "RET", "ARGS");
}

static int emit(struct snoop *s, const struct row *r)
{
	double t;

	if (s->failed_only && r->ret >= 0)
		return 0;
	if (s->name && (!r->comm || !strstr(r->comm, s->name)))
		return 0;
	if (!s->t0)
		s->t0 = r->ts;
	t = (double)(r->ts - s->t0) / 1e9;
	s->rows++;
	if (s->json) {
		strobe_buf_printf(s->out, "{\"time\":%.6f,\"pid\":%d,\"tid\":%d", t, r->pid, r->tid);
		if (s->tool == T_EXEC)
			strobe_buf_printf(s->out, ",\"ppid\":%d", r->ppid);
		if (r->uid >= 0)
			strobe_buf_printf(s->out, ",\"uid\":%lld", (long long)r->uid);
		strobe_buf_puts(s->out, ",\"comm\":");
		strobe_json_escape(s->out, r->comm, strlen(r->comm));
		strobe_buf_puts(s->out, ",\"container\":");
		strobe_json_escape(s->out, r->container, strlen(r->container));
		strobe_buf_printf(s->out, ",\"ret\":%lld", (long long)r->ret);
		if (r->ret < 0 && r->ret > -4096)
			strobe_buf_printf(s->out, ",\"errno\":\"%s\"", errname((int)-r->ret));
		if (s->tool == T_OPEN) {
			if (r->ret >= 0)
				strobe_buf_printf(s->out, ",\"fd\":%lld", (long long)r->ret);
			if (r->has_flags)
				strobe_buf_printf(s->out, ",\"flags\":%llu",
						  (unsigned long long)r->flags);
			strobe_buf_puts(s->out, ",\"path\":");
			if (r->path)
				strobe_json_escape(s->out, r->path, strnlen(r->path, r->path_len));
			else
				strobe_buf_puts(s->out, "null");
		} else {
			strobe_buf_puts(s->out, ",\"argv\":");
			if (r->args) {
				uint32_t off = 0;
				int i;

				strobe_buf_putc(s->out, '[');
				for (i = 0; i < r->argc && off < r->args_len; i++) {
					size_t n = strnlen(r->args + off, r->args_len - off);

					if (i)
						strobe_buf_putc(s->out, ',');
					strobe_json_escape(s->out, r->args + off, n);
					off += (uint32_t)n + 1;
				}
				strobe_buf_printf(s->out, "],\"cut\":%s", r->cut ? "true" : "false");
			} else {
				strobe_buf_puts(s->out, "null");
			}
		}
		strobe_buf_puts(s->out, "}\n");
	} else {
		header(s);
		if (s->times)
			strobe_buf_printf(s->out, "%-9.3f ", t);
		if (s->uids) {
			if (r->uid >= 0)
				strobe_buf_printf(s->out, "%-6lld ", (long long)r->uid);
			else
				strobe_buf_printf(s->out, "%-6s ", "-");
		}
		if (s->tool == T_OPEN) {
			strobe_buf_printf(s->out, "%-7d %-16s %-16s %4lld %-8s ", r->pid, r->comm,
					  r->container, (long long)(r->ret >= 0 ? r->ret : -1),
					  r->ret >= 0 ? "0" : errname((int)-r->ret));
			if (r->path)
				put_str(s, r->path, r->path_len);
			else
				strobe_buf_putc(s->out, '-');
		} else {
			strobe_buf_printf(s->out, "%-16s %-7d %-7d %-16s %4lld ", r->comm, r->pid,
					  r->ppid, r->container, (long long)r->ret);
			if (r->args) {
				uint32_t off = 0;
				int i;

				for (i = 0; i < r->argc && off < r->args_len; i++) {
					size_t n = strnlen(r->args + off, r->args_len - off);

					if (i)
						strobe_buf_putc(s->out, ' ');
					put_str(s, r->args + off, n);
					off += (uint32_t)n + 1;
				}
				if (r->cut)
					strobe_buf_puts(s->out, " ...");
			} else {
				strobe_buf_putc(s->out, '-');
			}
		}
		strobe_buf_putc(s->out, '\n');
	}
	/* one line at a time: a snoop streams */
	if (!cli_flush(s->out))
		return -EPIPE;
	return 0;
}

static void task_facts(struct snoop *s, int tid, struct row *r)
{
	const struct strobe_task *t = s->model ? strobe_model_task(s->model, tid) : NULL;

	r->container = t && t->container ? t->container->name : "-";
	if (!r->comm)
		r->comm = t ? t->comm : "?";
	if (t && r->pid <= 0)
		r->pid = t->tgid > 0 ? t->tgid : tid;
	if (t && r->ppid <= 0)
		r->ppid = t->ppid;
	/* a task the model has not placed yet (its fork not seen before its
	 * record: an exec right after fork) is in its parent's container */
	if ((!t || !t->container || t->container->index == 0) && r->ppid > 0 && s->model) {
		const struct strobe_task *pt = strobe_model_task(s->model, r->ppid);

		if (pt && pt->container && pt->container->index != 0)
			r->container = pt->container->name;
	}
}

static int snoop_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		       struct strobe_error *err)
{
	struct snoop *s = arg;

	s->fmts = nr > 0 ? src[0].formats : NULL;
	s->model = nr > 0 ? src[0].model : NULL;
	return 0;
}

static int snoop_event(const struct strobe_event *ev, int source, void *arg,
		       struct strobe_error *err)
{
	struct snoop *s = arg;
	struct kind_fields *k;
	struct pending *p;
	struct row r;
	char comm[17];
	uint32_t n;
	const char *c;

	if (!ev->format || !(k = fields_of(s, ev->format)) || k->role == R_NONE)
		return 0;
	memset(&r, 0, sizeof(r));
	r.ts = ev->ts;
	r.tid = ev->pid;
	r.uid = -1;
	switch (k->role) {
	case R_BPF:
		s->seen_bpf++;
		r.pid = (int)strobe_field_int(ev, &k->tgid);
		r.uid = (int64_t)strobe_field_uint(ev, &k->uid);
		r.ret = strobe_field_int(ev, &k->ret);
		c = strobe_field_str(ev, &k->comm, &n);
		snprintf(comm, sizeof(comm), "%.*s", c ? (int)strnlen(c, n) : 0, c ? c : "");
		r.comm = comm;
		if (s->tool == T_OPEN) {
			r.flags = strobe_field_uint(ev, &k->flags);
			r.has_flags = true;
			r.path = strobe_field_str(ev, &k->path, &r.path_len);
			if (!r.path) {
				r.path = "";
				r.path_len = 0;
			}
		} else {
			r.ppid = (int)strobe_field_int(ev, &k->ppid);
			r.argc = (int)strobe_field_uint(ev, &k->argc);
			r.cut = strobe_field_uint(ev, &k->cut) != 0;
			r.args = strobe_field_str(ev, &k->args, &r.args_len);
			if (!r.args)
				r.args_len = 0, r.args = "";
		}
		task_facts(s, r.tid, &r);
		return emit(s, &r);
	case R_ENTER:
		s->seen_sys++;
		p = pending_of(s, ev->pid);
		p->tid = ev->pid;
		p->flags = 0;
		p->dfd = 0;
		if (s->tool == T_OPEN) {
			struct strobe_field f;

			if (!strobe_field_resolve(ev->format, "flags", &f))
				p->flags = strobe_field_uint(ev, &f);
		}
		return 0;
	case R_EXIT:
		p = pending_of(s, ev->pid);
		if (p->tid != ev->pid)
			return 0;	/* its entry came before the start */
		p->tid = 0;
		r.ret = strobe_field_int(ev, &k->ret);
		if (s->tool == T_OPEN) {
			r.flags = p->flags;
			r.has_flags = true;
		}
		task_facts(s, r.tid, &r);
		return emit(s, &r);
	}
	return 0;
}

/* ---- the command ------------------------------------------------------------ */

static void usage(FILE *f, const char *cmd, enum tool tool)
{
	fprintf(f,
		"usage: strobe %s [options] [-- COMMAND [ARGS...]]\n"
		"       strobe %s -i FILE [options]\n"
		"\n"
		"%s\n"
		"\n"
		"Options:\n"
		"  -c, --container NAME|ID  only this container (repeatable)\n"
		"  -p, --pid PID            only this process and its children from now on\n"
		"  -x, --failed             only calls that failed\n"
		"  -T, --timestamp          a TIME(s) column: seconds since the first row\n"
		"  -U, --print-uid          a UID column\n"
		"  -n, --name NAME          only tasks whose name contains NAME\n"
		"  -d, --duration SECONDS   stop after this long\n"
		"      --json               JSON lines: one call per line\n"
		"      --no-bpf             tracefs only (no %s)\n"
		"  -i, --input FILE         read a recording instead of tracing\n"
		"  -h, --help               this help\n"
		"\n"
		"Examples:\n"
		"  strobe %s -c web           every %s in container web\n"
		"  strobe %s -x --json -- make   failed ones of a build, as JSON\n",
		cmd, cmd,
		tool == T_OPEN ? "One line per open(2), openat(2), openat2(2) or creat(2): the process,\n"
				 "its container, the file descriptor or error, and the path."
			       : "One line per execve(2) or execveat(2): the process, its parent, its\n"
				 "container, the return value and the whole argument vector.",
		tool == T_OPEN ? "paths" : "argument vectors",
		cmd, tool == T_OPEN ? "open" : "exec", cmd);
}

/* The formats of the BPF records, and the BPF source, for the recording. */
struct bpf_ctx {
	struct strobe_bpf *b;
	bool pids;
};

static int add_records(struct strobe_formats *f, pid_t child, struct strobe_record_source *rs,
		       void *arg, struct strobe_error *err)
{
	struct bpf_ctx *bc = arg;
	int r;

	if (bc->pids && child > 0) {
		r = strobe_bpf_add_pid(bc->b, child, err);
		if (r < 0)
			return r;
	}
	r = strobe_bpf_declare(bc->b, f, err);
	if (r < 0)
		return r;
	strobe_bpf_records(bc->b, rs);
	return 0;
}

/* A task of each -c container (for its cgroup), from a /proc snapshot. */
static int container_tasks(const char *cmd, const char *const *names, size_t n, pid_t *out)
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

static int run_file(struct snoop *s, const char *path, bool strict)
{
	struct strobe_consumer c = {
		.size = sizeof(c), .name = s->cmd, .flags = STROBE_CONSUMER_MODEL,
		.start = snoop_start, .event = snoop_event, .arg = s,
	};
	struct strobe_error err = { 0, "" };
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	int r;

	r = strobe_tracefile_open(path, &tf, &err);
	if (r < 0) {
		cli_error(s->cmd, "cannot open '%s': %s", path, err.msg);
		return CLI_FAIL;
	}
	r = strobe_pipeline_new(&po, &p, &err);
	if (r >= 0)
		r = strobe_pipeline_add_file(p, tf, NULL, &err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(p, &c, &err);
	if (r >= 0)
		r = strobe_pipeline_run(p, &err);
	if (r < 0 && r != -EPIPE)
		cli_error_e(s->cmd, &err);
	if (r >= 0 && cli_pipeline_diags(s->cmd, p, strict) < 0)
		r = -EBADMSG;
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	if (r < 0)
		return CLI_FAIL;
	if (!s->seen_bpf && !s->seen_sys) {
		cli_error(s->cmd, "'%s' holds no %s records nor syscalls:sys_enter_%s events: "
			  "nothing to show", path, s->tool == T_OPEN ? "strobe_bpf:open"
			  : "strobe_bpf:exec", s->tool == T_OPEN ? "openat" : "execve");
		return CLI_FAIL;
	}
	if (!s->seen_bpf && !s->json)
		cli_warn(s->cmd, "'%s' holds system-call events only: %s are not known",
			 path, s->tool == T_OPEN ? "paths" : "argument vectors");
	return CLI_OK;
}

static int snoop_main(const char *cmd, enum tool tool, int argc, char **argv)
{
	enum { O_JSON = 256, O_NO_BPF, O_STRICT };
	static const struct option longopts[] = {
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "failed", no_argument, NULL, 'x' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "print-uid", no_argument, NULL, 'U' },
		{ "name", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, O_JSON },
		{ "no-bpf", no_argument, NULL, O_NO_BPF },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_target t;
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	struct bpf_ctx bc = { NULL, false };
	struct strobe_consumer c = {
		.size = sizeof(c), .name = cmd, .flags = STROBE_CONSUMER_MODEL,
		.start = snoop_start, .event = snoop_event,
	};
	struct snoop *s;
	const char *input = NULL;
	bool no_bpf = false, strict = false;
	char **target_argv = NULL;
	int ch, r, ret = CLI_FAIL, i;

	s = calloc(1, sizeof(*s));
	if (!s) {
		cli_error(cmd, "out of memory");
		return CLI_FAIL;
	}
	s->cmd = cmd;
	s->tool = tool;
	memset(&t, 0, sizeof(t));
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			target_argv = &argv[i + 1];
			argc = i;
			break;
		}
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+c:p:xTUn:d:i:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'x':
			s->failed_only = true;
			break;
		case 'T':
			s->times = true;
			break;
		case 'U':
			s->uids = true;
			break;
		case 'n':
			s->name = optarg;
			break;
		case O_JSON:
			s->json = true;
			break;
		case O_NO_BPF:
			no_bpf = true;
			break;
		case O_STRICT:
			strict = true;
			break;
		case 'i':
			input = optarg;
			break;
		case 'h':
			usage(stdout, cmd, tool);
			ret = CLI_OK;
			goto out;
		case 'c':
		case 'p':
		case 'd':
			r = cli_target_option(&t, cmd, ch, optarg);
			if (r < 0) {
				ret = CLI_USAGE;
				goto out;
			}
			break;
		default:
			usage(stderr, cmd, tool);
			ret = CLI_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		ret = CLI_USAGE;
		goto out;
	}
	if (target_argv && !target_argv[0]) {
		cli_error(cmd, "no command after --");
		ret = CLI_USAGE;
		goto out;
	}
	s->out = cli_buf_new();
	if (input) {
		if (t.given || target_argv) {
			cli_error(cmd, "-i reads a recording: no -c, -p, -d or command with it");
			ret = CLI_USAGE;
			goto out;
		}
		ret = run_file(s, input, strict);
		goto out;
	}
	if (cli_target_finish(&t, cmd, target_argv) < 0) {
		ret = CLI_USAGE;
		goto out;
	}
	t.o.no_output = true;
	t.o.buffer_kb = 1024;
	s->bpf = !no_bpf;
	if (s->bpf) {
		pid_t cg[STROBE_BPF_CGROUPS_MAX];
		struct strobe_bpf_opts bo = {
			.size = sizeof(bo),
			.programs = tool == T_OPEN ? STROBE_BPF_OPEN : STROBE_BPF_EXEC,
			.clock = "mono", .failed_only = s->failed_only,
		};

		if (t.o.nr_containers > STROBE_BPF_CGROUPS_MAX) {
			cli_error(cmd, "at most %d containers", STROBE_BPF_CGROUPS_MAX);
			goto out;
		}
		if (t.o.nr_containers) {
			if (container_tasks(cmd, t.o.containers, t.o.nr_containers, cg) < 0)
				goto out;
			bo.cgroup_of = cg;
			bo.nr_cgroup_of = t.o.nr_containers;
		}
		bo.pids = t.o.pid > 0 || t.o.argv;
		r = strobe_bpf_open(&bo, &bc.b, &err);
		if (r == 0 && t.o.pid > 0)
			r = strobe_bpf_add_pid(bc.b, t.o.pid, &err);
		if (r < 0) {
			/* the tracefs fallback, said once */
			cli_warn(cmd, "BPF unavailable (%s): tracing with tracefs only, "
				 "without %s", err.msg, tool == T_OPEN ? "paths" : "argument vectors");
			strobe_bpf_close(bc.b);
			bc.b = NULL;
			s->bpf = false;
		}
		bc.pids = bo.pids;
	} else {
		cli_warn(cmd, "--no-bpf: tracefs only, without %s",
			 tool == T_OPEN ? "paths" : "argument vectors");
	}
	if (s->bpf) {
		/* only the model's events from tracefs: the calls come from BPF */
		cli_target_add_event(&t, "sched:sched_process_fork");
		t.o.clock = "mono";
		t.o.add_records = add_records;
		t.o.records_arg = &bc;
	} else if (tool == T_OPEN) {
		cli_target_add_event(&t, "syscalls:sys_enter_openat");
		cli_target_add_event(&t, "syscalls:sys_exit_openat");
		if (s->failed_only)
			t.ev[t.nev - 1].filter = "ret < 0";
	} else {
		cli_target_add_event(&t, "syscalls:sys_enter_execve");
		cli_target_add_event(&t, "syscalls:sys_exit_execve");
		if (s->failed_only)
			t.ev[t.nev - 1].filter = "ret < 0";
	}
	t.o.events = t.ev;
	t.o.nr_events = t.nev;
	c.arg = s;
	t.o.consumers = &c;
	t.o.nr_consumers = 1;
	r = cli_target_record(&t, &res, &err);
	if (r < 0) {
		if (r != -EPIPE)
			cli_error_e(cmd, &err);
		strobe_record_result_free(&res);
		goto out;
	}
	if (bc.b) {
		struct strobe_bpf_stats st;

		strobe_bpf_stats(bc.b, &st);
		if (st.lost)
			cli_warn(cmd, "%llu calls lost: the BPF ring buffer was full",
				 (unsigned long long)st.lost);
	}
	strobe_record_result_free(&res);
	ret = CLI_OK;
out:
	strobe_bpf_close(bc.b);
	if (s->out)
		strobe_buf_free(s->out);
	cli_target_free(&t);
	free(s);
	return ret;
}

int cmd_opensnoop(int argc, char **argv)
{
	return snoop_main("opensnoop", T_OPEN, argc, argv);
}

int cmd_execsnoop(int argc, char **argv)
{
	return snoop_main("execsnoop", T_EXEC, argc, argv);
}
