/*
 * test_analysis_writeback.c - block IO written back by the kernel is
 * charged to whoever dirtied the pages (lib/analyses/writeback.c), on
 * synthetic event sequences with shares computed by hand.
 *
 * The model is loaded from a stored table: task 40 of container alpha,
 * 41 of container beta, 20 on the host, and the flusher kworkers 50 and
 * 51 (host).  Pages are dirtied on inodes of bdi "254:0"
 * (writeback_dirty_folio, in the dirtier's context), written back by a
 * kworker inside writeback_single_inode_start .. writeback_single_inode
 * windows, as block_bio_queue, block_rq_issue and block_rq_complete on
 * disk 254:0 (formats as this 6.18 kernel's tracefs prints them).
 */
#include "analysis_fixture.h"

enum { ID_BIO = 720, ID_ISSUE = 721, ID_COMPLETE = 722, ID_FOLIO = 730, ID_DINODE = 731,
       ID_ENQUEUE = 732, ID_WSTART = 733, ID_WEND = 734 };

#define BLK_COMMON FMT_COMMON \
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
static const char fmt_bio[] = "name: block_bio_queue\nID: 720\nformat:\n" BLK_COMMON
	"\tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:38;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"%llu + %u\", REC->sector, REC->nr_sector\n";
static const char fmt_issue[] = "name: block_rq_issue\nID: 721\nformat:\n" BLK_COMMON
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%u %llu\", REC->bytes, REC->sector\n";
static const char fmt_complete[] = "name: block_rq_complete\nID: 722\nformat:\n" BLK_COMMON
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%llu\", REC->sector\n";
#define BDI_INO \
	"\tfield:char name[32];\toffset:8;\tsize:32;\tsigned:0;\n" \
	"\tfield:ino_t ino;\toffset:40;\tsize:8;\tsigned:0;\n"
static const char fmt_folio[] = "name: writeback_dirty_folio\nID: 730\nformat:\n" FMT_COMMON
	BDI_INO "\tfield:unsigned long index;\toffset:48;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"bdi %s: ino=%lu\", REC->name, REC->ino\n";
static const char fmt_dinode[] = "name: writeback_dirty_inode\nID: 731\nformat:\n" FMT_COMMON
	BDI_INO "\tfield:unsigned long state;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long flags;\toffset:56;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"bdi %s: ino=%lu\", REC->name, REC->ino\n";
static const char fmt_enqueue[] = "name: writeback_dirty_inode_enqueue\nID: 732\nformat:\n"
	FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:ino_t ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long state;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:__u16 mode;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned long dirtied_when;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"ino %lu\", REC->ino\n";
/* the window events' fields after ino (state .. cgroup_ino, offsets 48 to
 * 96) lie beyond the fixture's 64-byte payload and are not read */
#define WB_WINDOW_FIELDS BDI_INO \
	"\tfield:unsigned long state;\toffset:48;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long dirtied_when;\toffset:56;\tsize:8;\tsigned:0;\n\n"
static const char fmt_wstart[] = "name: writeback_single_inode_start\nID: 733\nformat:\n"
	FMT_COMMON WB_WINDOW_FIELDS "print fmt: \"bdi %s: ino=%lu\", REC->name, REC->ino\n";
static const char fmt_wend[] = "name: writeback_single_inode\nID: 734\nformat:\n"
	FMT_COMMON WB_WINDOW_FIELDS "print fmt: \"bdi %s: ino=%lu\", REC->name, REC->ino\n";

#define ID64A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID64B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TASK(tid, tgid, ppid, comm, ci) \
	"T\t" #tid "\t" #tgid "\t" #ppid "\t" comm "\t" #ci "\t\t\t0\t0\t0\t0\t\n"

static const char table_text[] =
	"strobe-model 1\n"
	"C\t2\tpodman\t" ID64A "\talpha\t\n"
	"C\t3\tpodman\t" ID64B "\tbeta\t\n"
	TASK(20, 20, 1, "other", 1)
	TASK(40, 40, 1, "a", 2)
	TASK(41, 41, 1, "b", 3)
	TASK(50, 50, 2, "kworker/u8:1", 1)
	TASK(51, 51, 2, "kworker/u8:2", 1);

