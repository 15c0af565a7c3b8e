/*
 * uprobe.c - user-space probes (uprobes) defined for a session: written
 * to tracefs's uprobe_events, enabled in the session's own instance,
 * removed again when the session closes, and stale definitions of dead
 * strobe processes removed at the next start.
 *
 * Why it is shaped this way: on this kernel (and every kernel to date)
 * dynamic events are global, a top-level uprobe_events file; instances
 * have none.  So a definition is the one thing strobe must write outside
 * its instance.  To stay apart from everyone else's probes, each one is
 * named in a group of its own, "strobe_<pid>" (the pid of the process
 * that defined it; "-" is not allowed in group names, so not the
 * instance's "strobe-<pid>"), and only lines of such groups are ever
 * removed: the session's own at close (strobe_session_close, also in the
 * recorder's guardian after a SIGKILL, which holds a copy of the
 * session), and, by strobe_session_cleanup_stale, those whose pid is
 * gone.  uprobe_events is only ever appended to (O_APPEND): opening it
 * with O_TRUNC would remove every probe on the machine.
 *
 * A probe enabled in any instance cannot be removed (EBUSY): close
 * disables the session's probes in its instance first, and stale
 * instances are removed before stale probes.
 */
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

#define GROUP_PREFIX "strobe_"

/* "strobe_<pid>" -> pid; 0 when not ours. */
static pid_t group_pid(const char *g, size_t len)
{
	long v = 0;
	size_t i;

	if (len <= 7 || strncmp(g, GROUP_PREFIX, 7))
		return 0;
	for (i = 7; i < len; i++) {
		if (g[i] < '0' || g[i] > '9')
			return 0;
		v = v * 10 + (g[i] - '0');
		if (v > 1L << 30)
			return 0;
	}
	return (pid_t)v;
}

static bool ident_ok(const char *s, size_t max)
{
	size_t i;

	if (!s || !*s || strlen(s) > max || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* Append one command to uprobe_events; EBUSY (a reader, an instance
 * still closing) is retried for up to a second. */
static int write_events(const char *top, const char *cmd)
{
	char path[256];
	int i, r = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", top);
	for (i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		r = strobe_fs_write(path, cmd, 1);
		if (r != -EBUSY)
			return r;
		nanosleep(&ts, NULL);
	}
	return r;
}

static int remove_def(const char *top, const char *group_event)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "-:%.200s", group_event);
	return write_events(top, cmd);
}

int strobe_session_uprobes_remove(struct strobe_session *s)
{
	char path[512], ev[128], *slash;
	size_t i;
	int r, first = 0;

	for (i = s->uprobes.n; i-- > 0;) {
		snprintf(ev, sizeof(ev), "%s", s->uprobes.v[i]);
		slash = strchr(ev, '/');
		if (!slash)
			continue;
		/* a kept instance still has it enabled */
		if (strobe_fs_path(path, sizeof(path), "%s/events/%s/enable", s->dir, ev) == 0)
			strobe_fs_write(path, "0", 0);
		r = remove_def(s->top, s->uprobes.v[i]);
		if (r < 0 && r != -ENOENT && !first)
			first = r;
	}
	strobe_strv_free(&s->uprobes);
	return first;
}

int strobe_session_uprobes_cleanup_stale(const char *top, int *removed)
{
	char path[256], *text, *line, *save = NULL;
	int r, n = 0, first = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", top);
	r = strobe_fs_read(path, &text, NULL);
	if (r < 0)
		return r == -ENOENT ? 0 : r;	/* a kernel without uprobes */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *g, *slash, *sp, ev[160];
		pid_t pid;

		/* "p:strobe_1234/work /path:0x... args" */
		if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':')
			continue;
		g = line + 2;
		slash = strchr(g, '/');
		sp = strchr(g, ' ');
		if (!slash || (sp && sp < slash))
			continue;
		pid = group_pid(g, (size_t)(slash - g));
		if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(ev, sizeof(ev), "%.*s", (int)(sp ? sp - g : (long)strlen(g)), g);
		r = remove_def(top, ev);
		if (r == 0)
			n++;
		else if (r != -ENOENT && !first)
			first = r;	/* -EBUSY: enabled somewhere that is not ours */
	}
	free(text);
	if (removed)
		*removed = n;
	return first;
}

