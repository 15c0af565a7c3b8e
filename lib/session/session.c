/*
 * session.c - strobe's own tracefs instance: create it, configure clock,
 * buffer size, events, filters and target PIDs inside it, turn tracing on
 * and off, and remove it.  Nothing outside instances/strobe-<pid>[-n] is
 * ever written, which is what lets several recordings (strobe's and
 * trace-cmd's) run side by side and leaves the top level untouched.
 *
 * Stale instances (strobe killed with SIGKILL) are recognised by the PID
 * in their name and removed by strobe_session_cleanup_stale(), and with
 * them the uprobe definitions of dead strobe processes (uprobe.c).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "internal.h"
#include "session_priv.h"
#include "../util/opts.h"

static int inst_path(const struct strobe_session *s, char *buf, size_t size,
		     const char *file)
{
	return strobe_fs_path(buf, size, "%s/%s", s->dir, file);
}

static int inst_write(struct strobe_session *s, const char *file,
		      const char *val, int append)
{
	char p[512];
	int r = inst_path(s, p, sizeof(p), file);

	return r < 0 ? r : strobe_fs_write(p, val, append);
}

/* Parse "strobe-<pid>" or "strobe-<pid>-<n>"; 0 if not ours. */
static pid_t instance_pid(const char *name)
{
	const char *p;
	long v = 0;

	if (strncmp(name, "strobe-", 7))
		return 0;
	for (p = name + 7; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > 1L << 30)
			return 0;
	}
	if (p == name + 7 || (*p && *p != '-'))
		return 0;
	return (pid_t)v;
}

/* rmdir an instance; tracefs answers EBUSY while a reader closes. */
static int remove_instance(const char *path)
{
	int i;

	for (i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

int strobe_session_cleanup_stale(int *removed, struct strobe_error *err)
{
	const char *top;
	char path[512];
	struct dirent *de;
	int r, n = 0, k = 0, first = 0;
	DIR *d;

	if (removed)
		*removed = 0;
	r = strobe_tracefs_dir(&top, err);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/instances", top);
	d = opendir(path);
	if (!d)
		return strobe_err(err, -errno, "cannot list %s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		pid_t pid = instance_pid(de->d_name);

		if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", top, de->d_name);
		r = remove_instance(path);
		if (r < 0 && !first)
			first = strobe_err(err, r, "cannot remove stale instance %s: %s",
					   path, strerror(-r));
		else if (r == 0)
			n++;
	}
	closedir(d);
	/* then the uprobes of dead strobe processes (no longer enabled in
	 * the instances just removed) */
	r = strobe_session_uprobes_cleanup_stale(top, &k);
	n += k;
	if (r < 0 && !first)
		first = strobe_err(err, r, "cannot remove stale uprobes from %s/uprobe_events: %s",
				   top, strerror(-r));
	if (removed)
		*removed = n;
	return first;
}

static int count_cpus(const char *dir)
{
	char p[512];
	struct dirent *de;
	int max = -1, c;
	DIR *d;

	snprintf(p, sizeof(p), "%s/per_cpu", dir);
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "cpu%d", &c) == 1 && c > max)
			max = c;
	closedir(d);
	return max + 1;
}

