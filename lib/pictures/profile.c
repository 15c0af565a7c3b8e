/*
 * profile.c - the CPU profile (profile.h): a pipeline consumer that names
 * each strobe_perf:sample's call chain through the symbol finder and
 * folds it into the one flame-graph structure (strobe_flame, flame.c)
 * and a table of functions with self and total samples.
 *
 * A perf call chain is a list of addresses, innermost first, split into
 * contexts by marker values (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER,
 * ...): the kernel part (when the sample hit the kernel), then the user
 * part.  A stack, root first, is the group frames ([container;]comm), the
 * user frames outermost first, then the kernel frames.  "Self" counts a
 * sample for its innermost frame, "total" once for every distinct
 * function of its stack (recursion counts once), as perf report's
 * --no-children and --children columns do.
 *
 * Memory: one entry per distinct function and per distinct stack.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/model.h>
#include <strobe/pipeline.h>
#include <strobe/table.h>
#include <strobe/symbols.h>
#include <strobe/profile.h>

#include "util/intern.h"
#include "table/table-int.h"
#include "profile-int.h"

#define MAX_FRAMES 512
#define NAMES_BYTES 65536

struct fn_stat {
	uint64_t self, total;
	uint64_t stamp;		/* the last sample that counted it in total */
	const char *module;	/* owned by the symbol finder */
};

struct strobe_profile {
	struct strobe_profile_opts o;
	struct strobe_flame *flame;
	struct strobe_intern fnames;
	struct fn_stat *fs;
	size_t fs_cap;
	uint64_t samples;
	/* the sample format of the catalogue last seen */
	struct strobe_formats *fmts;
	int format_id;
	struct strobe_field tgid;
	/* replay_maps: strobe_perf:mmap, exec and fork (-1: absent) */
	int mmap_id, exec_id, fork_id;
	struct strobe_field m_tgid, m_path, m_start, m_len, m_pgoff, m_ino, f_parent;
	struct strobe_model *model;
	uint64_t last_tick;	/* on_interval: the last tick's time (0: none) */
	uint64_t missed;	/* the strobe_perf events' ev->missed, added up */
	/* strobe_profile_run live: the perf source, whose count is the
	 * lost samples (NULL otherwise) */
	const struct strobe_profile_records *live;
	bool lived;		/* a live run ended: live_lost is its count */
	uint64_t live_lost;
	char names[NAMES_BYTES];
};

int strobe_profile_new(const struct strobe_profile_opts *o, struct strobe_profile **out,
		       struct strobe_error *err)
{
	struct strobe_profile *p;
	int r;

	*out = NULL;
	if (!o || !o->symbols)
		return strobe_err(err, -EINVAL, "a profile needs a symbol finder");
	if (o->group_by > STROBE_FLAME_BY_NONE)
		return strobe_err(err, -EINVAL, "unknown grouping %d", (int)o->group_by);
	p = calloc(1, sizeof(*p));
	if (!p)
		return strobe_err(err, -ENOMEM, "out of memory");
	memcpy(&p->o, o, o->size && o->size < sizeof(p->o) ? o->size : sizeof(p->o));
	p->format_id = -1;
	r = strobe_flame_new(&p->flame);
	if (r < 0) {
		free(p);
		return strobe_err(err, r, "out of memory");
	}
	*out = p;
	return 0;
}

void strobe_profile_free(struct strobe_profile *p)
{
	if (!p)
		return;
	strobe_flame_free(p->flame);
	strobe_intern_free(&p->fnames);
	free(p->fs);
	free(p);
}

int strobe_profile_reset(struct strobe_profile *p)
{
	struct strobe_flame *f;

	if (strobe_flame_new(&f) < 0)
		return -ENOMEM;	/* p unchanged */
	strobe_flame_free(p->flame);
	p->flame = f;
	strobe_intern_free(&p->fnames);
	memset(&p->fnames, 0, sizeof(p->fnames));
	free(p->fs);
	p->fs = NULL;
	p->fs_cap = 0;
	p->samples = 0;
	return 0;
}

const struct strobe_flame *strobe_profile_flame(const struct strobe_profile *p)
{
	return p->flame;
}

uint64_t strobe_profile_samples(const struct strobe_profile *p)
{
	return p->samples;
}

