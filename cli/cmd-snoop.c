/*
 * cmd-snoop.c - `strobe opensnoop`, `strobe execsnoop`, `strobe syncsnoop`
 * and `strobe tcpretrans`: bcc's one-line-per-event tools, per container.
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
 *     syscalls:sys_enter_* / sys_exit_* tracepoints of tracefs (for
 *     tcpretrans tcp:tcp_retransmit_skb), filtered there; the columns
 *     they cannot fill (the path, the arguments, the file synced, the
 *     socket's container) are said to be missing once, on stderr, and
 *     printed as "-".
 *   - a recording (-i FILE): its strobe_bpf:* records when it holds them,
 *     else its tracefs events as in the tracefs case; a file with
 *     neither is an error, never an empty result.
 * Live, -o FILE keeps what was watched: the recording gets that file as
 * its output, the BPF records stored in its strobe_bpf buffer (record.h,
 * add_records), so `-i FILE` later prints the same rows.
 *
 * A retransmission runs in a timer or a softirq, in no particular task's
 * context: tcpretrans's CONTAINER is the socket's cgroup (the BPF record
 * carries its id), found under the cgroup v2 mount and named like the
 * model names containers.
 *
 * Output: bcc's columns plus CONTAINER, one line per call as it comes,
 * or JSON lines (--json) with every field, argv as an array.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
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

enum tool { T_OPEN, T_EXEC, T_SYNC, T_TCP };

/* Each tool's BPF record, tracefs system calls (NULL: a tracepoint of
 * its own), what tracefs alone lacks. */
static const struct tool_info {
	const char *record;	/* strobe_bpf:NAME */
	unsigned program;	/* STROBE_BPF_* */
	const char *const *calls;
	const char *missing;
	const char *column;	/* ... and its column */
} tools[] = {
	[T_OPEN] = { "open", STROBE_BPF_OPEN,
		     (const char *const[]){ "openat", "openat2", "open", "creat", NULL },
		     "paths", "PATH" },
	[T_EXEC] = { "exec", STROBE_BPF_EXEC,
		     (const char *const[]){ "execve", "execveat", NULL },
		     "argument vectors", "ARGS" },
	[T_SYNC] = { "sync", STROBE_BPF_SYNC,
		     (const char *const[]){ "fsync", "fdatasync", "sync", "syncfs", "msync",
					    "sync_file_range", NULL },
		     "the files synced (FILE)", "FILE" },
	[T_TCP] = { "tcp_retransmit", STROBE_BPF_TCP, NULL,
		    "the sockets' containers (CONTAINER: a retransmission runs in a timer's "
		    "or softirq's context, not its owner's)", "CONTAINER" },
};

/* strobe_bpf:sync's call numbers (bpf.h) */
static const char *const sync_calls[] = { "fsync", "fdatasync", "sync", "syncfs", "msync",
					  "sync_file_range" };

/* fields of one event kind, resolved once per format */
struct kind_fields {
	const struct strobe_format *fmt;
	struct strobe_field tgid, uid, ret, flags, dfd, comm, path, ppid, argc, cut, args,
		lat, call, fd, start, state, family, sport, dport, saddr, daddr, saddr6, daddr6, s6lo, d6lo,
		cgroup, netns, tcp_err;
	int role;		/* R_* */
	int callno;		/* tracefs sync calls: which (sync_calls) */
};
enum { R_NONE, R_BPF, R_ENTER, R_EXIT, R_TCP };

/* a tracefs-only call between its entry and exit, by thread */
struct pending {
	int tid;
	uint64_t flags;
	int64_t dfd;
	uint64_t ts;
	int64_t fd;
	int callno;
};
#define PENDING 4096

/* tcpretrans: socket cgroup ids already named */
struct cg_name {
	uint64_t id;
	char name[256];
};
#define CG_NAMES 64