/* Is `clock` one of the names in a trace_clock text "[local] global ..."? */
static bool clock_available(const char *text, const char *clock)
{
	size_t len = strlen(clock);
	const char *p = text;

	while (*p) {
		while (*p == ' ' || *p == '[' || *p == '\n')
			p++;
		if (!strncmp(p, clock, len) && (p[len] == ']' || p[len] == ' ' ||
						 p[len] == '\n' || !p[len]))
			return true;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return false;
}

static int set_clock(struct strobe_session *s, const char *clock,
		     struct strobe_error *err)
{
	char p[512], *text;
	int r;

	if (!clock)
		clock = "local";
	if (strlen(clock) >= sizeof(s->clock) || strchr(clock, ' ') || !*clock)
		return strobe_err(err, -EINVAL, "bad trace clock name '%s'", clock);
	inst_path(s, p, sizeof(p), "trace_clock");
	r = strobe_fs_read(p, &text, NULL);
	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", p, strerror(-r));
	if (!clock_available(text, clock)) {
		char *nl = strchr(text, '\n');

		if (nl)
			*nl = '\0';
		r = strobe_err(err, -EINVAL, "unknown trace clock '%s' (available: %s)",
			       clock, text);
		free(text);
		return r;
	}
	free(text);
	r = strobe_fs_write(p, clock, 0);
	if (r < 0)
		return strobe_err(err, r, "cannot set trace clock '%s': %s", clock,
				  strerror(-r));
	snprintf(s->clock, sizeof(s->clock), "%s", clock);
	return 0;
}

/* The clock in brackets of a trace_clock text ("local [mono] ..."). */
static void current_clock(struct strobe_session *s)
{
	char p[512], *text, *a, *b;

	s->clock[0] = '\0';
	inst_path(s, p, sizeof(p), "trace_clock");
	if (strobe_fs_read(p, &text, NULL) < 0)
		return;
	a = strchr(text, '[');
	b = a ? strchr(a, ']') : NULL;
	if (b && b - a - 1 < (long)sizeof(s->clock))
		snprintf(s->clock, sizeof(s->clock), "%.*s", (int)(b - a - 1), a + 1);
	free(text);
}

/* The events an existing instance has enabled (its set_event file). */
static int load_enabled(struct strobe_session *s, struct strobe_error *err)
{
	char p[512], *text, *line, *save = NULL;
	int r;

	inst_path(s, p, sizeof(p), "set_event");
	r = strobe_fs_read(p, &text, NULL);
	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", p, strerror(-r));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char **nv;

		if (!strchr(line, ':'))
			continue;
		nv = realloc(s->events.v, (s->events.n + 1) * sizeof(*nv));
		if (!nv || !(nv[s->events.n] = strdup(line))) {
			if (nv)
				s->events.v = nv;
			free(text);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		s->events.v = nv;
		s->events.n++;
	}
	free(text);
	return 0;
}

/*
 * A named instance: create it, or with STROBE_SESSION_ATTACH find it.
 * Returns 1 when attached (nothing to set up), 0 when created, -errno.
 */
static int open_named(struct strobe_session *s, const char *name, unsigned flags,
		      struct strobe_error *err)
{
	struct stat st;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(s->name))
		return strobe_err(err, -EINVAL, "bad tracefs instance name '%s'", name);
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->dir, sizeof(s->dir), "%s/instances/%s", s->top, s->name);
	if (flags & STROBE_SESSION_ATTACH) {
		if (stat(s->dir, &st) < 0 || !S_ISDIR(st.st_mode))
			return strobe_err(err, -ENOENT, "no tracefs instance '%s'", name);
		s->created = true;
		s->keep = true;
		return 1;
	}
	if (mkdir(s->dir, 0755) < 0) {
		if (errno == EEXIST)
			return strobe_err(err, -EEXIST, "tracefs instance '%s' exists already", name);
		return strobe_err(err, -errno, "cannot create tracefs instance %s: %s", s->dir,
				  strerror(errno));
	}
	s->created = true;
	s->keep = !!(flags & STROBE_SESSION_KEEP);
	return 0;
}

int strobe_session_open(const struct strobe_session_opts *opts,
			struct strobe_session **out, struct strobe_error *err)
{
	return strobe_session_open_named(NULL, 0, opts, out, err);
}

int strobe_session_open_named(const char *name, unsigned flags,
			      const struct strobe_session_opts *opts,
			      struct strobe_session **out, struct strobe_error *err)
{
	struct strobe_session_opts own;
	struct strobe_session *s;
	const char *top;
	char kb[32];
	int r, i;