#define DISK ((254u << 20) | 0)
#define PAGE 4096
#define NR_WRITE 1	/* x86_64 */

static bool start(struct feeder *f, enum strobe_group_by g, const char *const *conts,
		  int nr_conts, bool with_syscalls)
{
	struct fixture_fmt fm[] = {
		{ fmt_bio, "block" }, { fmt_issue, "block" }, { fmt_complete, "block" },
		{ fmt_folio, "writeback" }, { fmt_dinode, "writeback" },
		{ fmt_enqueue, "writeback" }, { fmt_wstart, "writeback" },
		{ fmt_wend, "writeback" }, { fmt_switch, "sched" },
		{ fmt_enter, "raw_syscalls" }, { fmt_exit, "raw_syscalls" },
	};
	struct strobe_analysis_opts o = { .group_by = g, .views = STROBE_VIEW_STATS,
					  .containers = conts, .nr_containers = nr_conts };
	struct strobe_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->tep = fixture_tep(fm, sizeof(fm) / sizeof(fm[0]) - (with_syscalls ? 0 : 2));
	if (!f->tep || strobe_model_new(&f->m, &err) < 0 ||
	    strobe_model_table_load(f->m, table_text, sizeof(table_text) - 1, &err) < 0 ||
	    strobe_analysis_new("io", &o, &f->a, &err) < 0 ||
	    strobe_analysis_attach(f->a, fixture_fmts(f), f->m, &err) < 0) {
		fprintf(stderr, "  start: %s\n", err.msg);
		return false;
	}
	return true;
}

static void bdi_ino(struct feeder *f, uint64_t ino)
{
	memcpy(f->d + 8, "254:0", 6);
	put64(f->d + 40, ino);
}

/* tid dirties a folio of inode ino */
static void folio(struct feeder *f, int tid, int cpu, uint64_t ts, uint64_t ino)
{
	bdi_ino(f, ino);
	feed(f, ID_FOLIO, tid, cpu, ts, 0);
}

static void window(struct feeder *f, bool begin, int tid, uint64_t ts, uint64_t ino)
{
	bdi_ino(f, ino);
	feed(f, begin ? ID_WSTART : ID_WEND, tid, 1, ts, 0);
}

static void enqueue(struct feeder *f, int tid, int cpu, uint64_t ts, uint32_t dev,
		    uint64_t ino)
{
	put32(f->d + 8, dev);
	put64(f->d + 16, ino);
	feed(f, ID_ENQUEUE, tid, cpu, ts, 0);
}

/* write(3, ..) by tid: entry at ts, exit 100 ns later returning ret,
 * dirtying `folios` folios of ino in between */
static void write_call(struct feeder *f, int tid, int cpu, uint64_t ts, uint64_t ino,
		       int folios, int64_t ret)
{
	int i;

	put64(f->d + 8, NR_WRITE);
	put64(f->d + 16, 3);
	feed(f, ID_ENTER, tid, cpu, ts, 0);
	for (i = 0; i < folios; i++)
		folio(f, tid, cpu, ts + 10 + (uint64_t)i, ino);
	put64(f->d + 8, NR_WRITE);
	put64(f->d + 16, (uint64_t)ret);
	feed(f, ID_EXIT, tid, cpu, ts + 100, 0);
}

/* A request of `bytes` at sector, its bio queued and the request issued by
 * tid at ts (missed: events lost just before), completed at done. */
static void request(struct feeder *f, int tid, uint64_t ts, uint64_t sector, uint32_t bytes,
		    uint64_t done, int64_t missed)
{
	put32(f->d + 8, DISK);
	put64(f->d + 16, sector);
	put32(f->d + 24, bytes / 512);
	feed(f, ID_BIO, tid, 1, ts, missed);
	put32(f->d + 8, DISK);
	put64(f->d + 16, sector);
	put32(f->d + 24, bytes / 512);
	put32(f->d + 28, bytes);
	feed(f, ID_ISSUE, tid, 1, ts + 1, 0);
	if (!done)
		return;
	put32(f->d + 8, DISK);
	put64(f->d + 16, sector);
	feed(f, ID_COMPLETE, 0, 0, done, 0);
}