struct snoop {
	const char *cmd;
	enum tool tool;
	bool json, times, uids, failed_only, bpf;
	bool flags_col, full_path;	/* opensnoop -e, -F */
	const char *name;		/* -n */
	struct strobe_formats *fmts;
	struct strobe_model *model;
	struct kind_fields kf[32];
	int nkf;
	struct pending pend[PENDING];
	uint64_t t0;
	uint64_t rows, seen_bpf, seen_sys;
	struct strobe_buf *out;
	bool out_failed;
	bool header_done;
	bool missing_said;
	struct cg_name cgn[CG_NAMES];
	int ncgn;
	char cg_mnt[2048];	/* the cgroup v2 mount, found once */
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
	if (!strcmp(sys, "strobe_bpf") && !strcmp(name, tools[s->tool].record)) {
		k->role = R_BPF;
	} else if (!strcmp(sys, "syscalls") && tools[s->tool].calls) {
		const char *const *c = tools[s->tool].calls;

		for (; *c; c++) {
			if (!strncmp(name, "sys_enter_", 10) && !strcmp(name + 10, *c))
				k->role = R_ENTER;
			else if (!strncmp(name, "sys_exit_", 9) && !strcmp(name + 9, *c))
				k->role = R_EXIT;
			else
				continue;
			k->callno = (int)(c - tools[s->tool].calls);
			break;
		}
	} else if (!strcmp(sys, "tcp") && !strcmp(name, "tcp_retransmit_skb") &&
		   s->tool == T_TCP) {
		k->role = R_TCP;
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
	strobe_field_resolve(fmt, "lat", &k->lat);
	strobe_field_resolve(fmt, "call", &k->call);
	strobe_field_resolve(fmt, "fd", &k->fd);
	strobe_field_resolve(fmt, "start", &k->start);
	strobe_field_resolve(fmt, "state", &k->state);
	strobe_field_resolve(fmt, "family", &k->family);
	strobe_field_resolve(fmt, "sport", &k->sport);
	strobe_field_resolve(fmt, "dport", &k->dport);
	strobe_field_resolve(fmt, "saddr", &k->saddr);
	strobe_field_resolve(fmt, "daddr", &k->daddr);
	if (strobe_field_resolve(fmt, "saddr_v6", &k->saddr6) < 0)
		strobe_field_resolve(fmt, "saddr_hi", &k->saddr6);
	if (strobe_field_resolve(fmt, "daddr_v6", &k->daddr6) < 0)
		strobe_field_resolve(fmt, "daddr_hi", &k->daddr6);
	strobe_field_resolve(fmt, "saddr_lo", &k->s6lo);
	strobe_field_resolve(fmt, "daddr_lo", &k->d6lo);
	strobe_field_resolve(fmt, "cgroup", &k->cgroup);
	strobe_field_resolve(fmt, "netns", &k->netns);
	strobe_field_resolve(fmt, "err", &k->tcp_err);
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
	/* syncsnoop */
	const char *call;
	int64_t fd;		/* -1 none */
	int64_t lat;		/* ns, -1 unknown */
	/* tcpretrans */
	int family, state, err;
	unsigned sport, dport;
	uint8_t saddr[16], daddr[16];
	uint64_t netns;		/* 0 unknown */
};

static void put_str(struct snoop *s, const char *p, size_t n)
{
	size_t i = 0, k;

	/* a terminal gets no control characters from a traced program: each
	 * is a '?'; the runs between them go out whole */
	while (i < n && p[i]) {
		for (k = i; k < n && p[k] && (unsigned char)p[k] >= 0x20 && p[k] != 0x7f; k++)
			;
		if (k > i)
			strobe_buf_write(s->out, p + i, k - i);
		if (k < n && p[k]) {
			strobe_buf_putc(s->out, '?');
			k++;
		}
		i = k;
	}
}

/* The row's columns without printf (a storm prints millions of rows, and
 * printf was most of a row's cost): str then spaces up to width, as
 * "%-*s" (a longer one whole), and a number as "%-*lld" or "%*lld". */
static void put_pad(struct snoop *s, size_t len, int width)
{
	static const char spaces[] = "                                ";

	while ((int)len < width) {
		size_t k = (size_t)width - len < sizeof(spaces) - 1 ?
			   (size_t)width - len : sizeof(spaces) - 1;

		strobe_buf_write(s->out, spaces, k);
		len += k;
	}
}

static void put_left(struct snoop *s, const char *str, int width)
{
	size_t n;

	if (!str)
		str = "(null)";		/* as printf: never, task_facts fills them */
	n = strlen(str);
	strobe_buf_write(s->out, str, n);
	put_pad(s, n, width);
}

static void put_num(struct snoop *s, long long v, int width, bool left)
{
	char tmp[24], *e = tmp + sizeof(tmp), *p = e;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	if (!left)
		put_pad(s, (size_t)(e - p), width);
	strobe_buf_write(s->out, p, (size_t)(e - p));
	if (left)
		put_pad(s, (size_t)(e - p), width);
}

static const char *tcp_state(int st)
{
	static const char *const names[] = { "?", "ESTABLISHED", "SYN_SENT", "SYN_RECV",
					     "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
					     "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
					     "NEW_SYN_RECV" };

	return st > 0 && st < (int)(sizeof(names) / sizeof(names[0])) ? names[st] : "?";
}

/* An address as text ("-" for a family strobe does not know). */
static void addr_text(int family, const uint8_t *a, char *out, size_t size)
{
	if (!inet_ntop(family == 10 ? AF_INET6 : AF_INET, a, out, (socklen_t)size) ||
	    (family != 2 && family != 10))
		snprintf(out, size, "-");
}

static void header(struct snoop *s)
{
	if (s->json || s->header_done)
		return;
	s->header_done = true;
	if (s->times)
		strobe_buf_printf(s->out, "%-9s ", "TIME(s)");
	if (s->uids && s->tool != T_TCP)
		strobe_buf_printf(s->out, "%-6s ", "UID");
	switch (s->tool) {
	case T_OPEN:
		strobe_buf_printf(s->out, "%-7s %-16s %-16s %4s %-8s ", "PID", "COMM",
				  "CONTAINER", "FD", "ERR");
		if (s->flags_col)
			strobe_buf_printf(s->out, "%-8s ", "FLAGS");
		strobe_buf_puts(s->out, "PATH\n");
		break;
	case T_EXEC:
		strobe_buf_printf(s->out, "%-16s %-7s %-7s %-16s %4s %s\n", "PCOMM", "PID",
				  "PPID", "CONTAINER", "RET", "ARGS");
		break;
	case T_SYNC:
		strobe_buf_printf(s->out, "%-7s %-16s %-16s %-15s %4s %10s %-8s %s\n", "PID",
				  "COMM", "CONTAINER", "CALL", "FD", "LAT(ms)", "ERR", "FILE");
		break;
	case T_TCP:
		strobe_buf_printf(s->out, "%-7s %-16s %2s %-39s %2s %-39s %-12s\n", "PID",
				  "CONTAINER", "IP", "LADDR:LPORT", "T>", "RADDR:RPORT", "STATE");
		break;
	}
}

/* Arguments NUL-separated: as a JSON array, or space-separated text. */
static void put_args(struct snoop *s, const struct row *r, bool json)
{
	uint32_t off = 0;
	int i;

	if (json)
		strobe_buf_putc(s->out, '[');
	for (i = 0; i < r->argc && off < r->args_len; i++) {
		size_t n = strnlen(r->args + off, r->args_len - off);

		if (i)
			strobe_buf_putc(s->out, json ? ',' : ' ');
		if (json)
			strobe_json_escape(s->out, r->args + off, n);
		else
			put_str(s, r->args + off, n);
		off += (uint32_t)n + 1;
	}
	if (json)
		strobe_buf_printf(s->out, "],\"cut\":%s", r->cut ? "true" : "false");
	else if (r->cut)
		strobe_buf_puts(s->out, " ...");
}

static void emit_json(struct snoop *s, const struct row *r, double t)
{
	char a[INET6_ADDRSTRLEN];

	strobe_buf_printf(s->out, "{\"time\":%.6f,\"pid\":%d,\"tid\":%d", t, r->pid, r->tid);
	if (s->tool == T_EXEC)
		strobe_buf_printf(s->out, ",\"ppid\":%d", r->ppid);
	if (r->uid >= 0)
		strobe_buf_printf(s->out, ",\"uid\":%lld", (long long)r->uid);
	if (s->tool != T_TCP) {
		strobe_buf_puts(s->out, ",\"comm\":");
		strobe_json_escape(s->out, r->comm, strlen(r->comm));
	}
	strobe_buf_puts(s->out, ",\"container\":");
	if (r->container)
		strobe_json_escape(s->out, r->container, strlen(r->container));
	else
		strobe_buf_puts(s->out, "null");
	if (s->tool == T_TCP) {
		strobe_buf_printf(s->out, ",\"ip\":%d", r->family == 10 ? 6 : 4);
		addr_text(r->family, r->saddr, a, sizeof(a));
		strobe_buf_printf(s->out, ",\"saddr\":\"%s\",\"sport\":%u", a, r->sport);
		addr_text(r->family, r->daddr, a, sizeof(a));
		strobe_buf_printf(s->out, ",\"daddr\":\"%s\",\"dport\":%u", a, r->dport);
		strobe_buf_printf(s->out, ",\"state\":\"%s\",\"err\":%d", tcp_state(r->state),
				  r->err);
		if (r->netns)
			strobe_buf_printf(s->out, ",\"netns\":%llu", (unsigned long long)r->netns);
		strobe_buf_puts(s->out, "}\n");
		return;
	}
	strobe_buf_printf(s->out, ",\"ret\":%lld", (long long)r->ret);
	if (r->ret < 0 && r->ret > -4096)
		strobe_buf_printf(s->out, ",\"errno\":\"%s\"", errname((int)-r->ret));
	switch (s->tool) {
	case T_OPEN:
		if (r->ret >= 0)
			strobe_buf_printf(s->out, ",\"fd\":%lld", (long long)r->ret);
		if (r->has_flags)
			strobe_buf_printf(s->out, ",\"flags\":%llu", (unsigned long long)r->flags);
		strobe_buf_puts(s->out, ",\"path\":");
		if (r->path)
			strobe_json_escape(s->out, r->path, strnlen(r->path, r->path_len));
		else
			strobe_buf_puts(s->out, "null");
		break;
	case T_EXEC:
		strobe_buf_puts(s->out, ",\"argv\":");
		if (r->args)
			put_args(s, r, true);
		else
			strobe_buf_puts(s->out, "null");
		break;
	case T_SYNC:
		strobe_buf_printf(s->out, ",\"call\":\"%s\"", r->call ? r->call : "?");
		if (r->fd >= 0)
			strobe_buf_printf(s->out, ",\"fd\":%lld", (long long)r->fd);
		if (r->lat >= 0)
			strobe_buf_printf(s->out, ",\"lat_ms\":%.6f", (double)r->lat / 1e6);
		strobe_buf_puts(s->out, ",\"file\":");
		if (r->path && r->path_len && r->path[0])
			strobe_json_escape(s->out, r->path, strnlen(r->path, r->path_len));
		else
			strobe_buf_puts(s->out, "null");
		if (r->path)
			strobe_buf_printf(s->out, ",\"cut\":%s", r->cut ? "true" : "false");
		break;
	case T_TCP:
		break;
	}
	strobe_buf_puts(s->out, "}\n");
}

static int emit(struct snoop *s, const struct row *r)
{
	char a[INET6_ADDRSTRLEN + 8], b[INET6_ADDRSTRLEN + 8], x[INET6_ADDRSTRLEN];
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
		emit_json(s, r, t);
		goto flush;
	}
	header(s);
	if (s->times)
		strobe_buf_printf(s->out, "%-9.3f ", t);
	if (s->uids && s->tool != T_TCP) {
		if (r->uid >= 0)
			strobe_buf_printf(s->out, "%-6lld ", (long long)r->uid);
		else
			strobe_buf_printf(s->out, "%-6s ", "-");
	}
	switch (s->tool) {
	case T_OPEN:
		/* "%-7d %-16s %-16s %4lld %-8s " */
		put_num(s, r->pid, 7, true);
		strobe_buf_putc(s->out, ' ');
		put_left(s, r->comm, 16);
		strobe_buf_putc(s->out, ' ');
		put_left(s, r->container, 16);
		strobe_buf_putc(s->out, ' ');
		put_num(s, r->ret >= 0 ? r->ret : -1, 4, false);
		strobe_buf_putc(s->out, ' ');
		put_left(s, r->ret >= 0 ? "0" : errname((int)-r->ret), 8);
		strobe_buf_putc(s->out, ' ');
		if (s->flags_col) {
			if (r->has_flags)
				strobe_buf_printf(s->out, "%08llo ", (unsigned long long)r->flags);
			else
				strobe_buf_printf(s->out, "%-8s ", "-");
		}
		if (r->path)
			put_str(s, r->path, r->path_len);
		else
			strobe_buf_putc(s->out, '-');
		break;
	case T_EXEC:
		/* "%-16s %-7d %-7d %-16s %4lld " */
		put_left(s, r->comm, 16);
		strobe_buf_putc(s->out, ' ');
		put_num(s, r->pid, 7, true);
		strobe_buf_putc(s->out, ' ');
		put_num(s, r->ppid, 7, true);
		strobe_buf_putc(s->out, ' ');
		put_left(s, r->container, 16);
		strobe_buf_putc(s->out, ' ');
		put_num(s, r->ret, 4, false);
		strobe_buf_putc(s->out, ' ');
		if (r->args)
			put_args(s, r, false);
		else
			strobe_buf_putc(s->out, '-');
		break;
	case T_SYNC:
		strobe_buf_printf(s->out, "%-7d %-16s %-16s %-15s ", r->pid, r->comm, r->container,
				  r->call ? r->call : "?");
		if (r->fd >= 0)
			strobe_buf_printf(s->out, "%4lld ", (long long)r->fd);
		else
			strobe_buf_printf(s->out, "%4s ", "-");
		if (r->lat >= 0)
			strobe_buf_printf(s->out, "%10.3f ", (double)r->lat / 1e6);
		else
			strobe_buf_printf(s->out, "%10s ", "-");
		strobe_buf_printf(s->out, "%-8s ", r->ret >= 0 ? "0" : errname((int)-r->ret));
		if (r->path && r->path_len && r->path[0]) {
			if (r->cut)
				strobe_buf_puts(s->out, "...");
			put_str(s, r->path, r->path_len);
		} else {
			strobe_buf_putc(s->out, '-');
		}
		break;
	case T_TCP:
		addr_text(r->family, r->saddr, x, sizeof(x));
		snprintf(a, sizeof(a), r->family == 10 ? "[%s]:%u" : "%s:%u", x, r->sport);
		addr_text(r->family, r->daddr, x, sizeof(x));
		snprintf(b, sizeof(b), r->family == 10 ? "[%s]:%u" : "%s:%u", x, r->dport);
		strobe_buf_printf(s->out, "%-7d %-16s %2d %-39s R> %-39s %s", r->pid,
				  r->container ? r->container : "-", r->family == 10 ? 6 : 4, a, b,
				  tcp_state(r->state));
		break;
	}
	strobe_buf_putc(s->out, '\n');
flush:
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

/* ---- tcpretrans: a socket's cgroup id -> its container's name ---- */

static uint64_t cg_want;
static char cg_found[STROBE_CGROUP_PATH_MAX];
static size_t cg_mnt_len;

/* The cgroup v2 mount point ("" when none). */
static void cgroup2_mount(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[2048], fstype[64];

	out[0] = '\0';
	if (!f)
		return;
	while (!out[0] && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(dash, " - %63s", fstype) == 1 && !strcmp(fstype, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %2047s", mnt) == 1)
			snprintf(out, size, "%s", mnt);
	}
	fclose(f);
}

static int cg_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_D || (uint64_t)st->st_ino != cg_want)
		return 0;
	snprintf(cg_found, sizeof(cg_found), "%s", path[cg_mnt_len] ? path + cg_mnt_len : "/");
	return 1;
}