	*out = NULL;
	if (opts) {
		strobe_opts_copy(&own, sizeof(own), opts);
		opts = &own;
	}
	r = strobe_tracefs_dir(&top, err);
	if (r < 0)
		return r;
	if (!name && (flags & (STROBE_SESSION_ATTACH | STROBE_SESSION_KEEP)))
		return strobe_err(err, -EINVAL, "attaching to or keeping an instance needs its name");
	s = calloc(1, sizeof(*s));
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	snprintf(s->top, sizeof(s->top), "%s", top);
	if (name) {
		r = open_named(s, name, flags, err);
		if (r < 0) {
			free(s);
			return r;
		}
		if (r == 1) {
			current_clock(s);
			r = load_enabled(s, err);
			if (r == 0 && opts && opts->clock)
				r = set_clock(s, opts->clock, err);
			if (r == 0 && opts && opts->buffer_kb) {
				snprintf(kb, sizeof(kb), "%u", opts->buffer_kb);
				r = inst_write(s, "buffer_size_kb", kb, 0);
				if (r < 0)
					strobe_err(err, r, "cannot set a buffer of %u KiB per CPU: %s",
						   opts->buffer_kb, strerror(-r));
			}
			if (r == 0) {
				r = count_cpus(s->dir);
				if (r > 0) {
					s->nr_cpus = r;
					*out = s;
					return 0;
				}
				strobe_err(err, r < 0 ? r : -ENODEV, "cannot list %s/per_cpu", s->dir);
				r = r < 0 ? r : -ENODEV;
			}
			strobe_session_close(s);	/* kept: only freed */
			return r;
		}
		goto created;
	}
	for (i = 1; i < 100; i++) {
		if (i == 1)
			snprintf(s->name, sizeof(s->name), "strobe-%d", (int)getpid());
		else
			snprintf(s->name, sizeof(s->name), "strobe-%d-%d", (int)getpid(), i);
		snprintf(s->dir, sizeof(s->dir), "%s/instances/%s", top, s->name);
		if (mkdir(s->dir, 0755) == 0)
			break;
		if (errno != EEXIST) {
			r = strobe_err(err, -errno, "cannot create tracefs instance %s: %s",
				       s->dir, strerror(errno));
			free(s);
			return r;
		}
	}
	if (i == 100) {
		free(s);
		return strobe_err(err, -EEXIST, "too many strobe instances in this process");
	}
	s->created = true;
created:
	r = inst_write(s, "tracing_on", "0", 0);
	if (r < 0) {
		strobe_err(err, r, "cannot write %s/tracing_on: %s", s->dir, strerror(-r));
		goto fail;
	}
	r = set_clock(s, opts ? opts->clock : NULL, err);
	if (r < 0)
		goto fail;
	if (opts && opts->buffer_kb) {
		snprintf(kb, sizeof(kb), "%u", opts->buffer_kb);
		r = inst_write(s, "buffer_size_kb", kb, 0);
		if (r < 0) {
			strobe_err(err, r, "cannot set a buffer of %u KiB per CPU: %s",
				   opts->buffer_kb, strerror(-r));
			goto fail;
		}
	}
	r = count_cpus(s->dir);
	if (r <= 0) {
		strobe_err(err, r < 0 ? r : -ENODEV, "cannot list %s/per_cpu", s->dir);
		r = r < 0 ? r : -ENODEV;
		goto fail;
	}
	s->nr_cpus = r;
	*out = s;
	return 0;
fail:
	s->keep = false;	/* a half-made instance goes */
	strobe_session_close(s);
	return r;
}

const char *strobe_session_name(const struct strobe_session *s)
{
	return s->name;
}

void strobe_session_set_keep(struct strobe_session *s, bool keep)
{
	s->keep = keep;
}

/*
 * The kernel explains a rejected filter in error_log:
 *   [ 1234.567890] event filter parse error: error: Field not found
 *     Command: pidd == 1
 *              ^
 * Return "Field not found (near '== 1')" for the last entry.
 */
