/*
 * writeback.c - block IO that the kernel writes back for somebody else,
 * charged to the tasks that dirtied the pages.
 *
 * A buffered write only dirties pages in the page cache; the block
 * requests that store them are issued later by a flusher kworker (the
 * periodic or background writeback, sync(2), syncfs, reclaim waking the
 * flushers), so the block layer's events name the kworker.  The kernel's
 * writeback events say whose the pages were:
 *
 *  - writeback_dirty_folio (bdi, ino) in the dirtying task's context: that
 *    task dirtied a folio of the inode; writeback_dirty_inode names a task
 *    that dirtied the inode's metadata;
 *  - writeback_dirty_inode_enqueue (dev, ino): a clean inode became dirty:
 *    whatever the earlier dirtiers left has been written, the inode's
 *    dirtying starts a new generation;
 *  - writeback_single_inode_start .. writeback_single_inode (bdi, ino) in
 *    the flusher's context: the window in which that task writes back one
 *    inode; a bio it queues inside the window (block_bio_queue, or a
 *    request it issues) carries that inode's data.
 *
 * The rule: a request whose bio a task queued inside its own writeback
 * window on inode I is charged to the owners of I's current generation in
 * proportion to the bytes each dirtied (the write call's return value
 * when syscall events are recorded; a page per dirtied folio otherwise,
 * topped up to the call's bytes at its exit, so large folios count as what
 * was written).  Owners are group keys under --group-by, with the task
 * filters applied per dirtying (a filtered-out owner's part is simply not
 * shown).  Everything else is the direct rule of io.c: the task that
 * queued the bio owns it (fsync and O_DIRECT writes are issued by the
 * caller itself).
 *
 * What cannot be charged is counted, by reason: an inode whose dirtying
 * the trace does not hold (dirtied before the recording started), a
 * flusher whose state lost events made unknown (a gap since its latest
 * window event: the window may have ended, or another begun, unseen; it
 * is known again at its next window event), owners beyond WB_SHARES per
 * inode, and requests in flight across two restarts of the inode's
 * generation (the previous generation is kept for in-flight requests).
 *
 * A dirtying by a task inside its own window is a redirty (the filesystem
 * put back a page it could not write) and is ignored.  enqueue names the
 * superblock's device, dirty_folio the bdi ("major:minor" of the disk):
 * they differ for a filesystem on a partition, so the enqueue's inode is
 * the one the same task dirtied just before on that CPU (the kernel emits
 * them back to back), else the one keyed by its device.
 *
 * Memory: one ledger per inode dirtied in the last ten minutes of trace
 * time (swept every ten seconds), one entry per flusher thread and CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/format-int.h"
#include "analyses/writeback.h"

#define SWEEP_EVERY_NS (10ull * 1000000000ull)
#define IDLE_NS (600ull * 1000000000ull)

struct wb_ledger {
	uint32_t gen;		/* generation of cur; prev is gen - 1 */
	uint64_t last_ts;	/* latest dirtying or window */
	struct wb_gen cur, prev;
};

struct wb_flusher {
	uint64_t ikey;		/* the window's inode */
	uint64_t since;		/* its latest window event */
	bool in_window;
};

struct wb_last {		/* per CPU: the latest dirtying there */
	int pid;
	uint64_t ino, ikey;
	uint64_t key, weight;	/* its immediate credit, weight 0: none */
	uint8_t selected;
};

static uint64_t inode_key(const char *bdi, uint32_t len, uint64_t ino)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a of the bdi name */
	uint32_t i;

	for (i = 0; bdi && i < len && bdi[i]; i++)
		h = (h ^ (uint8_t)bdi[i]) * 0x100000001b3ull;
	h ^= ino * 0x9e3779b97f4a7c15ull;
	return h == 0 || h == ANA_MAP_EMPTY ? 1 : h;
}

static uint64_t name_key(const struct strobe_event *ev, const struct strobe_field *name,
			 const struct strobe_field *ino, uint64_t *inop)
{
	uint32_t len = 0;
	const char *s = strobe_field_str(ev, name, &len);

	*inop = strobe_field_uint(ev, ino);
	return inode_key(s, len, *inop);
}

void wb_init(struct ana_wb *w)
{
	ana_map_init(&w->inodes, sizeof(struct wb_ledger));
	ana_map_init(&w->owners, sizeof(struct ana_owner));
	ana_map_init(&w->flushers, sizeof(struct wb_flusher));
	ana_map_init(&w->last, sizeof(struct wb_last));
	w->page_size = 4096;
}

void wb_free(struct ana_wb *w)
{
	ana_map_free(&w->inodes);
	ana_map_free(&w->owners);
	ana_map_free(&w->flushers);
	ana_map_free(&w->last);
}