/* Column vkey of the row of t whose column skey is the string sval, or
 * whose int column skey is ival when sval is NULL; -1 if none. */
static int64_t cell(const struct strobe_table *t, const char *skey, const char *sval,
		    int64_t ival, const char *vkey)
{
	int sc = t ? col(t, skey) : -1, vc = t ? col(t, vkey) : -1;
	size_t r;

	if (sc < 0 || vc < 0)
		return -1;
	for (r = 0; r < strobe_table_nr_rows(t); r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		if (sval ? !strcmp(v[sc].s, sval) : v[sc].i == ival)
			return v[vc].i;
	}
	return -1;
}

static bool has_note(struct strobe_analysis *a, const char *s)
{
	int i;

	for (i = 0; i < strobe_analysis_nr_notes(a); i++)
		if (strstr(strobe_analysis_note(a, i), s))
			return true;
	return false;
}

/*
 * alpha's task 40 writes 12288 bytes to inode 100 (two folio events: a
 * larger folio), beta's 41 writes 4096 (one folio); kworker 50 writes the
 * inode back as one 16384-byte request.  By bytes dirtied: alpha 3/4 =
 * 12288, beta 1/4 = 4096, the kworker nothing.
 */
static void test_writeback_two_containers_share_one_inode_by_bytes(void)
{
	struct feeder f;
	const struct strobe_table *t, *w;

	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 2, 12288);
	write_call(&f, 41, 1, 1500, 100, 1, 4096);
	window(&f, true, 50, 5000, 100);
	request(&f, 50, 5100, 8000, 16384, 9000, 0);
	window(&f, false, 50, 5200, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	REQUIRE(t);
	CHECK_EQ(cell(t, "container", "alpha", 0, "bytes"), 12288);
	CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), 12288);
	CHECK_EQ(cell(t, "container", "alpha", 0, "direct_bytes"), 0);
	CHECK_EQ(cell(t, "container", "alpha", 0, "count"), 1);
	CHECK_EQ(cell(t, "container", "alpha", 0, "max"), 9000 - 5101);
	CHECK_EQ(cell(t, "container", "beta", 0, "writeback_bytes"), 4096);
	CHECK_EQ(cell(t, "container", "host", 0, "bytes"), -1);	/* not the kworker */
	w = table(f.a, "io.writeback");
	REQUIRE(w);
	CHECK_EQ(cell(w, "disk", "254:0", 0, "bytes"), 16384);
	CHECK_EQ(cell(w, "disk", "254:0", 0, "charged_bytes"), 16384);
	CHECK_EQ(cell(w, "disk", "254:0", 0, "unattributed_bytes"), 0);
	CHECK(!has_note(f.a, "not charged"));
	stop(&f);

	/* the same by thread: the tasks themselves */
	REQUIRE(start(&f, STROBE_GROUP_THREAD, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 2, 12288);
	write_call(&f, 41, 1, 1500, 100, 1, 4096);
	window(&f, true, 50, 5000, 100);
	request(&f, 50, 5100, 8000, 16384, 9000, 0);
	window(&f, false, 50, 5200, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	CHECK_EQ(cell(t, "tid", NULL, 40, "writeback_bytes"), 12288);
	CHECK_EQ(cell(t, "tid", NULL, 41, "writeback_bytes"), 4096);
	CHECK_EQ(cell(t, "tid", NULL, 50, "bytes"), -1);
	stop(&f);
}

/*
 * Without syscall events, a dirtied folio counts a page: alpha 3 folios,
 * beta 1, of a 8192-byte request: 6144 and 2048.  With --container beta
 * only beta's part is shown, and alpha's is not "unattributed".
 */
static void test_writeback_shares_by_folios_without_syscalls_and_filters(void)
{
	static const char *const beta[] = { "beta" };
	struct feeder f;
	const struct strobe_table *t;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		REQUIRE(start(&f, STROBE_GROUP_CONTAINER, pass ? beta : NULL, pass, false));
		folio(&f, 40, 0, 1000, 100);
		folio(&f, 41, 1, 1001, 100);
		folio(&f, 40, 0, 1002, 100);
		folio(&f, 40, 0, 1003, 100);
		window(&f, true, 50, 5000, 100);
		request(&f, 50, 5100, 8000, 8192, 9000, 0);
		window(&f, false, 50, 5200, 100);
		REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
		t = table(f.a, "io.block");
		CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), pass ? -1 : 6144);
		CHECK_EQ(cell(t, "container", "beta", 0, "writeback_bytes"), 2048);
		t = table(f.a, "io.writeback");
		CHECK_EQ(cell(t, "disk", "254:0", 0, "charged_bytes"), pass ? 2048 : 8192);
		CHECK_EQ(cell(t, "disk", "254:0", 0, "unattributed_bytes"), 0);
		stop(&f);
	}
}