void strobe_session_kernel_error(const char *dir, char *out, size_t size)
{
	char p[512], *text, *last = NULL, *line, *save = NULL, *e;
	char *cmdline = NULL, *caret = NULL, *p2;

	out[0] = '\0';
	snprintf(p, sizeof(p), "%s/error_log", dir);
	if (strobe_fs_read(p, &text, NULL) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '[') {
			last = line;
			cmdline = caret = NULL;
		} else if (last && strstr(line, "Command: ")) {
			cmdline = line;
		} else if (last && cmdline && strchr(line, '^')) {
			caret = line;
		}
	}
	if (last) {
		/* "... parse error: error: Field not found": the last "error: " */
		for (e = NULL, p2 = strstr(last, "error: "); p2; p2 = strstr(p2 + 1, "error: "))
			e = p2 + 7;
		if (!e)
			e = strchr(last, ']') ? strchr(last, ']') + 1 : last;
		while (*e == ' ')
			e++;
		if (cmdline && caret) {
			const char *cmd = strstr(cmdline, "Command: ") + 9;
			long col = (long)(strchr(caret, '^') - caret) - (long)(cmd - cmdline);

			if (col >= 0 && col <= (long)strlen(cmd))
				snprintf(out, size, "%s (near '%s')", e, cmd + col);
			else
				snprintf(out, size, "%s", e);
		} else {
			snprintf(out, size, "%s", e);
		}
	}
	free(text);
}

static bool strv_has(const struct strobe_strv *sv, const char *name)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], name))
			return true;
	return false;
}

static int load_avail(struct strobe_session *s, struct strobe_error *err)
{
	if (s->avail_loaded)
		return 0;
	if (strobe_events_list(NULL, &s->avail, err) < 0)
		return err ? err->code : -EIO;
	s->avail_loaded = true;
	return 0;
}

/*
 * Write the kernel filter of event `name` ("system:event"); filter NULL
 * clears it ("0").  A rejected filter is -EINVAL with error_log's text.
 */
static int write_filter(struct strobe_session *s, const char *name, const char *filter,
			struct strobe_error *err)
{
	char file[512], ev[256], ktext[300], *c;
	int r;

	snprintf(ev, sizeof(ev), "%s", name);
	c = strchr(ev, ':');
	if (!c)
		return strobe_err(err, -EINVAL, "bad event name '%s'", name);
	*c = '\0';
	/* Start from an empty log so the entry we read is ours. */
	if (filter)
		inst_write(s, "error_log", "", 0);
	r = strobe_fs_path(file, sizeof(file), "%s/events/%s/%s/filter", s->dir, ev, c + 1);
	if (r == 0)
		r = strobe_fs_write(file, filter ? filter : "0", 0);
	if (r < 0 && filter) {
		strobe_session_kernel_error(s->dir, ktext, sizeof(ktext));
		return strobe_err(err, r, "bad filter '%s' for %s: %s", filter, name,
				  ktext[0] ? ktext : strerror(-r));
	}
	if (r < 0)
		return strobe_err(err, r, "cannot clear the filter of %s: %s", name, strerror(-r));
	return 0;
}

int strobe_session_set_filter(struct strobe_session *s, const char *spec,
			      const char *filter, struct strobe_error *err)
{
	struct strobe_strv m = { NULL, 0 };
	size_t i;
	int r;

	r = load_avail(s, err);
	if (r < 0)
		return r;
	r = strobe_events_expand(&s->avail, spec, &m, err);
	if (r < 0)
		return r;
	for (i = 0, r = 0; i < m.n && r == 0; i++)
		r = write_filter(s, m.v[i], filter, err);
	if (r == 0)
		r = (int)m.n;
	strobe_strv_free(&m);
	return r;
}

int strobe_session_disable(struct strobe_session *s, const char *spec,
			   struct strobe_error *err)
{
	struct strobe_strv m = { NULL, 0 };
	char file[512], ev[256], *c;
	size_t i, j;
	int r;

