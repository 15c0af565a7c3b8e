/*
 * writeback.h - internal interface of writeback.c: who owns block IO that
 * the kernel writes back on behalf of the tasks that dirtied the pages
 * (flusher kworkers after a buffered write, sync, dirty page reclaim).
 * Used by io.c, which pairs block requests and owns the result tables;
 * the rule itself is described at the head of writeback.c.
 */
#ifndef STROBE_ANALYSES_WRITEBACK_H
#define STROBE_ANALYSES_WRITEBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyses/analysis-int.h"

#define WB_SHARES 4		/* owners kept per inode; more go to "other" */

/* What a bio, then its request, carries from the moment it was queued. */
enum wb_kind {
	WB_DIRECT = 0,		/* issued by a task for itself: the issuer owns it */
	WB_INODE,		/* inside a flusher's window on inode ikey */
	WB_CUT,			/* by a flusher whose window lost events cut */
};

struct wb_tag {
	uint64_t ikey;		/* inode key (WB_INODE) */
	uint32_t gen;		/* the inode's dirtying generation then */
	uint8_t kind;		/* enum wb_kind */
};

/* One owner's part of a written-back request (wb_shares()). */
struct wb_part {
	uint64_t key;			/* group key under --group-by */
	const struct ana_owner *o;	/* valid until the next wb_* call */
	uint64_t bytes;
};

/* Shares of one dirtying generation of an inode. */
struct wb_share {
	uint64_t key;		/* owner's group key */
	uint64_t weight;	/* bytes dirtied */
	uint8_t selected;	/* passes the task filters */
};

struct wb_gen {
	struct wb_share s[WB_SHARES];
	uint64_t other;		/* weight of owners beyond WB_SHARES */
	uint8_t n;
};

struct wb_why {			/* unattributed bytes, by reason */
	uint64_t unknown;	/* no dirtying of the inode recorded */
	uint64_t cut;		/* the flusher's window cut by lost events */
	uint64_t other;		/* owners beyond WB_SHARES, or shares of a
				 * generation that restarted twice meanwhile */
};

struct ana_wb {
	struct strobe_field df_name, df_ino;	/* writeback_dirty_folio */
	struct strobe_field di_name, di_ino;	/* writeback_dirty_inode */
	struct strobe_field eq_dev, eq_ino;	/* writeback_dirty_inode_enqueue */
	struct strobe_field ws_name, ws_ino;	/* writeback_single_inode_start */
	struct strobe_field we_name, we_ino;	/* writeback_single_inode */
	bool have_dirty, have_window, have_enqueue;
	uint64_t page_size;
	struct ana_map inodes;		/* inode key -> struct wb_ledger */
	struct ana_map owners;		/* group key -> struct ana_owner */
	struct ana_map flushers;	/* tid -> struct wb_flusher */
	struct ana_map last;		/* cpu -> struct wb_last */
	uint64_t sweep_ts;
};

void wb_init(struct ana_wb *w);
void wb_free(struct ana_wb *w);
/* Resolve the writeback events' fields; true if the windows (start and
 * end) are in the trace. */
bool wb_resolve(struct ana_wb *w, struct strobe_formats *fmts);

/*
 * A dirtying event (writeback_dirty_folio when folio, else
 * writeback_dirty_inode): credits the dirtier with a page for a folio
 * (nothing for an inode, which only names an owner) and returns the
 * inode's key, or 0 when the event is ignored (the dirtier is a flusher
 * inside its window: a redirty).  A write call in progress tops the
 * credit up to its bytes at exit (wb_credit).
 */
uint64_t wb_dirty(struct ana *a, struct ana_wb *w, const struct strobe_event *ev,
		  bool folio);
/* Credit `bytes` dirtied in inode ikey by task tid (the write call that
 * dirtied it returned). */
void wb_credit(struct ana *a, struct ana_wb *w, uint64_t ikey, int tid, int cpu,
	       uint64_t bytes);
/* writeback_dirty_inode_enqueue: the inode was clean; a new generation. */
void wb_enqueue(struct ana *a, struct ana_wb *w, const struct strobe_event *ev);
/* writeback_single_inode_start / writeback_single_inode */
void wb_window(struct ana *a, struct ana_wb *w, const struct strobe_event *ev, bool start);
/* The tag of a bio queued now (or a request issued without a queued bio)
 * by tid. */
struct wb_tag wb_tag_of(struct ana *a, struct ana_wb *w, int tid);
/*
 * The selected owners of a written-back request of `bytes` (tag kind
 * WB_INODE or WB_CUT): parts[] (at most WB_SHARES, largest first) and the
 * number filled; the bytes nobody can be charged with go to *why.  Parts
 * of owners the task filters leave out are neither returned nor counted
 * as unattributed.
 */
int wb_shares(struct ana *a, struct ana_wb *w, const struct wb_tag *t, uint64_t bytes,
	      struct wb_part *parts, struct wb_why *why);

#endif