/*
 * The container of cgroup v2 id: the directory under the cgroup v2 mount
 * with that inode, its path parsed as the model parses a task's; the
 * model's container of that id when it has one (the name other commands
 * show), else the runtime's metadata.  NULL: not found (a cgroup gone,
 * a file from another machine).  Cached: a socket's cgroup is looked
 * for once.
 */
static const char *cgroup_container(struct snoop *s, uint64_t id)
{
	struct strobe_cgroup_id cid;
	const struct strobe_container *c;
	struct cg_name *e;
	int i;

	if (!id)
		return NULL;
	for (i = 0; i < s->ncgn; i++)
		if (s->cgn[i].id == id)
			return s->cgn[i].name[0] ? s->cgn[i].name : NULL;
	e = &s->cgn[s->ncgn < CG_NAMES ? s->ncgn++ : (int)(id % CG_NAMES)];
	e->id = id;
	e->name[0] = '\0';
	if (!s->cg_mnt[0])
		cgroup2_mount(s->cg_mnt, sizeof(s->cg_mnt));
	cg_want = id;
	cg_found[0] = '\0';
	cg_mnt_len = strlen(s->cg_mnt);
	if (!s->cg_mnt[0] || nftw(s->cg_mnt, cg_visit, 16, FTW_PHYS | FTW_MOUNT) != 1)
		return NULL;
	if (strobe_cgroup_parse_path(cg_found, strlen(cg_found), &cid) <= 0 || !cid.id[0]) {
		snprintf(e->name, sizeof(e->name), "host");
		return e->name;
	}
	c = s->model ? strobe_model_find_container(s->model, cid.id) : NULL;
	if (c)
		snprintf(e->name, sizeof(e->name), "%s", c->name);
	else if (strobe_container_name(NULL, &cid, e->name, sizeof(e->name)) < 0)
		snprintf(e->name, sizeof(e->name), "%s", cid.short_id);
	return e->name;
}