	r = load_avail(s, err);
	if (r < 0)
		return r;
	r = strobe_events_expand(&s->avail, spec, &m, err);
	if (r < 0)
		return r;
	for (i = 0, r = 0; i < m.n && r == 0; i++) {
		snprintf(ev, sizeof(ev), "%s", m.v[i]);
		c = strchr(ev, ':');
		*c = '\0';
		r = strobe_fs_path(file, sizeof(file), "%s/events/%s/%s/enable", s->dir, ev, c + 1);
		if (r == 0)
			r = strobe_fs_write(file, "0", 0);
		if (r < 0) {
			strobe_err(err, r, "cannot disable %s: %s", m.v[i], strerror(-r));
			break;
		}
		for (j = 0; j < s->events.n; j++) {
			if (strcmp(s->events.v[j], m.v[i]))
				continue;
			free(s->events.v[j]);
			memmove(s->events.v + j, s->events.v + j + 1,
				(s->events.n - j - 1) * sizeof(*s->events.v));
			s->events.n--;
			break;
		}
	}
	if (r == 0)
		r = (int)m.n;
	strobe_strv_free(&m);
	return r;
}

int strobe_session_enable(struct strobe_session *s, const char *spec,
			  const char *filter, struct strobe_error *err)
{
	struct strobe_strv m = { NULL, 0 };
	char file[512], *c;
	size_t i;
	int r, n = 0;

	r = load_avail(s, err);
	if (r < 0)
		return r;
	r = strobe_events_expand(&s->avail, spec, &m, err);
	if (r < 0)
		return r;
	for (i = 0; i < m.n; i++) {
		char ev[256];

		snprintf(ev, sizeof(ev), "%s", m.v[i]);
		c = strchr(ev, ':');
		*c = '\0';
		if (filter) {
			r = write_filter(s, m.v[i], filter, err);
			if (r < 0)
				goto out;
		}
		strobe_fs_path(file, sizeof(file), "%s/events/%s/%s/enable", s->dir,
			       ev, c + 1);
		r = strobe_fs_write(file, "1", 0);
		if (r < 0) {
			strobe_err(err, r, "cannot enable %s: %s", m.v[i], strerror(-r));
			goto out;
		}
		r = 0;
		if (!strv_has(&s->events, m.v[i])) {
			char **nv = realloc(s->events.v, (s->events.n + 1) * sizeof(*nv));

			if (!nv) {
				r = strobe_err(err, -ENOMEM, "out of memory");
				goto out;
			}
			s->events.v = nv;
			s->events.v[s->events.n++] = m.v[i];
			m.v[i] = NULL;
		}
		n++;
	}
	r = n;
out:
	for (i = 0; i < m.n; i++)
		free(m.v[i]);
	free(m.v);
	return r;
}

const struct strobe_strv *strobe_session_events(const struct strobe_session *s)
{
	return &s->events;
}

int strobe_proc_threads(pid_t pid, pid_t **out, size_t *n, struct strobe_error *err)
{
	char p[64];
	struct dirent *de;
	pid_t *v = NULL, *nv;
	size_t cnt = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d)
		return strobe_err(err, -ESRCH, "no process %d", (int)pid);
	while ((de = readdir(d))) {
		int t = atoi(de->d_name);

		if (t <= 0)
			continue;
		nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv) {
			closedir(d);
			free(v);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		v = nv;
		v[cnt++] = t;
	}
	closedir(d);
	if (!cnt) {
		free(v);
		return strobe_err(err, -ESRCH, "no process %d", (int)pid);
	}
	*out = v;
	*n = cnt;
	return 0;
}