bool wb_resolve(struct ana_wb *w, struct strobe_formats *fmts)
{
	const struct strobe_format *e;

	e = strobe_formats_find(fmts, "writeback", "writeback_dirty_folio");
	w->have_dirty = e && !strobe_field_resolve(e, "name", &w->df_name) &&
			!strobe_field_resolve(e, "ino", &w->df_ino);
	e = strobe_formats_find(fmts, "writeback", "writeback_dirty_inode");
	if (e && !strobe_field_resolve(e, "name", &w->di_name) &&
	    !strobe_field_resolve(e, "ino", &w->di_ino))
		w->have_dirty = true;
	e = strobe_formats_find(fmts, "writeback", "writeback_dirty_inode_enqueue");
	w->have_enqueue = e && !strobe_field_resolve(e, "dev", &w->eq_dev) &&
			  !strobe_field_resolve(e, "ino", &w->eq_ino);
	e = strobe_formats_find(fmts, "writeback", "writeback_single_inode_start");
	w->have_window = e && !strobe_field_resolve(e, "name", &w->ws_name) &&
			 !strobe_field_resolve(e, "ino", &w->ws_ino);
	e = strobe_formats_find(fmts, "writeback", "writeback_single_inode");
	w->have_window = w->have_window && e && !strobe_field_resolve(e, "name", &w->we_name) &&
			 !strobe_field_resolve(e, "ino", &w->we_ino);
	if (tep_get_page_size(strobe_formats_tep(fmts)) > 0)
		w->page_size = (uint64_t)tep_get_page_size(strobe_formats_tep(fmts));
	return w->have_window;
}

/* Drop ledgers and flushers idle for IDLE_NS. */
static void sweep(struct ana_wb *w, uint64_t now)
{
	struct ana_map *maps[2] = { &w->inodes, &w->flushers };
	uint64_t *dead = NULL, key;
	size_t nr = 0, cap = 0, pos, i;
	int m;

	w->sweep_ts = now;
	if (now < IDLE_NS)
		return;
	for (m = 0; m < 2; m++) {
		void *v;

		nr = 0;
		pos = 0;
		while ((v = ana_map_next(maps[m], &pos, &key))) {
			uint64_t ts = m ? ((struct wb_flusher *)v)->since
					: ((struct wb_ledger *)v)->last_ts;

			if (ts >= now - IDLE_NS || (m && ((struct wb_flusher *)v)->in_window))
				continue;
			if (nr == cap) {
				uint64_t *d = realloc(dead, (cap ? cap * 2 : 64) * sizeof(*d));

				if (!d)
					break;
				dead = d;
				cap = cap ? cap * 2 : 64;
			}
			dead[nr++] = key;
		}
		for (i = 0; i < nr; i++)
			ana_map_del(maps[m], dead[i]);
	}
	free(dead);
}

static void add_share(struct wb_gen *g, uint64_t key, bool selected, uint64_t weight)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->s[i].key == key && g->s[i].selected == selected) {
			g->s[i].weight += weight;
			return;
		}
	if (g->n < WB_SHARES) {
		g->s[g->n].key = key;
		g->s[g->n].weight = weight;
		g->s[g->n].selected = selected;
		g->n++;
	} else {
		g->other += weight;
	}
}

/* The owner's group key (noting the owner), NULL task: false. */
static bool owner_of(struct ana *a, struct ana_wb *w, int tid, int cpu, uint64_t *key,
		     bool *selected)
{
	struct ana_core *c = a->core;
	const struct strobe_task *t = tid > 0 ? ana_task(c, tid) : NULL;
	struct ana_owner *o;
	bool created;

	if (!t)
		return false;
	*key = ana_group_key(c, t, cpu);
	*selected = ana_task_selected(c, t);
	o = ana_map_put(&w->owners, *key, &created);
	if (o && created)
		ana_owner_set(c, o, t, cpu);
	else if (o)
		ana_owner_refresh(c, o, t);
	return o != NULL;
}

static struct wb_ledger *ledger(struct ana_wb *w, uint64_t ikey, uint64_t ts)
{
	struct wb_ledger *l = ana_map_put(&w->inodes, ikey, NULL);

	if (l)
		l->last_ts = ts;
	return l;
}

uint64_t wb_dirty(struct ana *a, struct ana_wb *w, const struct strobe_event *ev, bool folio)
{
	struct wb_flusher *f = ana_map_get(&w->flushers, (uint64_t)(uint32_t)ev->pid);
	struct wb_ledger *l;
	struct wb_last *last;
	uint64_t ikey, ino, key, weight = folio ? w->page_size : 0;
	bool sel;

	if (f && f->in_window && !ana_gap_since(a->core, f->since))
		return 0;	/* a redirty by the flusher */
	ikey = folio ? name_key(ev, &w->df_name, &w->df_ino, &ino)
		     : name_key(ev, &w->di_name, &w->di_ino, &ino);
	if (ev->ts - w->sweep_ts > SWEEP_EVERY_NS)
		sweep(w, ev->ts);
	last = ana_map_put(&w->last, (uint64_t)(uint32_t)ev->cpu, NULL);
	if (last) {
		last->pid = ev->pid;
		last->ino = ino;
		last->ikey = ikey;
		last->weight = 0;
	}
	if (!owner_of(a, w, ev->pid, ev->cpu, &key, &sel) || !(l = ledger(w, ikey, ev->ts)))
		return ikey;
	add_share(&l->cur, key, sel, weight);
	if (last) {
		last->key = key;
		last->weight = weight;
		last->selected = sel;
	}
	return ikey;
}

