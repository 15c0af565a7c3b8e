/*
 * meta.c - collect what a trace.dat needs besides the ring-buffer pages:
 * page and event headers, event formats (ftrace internal ones and every
 * enabled event), kernel symbols, printk formats, task names, clock and
 * uname.  The result is handed to the tracefile writer as a
 * struct strobe_tf_meta; this file only reads tracefs and /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <strobe/strobe.h>

#include "internal.h"
#include "session_priv.h"

struct strobe_session_meta {
	struct strobe_tf_meta tf;
	char *header_page;
	char *header_event;
	struct strobe_tf_format *formats;
	char **format_sys;	/* owned system names, parallel to formats */
	char **format_text;	/* owned texts, parallel to formats */
	size_t nr_formats;
	char *kallsyms;
	char *printk;
	char *cmdlines;
	char clock[32];
	char uname[512];
	unsigned commit_size;
};

static int add_format(struct strobe_session_meta *m, const char *sys, const char *path)
{
	struct strobe_tf_format *nf;
	char **ns, **nt, *text;
	size_t len;
	int r;

	r = strobe_fs_read(path, &text, &len);
	if (r < 0)
		return r;
	nf = realloc(m->formats, (m->nr_formats + 1) * sizeof(*nf));
	if (nf)
		m->formats = nf;
	ns = realloc(m->format_sys, (m->nr_formats + 1) * sizeof(*ns));
	if (ns)
		m->format_sys = ns;
	nt = realloc(m->format_text, (m->nr_formats + 1) * sizeof(*nt));
	if (nt)
		m->format_text = nt;
	if (!nf || !ns || !nt || !(m->format_sys[m->nr_formats] = strdup(sys))) {
		free(text);
		return -ENOMEM;
	}
	m->format_text[m->nr_formats] = text;
	m->formats[m->nr_formats].system = m->format_sys[m->nr_formats];
	m->formats[m->nr_formats].text = text;
	m->formats[m->nr_formats].len = len;
	m->nr_formats++;
	return 0;
}

/* "field: ... NAME;\toffset:O;\tsize:S;" -> O and S; 0 or -EINVAL. */
static int header_field(const char *text, const char *name, unsigned *off,
			unsigned *size)
{
	const char *p = strstr(text, name), *o, *sz;

	if (!p)
		return -EINVAL;
	o = strstr(p, "offset:");
	sz = strstr(p, "size:");
	if (!o || !sz)
		return -EINVAL;
	*off = strtoul(o + 7, NULL, 10);
	*size = strtoul(sz + 5, NULL, 10);
	return 0;
}

static int read_meta_file(const char *path, char **text, size_t *len,
			  struct strobe_error *err)
{
	int r = strobe_fs_read(path, text, len);

	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", path, strerror(-r));
	return 0;
}

int strobe_session_meta_refresh_cmdlines(struct strobe_session *s,
					 const char *extra_cmdlines,
					 struct strobe_session_meta *m)
{
	char path[512], *saved, *cmdlines;
	size_t len;

	/* Our own names first: readers keep the first name of a pid. */
	snprintf(path, sizeof(path), "%s/saved_cmdlines", s->top);
	if (strobe_fs_read(path, &saved, &len) < 0)
		saved = NULL;
	len = (extra_cmdlines ? strlen(extra_cmdlines) : 0) + (saved ? strlen(saved) : 0);
	cmdlines = malloc(len + 1);
	if (!cmdlines) {
		free(saved);
		return -ENOMEM;
	}
	snprintf(cmdlines, len + 1, "%s%s", extra_cmdlines ? extra_cmdlines : "",
		 saved ? saved : "");
	free(saved);
	free(m->cmdlines);
	m->cmdlines = cmdlines;
	m->tf.cmdlines.data = m->cmdlines;
	m->tf.cmdlines.len = strlen(m->cmdlines);
	return 0;
}

int strobe_session_meta_collect(struct strobe_session *s, const char *extra_cmdlines,
				struct strobe_session_meta **out,
				struct strobe_error *err)
{
	return strobe_session_meta_collect_flags(s, extra_cmdlines, 0, out, err);
}