int strobe_session_set_pids(struct strobe_session *s, const pid_t *pids,
			    size_t n, bool follow_fork, struct strobe_error *err)
{
	char buf[32];
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0 || (kill(pids[i], 0) < 0 && errno == ESRCH))
			return strobe_err(err, -ESRCH, "no process %d", (int)pids[i]);
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		r = inst_write(s, "set_event_pid", buf, 1);
		if (r < 0)
			return strobe_err(err, r, "cannot write %s/set_event_pid: %s",
					  s->dir, strerror(-r));
	}
	if (follow_fork) {
		r = inst_write(s, "options/event-fork", "1", 0);
		if (r < 0)
			return strobe_err(err, r, "cannot set %s/options/event-fork: %s",
					  s->dir, strerror(-r));
	}
	return 0;
}

int strobe_session_set_notrace_pids(struct strobe_session *s, const pid_t *pids,
				    size_t n, struct strobe_error *err)
{
	char buf[32];
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		r = inst_write(s, "set_event_notrace_pid", buf, 1);
		if (r < 0)
			return strobe_err(err, r, "cannot write %s/set_event_notrace_pid: %s",
					  s->dir, strerror(-r));
	}
	return 0;
}

int strobe_session_start(struct strobe_session *s, struct strobe_error *err)
{
	int r;

	r = inst_write(s, "trace", "", 0);	/* O_TRUNC clears the buffers */
	if (r < 0)
		return strobe_err(err, r, "cannot clear %s/trace: %s", s->dir, strerror(-r));
	r = inst_write(s, "tracing_on", "1", 0);
	if (r < 0)
		return strobe_err(err, r, "cannot turn tracing on in %s: %s", s->dir,
				  strerror(-r));
	return 0;
}

int strobe_session_stop(struct strobe_session *s, struct strobe_error *err)
{
	return strobe_session_set_tracing(s, false, err);
}

int strobe_session_set_tracing(struct strobe_session *s, bool on, struct strobe_error *err)
{
	int r = inst_write(s, "tracing_on", on ? "1" : "0", 0);

	if (r < 0)
		return strobe_err(err, r, "cannot turn tracing %s in %s: %s", on ? "on" : "off",
				  s->dir, strerror(-r));
	return 0;
}

int strobe_session_tracing(struct strobe_session *s, struct strobe_error *err)
{
	char p[512], *text;
	int r;

	inst_path(s, p, sizeof(p), "tracing_on");
	r = strobe_fs_read(p, &text, NULL);
	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", p, strerror(-r));
	r = text[0] == '1';
	free(text);
	return r;
}

const char *strobe_session_dir(const struct strobe_session *s)
{
	return s->dir;
}

int strobe_session_nr_cpus(const struct strobe_session *s)
{
	return s->nr_cpus;
}

const char *strobe_session_clock(const struct strobe_session *s)
{
	return s->clock[0] ? s->clock : "local";
}

int strobe_session_cpu_stats(struct strobe_session *s, int cpu, char **text,
			     unsigned long long *overrun, struct strobe_error *err)
{
	char p[512], *o;
	int r;

	*text = NULL;
	if (overrun)
		*overrun = 0;
	strobe_fs_path(p, sizeof(p), "%s/per_cpu/cpu%d/stats", s->dir, cpu);
	r = strobe_fs_read(p, text, NULL);
	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", p, strerror(-r));
	o = strstr(*text, "\noverrun:");
	if (!o && !strncmp(*text, "overrun:", 8))
		o = *text - 1;
	if (o && overrun)
		*overrun = strtoull(o + 10, NULL, 10);
	return 0;
}

/*
 * Event triggers (events/SYS/EVENT/trigger): a command written there runs
 * whenever the event fires; "!command" removes it.  The session keeps
 * what it set, so close removes each before the instance goes (rmdir
 * would drop them too on this kernel, but a kept instance must not keep
 * a trigger strobe set and forgot).
 */
static int trigger_path(struct strobe_session *s, const char *name, char *file, size_t size)
{
	char ev[256], *c;

	snprintf(ev, sizeof(ev), "%s", name);
	c = strchr(ev, ':');
	if (c)
		*c = '/';
	return strobe_fs_path(file, size, "%s/events/%s/trigger", s->dir, ev);
}