uint64_t strobe_profile_lost(const struct strobe_profile *p)
{
	struct strobe_perf_stats st;

	if (p->live && p->live->perf) {
		strobe_perf_stats(p->live->perf, &st);
		return st.lost;
	}
	return p->lived ? p->live_lost : p->missed;
}

void profile_run_begin(struct strobe_profile *p, const struct strobe_profile_records *live)
{
	p->o.replay_maps = live == NULL;
	p->live = live;
	p->lived = false;
}

void profile_run_end(struct strobe_profile *p)
{
	if (p->live) {
		p->live_lost = strobe_profile_lost(p);
		p->lived = true;
		p->live = NULL;
	}
}

struct strobe_symbols *profile_symbols(const struct strobe_profile *p)
{
	return p->o.symbols;
}

/* Count function `name` (of module) for this sample: self when leaf. */
static int count_fn(struct strobe_profile *p, const char *name, const char *module, bool leaf)
{
	int64_t id = strobe_intern_add(&p->fnames, name, strlen(name), NULL);
	struct fn_stat *f;

	if (id < 0)
		return -ENOMEM;
	if ((size_t)id >= p->fs_cap) {
		size_t cap = p->fs_cap ? p->fs_cap * 2 : 256;
		struct fn_stat *v;

		while (cap <= (size_t)id)
			cap *= 2;
		if (!(v = realloc(p->fs, cap * sizeof(*v))))
			return -ENOMEM;
		memset(v + p->fs_cap, 0, (cap - p->fs_cap) * sizeof(*v));
		p->fs = v;
		p->fs_cap = cap;
	}
	f = &p->fs[id];
	if (!f->module)
		f->module = module;
	if (leaf)
		f->self++;
	if (f->stamp != p->samples) {
		f->stamp = p->samples;
		f->total++;
	}
	return 0;
}

/* The frame text of sym in names[*used..]; NULL when full. */
static const char *frame_text(struct strobe_profile *p, const struct strobe_sym *sym,
			      size_t *used)
{
	size_t room = sizeof(p->names) - *used;
	char *at = p->names + *used;
	int n;

	if (sym->known)
		n = snprintf(at, room, "%s", sym->name);
	else if (sym->module)
		n = snprintf(at, room, "[unknown] (%s)", sym->module);
	else
		n = snprintf(at, room, "[unknown]");
	if (n < 0 || (size_t)n >= room)
		return NULL;
	*used += (size_t)n + 1;
	return at;
}

static int find_format(struct strobe_profile *p, const struct strobe_event *ev)
{
	struct strobe_formats *f = strobe_format_catalogue(ev->format);
	const struct strobe_format *fmt;

	if (f == p->fmts)
		return 0;
	p->fmts = f;
	p->format_id = p->mmap_id = p->exec_id = p->fork_id = -1;
	if (f && p->o.replay_maps) {
		fmt = strobe_formats_find(f, "strobe_perf", "mmap");
		if (fmt && !strobe_field_resolve(fmt, "tgid", &p->m_tgid) &&
		    !strobe_field_resolve(fmt, "path", &p->m_path) &&
		    !strobe_field_resolve(fmt, "start", &p->m_start) &&
		    !strobe_field_resolve(fmt, "len", &p->m_len) &&
		    !strobe_field_resolve(fmt, "pgoff", &p->m_pgoff) &&
		    !strobe_field_resolve(fmt, "ino", &p->m_ino))
			p->mmap_id = strobe_format_id(fmt);
		fmt = strobe_formats_find(f, "strobe_perf", "exec");
		if (fmt)
			p->exec_id = strobe_format_id(fmt);
		fmt = strobe_formats_find(f, "strobe_perf", "fork");
		if (fmt && !strobe_field_resolve(fmt, "parent", &p->f_parent))
			p->fork_id = strobe_format_id(fmt);
	}
	fmt = f ? strobe_formats_find(f, "strobe_perf", "sample") : NULL;
	if (!fmt)
		return 0;
	p->format_id = strobe_format_id(fmt);
	return strobe_field_resolve(fmt, "tgid", &p->tgid);
}