int strobe_session_meta_collect_flags(struct strobe_session *s, const char *extra_cmdlines,
				      unsigned flags, struct strobe_session_meta **out,
				      struct strobe_error *err)
{
	struct strobe_session_meta *m;
	struct utsname u;
	char path[512];
	struct dirent *de;
	size_t len, i;
	unsigned off, size;
	DIR *d;
	int r;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return strobe_err(err, -ENOMEM, "out of memory");

	snprintf(path, sizeof(path), "%s/events/header_page", s->top);
	r = read_meta_file(path, &m->header_page, &len, err);
	if (r < 0)
		goto fail;
	m->tf.header_page.data = m->header_page;
	m->tf.header_page.len = len;
	if (header_field(m->header_page, " commit;", &off, &m->commit_size) < 0 ||
	    header_field(m->header_page, " data;", &off, &size) < 0) {
		r = strobe_err(err, -EINVAL, "cannot parse %s", path);
		goto fail;
	}
	m->tf.page_size = off + size;
	m->tf.long_size = sizeof(long);

	snprintf(path, sizeof(path), "%s/events/header_event", s->top);
	r = read_meta_file(path, &m->header_event, &len, err);
	if (r < 0)
		goto fail;
	m->tf.header_event.data = m->header_event;
	m->tf.header_event.len = len;

	/* ftrace's own event formats: readers need them for every file. */
	snprintf(path, sizeof(path), "%s/events/ftrace", s->top);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", s->top,
				 de->d_name);
			r = add_format(m, "ftrace", path);
			if (r == -ENOMEM)
				goto nomem;
		}
		closedir(d);
	}
	for (i = 0; i < s->events.n; i++) {
		char ev[256], *c;

		snprintf(ev, sizeof(ev), "%s", s->events.v[i]);
		c = strchr(ev, ':');
		if (!c)
			continue;
		*c = '\0';
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", s->dir, ev, c + 1);
		r = add_format(m, ev, path);
		if (r < 0) {
			r = strobe_err(err, r, "cannot read %s: %s", path, strerror(-r));
			goto fail;
		}
	}
	m->tf.formats = m->formats;
	m->tf.nr_formats = m->nr_formats;

	/* Symbols and printk formats are optional: a file without them
	 * still reads, with addresses instead of names. */
	if (!(flags & STROBE_META_NO_KALLSYMS) &&
	    strobe_fs_read("/proc/kallsyms", &m->kallsyms, &len) == 0) {
		m->tf.kallsyms.data = m->kallsyms;
		m->tf.kallsyms.len = len;
	}
	snprintf(path, sizeof(path), "%s/printk_formats", s->top);
	if (strobe_fs_read(path, &m->printk, &len) == 0) {
		m->tf.printk.data = m->printk;
		m->tf.printk.len = len;
	}
	if (strobe_session_meta_refresh_cmdlines(s, extra_cmdlines, m) < 0)
		goto nomem;

	snprintf(m->clock, sizeof(m->clock), "%s", strobe_session_clock(s));
	m->tf.clock = m->clock;
	if (uname(&u) == 0) {
		snprintf(m->uname, sizeof(m->uname), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
		m->tf.uname = m->uname;
	}
	*out = m;
	return 0;
nomem:
	r = strobe_err(err, -ENOMEM, "out of memory");
fail:
	strobe_session_meta_free(m);
	return r;
}

const struct strobe_tf_meta *strobe_session_meta_tf(const struct strobe_session_meta *m)
{
	return &m->tf;
}

unsigned strobe_session_meta_commit_size(const struct strobe_session_meta *m)
{
	return m->commit_size;
}

void strobe_session_meta_free(struct strobe_session_meta *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_formats; i++) {
		free(m->format_sys[i]);
		free(m->format_text[i]);
	}
	free(m->formats);
	free(m->format_sys);
	free(m->format_text);
	free(m->header_page);
	free(m->header_event);
	free(m->kallsyms);
	free(m->printk);
	free(m->cmdlines);
	free(m);
}