static void remove_triggers(struct strobe_session *s)
{
	char file[512], cmd[160], *tab;
	size_t i;

	for (i = s->triggers.n; i-- > 0;) {
		tab = strchr(s->triggers.v[i], '\t');
		if (!tab)
			continue;
		*tab = '\0';
		snprintf(cmd, sizeof(cmd), "!%s", tab + 1);
		if (trigger_path(s, s->triggers.v[i], file, sizeof(file)) == 0)
			strobe_fs_write(file, cmd, 1);
		*tab = '\t';
	}
	strobe_strv_free(&s->triggers);
}

int strobe_session_set_trigger(struct strobe_session *s, const char *spec,
			       const char *trigger, struct strobe_error *err)
{
	struct strobe_strv m = { NULL, 0 };
	char file[512], *rec, **v;
	size_t i;
	int r;

	if (!trigger || !*trigger || strlen(trigger) > 150 || strpbrk(trigger, "\n\t!"))
		return strobe_err(err, -EINVAL, "bad trigger '%s'", trigger ? trigger : "");
	r = load_avail(s, err);
	if (r < 0)
		return r;
	r = strobe_events_expand(&s->avail, spec, &m, err);
	if (r < 0)
		return r;
	for (i = 0, r = 0; i < m.n && r == 0; i++) {
		r = trigger_path(s, m.v[i], file, sizeof(file));
		if (r == 0)
			r = strobe_fs_write(file, trigger, 1);
		if (r < 0) {
			strobe_err(err, r, "cannot set trigger '%s' on %s: %s%s", trigger, m.v[i],
				   strerror(-r), r == -ENOENT ? " (this kernel has no event "
				   "triggers)" : r == -EINVAL ? " (this kernel does not offer "
				   "that trigger: see the event's trigger file)" : "");
			break;
		}
		if (asprintf(&rec, "%s\t%s", m.v[i], trigger) < 0) {
			r = strobe_err(err, -ENOMEM, "out of memory");
			break;
		}
		v = realloc(s->triggers.v, (s->triggers.n + 1) * sizeof(*v));
		if (!v) {
			free(rec);
			r = strobe_err(err, -ENOMEM, "out of memory");
			break;
		}
		s->triggers.v = v;
		s->triggers.v[s->triggers.n++] = rec;
	}
	if (r == 0)
		r = (int)m.n;
	strobe_strv_free(&m);
	return r;
}

int strobe_session_set_option(struct strobe_session *s, const char *name, bool on,
			      struct strobe_error *err)
{
	char file[512];
	int r;

	if (!name || !*name || strchr(name, '/') || strstr(name, ".."))
		return strobe_err(err, -EINVAL, "bad option name '%s'", name ? name : "");
	r = strobe_fs_path(file, sizeof(file), "%s/options/%s", s->dir, name);
	if (r == 0)
		r = strobe_fs_write(file, on ? "1" : "0", 0);
	if (r < 0)
		return strobe_err(err, r, "cannot set option %s of instance %s: %s%s", name,
				  s->name, strerror(-r), r == -ENOENT ?
				  " (this kernel has no such option)" : "");
	return 0;
}

/* Write each of the n patterns into the instance's file (appending), or
 * say which one the kernel refused. */
static int write_patterns(struct strobe_session *s, const char *file, const char *opt,
			  const char *const *v, size_t n, struct strobe_error *err)
{
	char path[512];
	size_t i;
	int r;

	if (!n)
		return 0;
	r = strobe_fs_path(path, sizeof(path), "%s/%s", s->dir, file);
	for (i = 0; r == 0 && i < n; i++) {
		if (!v[i] || !*v[i] || strpbrk(v[i], "\n\t"))
			return strobe_err(err, -EINVAL, "%s: bad function pattern '%s'", opt,
					  v[i] ? v[i] : "");
		r = strobe_fs_write(path, v[i], i > 0);
		if (r < 0)
			return strobe_err(err, r, "%s %s: cannot write %s of instance %s: %s%s",
					  opt, v[i], file, s->name, strerror(-r),
					  r == -ENOENT ? " (this kernel has no such file)"
					  : r == -EPERM || r == -EACCES ? " (the kernel refuses "
					  "function filters here)" : r == -EINVAL ?
					  " (no kernel function matches)" : "");
	}
	return r;
}