/* A recording's side-band record for the symbol finder (replay_maps). */
static int replay(struct strobe_profile *p, const struct strobe_event *ev)
{
	if (ev->type == p->mmap_id) {
		char path[4096];
		uint32_t n = 0;
		const char *s = strobe_field_str(ev, &p->m_path, &n);

		if (s)
			n = (uint32_t)strnlen(s, n);
		if (!s || !n || n >= sizeof(path))
			return 0;
		memcpy(path, s, n);
		path[n] = '\0';
		return strobe_symbols_mmap(p->o.symbols, (pid_t)strobe_field_int(ev, &p->m_tgid),
					   strobe_field_uint(ev, &p->m_start),
					   strobe_field_uint(ev, &p->m_len),
					   strobe_field_uint(ev, &p->m_pgoff),
					   strobe_field_uint(ev, &p->m_ino), path);
	}
	if (ev->type == p->exec_id) {
		strobe_symbols_exec(p->o.symbols, ev->pid);
		return 0;
	}
	if (ev->type == p->fork_id)
		return strobe_symbols_fork(p->o.symbols,
					   (pid_t)strobe_field_int(ev, &p->f_parent), ev->pid);
	return 0;
}

int strobe_profile_feed(struct strobe_profile *p, const struct strobe_event *ev,
			struct strobe_model *m)
{
	uint64_t ips[MAX_FRAMES];
	const char *frames[MAX_FRAMES + 2];
	int kern[MAX_FRAMES], user[MAX_FRAMES];
	int n, i, nk = 0, nu = 0, nf = 0, r;
	uint64_t ctx = PERF_CONTEXT_KERNEL;
	const struct strobe_task *t;
	char comm[40];
	size_t used = 0;
	int tgid;

	if (!ev->format)
		return 0;
	if (ev->missed > 0 && !strcmp(strobe_format_system(ev->format), "strobe_perf"))
		p->missed += (uint64_t)ev->missed;
	if (strobe_format_catalogue(ev->format) != p->fmts)
		find_format(p, ev);
	if (p->o.replay_maps && ev->type >= 0 && ev->type != p->format_id)
		return replay(p, ev);
	if (p->format_id < 0 || ev->type != p->format_id)
		return 0;
	tgid = (int)strobe_field_int(ev, &p->tgid);
	/* samples come in time order: processes that exited before this
	 * one have no samples left to name */
	strobe_symbols_expire(p->o.symbols, ev->ts);
	n = strobe_event_callchain(ev, ips, MAX_FRAMES);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	for (i = 0; i < n; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ips[i];
			continue;
		}
		if (ctx == PERF_CONTEXT_KERNEL && !p->o.no_kernel)
			kern[nk++] = i;
		else if (ctx == PERF_CONTEXT_USER)
			user[nu++] = i;
	}
	p->samples++;
	t = m ? strobe_model_task(m, ev->pid) : NULL;
	if (t && t->comm[0] && strcmp(t->comm, "<...>"))
		snprintf(comm, sizeof(comm), "%s", t->comm);
	else
		snprintf(comm, sizeof(comm), "%d", ev->pid);
	switch (p->o.group_by) {
	case STROBE_FLAME_BY_CONTAINER:
		frames[nf++] = t ? t->container->name : "host";
		frames[nf++] = comm;
		break;
	case STROBE_FLAME_BY_PROCESS:
		frames[nf++] = comm;
		break;
	case STROBE_FLAME_BY_THREAD: {
		size_t l = strlen(comm);

		snprintf(comm + l, sizeof(comm) - l, "-%d", ev->pid);
		frames[nf++] = comm;
		break;
	}
	case STROBE_FLAME_BY_NONE:
		break;
	}
	/* user frames outermost first, then kernel frames */
	for (i = nu; i-- > 0;) {
		struct strobe_sym sym;
		const char *s;

		strobe_symbols_user(p->o.symbols, tgid, ips[user[i]], &sym);
		if (!(s = frame_text(p, &sym, &used)))
			break;
		frames[nf++] = s;
		r = count_fn(p, s, sym.module, i == 0 && nk == 0);
		if (r < 0)
			return r;
	}
	for (i = nk; i-- > 0;) {
		struct strobe_sym sym;
		const char *s;

		strobe_symbols_kernel(p->o.symbols, ips[kern[i]], &sym);
		if (!(s = frame_text(p, &sym, &used)))
			break;
		frames[nf++] = s;
		r = count_fn(p, s, sym.module, i == 0);
		if (r < 0)
			return r;
	}
	if (nk == 0 && nu == 0) {
		frames[nf++] = "[no stack]";
		r = count_fn(p, "[no stack]", NULL, true);
		if (r < 0)
			return r;
	}
	if (!nf)
		return 0;
	r = strobe_flame_add(p->flame, frames, nf, 1);
	return r < 0 ? r : 0;
}