/*
 * Two flushers at once: kworker 50 writes inode 100 (alpha's), 51 inode
 * 200 (beta's), their windows and requests interleaved.  alpha also
 * fsyncs: a request its own task queues is direct.  A request 50 issues
 * after its window closed is the kworker's own.
 */
static void test_writeback_overlapping_flusher_windows(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 1, 8192);
	write_call(&f, 41, 1, 1200, 200, 3, 12288);
	window(&f, true, 50, 5000, 100);
	window(&f, true, 51, 5010, 200);
	request(&f, 51, 5020, 30000, 12288, 0, 0);
	request(&f, 50, 5030, 10000, 8192, 0, 0);
	request(&f, 40, 5040, 50000, 4096, 7000, 0);	/* alpha's fsync */
	window(&f, false, 50, 5050, 100);
	request(&f, 50, 5060, 70000, 512, 7100, 0);	/* the kworker's own */
	window(&f, false, 51, 5070, 200);
	put32(f.d + 8, DISK);
	put64(f.d + 16, 10000);
	feed(&f, ID_COMPLETE, 0, 0, 8000, 0);
	put32(f.d + 8, DISK);
	put64(f.d + 16, 30000);
	feed(&f, ID_COMPLETE, 0, 0, 8100, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), 8192);
	CHECK_EQ(cell(t, "container", "alpha", 0, "direct_bytes"), 4096);
	CHECK_EQ(cell(t, "container", "alpha", 0, "bytes"), 12288);
	CHECK_EQ(cell(t, "container", "alpha", 0, "count"), 2);
	CHECK_EQ(cell(t, "container", "beta", 0, "writeback_bytes"), 12288);
	CHECK_EQ(cell(t, "container", "beta", 0, "direct_bytes"), 0);
	CHECK_EQ(cell(t, "container", "host", 0, "direct_bytes"), 512);
	CHECK_EQ(cell(t, "container", "host", 0, "writeback_bytes"), 0);
	t = table(f.a, "io.writeback");
	CHECK_EQ(cell(t, "disk", "254:0", 0, "bytes"), 8192 + 12288);
	CHECK_EQ(cell(t, "disk", "254:0", 0, "requests"), 2);
	stop(&f);
}

/*
 * Events lost inside kworker 50's window on inode 100: its request before
 * the gap is alpha's; the one after (the window may have ended and
 * another begun unseen) is counted as cut by lost events, charged to
 * nobody; after the window's end is seen the kworker's requests are its
 * own again.
 */