int strobe_session_set_tracer(struct strobe_session *s, const char *tracer,
			      const char *const *filter, size_t nr_filter,
			      const char *const *notrace, size_t nr_notrace,
			      const char *const *graph, size_t nr_graph,
			      struct strobe_error *err)
{
	char path[512], *avail = NULL;
	size_t len = 0, i, n;
	bool known = false;
	int r;

	if (!tracer || !*tracer || strpbrk(tracer, "/ \n\t") || strlen(tracer) > 64)
		return strobe_err(err, -EINVAL, "bad tracer name '%s'", tracer ? tracer : "");
	r = strobe_fs_path(path, sizeof(path), "%s/available_tracers", s->dir);
	if (r == 0)
		r = strobe_fs_read(path, &avail, &len);
	if (r < 0)
		return strobe_err(err, r, "--tracer %s: cannot read available_tracers of instance "
				  "%s: %s", tracer, s->name, strerror(-r));
	n = strlen(tracer);
	for (i = 0; avail && avail[i];) {
		size_t w = strcspn(avail + i, " \n");

		if (w == n && !strncmp(avail + i, tracer, n))
			known = true;
		i += w;
		i += strspn(avail + i, " \n");
	}
	if (!known) {
		while (len && (avail[len - 1] == '\n' || avail[len - 1] == ' '))
			avail[--len] = '\0';
		r = strobe_err(err, -ENOENT, "--tracer %s: this kernel has no %s tracer "
			       "(available_tracers: %s); events (-e, --preset) still work",
			       tracer, tracer, avail && *avail ? avail : "none");
		free(avail);
		return r;
	}
	free(avail);
	if (nr_graph && strcmp(tracer, "function_graph"))
		return strobe_err(err, -EINVAL, "-g (set_graph_function) needs --tracer "
				  "function_graph, not %s", tracer);
	r = write_patterns(s, "set_ftrace_filter", "-l", filter, nr_filter, err);
	if (r == 0)
		r = write_patterns(s, "set_ftrace_notrace", "-n", notrace, nr_notrace, err);
	if (r == 0)
		r = write_patterns(s, "set_graph_function", "-g", graph, nr_graph, err);
	if (r < 0)
		return r;
	r = strobe_fs_path(path, sizeof(path), "%s/current_tracer", s->dir);
	if (r == 0)
		r = strobe_fs_write(path, tracer, 0);
	if (r < 0)
		return strobe_err(err, r, "--tracer %s: cannot write current_tracer of instance "
				  "%s: %s%s; events (-e, --preset) still work", tracer, s->name,
				  strerror(-r), r == -EPERM || r == -EACCES ? " (this kernel "
				  "refuses that tracer in a tracefs instance)" : "");
	return 0;
}

int strobe_session_close(struct strobe_session *s)
{
	int r = 0;

	if (!s)
		return 0;
	if (s->created && !s->keep) {
		inst_write(s, "tracing_on", "0", 0);
		remove_triggers(s);
		inst_write(s, "events/enable", "0", 0);
		inst_write(s, "set_event_pid", "", 0);
		inst_write(s, "set_event_notrace_pid", "", 0);
		r = remove_instance(s->dir);
	}
	/* after the instance: an enabled probe cannot be removed */
	if (s->uprobes.n) {
		int u = strobe_session_uprobes_remove(s);

		if (!r)
			r = u;
	}
	strobe_strv_free(&s->avail);
	strobe_strv_free(&s->events);
	strobe_strv_free(&s->triggers);
	strobe_strv_free(&s->uprobes);
	free(s);
	return r;
}
