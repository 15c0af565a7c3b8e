/*
 * analysis_fixture.h - what the analysis tests (test_analysis_*.c) share:
 * the event formats they all parse (as a 6.x kernel's tracefs prints
 * them, built from formats.h), a tep built from a list of formats, and a
 * feeder that builds one event's payload in place (little-endian) and
 * feeds it to the model, when there is one, then to the analysis; table
 * and column lookup by name.
 *
 * Formats whose ID or fields differ between the tests stay in the test
 * files.  A test that keeps more state per feeder defines
 * FIXTURE_FEEDER_EXTRA (member declarations) before including this.
 * Functions are static inline so that a test need not use all of them.
 */
#ifndef STROBE_ANALYSIS_FIXTURE_H
#define STROBE_ANALYSIS_FIXTURE_H

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "format/format-int.h"
#include "formats.h"
#include "test.h"

enum { ID_SWITCH = 372, ID_ENTER = 443, ID_EXIT = 444, ID_WAKING = 702, ID_FORK = 703,
       ID_IRQ_ENTRY = 705, ID_IRQ_EXIT = 706 };

static const char fmt_switch[] = "name: sched_switch\nID: 372\nformat:\n"
	FMT_COMMON FMT_SWITCH_FIELDS
	"print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";
static const char fmt_enter[] = "name: sys_enter\nID: 443\nformat:\n"
	FMT_COMMON FMT_SYS_ENTER_FIELDS
	"print fmt: \"NR %ld\", REC->id\n";
static const char fmt_exit[] = "name: sys_exit\nID: 444\nformat:\n"
	FMT_COMMON FMT_SYS_EXIT_FIELDS
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
static const char fmt_waking[] = "name: sched_waking\nID: 702\nformat:\n" FMT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pid=%d\", REC->pid\n";
static const char fmt_fork[] = "name: sched_process_fork\nID: 703\nformat:\n" FMT_COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"child_pid=%d\", REC->child_pid\n";
static const char fmt_irq_entry[] = "name: irq_handler_entry\nID: 705\nformat:\n" FMT_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d\", REC->irq\n";
static const char fmt_irq_exit[] = "name: irq_handler_exit\nID: 706\nformat:\n" FMT_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d\", REC->irq\n";

/* One format text and its system name. */
struct fixture_fmt {
	const char *fmt, *sys;
};

/* A little-endian, 8-byte-long tep holding the n formats f; NULL if one
 * does not parse.  The caller frees it with tep_free(). */
static inline struct tep_handle *fixture_tep(const struct fixture_fmt *f, size_t n)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, 4096);
	for (i = 0; i < n; i++)
		if (tep_parse_event(tep, f[i].fmt, strlen(f[i].fmt), f[i].sys)) {
			tep_free(tep);
			return NULL;
		}
	return tep;
}

static inline void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The analysis fed, its tep, its model (NULL: the analysis' internal one)
 * and the payload of the next event, filled by the builders below. */
struct feeder {
	struct strobe_analysis *a;
	struct tep_handle *tep;
	struct strobe_formats *fmts;	/* over tep, made by fixture_fmts() */
	struct strobe_model *m;
#ifdef FIXTURE_FEEDER_EXTRA
	FIXTURE_FEEDER_EXTRA
#endif
	uint8_t d[64];
};

/* The format catalogue over f->tep (made on first use, freed by stop()). */
static inline struct strobe_formats *fixture_fmts(struct feeder *f)
{
	if (!f->fmts && f->tep)
		f->fmts = strobe_formats_new(f->tep);
	return f->fmts;
}

/* One event of `type` with the payload in f->d (the analyses read it
 * during the feed), then clears the payload for the next one. */
static inline void feed(struct feeder *f, int type, int pid, int cpu, uint64_t ts,
			int64_t missed)
{
	struct strobe_event ev = { 0 };

	f->d[0] = (uint8_t)type;
	f->d[1] = (uint8_t)(type >> 8);
	put32(f->d + 4, (uint32_t)pid);
	ev.ts = ts;
	ev.data = f->d;
	ev.size = 64;
	ev.cpu = cpu;
	ev.type = type;
	ev.pid = pid;
	ev.missed = missed;
	ev.format = strobe_formats_by_id(fixture_fmts(f), type);
	if (f->m)
		strobe_model_update(f->m, &ev);
	strobe_analysis_feed(f->a, &ev);
	memset(f->d, 0, sizeof(f->d));
}

static inline void sched_switch(struct feeder *f, int cpu, uint64_t ts, int prev, long state,
				int next)
{
	put32(f->d + 24, (uint32_t)prev);
	put64(f->d + 32, (uint64_t)state);
	put32(f->d + 56, (uint32_t)next);
	feed(f, ID_SWITCH, prev, cpu, ts, 0);
}

static inline void fork_ev(struct feeder *f, int parent, int cpu, uint64_t ts, int child)
{
	put32(f->d + 24, (uint32_t)parent);
	put32(f->d + 44, (uint32_t)child);
	feed(f, ID_FORK, parent, cpu, ts, 0);
}

/* Frees what a test's start() made (any of them may be NULL). */
static inline void stop(struct feeder *f)
{
	strobe_analysis_free(f->a);
	strobe_model_free(f->m);
	strobe_formats_free(f->fmts);
	tep_free(f->tep);
}

/* The result table called name, NULL if none. */
static inline const struct strobe_table *table(struct strobe_analysis *a, const char *name)
{
	int i;

	for (i = 0; i < strobe_analysis_nr_tables(a); i++)
		if (!strcmp(strobe_table_name(strobe_analysis_table(a, i)), name))
			return strobe_analysis_table(a, i);
	return NULL;
}

/* Index of the column keyed key in t, -1 if none. */
static inline int col(const struct strobe_table *t, const char *key)
{
	int i;

	for (i = 0; i < strobe_table_nr_columns(t); i++)
		if (!strcmp(strobe_table_column(t, i)->key, key))
			return i;
	return -1;
}

#endif