static void test_writeback_window_cut_by_lost_events(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 4, 16384);
	window(&f, true, 50, 5000, 100);
	request(&f, 50, 5100, 8000, 8192, 5500, 0);
	/* events lost on CPU 0 before this one */
	put64(f.d + 8, 39);
	feed(&f, ID_ENTER, 20, 0, 6000, 17);
	request(&f, 50, 6100, 9000, 4096, 6500, 0);
	window(&f, false, 50, 7000, 100);
	request(&f, 50, 7100, 9500, 1024, 7500, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), 8192);
	CHECK_EQ(cell(t, "container", "host", 0, "direct_bytes"), 1024);
	CHECK_EQ(cell(t, "container", "host", 0, "writeback_bytes"), 0);
	t = table(f.a, "io.writeback");
	CHECK_EQ(cell(t, "disk", "254:0", 0, "bytes"), 8192 + 4096);
	CHECK_EQ(cell(t, "disk", "254:0", 0, "charged_bytes"), 8192);
	CHECK_EQ(cell(t, "disk", "254:0", 0, "lost_events_bytes"), 4096);
	CHECK_EQ(cell(t, "disk", "254:0", 0, "unattributed_bytes"), 4096);
	CHECK(has_note(f.a, "pages: 4.0 KiB by flushers whose writeback window lost events cut"));

	stop(&f);
	/* a gap that swallowed the window's start: the kworker's requests
	 * until its next window event are unknown, not its own */
	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 1, 4096);
	window(&f, true, 50, 2000, 300);
	window(&f, false, 50, 2100, 300);
	put64(f.d + 8, 39);
	feed(&f, ID_ENTER, 20, 0, 3000, 5);	/* lost: the start on 100 */
	request(&f, 50, 3100, 8000, 4096, 3500, 0);
	window(&f, false, 50, 4000, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_EQ(cell(table(f.a, "io.writeback"), "disk", "254:0", 0, "lost_events_bytes"), 4096);
	CHECK_EQ(cell(table(f.a, "io.block"), "container", "host", 0, "bytes"), -1);
	stop(&f);
}

/*
 * Generations: alpha dirtied inode 100, written back; the inode became
 * clean; beta dirties it again (enqueue: the clean inode became dirty),
 * its writeback is beta's alone.  A request of alpha's generation still
 * in flight at the restart stays alpha's.  An inode whose dirtying the
 * trace does not hold (dirtied before the recording) is unattributed; a
 * redirty by the flusher inside its window gives it no share.
 */
static void test_writeback_generations_unknown_and_redirty(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 2, 8192);
	window(&f, true, 50, 2000, 100);
	folio(&f, 50, 1, 2001, 100);			/* redirty: ignored */
	request(&f, 50, 2010, 8000, 8192, 0, 0);	/* completes after the restart */
	window(&f, false, 50, 2100, 100);
	/* beta writes: timestamps make the clean inode dirty first, then
	 * the page; the filesystem is on partition 254:1 of disk 254:0 */
	put64(f.d + 8, NR_WRITE);
	put64(f.d + 16, 3);
	feed(&f, ID_ENTER, 41, 1, 3000, 0);
	bdi_ino(&f, 100);
	feed(&f, ID_DINODE, 41, 1, 3001, 0);
	enqueue(&f, 41, 1, 3002, (254u << 20) | 1, 100);
	folio(&f, 41, 1, 3003, 100);
	put64(f.d + 8, NR_WRITE);
	put64(f.d + 16, 4096);
	feed(&f, ID_EXIT, 41, 1, 3100, 0);
	put32(f.d + 8, DISK);
	put64(f.d + 16, 8000);
	feed(&f, ID_COMPLETE, 0, 0, 3200, 0);		/* alpha's request */
	window(&f, true, 50, 4000, 100);
	request(&f, 50, 4010, 9000, 4096, 4500, 0);
	window(&f, false, 50, 4100, 100);
	/* inode 999: dirtied before the recording */
	window(&f, true, 51, 5000, 999);
	request(&f, 51, 5010, 12000, 2048, 5500, 0);
	window(&f, false, 51, 5100, 999);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), 8192);
	CHECK_EQ(cell(t, "container", "beta", 0, "writeback_bytes"), 4096);
	CHECK_EQ(cell(t, "container", "host", 0, "bytes"), -1);
	t = table(f.a, "io.writeback");
	CHECK_EQ(cell(t, "disk", "254:0", 0, "charged_bytes"), 8192 + 4096);
	CHECK_EQ(cell(t, "disk", "254:0", 0, "unknown_dirtier_bytes"), 2048);
	CHECK(has_note(f.a, "dirtied before the recording"));
	stop(&f);
}