void wb_credit(struct ana *a, struct ana_wb *w, uint64_t ikey, int tid, int cpu,
	       uint64_t bytes)
{
	struct wb_ledger *l;
	uint64_t key;
	bool sel;

	if (!ikey || !bytes || !owner_of(a, w, tid, cpu, &key, &sel))
		return;
	l = ana_map_get(&w->inodes, ikey);
	if (l)
		add_share(&l->cur, key, sel, bytes);
}

void wb_enqueue(struct ana *a, struct ana_wb *w, const struct strobe_event *ev)
{
	struct wb_last *last = ana_map_get(&w->last, (uint64_t)(uint32_t)ev->cpu);
	uint32_t dev = (uint32_t)strobe_field_uint(ev, &w->eq_dev);
	uint64_t ino = strobe_field_uint(ev, &w->eq_ino), ikey;
	struct wb_ledger *l;
	bool same = last && last->pid == ev->pid && last->ino == ino;
	char buf[32];

	if (same) {
		ikey = last->ikey;
	} else {
		snprintf(buf, sizeof(buf), "%u:%u", dev >> 20, dev & 0xfffff);
		ikey = inode_key(buf, (uint32_t)strlen(buf), ino);
	}
	l = ana_map_get(&w->inodes, ikey);
	if (!l)
		return;
	l->prev = l->cur;
	memset(&l->cur, 0, sizeof(l->cur));
	l->gen++;
	/* the folio whose dirtying made the clean inode dirty belongs here */
	if (same && last->weight)
		add_share(&l->cur, last->key, last->selected, last->weight);
}

void wb_window(struct ana *a, struct ana_wb *w, const struct strobe_event *ev, bool start)
{
	struct wb_flusher *f = ana_map_put(&w->flushers, (uint64_t)(uint32_t)ev->pid, NULL);
	struct wb_ledger *l;
	uint64_t ino, ikey = start ? name_key(ev, &w->ws_name, &w->ws_ino, &ino)
				   : name_key(ev, &w->we_name, &w->we_ino, &ino);

	if (!f)
		return;
	f->in_window = start;
	f->ikey = ikey;
	f->since = ev->ts;
	l = ana_map_get(&w->inodes, ikey);
	if (l)
		l->last_ts = ev->ts;
}

struct wb_tag wb_tag_of(struct ana *a, struct ana_wb *w, int tid)
{
	struct wb_flusher *f = ana_map_get(&w->flushers, (uint64_t)(uint32_t)tid);
	struct wb_tag t = { 0, 0, WB_DIRECT };
	struct wb_ledger *l;

	if (!f)
		return t;
	if (ana_gap_since(a->core, f->since)) {
		t.kind = WB_CUT;
	} else if (f->in_window) {
		t.kind = WB_INODE;
		t.ikey = f->ikey;
		l = ana_map_get(&w->inodes, f->ikey);
		t.gen = l ? l->gen : 0;
	}
	return t;
}

int wb_shares(struct ana *a, struct ana_wb *w, const struct wb_tag *t, uint64_t bytes,
	      struct wb_part *parts, struct wb_why *why)
{
	struct wb_ledger *l;
	const struct wb_gen *g = NULL;
	uint64_t total = 0, given = 0, part[WB_SHARES], other;
	int i, j, n = 0, big = -1;

	if (t->kind == WB_CUT) {
		why->cut += bytes;
		return 0;
	}
	l = ana_map_get(&w->inodes, t->ikey);
	if (l && l->gen == t->gen)
		g = &l->cur;
	else if (l && l->gen == t->gen + 1)
		g = &l->prev;
	if (!g || (!g->n && !g->other)) {
		if (l && !g)
			why->other += bytes;
		else
			why->unknown += bytes;
		return 0;
	}
	for (i = 0; i < g->n; i++)
		total += g->s[i].weight;
	total += g->other;
	/* owners by metadata only (no bytes): equal parts */
	for (i = 0; i < g->n; i++) {
		uint64_t wt = total ? g->s[i].weight : 1, tot = total ? total : (uint64_t)g->n;

		part[i] = (uint64_t)((unsigned __int128)bytes * wt / tot);
		given += part[i];
		if (big < 0 || part[i] > part[big])
			big = i;
	}
	other = total ? (uint64_t)((unsigned __int128)bytes * g->other / total) : 0;
	given += other;
	if (big >= 0)
		part[big] += bytes - given;	/* rounding */
	else
		other = bytes;
	why->other += other;
	for (i = 0; i < g->n; i++) {
		const struct ana_owner *o;

		if (!part[i] || !g->s[i].selected)
			continue;
		o = ana_map_get(&w->owners, g->s[i].key);
		if (!o) {
			why->other += part[i];
			continue;
		}
		/* insertion, largest first */
		for (j = n; j > 0 && parts[j - 1].bytes < part[i]; j--)
			parts[j] = parts[j - 1];
		parts[j].key = g->s[i].key;
		parts[j].o = o;
		parts[j].bytes = part[i];
		n++;
	}
	return n;
}