/* The last error_log entry if the log changed since `before`. */
static void new_kernel_error(const char *top, const char *before, char *out, size_t size)
{
	char path[256], *after = NULL;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/error_log", top);
	if (strobe_fs_read(path, &after, NULL) < 0)
		return;
	if (!before || strcmp(before, after))
		strobe_session_kernel_error(top, out, size);
	free(after);
}

static int add_name(struct strobe_strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	if (!(sv->v[sv->n] = strdup(s)))
		return -ENOMEM;
	sv->n++;
	return 0;
}

int strobe_session_add_uprobe(struct strobe_session *s, const struct strobe_uprobe *u,
			      char *event, size_t size, struct strobe_error *err)
{
	char group[32], name[80], dir[512], cmd[4096], ktext[300], log[256], *before = NULL;
	size_t i;
	struct stat st;
	int r, k;

	if (event && size)
		event[0] = '\0';
	if (!ident_ok(u->name, 48))
		return strobe_err(err, -EINVAL, "bad probe name '%s' (letters, digits and _, "
				  "at most 48)", u->name ? u->name : "");
	if (!u->nr_places)
		return strobe_err(err, -EINVAL, "probe %s: no place to probe", u->name);
	if (u->args && strpbrk(u->args, "\n\r"))
		return strobe_err(err, -EINVAL, "probe %s: bad arguments", u->name);
	for (i = 0; i < u->nr_places; i++) {
		const char *p = u->places[i].path;

		if (!p || p[0] != '/' || strpbrk(p, " \t\n\r:") || strlen(p) > 2048)
			return strobe_err(err, -EINVAL, "probe %s: bad path '%s' (absolute, "
					  "no blanks or ':')", u->name, p ? p : "");
	}
	snprintf(group, sizeof(group), GROUP_PREFIX "%d", (int)getpid());
	/* a name this process has not used yet */
	for (k = 1; k < 100; k++) {
		if (k == 1)
			snprintf(name, sizeof(name), "%s", u->name);
		else
			snprintf(name, sizeof(name), "%s_%d", u->name, k);
		snprintf(dir, sizeof(dir), "%s/events/%s/%s", s->top, group, name);
		if (stat(dir, &st) < 0)
			break;
	}
	if (k == 100)
		return strobe_err(err, -EEXIST, "probe %s: too many probes of that name", u->name);
	snprintf(log, sizeof(log), "%s/error_log", s->top);
	if (strobe_fs_read(log, &before, NULL) < 0)
		before = NULL;
	for (i = 0; i < u->nr_places; i++) {
		const struct strobe_uprobe_place *pl = &u->places[i];
		int n;

		n = snprintf(cmd, sizeof(cmd), "%c:%s/%s %s:0x%llx", u->ret ? 'r' : 'p', group, name,
			     pl->path, (unsigned long long)pl->offset);
		if (pl->ref_ctr_offset && n > 0 && (size_t)n < sizeof(cmd))
			n += snprintf(cmd + n, sizeof(cmd) - n, "(0x%llx)",
				      (unsigned long long)pl->ref_ctr_offset);
		if (u->args && *u->args && n > 0 && (size_t)n < sizeof(cmd))
			n += snprintf(cmd + n, sizeof(cmd) - n, " %s", u->args);
		if (n < 0 || (size_t)n >= sizeof(cmd)) {
			r = strobe_err(err, -E2BIG, "probe %s: definition too long", u->name);
			goto out;
		}
		r = write_events(s->top, cmd);
		if (r < 0) {
			new_kernel_error(s->top, before, ktext, sizeof(ktext));
			strobe_err(err, r, "cannot define probe %s:%s at %s:0x%llx: %s%s", group,
				   name, pl->path, (unsigned long long)pl->offset,
				   ktext[0] ? ktext : strerror(-r),
				   r == -ENOENT && !ktext[0] ? " (this kernel has no uprobes)" : "");
			goto out;
		}
		if (i == 0) {
			char ge[128];

			snprintf(ge, sizeof(ge), "%s/%s", group, name);
			r = add_name(&s->uprobes, ge);
			if (r < 0) {
				remove_def(s->top, ge);
				strobe_err(err, r, "out of memory");
				goto out;
			}
		}
	}
	/* the catalogue of events changed */
	strobe_strv_free(&s->avail);
	s->avail_loaded = false;
	snprintf(cmd, sizeof(cmd), "%s:%s", group, name);
	r = strobe_session_enable(s, cmd, NULL, err);
	if (r < 0)
		goto out;
	if (event && size)
		snprintf(event, size, "%s", cmd);
	r = 0;
out:
	free(before);
	return r;
}