/*
 * A bio larger than a request is split: kworker 50 queues one 8 MiB bio
 * inside its window on alpha's inode, and inserts and issues the two
 * 4 MiB requests after the window closed (at the end of its plug): both
 * are alpha's.  A request inside no recorded bio stays the issuer's.
 */
static void test_writeback_split_bio_issued_after_the_window(void)
{
	struct feeder f;
	const struct strobe_table *t;
	int i;

	REQUIRE(start(&f, STROBE_GROUP_CONTAINER, NULL, 0, true));
	write_call(&f, 40, 0, 1000, 100, 8, 8 << 20);
	window(&f, true, 50, 5000, 100);
	put32(f.d + 8, DISK);
	put64(f.d + 16, 100000);
	put32(f.d + 24, 16384);
	feed(&f, ID_BIO, 50, 1, 5100, 0);
	window(&f, false, 50, 5200, 100);
	for (i = 0; i < 3; i++) {	/* the halves, and one of no bio */
		uint64_t sector = i < 2 ? 100000 + 8192 * (uint64_t)i : 200000;

		put32(f.d + 8, DISK);
		put64(f.d + 16, sector);
		put32(f.d + 24, 8192);
		put32(f.d + 28, 4 << 20);
		feed(&f, ID_ISSUE, 50, 1, 5300 + (uint64_t)i, 0);
		put32(f.d + 8, DISK);
		put64(f.d + 16, sector);
		feed(&f, ID_COMPLETE, 0, 0, 9000 + (uint64_t)i, 0);
	}
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "io.block");
	CHECK_EQ(cell(t, "container", "alpha", 0, "writeback_bytes"), 8 << 20);
	CHECK_EQ(cell(t, "container", "host", 0, "direct_bytes"), 4 << 20);
	stop(&f);
}

/* A trace without the window events says so; requests stay the issuer's. */
static void test_writeback_needs_window_events(void)
{
	static const struct fixture_fmt fm[] = {
		{ fmt_bio, "block" }, { fmt_issue, "block" }, { fmt_complete, "block" },
		{ fmt_enter, "raw_syscalls" }, { fmt_exit, "raw_syscalls" },
	};
	struct strobe_analysis_opts o = { .group_by = STROBE_GROUP_CONTAINER,
					  .views = STROBE_VIEW_STATS };
	struct feeder f;

	memset(&f, 0, sizeof(f));
	f.tep = fixture_tep(fm, sizeof(fm) / sizeof(fm[0]));
	REQUIRE(f.tep);
	REQUIRE(strobe_model_new(&f.m, NULL) == 0);
	REQUIRE(strobe_model_table_load(f.m, table_text, sizeof(table_text) - 1, NULL) == 0);
	REQUIRE(strobe_analysis_new("io", &o, &f.a, NULL) == 0);
	REQUIRE(strobe_analysis_attach(f.a, fixture_fmts(&f), f.m, NULL) == 0);
	request(&f, 50, 5100, 8000, 8192, 9000, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_EQ(cell(table(f.a, "io.block"), "container", "host", 0, "direct_bytes"), 8192);
	CHECK(has_note(f.a, "charged to the flusher"));
	stop(&f);
}

TESTS(T(test_writeback_two_containers_share_one_inode_by_bytes),
      T(test_writeback_shares_by_folios_without_syscalls_and_filters),
      T(test_writeback_overlapping_flusher_windows),
      T(test_writeback_window_cut_by_lost_events),
      T(test_writeback_generations_unknown_and_redirty),
      T(test_writeback_split_bio_issued_after_the_window),
      T(test_writeback_needs_window_events));