/* ---- as a consumer ---------------------------------------------------------- */

static int c_start(const struct strobe_pipeline_source *sources, int nr, void *arg,
		   struct strobe_error *err)
{
	struct strobe_profile *p = arg;
	int i;

	for (i = 0; i < nr; i++)
		if (sources[i].model) {
			p->model = sources[i].model;
			break;
		}
	return 0;
}

static int c_event(const struct strobe_event *ev, int source, void *arg,
		   struct strobe_error *err)
{
	struct strobe_profile *p = arg;
	int r = strobe_profile_feed(p, ev, p->model);

	if (r < 0)
		return strobe_err(err, r, "profile: out of memory");
	return 0;
}

static int c_tick(uint64_t ts, void *arg, struct strobe_error *err)
{
	struct strobe_profile *p = arg;
	int r = p->o.on_interval(p, p->last_tick, ts, false, p->o.arg);

	p->last_tick = ts;
	if (r < 0)
		return strobe_err(err, r, "profile: a refresh failed");
	if (strobe_profile_reset(p) < 0)
		return strobe_err(err, -ENOMEM, "profile: out of memory");
	return 0;
}

static int c_finish(void *arg, struct strobe_error *err)
{
	struct strobe_profile *p = arg;
	int r;

	if (!p->samples)
		return 0;
	r = p->o.on_interval(p, p->last_tick, 0, true, p->o.arg);
	if (r < 0)
		return strobe_err(err, r, "profile: the last refresh failed");
	return 0;
}

int strobe_profile_consumer(struct strobe_profile *p, int source, struct strobe_consumer *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->name = "profile";
	out->flags = STROBE_CONSUMER_MODEL;
	out->start = c_start;
	out->event = c_event;
	if (p->o.on_interval) {
		out->tick = c_tick;
		out->finish = c_finish;
	}
	out->arg = p;
	(void)source;
	return 0;
}

/* ---- the table of functions ------------------------------------------------ */

static int fn_cmp(const void *a, const void *b, void *arg)
{
	const struct strobe_profile *p = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (p->fs[x].self != p->fs[y].self)
		return p->fs[x].self > p->fs[y].self ? -1 : 1;
	if (p->fs[x].total != p->fs[y].total)
		return p->fs[x].total > p->fs[y].total ? -1 : 1;
	return strcmp(strobe_intern_key(&p->fnames, x), strobe_intern_key(&p->fnames, y));
}

int strobe_profile_table(const struct strobe_profile *p, int top, struct strobe_table **out,
			 struct strobe_error *err)
{
	struct strobe_table *t = tbl_new("profile.functions", "Functions by samples",
					 STROBE_VIEW_TOP);
	uint32_t *ids, i, n = p->fnames.n;
	double all = p->samples ? (double)p->samples : 1.0;

	*out = NULL;
	if (!t)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (tbl_col(t, "function", "FUNCTION", STROBE_COL_STR) < 0 ||
	    tbl_col(t, "module", "MODULE", STROBE_COL_STR) < 0 ||
	    tbl_col(t, "self", "SELF", STROBE_COL_INT) < 0 ||
	    tbl_col(t, "self_pct", "SELF%", STROBE_COL_PERCENT) < 0 ||
	    tbl_col(t, "total", "TOTAL", STROBE_COL_INT) < 0 ||
	    tbl_col(t, "total_pct", "TOTAL%", STROBE_COL_PERCENT) < 0) {
		tbl_free(t);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	ids = malloc(((size_t)n + 1) * sizeof(*ids));
	if (!ids) {
		tbl_free(t);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		ids[i] = i;
	qsort_r(ids, n, sizeof(*ids), fn_cmp, (void *)p);
	for (i = 0; i < n && (top <= 0 || i < (uint32_t)top); i++) {
		const struct fn_stat *f = &p->fs[ids[i]];
		union strobe_value *row = tbl_row(t);

		if (!row) {
			free(ids);
			tbl_free(t);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		row[0].s = tbl_str(t, strobe_intern_key(&p->fnames, ids[i]));
		row[1].s = tbl_str(t, f->module ? f->module : "");
		row[2].i = (int64_t)f->self;
		row[3].d = 100.0 * (double)f->self / all;
		row[4].i = (int64_t)f->total;
		row[5].d = 100.0 * (double)f->total / all;
	}
	free(ids);
	*out = t;
	return 0;
}