static int snoop_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		       struct strobe_error *err)
{
	struct snoop *s = arg;

	s->fmts = nr > 0 ? src[0].formats : NULL;
	s->model = nr > 0 ? src[0].model : NULL;
	return 0;
}

/* One tcpretrans row, from the BPF record or (tracefs) the tracepoint. */
static int tcp_row(struct snoop *s, const struct strobe_event *ev, struct kind_fields *k,
		   bool tracefs)
{
	const struct strobe_field *sa, *da;
	const char *p;
	uint32_t n;
	struct row r;

	memset(&r, 0, sizeof(r));
	r.ts = ev->ts;
	r.tid = ev->pid;
	r.uid = -1;
	r.fd = -1;
	r.lat = -1;
	r.pid = k->tgid.valid ? (int)strobe_field_int(ev, &k->tgid) : ev->pid;
	r.family = (int)strobe_field_uint(ev, &k->family);
	r.state = (int)strobe_field_int(ev, &k->state);
	r.sport = (unsigned)strobe_field_uint(ev, &k->sport);
	r.dport = (unsigned)strobe_field_uint(ev, &k->dport);
	r.err = (int)strobe_field_int(ev, &k->tcp_err);
	r.netns = strobe_field_uint(ev, &k->netns);
	if (tracefs) {
		/* u8[4] saddr, u8[16] saddr_v6 ... */
		sa = r.family == 10 ? &k->saddr6 : &k->saddr;
		da = r.family == 10 ? &k->daddr6 : &k->daddr;
		if ((p = strobe_field_str(ev, sa, &n)))
			memcpy(r.saddr, p, n < 16 ? n : 16);
		if ((p = strobe_field_str(ev, da, &n)))
			memcpy(r.daddr, p, n < 16 ? n : 16);
	} else {
		/* the bytes back from their u64 halves */
		uint64_t h[4] = { strobe_field_uint(ev, &k->saddr6), strobe_field_uint(ev, &k->s6lo),
				  strobe_field_uint(ev, &k->daddr6), strobe_field_uint(ev, &k->d6lo) };

		memcpy(r.saddr, &h[0], 16);
		memcpy(r.daddr, &h[2], 16);
	}
	r.comm = "";
	/* tracefs alone cannot say whose socket it was */
	r.container = tracefs ? NULL : cgroup_container(s, strobe_field_uint(ev, &k->cgroup));
	return emit(s, &r);
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
	r.fd = -1;
	r.lat = -1;
	switch (k->role) {
	case R_BPF:
		s->seen_bpf++;
		if (s->tool == T_TCP)
			return tcp_row(s, ev, k, false);
		r.pid = (int)strobe_field_int(ev, &k->tgid);
		r.uid = (int64_t)strobe_field_uint(ev, &k->uid);
		r.ret = strobe_field_int(ev, &k->ret);
		c = strobe_field_str(ev, &k->comm, &n);
		n = c ? (uint32_t)strnlen(c, n < sizeof(comm) - 1 ? n : sizeof(comm) - 1) : 0;
		memcpy(comm, c ? c : "", n);	/* snprintf's "%.*s": a call per row */
		comm[n] = '\0';
		r.comm = comm;
		if (s->tool == T_OPEN || s->tool == T_SYNC) {
			r.path = strobe_field_str(ev, &k->path, &r.path_len);
			if (!r.path) {
				r.path = "";
				r.path_len = 0;
			}
		}
		if (s->tool == T_OPEN) {
			r.flags = strobe_field_uint(ev, &k->flags);
			r.has_flags = true;
		} else if (s->tool == T_SYNC) {
			uint64_t call = strobe_field_uint(ev, &k->call);

			r.call = call < 6 ? sync_calls[call] : "?";
			r.fd = strobe_field_int(ev, &k->fd);
			r.lat = (int64_t)strobe_field_uint(ev, &k->lat);
			r.cut = strobe_field_uint(ev, &k->cut) != 0;
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
		p->ts = ev->ts;
		p->callno = k->callno;
		/* tracefs says "unsigned int fd": a descriptor is an int */
		p->fd = k->fd.valid ? (int32_t)strobe_field_uint(ev, &k->fd) : -1;
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
		} else if (s->tool == T_SYNC) {
			r.call = tools[T_SYNC].calls[p->callno];
			r.fd = p->fd;
			r.lat = (int64_t)(ev->ts - p->ts);
		}
		task_facts(s, r.tid, &r);
		return emit(s, &r);
	case R_TCP:
		s->seen_sys++;
		return tcp_row(s, ev, k, true);
	}
	return 0;
}

/* ---- the command ------------------------------------------------------------ */

static void usage(FILE *f, const char *cmd, enum tool tool)
{
	static const char *const what[] = {
		[T_OPEN] = "One line per open(2), openat(2), openat2(2) or creat(2): the process,\n"
			   "its container, the file descriptor or error, and the path.",
		[T_EXEC] = "One line per execve(2) or execveat(2): the process, its parent, its\n"
			   "container, the return value and the whole argument vector.",
		[T_SYNC] = "One line per fsync(2), fdatasync(2), sync(2), syncfs(2), msync(2) or\n"
			   "sync_file_range(2): the process, its container, the call, the file\n"
			   "descriptor, how long the call took, its error and the file synced.",
		[T_TCP] = "One line per TCP retransmission: the addresses and ports, the\n"
			  "connection's state, and the container of the socket's owner.",
	};
	static const char *const example[] = {
		[T_OPEN] = "  strobe opensnoop -c web           every open in container web\n"
			   "  strobe opensnoop -x --json -- make   failed ones of a build, as JSON\n",
		[T_EXEC] = "  strobe execsnoop -c web           every exec in container web\n"
			   "  strobe execsnoop --json -- make     a build's commands, as JSON\n",
		[T_SYNC] = "  strobe syncsnoop -c db            every sync call of container db\n"
			   "  strobe syncsnoop -T -- ./load      a command's, with times\n",
		[T_TCP] = "  strobe tcpretrans                 every retransmission on the machine\n"
			  "  strobe tcpretrans -c web --json   those of container web's sockets\n",
	};

	if (tool == T_TCP)
		fprintf(f, "usage: strobe %s [options]\n", cmd);
	else
		fprintf(f, "usage: strobe %s [options] [-- COMMAND [ARGS...]]\n", cmd);
	fprintf(f, "       strobe %s -i FILE [options]\n\n%s\n\nOptions:\n"
		"  -c, --container NAME|ID  only this container (repeatable)\n", cmd, what[tool]);
	if (tool != T_TCP)
		fprintf(f,
			"  -p, --pid PID            only this process and its children from now on\n"
			"  -x, --failed             only calls that failed\n");
	fprintf(f, "  -T, --timestamp          a TIME(s) column: seconds since the first row\n");
	if (tool != T_TCP)
		fprintf(f,
			"  -U, --print-uid          a UID column\n"
			"  -n, --name NAME          only tasks whose name contains NAME\n");
	if (tool == T_OPEN)
		fprintf(f,
			"  -e, --extended-fields    a FLAGS column (the open flags, octal)\n"
			"  -F, --full-path          a relative path joined to its directory (the\n"
			"                           working directory, or dfd's), up to the task's\n"
			"                           own root: a container's path inside it\n");
	fprintf(f,
		"  -d, --duration SECONDS   stop after this long\n"
		"      --json               JSON lines: one %s per line\n"
		"      --no-bpf             tracefs only (no %s column)\n"
		"  -i, --input FILE         read a recording instead of tracing\n"
		"  -o, --output FILE        also keep what was watched in a trace file\n"
		"                           (the BPF records with the tracefs events;\n"
		"                           -i FILE prints the same rows again)\n"
		"  -h, --help               this help\n"
		"\nExamples:\n%s",
		tool == T_TCP ? "retransmission" : "call", tools[tool].column, example[tool]);
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

static int run_file(struct snoop *s, const char *path, bool strict)
{
	struct strobe_consumer c = {
		.size = sizeof(c), .name = s->cmd, .flags = STROBE_CONSUMER_MODEL,
		.start = snoop_start, .event = snoop_event, .arg = s,
	};
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };

	if (cli_run_file(s->cmd, path, &po, &c) < 0)
		return CLI_FAIL;
	if (!s->seen_bpf && !s->seen_sys) {
		if (s->tool == T_TCP)
			cli_error(s->cmd, "'%s' holds no strobe_bpf:tcp_retransmit records nor "
				  "tcp:tcp_retransmit_skb events: nothing to show", path);
		else
			cli_error(s->cmd, "'%s' holds no strobe_bpf:%s records nor "
				  "syscalls:sys_enter_%s events: nothing to show", path,
				  tools[s->tool].record, tools[s->tool].calls[0]);
		return CLI_FAIL;
	}
	if (!s->seen_bpf && !s->json)
		cli_warn(s->cmd, "'%s' holds tracefs events only: %s are not known", path,
			 tools[s->tool].missing);
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
		{ "extended-fields", no_argument, NULL, 'e' },
		{ "full-path", no_argument, NULL, 'F' },
		{ "name", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, O_JSON },
		{ "no-bpf", no_argument, NULL, O_NO_BPF },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
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
	int ch, r, ret = CLI_FAIL;

	s = calloc(1, sizeof(*s));
	if (!s) {
		cli_error(cmd, "out of memory");
		return CLI_FAIL;
	}
	s->cmd = cmd;
	s->tool = tool;
	memset(&t, 0, sizeof(t));
	target_argv = cli_split_command(&argc, argv);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+c:p:xTUeFn:d:i:o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			if (!*optarg) {
				cli_error(cmd, "empty output file name");
				ret = CLI_USAGE;
				goto out;
			}
			output = optarg;
			break;
		case 'x':
			s->failed_only = true;
			break;
		case 'T':
			s->times = true;
			break;
		case 'U':
			s->uids = true;
			break;
		case 'e':
		case 'F':
			if (tool != T_OPEN) {
				cli_error(cmd, "-%c is opensnoop's (%s)", ch,
					  ch == 'e' ? "a FLAGS column" : "full paths");
				ret = CLI_USAGE;
				goto out;
			}
			if (ch == 'e')
				s->flags_col = true;
			else
				s->full_path = true;
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
	if (tool == T_TCP && (t.o.pid > 0 || target_argv || s->failed_only || s->uids ||
			      s->name)) {
		cli_error(cmd, "retransmissions run in a timer's or softirq's context, not in a "
			  "process: no -p, -x, -U, -n or command (-c selects the sockets' "
			  "container)");
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
		if (t.given || target_argv || output) {
			cli_error(cmd, "-i reads a recording: no -c, -p, -d, -o or command with it");
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
	t.o.no_output = !output;
	t.o.output = output;
	t.o.buffer_kb = 1024;
	s->bpf = !no_bpf;
	if (s->bpf) {
		pid_t cg[STROBE_BPF_CGROUPS_MAX];
		struct strobe_bpf_opts bo = {
			.size = sizeof(bo),
			.programs = tools[tool].program,
			.clock = "mono", .failed_only = s->failed_only,
			.full_path = s->full_path,
		};

		if (t.o.nr_containers > STROBE_BPF_CGROUPS_MAX) {
			cli_error(cmd, "at most %d containers", STROBE_BPF_CGROUPS_MAX);
			goto out;
		}
		if (t.o.nr_containers) {
			if (cli_container_pids(cmd, t.o.containers, t.o.nr_containers, cg) < 0)
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
				 "without %s", err.msg, tools[tool].missing);
			strobe_bpf_close(bc.b);
			bc.b = NULL;
			s->bpf = false;
		}
		bc.pids = bo.pids;
	} else {
		cli_warn(cmd, "--no-bpf: tracefs only, without %s", tools[tool].missing);
	}
	if (s->bpf) {
		/* only the model's events from tracefs: the calls come from BPF */
		cli_target_add_event(&t, "sched:sched_process_fork");
		t.o.clock = "mono";
		t.o.add_records = add_records;
		t.o.records_arg = &bc;
	} else if (tool == T_TCP) {
		cli_target_add_event(&t, "tcp:tcp_retransmit_skb");
	} else {
		/* the calls this kernel has (open(2) is missing on arm64) */
		const char *const *call;
		char spec[128];

		for (call = tools[tool].calls; *call; call++) {
			snprintf(spec, sizeof(spec), "/sys/kernel/tracing/events/syscalls/"
				 "sys_enter_%s", *call);
			if (call != tools[tool].calls && access(spec, F_OK) != 0)
				continue;
			snprintf(spec, sizeof(spec), "syscalls:sys_enter_%s", *call);
			cli_target_add_event_copy(&t, spec);
			snprintf(spec, sizeof(spec), "syscalls:sys_exit_%s", *call);
			cli_target_add_event_copy(&t, spec);
			if (s->failed_only)
				t.ev[t.nev - 1].filter = "ret < 0";
		}
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
	if (output && s->bpf)
		fprintf(stderr, "strobe %s: %s: %llu BPF records kept\n", cmd, res.output,
			(unsigned long long)res.records);
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

int cmd_syncsnoop(int argc, char **argv)
{
	return snoop_main("syncsnoop", T_SYNC, argc, argv);
}

int cmd_tcpretrans(int argc, char **argv)
{
	return snoop_main("tcpretrans", T_TCP, argc, argv);
}
