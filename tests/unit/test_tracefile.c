/*
 * test_tracefile.c - trace.dat writing and reading (lib/tracefile).
 *
 * Fixtures are synthetic: real-looking format texts, tiny kallsyms, and
 * ring-buffer pages built byte by byte, written with strobe's v6 writer
 * into mkstemp files under /tmp.  When /usr/bin/trace-cmd exists, it is
 * the oracle: it must report our v6 file without warnings, and its v7
 * conversions (zstd and uncompressed) must read back to the same pages.
 * Fault tests truncate and corrupt files: open fails cleanly or succeeds,
 * and reading pages terminates (ASan/UBSan catch the rest).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "format/format-int.h"
#include "formats.h"
#include "tracefile/tracefile-int.h"
#include "test.h"
#include "tracefile_fixture.h"

#define PS		4096u
#define TF_MAGIC_TEXT	"\x17\x08\x44tracing"

/*
 * libtraceevent leaks on some format texts (real kernel ones included);
 * not ours to fix, so keep LeakSanitizer quiet about that library only.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}
#define TRACE_CMD	"/usr/bin/trace-cmd"
#define SWITCH_ID	372
#define ENTER_ID	443
#define UNAME		"Linux testhost 6.1.0 x86_64"

static const char fmt_print[] =
	"name: print\nID: 5\nformat:\n" FMT_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static const char fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" FMT_COMMON FMT_SWITCH_FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, REC->prev_state ? \"S\" : \"R\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

static const char fmt_enter[] =
	"name: sys_enter\nID: 443\nformat:\n" FMT_COMMON FMT_SYS_ENTER_FIELDS
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	"REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_sys_openat2\n";

static const char cmdlines[] = "1234 myproc\n5678 other\n";

static const char stats0[] =
	"entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
	"oldest event ts:     1.000000\nnow ts:     2.000000\n"
	"dropped events: 0\nread events: 10\n";
static const char stats1[] =
	"entries: 0\noverrun: 7\ncommit overrun: 0\nbytes: 0\n"
	"oldest event ts:     1.000000\nnow ts:     2.000000\n"
	"dropped events: 0\nread events: 12\n";

static const char info[] =
	"strobe_version=0.1.0\ncommand=sleep 1\nincomplete=disk full\n";

static const struct strobe_tf_format formats[] = {
	{ "sched", fmt_switch, sizeof(fmt_switch) - 1 },
	{ "ftrace", fmt_print, sizeof(fmt_print) - 1 },
	{ "raw_syscalls", fmt_enter, sizeof(fmt_enter) - 1 },
};

#define NR_CPUS		2
static const int pages_per_cpu[NR_CPUS] = { 3, 2 };
#define EVENTS_PER_PAGE	5

static void fill_meta(struct strobe_tf_meta *m, const char *const *stats)
{
	fx_meta(m);
	m->formats = formats;
	m->nr_formats = sizeof(formats) / sizeof(formats[0]);
	m->kallsyms = (struct strobe_tf_blob){ kallsyms, sizeof(kallsyms) - 1 };
	m->cmdlines = (struct strobe_tf_blob){ cmdlines, sizeof(cmdlines) - 1 };
	m->uname = UNAME;
	m->cpustats = stats;
}


/* One ring-buffer page: u64 ts, u64 commit, then 4-byte headers + payload. */
static void make_page(uint8_t *page, int cpu, int idx)
{
	uint8_t *d = page + 16;
	size_t len = 0;
	int e;

	memset(page, 0, PS);
	fx_put64(page, 1000000000ull + (uint64_t)cpu * 1000 + (uint64_t)idx * 100000);
	for (e = 0; e < EVENTS_PER_PAGE; e++) {
		uint8_t *ev = d + len;
		uint8_t *p = ev + 4;
		bool sw = (e + cpu) % 2 == 0;

		fx_put32(ev, 16u | (1000u << 5));		/* type_len 16: 64 bytes */
		fx_put16(p, sw ? SWITCH_ID : ENTER_ID);
		p[2] = 1;
		fx_put32(p + 4, 1234);
		if (sw) {
			memcpy(p + 8, "myproc", 7);
			fx_put32(p + 24, 1234);
			fx_put32(p + 28, 120);
			fx_put64(p + 32, 1);
			memcpy(p + 40, "other", 6);
			fx_put32(p + 56, 5678);
			fx_put32(p + 60, 120);
		} else {
			fx_put64(p + 8, 257);
			fx_put64(p + 16, (uint64_t)idx);
		}
		len += 68;
	}
	fx_put64(page + 8, len);
}

static char *tmpfile_path(void)
{
	char *path = strdup("/tmp/strobe-tf-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* A temp file holding one CPU's pages (+ `extra` bytes of tail). */
static int cpu_source(int cpu, int npages, size_t extra, char **path)
{
	uint8_t page[PS];
	int fd, i;

	*path = tmpfile_path();
	fd = *path ? open(*path, O_RDWR) : -1;
	if (fd < 0)
		return -1;
	for (i = 0; i < npages; i++) {
		make_page(page, cpu, i);
		if (write(fd, page, PS) != PS)
			return -1;
	}
	memset(page, 0xab, sizeof(page));
	if (extra && write(fd, page, extra) != (ssize_t)extra)
		return -1;
	return fd;
}

/* Write a fixture with pages[cpu] pages per CPU to a new temp file;
 * returns its path. */
/* The fixture with its pages per CPU and, when given, other command-line
 * and kallsyms texts (NUL-terminated). */
static char *write_fixture_with(const int *pages, const char *comms, const char *syms)
{
	static const char *const open_stats[NR_CPUS] = { NULL, NULL };
	const char *const close_stats[NR_CPUS] = { stats0, stats1 };
	struct strobe_tf_writer *w;
	struct strobe_tf_meta m;
	struct strobe_error err = { 0 };
	char *path = tmpfile_path();
	int cpu;

	if (!path)
		return NULL;
	fill_meta(&m, open_stats);
	if (comms)
		m.cmdlines = (struct strobe_tf_blob){ comms, strlen(comms) };
	if (syms)
		m.kallsyms = (struct strobe_tf_blob){ syms, strlen(syms) };
	if (strobe_tf_writer_open(path, &m, NR_CPUS, &w, &err)) {
		fprintf(stderr, "  writer_open: %s\n", err.msg);
		goto fail;
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		char *src;
		int fd = cpu_source(cpu, pages[cpu], 0, &src);

		if (fd < 0 || strobe_tf_writer_add_cpu(w, cpu, fd, UINT64_MAX, false, &err)) {
			fprintf(stderr, "  add_cpu %d: %s\n", cpu, err.msg);
			strobe_tf_writer_close(w, NULL, NULL, NULL);
			goto fail;
		}
		close(fd);
		unlink(src);
		free(src);
	}
	if (strobe_tf_writer_close(w, close_stats, info, &err)) {
		fprintf(stderr, "  writer_close: %s\n", err.msg);
		goto fail;
	}
	return path;
fail:
	unlink(path);
	free(path);
	return NULL;
}

/* Write the standard fixture to a new temp file; returns its path. */
static char *write_fixture_pages(const int *pages)
{
	return write_fixture_with(pages, NULL, NULL);
}

static char *write_fixture(void)
{
	return write_fixture_pages(pages_per_cpu);
}

static void drop(char *path)
{
	if (path)
		unlink(path);
	free(path);
}

/* Compare every page of every CPU of buffer `b` with make_page(). */
static int check_pages(struct strobe_tracefile *tf, int b)
{
	struct strobe_tf_buffer_info bi;
	struct strobe_error err = { 0 };
	int cpu, bad = 0;

	if (strobe_tracefile_buffer(tf, b, &bi))
		return 1;
	if (bi.nr_cpus != NR_CPUS)
		return 1;
	for (cpu = 0; cpu < bi.nr_cpus; cpu++) {
		struct strobe_tf_cpu *c;
		const uint8_t *page;
		uint8_t want[PS];
		int n = 0, ret;

		if (strobe_tf_cpu_open(tf, b, cpu, &c, &err))
			return 1;
		bad += strobe_tf_cpu_id(c) != cpu;
		while ((ret = strobe_tf_cpu_next_page(c, &page, &err)) == 1) {
			make_page(want, cpu, n++);
			bad += memcmp(page, want, PS) != 0;
		}
		bad += ret != 0 || n != pages_per_cpu[cpu];
		strobe_tf_cpu_close(c);
	}
	return bad;
}

static int run(const char *cmd, char *out, size_t outlen)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;
	int st;

	if (!f)
		return -1;
	if (out) {
		n = fread(out, 1, outlen - 1, f);
		out[n] = '\0';
	}
	while (fgetc(f) != EOF)
		;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool have_trace_cmd(const char *test)
{
	if (access(TRACE_CMD, X_OK) == 0)
		return true;
	printf("SKIP %s: %s not installed\n", test, TRACE_CMD);
	return false;
}

/* ---- tests --------------------------------------------------------------- */

static void test_v6_round_trip_reads_back_metadata_and_pages(void)
{
	char *path = write_fixture();
	struct strobe_tracefile *tf;
	struct strobe_tf_buffer_info bi;
	struct strobe_error err = { 0 };
	const struct strobe_format *ev;
	const char *uname;
	size_t size;

	REQUIRE(path);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (!tf) {
		fprintf(stderr, "  %s\n", err.msg);
		drop(path);
		return;
	}
	CHECK_EQ(strobe_tracefile_version(tf), 6);
	CHECK_EQ(strobe_tracefile_page_size(tf), PS);
	CHECK_EQ(strobe_tracefile_commit_size(tf), 8);
	CHECK_STR(strobe_tracefile_compression(tf), "none");
	CHECK_EQ(strobe_tracefile_ts_offset(tf), 0);
	CHECK_EQ(strobe_tracefile_nr_buffers(tf), 1);
	CHECK_EQ(strobe_tracefile_buffer(tf, 0, &bi), 0);
	CHECK_STR(bi.name, "");
	CHECK_STR(bi.clock, "local");
	CHECK_EQ(bi.nr_cpus, NR_CPUS);
	CHECK_EQ(bi.data_size, (uint64_t)(pages_per_cpu[0] + pages_per_cpu[1]) * PS);
	CHECK_EQ(strobe_tracefile_buffer(tf, 1, &bi), -EINVAL);
	CHECK_EQ(strobe_tracefile_cpu_overrun(tf, 0, 0), 0);
	CHECK_EQ(strobe_tracefile_cpu_overrun(tf, 0, 1), 7);
	CHECK_EQ(strobe_tracefile_cpu_overrun(tf, 0, 2), -1);
	CHECK_STR(strobe_tracefile_info(tf, "strobe_version"), "0.1.0");
	CHECK_STR(strobe_tracefile_info(tf, "command"), "sleep 1");
	CHECK_STR(strobe_tracefile_info(tf, "incomplete"), "disk full");
	CHECK(strobe_tracefile_info(tf, "command=") == NULL);
	CHECK(strobe_tracefile_info(tf, "missing") == NULL);
	uname = strobe_tracefile_option(tf, STROBE_TFO_UNAME, &size);
	CHECK(uname && size == strlen(UNAME) + 1);
	ev = strobe_formats_by_id(strobe_tracefile_formats(tf), SWITCH_ID);
	CHECK(ev && !strcmp(strobe_format_name(ev), "sched_switch") &&
	      !strcmp(strobe_format_system(ev), "sched"));
	ev = strobe_formats_by_id(strobe_tracefile_formats(tf), ENTER_ID);
	CHECK(ev && !strcmp(strobe_format_system(ev), "raw_syscalls"));
	ev = strobe_formats_by_id(strobe_tracefile_formats(tf), 5);
	CHECK(ev && !strcmp(strobe_format_system(ev), "ftrace"));
	CHECK_STR(strobe_formats_comm(strobe_tracefile_formats(tf), 5678), "other");
	CHECK(strobe_formats_comm(strobe_tracefile_formats(tf), 5679) == NULL);
	CHECK_EQ(check_pages(tf, 0), 0);
	strobe_tracefile_close(tf);
	drop(path);
}

static void test_trace_cmd_reports_v6_file_without_warnings(void)
{
	static char out[1 << 16];
	char cmd[512], *path;
	int rc, lines = 0;
	const char *p;

	if (!have_trace_cmd(__func__))
		return;
	REQUIRE((path = write_fixture()));
	snprintf(cmd, sizeof(cmd), TRACE_CMD " report %s 2>&1", path);
	rc = run(cmd, out, sizeof(out));
	CHECK_EQ(rc, 0);
	for (p = out; (p = strstr(p, "sched_switch:")); p++)
		lines++;
	for (p = out; (p = strstr(p, "sys_enter:")); p++)
		lines++;
	CHECK_EQ(lines, (pages_per_cpu[0] + pages_per_cpu[1]) * EVENTS_PER_PAGE);
	CHECK(strstr(out, "myproc-1234") != NULL);
	CHECK(strstr(out, "[000]") && strstr(out, "[001]"));
	/* the sched_switch plugin formats it, as in trace-cmd's own files */
	CHECK(strstr(out, "myproc:1234 [120] S ==> other:5678 [120]") != NULL);
	CHECK(!strstr(out, "unknown option") && !strcasestr(out, "warning") &&
	      !strcasestr(out, "failed"));
	if (test_failed_checks)
		fprintf(stderr, "%.2000s\n", out);

	/* --stat shows both CPUs' statistics: padding does not cut them */
	snprintf(cmd, sizeof(cmd), TRACE_CMD " report --stat %s 2>&1", path);
	rc = run(cmd, out, sizeof(out));
	CHECK_EQ(rc, 0);
	CHECK(strstr(out, "CPU: 0\nentries: 0\noverrun: 0") != NULL);
	CHECK(strstr(out, "CPU: 1\nentries: 0\noverrun: 7") != NULL);
	drop(path);
}

/* Convert with trace-cmd and read the result; 0 = same pages as ours. */
static int check_conversion(const char *path, const char *args, const char *algo)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct strobe_tf_buffer_info bi;
	char cmd[512], *out = tmpfile_path();
	int bad = 0;

	if (!out)
		return 1;
	snprintf(cmd, sizeof(cmd), TRACE_CMD " convert %s -i %s -o %s >/dev/null 2>&1",
		 args, path, out);
	if (run(cmd, NULL, 0) != 0) {
		fprintf(stderr, "  '%s' failed\n", cmd);
		drop(out);
		return 1;
	}
	if (strobe_tracefile_open(out, &tf, &err)) {
		fprintf(stderr, "  %s\n", err.msg);
		drop(out);
		return 1;
	}
	bad += strobe_tracefile_version(tf) != 7;
	bad += strcmp(strobe_tracefile_compression(tf), algo) != 0;
	bad += strobe_tracefile_nr_buffers(tf) != 1;
	bad += strobe_tracefile_buffer(tf, 0, &bi) || strcmp(bi.clock, "local");
	bad += bi.data_size != (uint64_t)(pages_per_cpu[0] + pages_per_cpu[1]) * PS;
	bad += strobe_tracefile_cpu_overrun(tf, 0, 1) != 7;
	bad += !strobe_tracefile_info(tf, "command") ||
	       strcmp(strobe_tracefile_info(tf, "command"), "sleep 1");
	bad += strobe_formats_by_id(strobe_tracefile_formats(tf), SWITCH_ID) == NULL;
	bad += check_pages(tf, 0);
	strobe_tracefile_close(tf);
	drop(out);
	return bad;
}

static void test_trace_cmd_v7_conversions_read_back_same_pages(void)
{
	char *path;

	if (!have_trace_cmd(__func__))
		return;
	REQUIRE((path = write_fixture()));
	CHECK_EQ(check_conversion(path, "--file-version 7 --compression zstd", "zstd"), 0);
	CHECK_EQ(check_conversion(path, "--file-version 7 --compression none", "none"), 0);
	drop(path);
}

static void test_open_rejects_non_trace_file_with_bad_magic(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = (void *)1;
	char *path = tmpfile_path();
	int fd;

	REQUIRE(path);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(write(fd, "hello world, not a trace\n", 25) == 25);
	close(fd);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), -EINVAL);
	CHECK(tf == NULL);
	CHECK(strstr(err.msg, "not a trace-cmd file (bad magic)") && strstr(err.msg, path));
	CHECK_EQ(strobe_tracefile_open("/nonexistent/x.dat", &tf, &err), -ENOENT);
	CHECK(strstr(err.msg, "/nonexistent/x.dat") != NULL);
	drop(path);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static int spill(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * Open `path`; on success read every page of every buffer.  Returns 1 if
 * it opened, 0 if it failed cleanly (message naming the file), -1 if the
 * failure had no proper message.
 */
/*
 * Open and read every page: 0 = refused cleanly (message names the file),
 * 1 = opened (*damaged says whether it reported damage), -1 = bad error.
 */
static int open_and_drain_d(const char *path, bool *damaged)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	int b, cpu, ret;

	ret = strobe_tracefile_open(path, &tf, &err);
	if (ret)
		return ret < 0 && err.code == ret && strstr(err.msg, path) ? 0 : -1;
	if (damaged)
		*damaged = strobe_tracefile_damage(tf) &&
			strstr(strobe_tracefile_damage(tf), "truncated in section 'flyrecord'");
	for (b = 0; b < strobe_tracefile_nr_buffers(tf); b++) {
		struct strobe_tf_buffer_info bi;

		strobe_tracefile_buffer(tf, b, &bi);
		for (cpu = 0; cpu < bi.nr_cpus; cpu++) {
			struct strobe_tf_cpu *c;
			const uint8_t *page;
			long n = 0;

			if (strobe_tf_cpu_open(tf, b, cpu, &c, &err))
				continue;
			while (strobe_tf_cpu_next_page(c, &page, &err) == 1 && n < 1000000)
				n += page[0] + 1;	/* touch the page */
			strobe_tf_cpu_close(c);
		}
	}
	strobe_tracefile_close(tf);
	return 1;
}

static int open_and_drain(const char *path)
{
	return open_and_drain_d(path, NULL);
}

/* Offsets worth cutting at: every marker of the v6 layout +-2. */
static bool near_marker(const uint8_t *d, size_t len, size_t off)
{
	static const char *const marks[] = {
		"header_page", "header_event", "name: ", "sched", "raw_syscalls",
		"ffffffff81000000", "1234 myproc", "options  ", "flyrecord", "[local]",
		"CPU: ", "strobe_version",
	};
	size_t i, k;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		size_t n = strlen(marks[i]);

		for (k = off > 2 ? off - 2 : 0; k <= off + 2 && k + n <= len; k++)
			if (!memcmp(d + k, marks[i], n))
				return true;
	}
	return false;
}

static void test_truncated_v6_fails_cleanly_or_reads_whole_pages(void)
{
	char *path = write_fixture(), *cut = tmpfile_path();
	size_t len, off;
	uint8_t *d;
	int bad = 0, opened = 0, undamaged = 0, tried = 0;

	REQUIRE(path && cut);
	REQUIRE((d = slurp(path, &len)));
	for (off = 0; off < len; off++) {
		int r;

		if (!(off < 64 || off % 97 == 0 || off % PS < 3 || off % PS > PS - 3 ||
		      near_marker(d, len, off)))
			continue;
		if (spill(cut, d, off))
			break;
		bool damaged = false;

		r = open_and_drain_d(cut, &damaged);
		tried++;
		opened += r == 1;
		undamaged += r == 1 && !damaged;
		if (r < 0 && bad++ < 5)
			fprintf(stderr, "  truncated at %zu: bad error\n", off);
	}
	CHECK_EQ(bad, 0);
	CHECK(tried > 200);
	/* data runs to the end: any cut loses some, so a cut file either is
	 * refused or opens saying which CPU data it could read only in part */
	CHECK(opened > 0);
	CHECK_EQ(undamaged, 0);
	CHECK_EQ(open_and_drain(path), 1);
	free(d);
	drop(cut);
	drop(path);
}

/*
 * Flip bytes of path in [0, end): every byte of the first `dense` bytes,
 * then about 1500 more positions spread evenly.
 */
static void flip_test(const char *path, size_t end, size_t dense, const char *what)
{
	static const uint8_t xors[] = { 0xff, 0x01 };
	char *bent = tmpfile_path();
	size_t len, off, i, step;
	uint8_t *d;
	int bad = 0;

	if (!bent || !(d = slurp(path, &len))) {
		CHECK(0);
		drop(bent);
		return;
	}
	if (end > len)
		end = len;
	step = end > dense + 1500 ? (end - dense) / 1500 : 1;
	for (off = 0; off < end; off += off < dense ? 1 : step) {
		for (i = 0; i < sizeof(xors); i++) {
			d[off] ^= xors[i];
			if (spill(bent, d, len) == 0 && open_and_drain(bent) < 0 && bad++ < 5)
				fprintf(stderr, "  %s: flip at %zu: bad error\n", what, off);
			d[off] ^= xors[i];
		}
	}
	CHECK_EQ(bad, 0);
	free(d);
	drop(bent);
}

static void test_byte_flips_in_v6_headers_never_crash(void)
{
	char *path = write_fixture();

	REQUIRE(path);
	/* the metadata ends before the CPU data (page 3); dense over the
	 * initial header, header_page and the first format */
	flip_test(path, 3 * PS, 800, "v6");
	drop(path);
}

static void test_v7_truncations_and_flips_never_crash(void)
{
	static const char *const args[] = {
		"--file-version 7 --compression zstd", "--file-version 7 --compression none",
	};
	char *path, *v7 = tmpfile_path(), *cut = tmpfile_path();
	size_t a;

	if (!have_trace_cmd(__func__)) {
		drop(v7);
		drop(cut);
		return;
	}
	REQUIRE((path = write_fixture()) && v7 && cut);
	for (a = 0; a < 2; a++) {
		char cmd[512];
		size_t len, off;
		uint8_t *d;
		int bad = 0;

		snprintf(cmd, sizeof(cmd), TRACE_CMD " convert %s -i %s -o %s >/dev/null 2>&1",
			 args[a], path, v7);
		REQUIRE(run(cmd, NULL, 0) == 0);
		REQUIRE((d = slurp(v7, &len)));
		for (off = 0; off < len; off += off < 256 ? 1 : 1 + len / 1000) {
			if (spill(cut, d, off))
				break;
			if (open_and_drain(cut) < 0 && bad++ < 5)
				fprintf(stderr, "  v7 truncated at %zu: bad error\n", off);
		}
		CHECK_EQ(bad, 0);
		flip_test(v7, len, 128, args[a]);
		free(d);
	}
	drop(cut);
	drop(v7);
	drop(path);
}

static void test_partial_tail_page_is_never_handed_out(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tracefile *tf = NULL;
	struct strobe_tf_meta m;
	struct strobe_tf_cpu *c;
	const uint8_t *page;
	char *path = tmpfile_path(), *src;
	uint8_t *d;
	size_t len;
	int fd, n = 0;

	REQUIRE(path);
	fill_meta(&m, NULL);
	REQUIRE(strobe_tf_writer_open(path, &m, 1, &w, &err) == 0);
	fd = cpu_source(0, 2, 1000, &src);
	REQUIRE(fd >= 0);
	/* the source holds 2.25 pages: only 2 are copied */
	CHECK_EQ(strobe_tf_writer_add_cpu(w, 0, fd, UINT64_MAX, false, &err), 0);
	CHECK_EQ(strobe_tf_writer_cpu_size(w, 0), 2 * PS);
	CHECK_EQ(strobe_tf_writer_close(w, NULL, NULL, &err), 0);
	close(fd);
	drop(src);

	/* a table size that is not a page multiple: whole pages only */
	REQUIRE((d = slurp(path, &len)));
	{
		uint8_t *fly = memmem(d, len, "flyrecord", 10);
		uint64_t size;

		REQUIRE(fly);
		memcpy(&size, fly + 18, 8);
		CHECK_EQ(size, 2 * PS);
		size -= 100;
		memcpy(fly + 18, &size, 8);
		CHECK_EQ(spill(path, d, len), 0);
	}
	free(d);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_tf_cpu_open(tf, 0, 0, &c, &err) == 0);
	while (strobe_tf_cpu_next_page(c, &page, &err) == 1)
		n++;
	CHECK_EQ(n, 1);
	strobe_tf_cpu_close(c);
	strobe_tracefile_close(tf);
	drop(path);
}

static void test_unclosed_writer_leaves_file_with_no_data(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct strobe_tf_buffer_info bi;
	char *path = tmpfile_path();
	pid_t pid;
	int st;

	REQUIRE(path);
	pid = fork();
	if (pid == 0) {
		static const char *const s[NR_CPUS] = { stats0, stats1 };
		struct strobe_tf_writer *w;
		struct strobe_tf_meta m;
		char *src;
		int fd;

		fill_meta(&m, s);
		m.strobe_info = "command=crashed\n";
		if (strobe_tf_writer_open(path, &m, NR_CPUS, &w, &err))
			_exit(1);
		fd = cpu_source(0, 2, 0, &src);
		if (fd < 0 || strobe_tf_writer_add_cpu(w, 0, fd, UINT64_MAX, false, &err))
			_exit(2);
		unlink(src);
		if (strobe_tf_writer_commit(w, &err))	/* made visible early */
			_exit(3);
		_exit(0);	/* "crash" before close */
	}
	REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (tf) {
		CHECK_EQ(strobe_tracefile_buffer(tf, 0, &bi), 0);
		CHECK_EQ(bi.nr_cpus, NR_CPUS);
		CHECK_EQ(bi.data_size, 0);
		CHECK_EQ(strobe_tracefile_cpu_overrun(tf, 0, 1), 7);	/* from open */
		CHECK_STR(strobe_tracefile_info(tf, "command"), "crashed");
		strobe_tracefile_close(tf);
	}
	if (have_trace_cmd(__func__)) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), TRACE_CMD " report %s >/dev/null 2>&1", path);
		CHECK_EQ(run(cmd, NULL, 0), 0);
	}
	drop(path);
}

/*
 * A file size limit makes writes fail with EFBIG, like ENOSPC: the CPU
 * keeps its whole pages, later CPUs get nothing, close makes a file that
 * reads back (run in a child so the limit stays there).
 */
static void test_add_cpu_out_of_space_keeps_whole_pages_and_file_readable(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	char *path = tmpfile_path();
	pid_t pid;
	int st;

	REQUIRE(path);
	pid = fork();
	if (pid == 0) {
		struct strobe_tf_writer *w;
		struct strobe_tf_meta m;
		struct rlimit rl;
		struct stat sb;
		char *s0, *s1;
		int fd0, fd1, r0, r1;

		signal(SIGXFSZ, SIG_IGN);
		fill_meta(&m, NULL);
		fd0 = cpu_source(0, 4, 0, &s0);
		fd1 = cpu_source(1, 2, 0, &s1);
		if (fd0 < 0 || fd1 < 0 || strobe_tf_writer_open(path, &m, 2, &w, &err) ||
		    strobe_tf_writer_commit(w, &err) || stat(path, &sb))
			_exit(10);
		rl.rlim_cur = rl.rlim_max = (rlim_t)sb.st_size + PS + PS / 2;
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(11);
		r0 = strobe_tf_writer_add_cpu(w, 0, fd0, UINT64_MAX, false, &err);
		if (r0 != -ENOSPC || !strstr(err.msg, "CPU 0") || !strstr(err.msg, path))
			_exit(12);
		if (strobe_tf_writer_cpu_size(w, 0) != PS)
			_exit(13);
		r1 = strobe_tf_writer_add_cpu(w, 1, fd1, UINT64_MAX, false, &err);
		if (r1 != -ENOSPC || strobe_tf_writer_cpu_size(w, 1) != 0)
			_exit(14);
		if (strobe_tf_writer_close(w, NULL, "incomplete=disk full\n", &err))
			_exit(15);
		unlink(s0);
		unlink(s1);
		_exit(0);
	}
	REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (tf) {
		struct strobe_tf_buffer_info bi;
		struct strobe_tf_cpu *c;
		const uint8_t *page;
		uint8_t want[PS];

		CHECK_STR(strobe_tracefile_info(tf, "incomplete"), "disk full");
		CHECK_EQ(strobe_tracefile_buffer(tf, 0, &bi), 0);
		CHECK_EQ(bi.data_size, PS);
		CHECK_EQ(strobe_tf_cpu_open(tf, 0, 0, &c, &err), 0);
		CHECK_EQ(strobe_tf_cpu_next_page(c, &page, &err), 1);
		make_page(want, 0, 0);
		CHECK(memcmp(page, want, PS) == 0);
		CHECK_EQ(strobe_tf_cpu_next_page(c, &page, &err), 0);
		strobe_tf_cpu_close(c);
		strobe_tracefile_close(tf);
	}
	drop(path);
}

static void test_add_cpu_with_punch_releases_source_blocks(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tracefile *tf;
	struct strobe_tf_meta m;
	struct stat before, after;
	char *path = tmpfile_path(), *src;
	int fd;

	REQUIRE(path);
	fill_meta(&m, NULL);
	fd = cpu_source(0, 64, 0, &src);
	REQUIRE(fd >= 0);
	fsync(fd);
	REQUIRE(fstat(fd, &before) == 0);
	REQUIRE(strobe_tf_writer_open(path, &m, 1, &w, &err) == 0);
	CHECK_EQ(strobe_tf_writer_add_cpu(w, 0, fd, 64 * PS, true, &err), 0);
	CHECK_EQ(strobe_tf_writer_close(w, NULL, NULL, &err), 0);
	REQUIRE(fstat(fd, &after) == 0);
	CHECK_EQ(after.st_size, before.st_size);	/* KEEP_SIZE */
	if (after.st_blocks >= before.st_blocks)
		printf("SKIP %s: hole punching not supported on /tmp\n", __func__);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (tf) {
		struct strobe_tf_buffer_info bi;

		strobe_tracefile_buffer(tf, 0, &bi);
		CHECK_EQ(bi.data_size, 64 * PS);
		strobe_tracefile_close(tf);
	}
	close(fd);
	drop(src);
	drop(path);
}

static void test_writer_rejects_bad_meta_and_out_of_order_cpus(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	struct strobe_tf_meta m;
	char *path = tmpfile_path();
	int fd;

	REQUIRE(path);
	fill_meta(&m, NULL);
	m.page_size = 3000;
	CHECK_EQ(strobe_tf_writer_open(path, &m, 1, &w, &err), -EINVAL);
	CHECK(w == NULL && strstr(err.msg, "page size"));
	fill_meta(&m, NULL);
	m.header_page.len = 0;
	CHECK_EQ(strobe_tf_writer_open(path, &m, 1, &w, &err), -EINVAL);
	fill_meta(&m, NULL);
	CHECK_EQ(strobe_tf_writer_open("/nonexistent/dir/x.dat", &m, 1, &w, &err), -ENOENT);
	CHECK(strstr(err.msg, "/nonexistent/dir/x.dat") != NULL);
	REQUIRE(strobe_tf_writer_open(path, &m, 2, &w, &err) == 0);
	fd = open("/dev/null", O_RDONLY);
	CHECK_EQ(strobe_tf_writer_add_cpu(w, 1, fd, 0, false, &err), -EINVAL);
	CHECK(strstr(err.msg, "out of order") != NULL);
	CHECK_EQ(strobe_tf_writer_add_cpu(w, 0, fd, 0, false, &err), 0);
	CHECK_EQ(strobe_tf_writer_cpu_size(w, 0), 0);
	CHECK_EQ(strobe_tf_writer_close(w, NULL, NULL, &err), 0);
	close(fd);
	CHECK_EQ(open_and_drain(path), 1);
	drop(path);
}

static void test_long_cpustat_and_info_are_cut_at_line_boundaries(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tracefile *tf;
	struct strobe_tf_meta m;
	char *path = tmpfile_path(), *big_stat, *big_info, *p;
	const char *stats[1];
	size_t size, i;
	const char *opt;

	REQUIRE(path);
	big_stat = malloc(8192);
	big_info = malloc(32768);
	REQUIRE(big_stat && big_info);
	p = big_stat + sprintf(big_stat, "overrun: 42\n");
	for (i = 0; i < 300; i++)
		p += sprintf(p, "line %zu\n", i);
	p = big_info;
	for (i = 0; i < 1000; i++)
		p += sprintf(p, "key%zu=value %zu\n", i, i);
	fill_meta(&m, NULL);
	stats[0] = big_stat;
	REQUIRE(strobe_tf_writer_open(path, &m, 1, &w, &err) == 0);
	CHECK_EQ(strobe_tf_writer_close(w, stats, big_info, &err), 0);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(strobe_tracefile_cpu_overrun(tf, 0, 0), 42);
	opt = strobe_tracefile_option(tf, STROBE_TFO_CPUSTAT, &size);
	CHECK(opt && size <= 2048 && opt[size - 1] == '\0' && opt[size - 2] == '\n');
	CHECK_STR(strobe_tracefile_info(tf, "key0"), "value 0");
	CHECK(strobe_tracefile_info(tf, "key999") == NULL);
	opt = strobe_tracefile_option(tf, STROBE_TFO_STROBE_INFO, &size);
	CHECK(opt && size == 4096 && strlen(opt) < 4096 && opt[strlen(opt) - 1] == '\n');
	strobe_tracefile_close(tf);
	free(big_stat);
	free(big_info);
	drop(path);
}

/*
 * Inputs that are no regular file are refused at once, before anything
 * is read: a pipe (it cannot be read again, and a FIFO nobody writes would
 * block), a device (/dev/zero never ends).
 */
static void test_pipe_and_device_inputs_are_refused_at_once(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	char fdpath[64], fifo[64] = "/tmp/strobe-fifo-XXXXXX";
	int pfd[2];

	REQUIRE(pipe(pfd) == 0);
	REQUIRE(write(pfd[1], TF_MAGIC_TEXT, 10) == 10);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", pfd[0]);
	CHECK_EQ(strobe_tracefile_open(fdpath, &tf, &err), -EINVAL);
	CHECK(strstr(err.msg, "not a regular file (a FIFO)") != NULL);
	close(pfd[0]);
	close(pfd[1]);

	CHECK_EQ(strobe_tracefile_open("/dev/zero", &tf, &err), -EINVAL);
	CHECK(strstr(err.msg, "/dev/zero: not a regular file (a character device)") != NULL);

	/* a FIFO with no writer: open must not block */
	REQUIRE(mkdtemp(fifo));
	strcat(fifo, "/f");
	REQUIRE(mkfifo(fifo, 0600) == 0);
	alarm(10);	/* a hang fails the test instead of stalling make check */
	CHECK_EQ(strobe_tracefile_open(fifo, &tf, &err), -EINVAL);
	alarm(0);
	CHECK(strstr(err.msg, "FIFO") != NULL);
	unlink(fifo);
	*strrchr(fifo, '/') = '\0';
	rmdir(fifo);
}

/*
 * A file that shrinks while it is read: the cursor that meets the missing
 * data fails with an error naming the file (never SIGBUS), and so does
 * opening a file whose metadata is gone.
 */
static void test_file_shrinking_while_read_gives_error_not_sigbus(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct strobe_tf_cpu *c;
	const uint8_t *page;
	char *path = write_fixture();
	struct stat st;
	int r, n = 0;

	REQUIRE(path && stat(path, &st) == 0);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	/* cut the file inside CPU 0's data (3 pages, then CPU 1's 2) */
	REQUIRE(truncate(path, st.st_size - 4 * PS) == 0);
	REQUIRE(strobe_tf_cpu_open(tf, 0, 0, &c, &err) == 0);
	while ((r = strobe_tf_cpu_next_page(c, &page, &err)) == 1)
		n++;
	CHECK_EQ(r, -EIO);
	CHECK(strstr(err.msg, "shrank while being read") != NULL);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(n < 3);
	strobe_tf_cpu_close(c);
	strobe_tracefile_close(tf);
	drop(path);
}

/*
 * A cursor given a hold keeps the windows it leaves until the hold
 * releases the hand-off that was being filled then, and reads into
 * them again afterwards (what lets the pipeline's workers use pages
 * without copying them).  CPU 0 spans several 64 KiB windows.
 */
static void test_cursor_with_hold_keeps_pages_until_released(void)
{
	static const int pages[NR_CPUS] = { 200, 2 };
	struct strobe_page_hold hold = { 0, 0 };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct strobe_tf_cpu *c;
	const uint8_t *page, *first = NULL;
	uint8_t want[PS];
	char *path = write_fixture_pages(pages);
	int r, n = 0, reused = 0;

	REQUIRE(path && strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_tf_cpu_open(tf, 0, 0, &c, &err) == 0);
	tf_cpu_set_hold(c, &hold);
	while ((r = strobe_tf_cpu_next_page(c, &page, &err)) == 1) {
		if (!first) {
			first = page;
			memcpy(want, page, PS);
		}
		n++;
		/* past the first window: it is kept, unchanged, while held */
		if (n == 130) {
			CHECK(memcmp(first, want, PS) == 0);
			CHECK(page != first);
			hold.taken = 1;
			__atomic_store_n(&hold.released, 1, __ATOMIC_RELEASE);
		}
		/* released: the next window is read into the first one */
		if (n > 130 && page == first)
			reused++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, 200);
	CHECK_EQ(reused, 1);
	strobe_tf_cpu_close(c);
	strobe_tracefile_close(tf);
	drop(path);
}

/* Stream every event of tf through see_event, then events_done. */
static int see_all(struct strobe_tracefile *tf)
{
	struct strobe_error err = { 0 };
	struct strobe_stream_stats st;
	struct strobe_stream *s;
	struct strobe_event ev;
	int n = 0;

	if (strobe_stream_open_file(tf, NULL, &s, &err) < 0)
		return -1;
	while (strobe_stream_next(s, &ev, &err) > 0) {
		strobe_tracefile_see_event(tf, &ev);
		n++;
	}
	strobe_stream_stats(s, &st);
	strobe_stream_close(s);
	return strobe_tracefile_events_done(tf, &st, NULL) < 0 ? -1 : n;
}

/*
 * Diagnostics: the fixture's are what its info and statistics say; a file
 * whose CPU 0 pages go back in time has one "time_backwards" entry, given
 * once however often events_done is called.
 */
static void test_diagnostics_time_backwards_and_intact_file(void)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tracefile *tf;
	enum strobe_tf_diag_kind kind = 0;
	struct strobe_tf_meta m;
	char *path = write_fixture(), *src;
	uint8_t page[PS];
	const char *msg;
	int fd;

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(see_all(tf), 25);
	/* the fixture's info and CPU 1's statistics say what went wrong */
	CHECK_EQ(strobe_tracefile_nr_diags(tf), 2);
	msg = strobe_tracefile_diag(tf, 0, &kind);
	CHECK_EQ(kind, STROBE_TF_DIAG_INCOMPLETE);
	CHECK_STR(msg, "the recording was incomplete: disk full");
	msg = strobe_tracefile_diag(tf, 1, &kind);
	CHECK_EQ(kind, STROBE_TF_DIAG_LOST_EVENTS);
	CHECK(msg && strstr(msg, "overwrote 7 events") && strstr(msg, "CPU 1: 7"));
	strobe_tracefile_close(tf);

	/* CPU 0: page 2's events, then page 0's (200 us earlier) */
	fill_meta(&m, NULL);
	src = tmpfile_path();
	REQUIRE(src && (fd = open(src, O_RDWR)) >= 0);
	make_page(page, 0, 2);
	REQUIRE(write(fd, page, PS) == PS);
	make_page(page, 0, 0);
	REQUIRE(write(fd, page, PS) == PS);
	REQUIRE(strobe_tf_writer_open(path, &m, 1, &w, &err) == 0);
	CHECK_EQ(strobe_tf_writer_add_cpu(w, 0, fd, UINT64_MAX, false, &err), 0);
	CHECK_EQ(strobe_tf_writer_close(w, NULL, NULL, &err), 0);
	close(fd);
	drop(src);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(see_all(tf), 10);
	CHECK_EQ(strobe_tracefile_events_done(tf, NULL, NULL), 0);	/* no-op */
	CHECK_EQ(strobe_tracefile_nr_diags(tf), 1);
	msg = strobe_tracefile_diag(tf, 0, &kind);
	CHECK_EQ(kind, STROBE_TF_DIAG_TIME_BACKWARDS);
	CHECK_STR(strobe_tf_diag_name(kind), "time_backwards");
	CHECK(msg && strstr(msg, "5 events are earlier") && strstr(msg, "CPU 0 at 1.000001") &&
	      strstr(msg, "204000 ns back"));
	CHECK(strobe_tracefile_diag(tf, 1, NULL) == NULL);
	strobe_tracefile_close(tf);
	drop(path);
}

/* ---- where the writer writes: symlinks, old files, modes ---- */

/* Entries of dir other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static bool file_is(const char *path, const char *text)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(text) && !memcmp(buf, text, (size_t)n);
}

static bool put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Write a one-CPU file to path (committed at close). */
static int write_small(const char *path)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tf_meta m;
	char *src;
	int fd, ret;

	fill_meta(&m, NULL);
	if ((ret = strobe_tf_writer_open(path, &m, 1, &w, &err)))
		return ret;
	fd = cpu_source(0, 2, 0, &src);
	ret = fd < 0 ? -EIO : strobe_tf_writer_add_cpu(w, 0, fd, UINT64_MAX, false, &err);
	if (fd >= 0)
		close(fd);
	if (src)
		unlink(src);
	free(src);
	if (ret) {
		strobe_tf_writer_discard(w);
		return ret;
	}
	return strobe_tf_writer_close(w, NULL, NULL, &err);
}

static void test_writer_replaces_symlink_at_output_never_its_target(void)
{
	char dir[] = "/tmp/strobe-out-XXXXXX", victim[64], out[64];
	struct stat st;
	mode_t old;

	REQUIRE(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(out, sizeof(out), "%s/trace.dat", dir);
	REQUIRE(put_file(victim, "precious\n"));
	REQUIRE(symlink(victim, out) == 0);
	old = umask(0);		/* the mode must not depend on the umask */
	CHECK_EQ(write_small(out), 0);
	umask(old);
	CHECK(file_is(victim, "precious\n"));
	CHECK(lstat(out, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(open_and_drain(out), 1);
	CHECK_EQ(dir_entries(dir), 2);		/* no temporary file left */
	unlink(out);
	unlink(victim);
	rmdir(dir);
}

static void test_writer_keeps_old_file_until_commit_and_after_discard(void)
{
	char dir[] = "/tmp/strobe-out-XXXXXX", out[64];
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tf_meta m;
	struct stat st;

	REQUIRE(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/keep.dat", dir);
	REQUIRE(put_file(out, "old recording\n"));
	fill_meta(&m, NULL);

	/* open, then give up: the old file is as it was, nothing left over */
	REQUIRE(strobe_tf_writer_open(out, &m, 1, &w, &err) == 0);
	CHECK(file_is(out, "old recording\n"));
	CHECK_EQ(dir_entries(dir), 2);		/* old file + the new one's temp */
	strobe_tf_writer_discard(w);
	CHECK(file_is(out, "old recording\n"));
	CHECK_EQ(dir_entries(dir), 1);

	/* commit early: the new (still empty) file is in place at once, and
	 * discard after commit keeps it */
	REQUIRE(strobe_tf_writer_open(out, &m, 1, &w, &err) == 0);
	CHECK_EQ(strobe_tf_writer_commit(w, &err), 0);
	CHECK_EQ(strobe_tf_writer_commit(w, &err), 0);	/* again: nothing to do */
	CHECK(!file_is(out, "old recording\n"));
	CHECK(stat(out, &st) == 0 && (st.st_mode & 07777) == 0600);
	strobe_tf_writer_discard(w);
	CHECK_EQ(open_and_drain(out), 1);	/* readable, with no data */
	CHECK_EQ(dir_entries(dir), 1);

	/* a directory at the output name: an error, nothing left over */
	unlink(out);
	REQUIRE(mkdir(out, 0700) == 0);
	CHECK(write_small(out) < 0);
	CHECK_EQ(dir_entries(dir), 1);
	rmdir(out);
	rmdir(dir);
}

/* libtraceevent misbehaves on some inputs: the reader must filter them. */
static void test_malformed_printk_lines_and_formats_are_skipped(void)
{
	static const char printk[] =
		"0x10 : \"a\"\nx:y\n:\n\n0xffffffff81000000 : \"hello %d\\n\"\n0x20 : \"";
	static const char bad_fmt[] = "name: bad\nID: 77\nformat:\n\xff\xfe\n";
	struct strobe_tf_format fmts[4];
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w;
	struct strobe_tracefile *tf;
	struct strobe_tf_meta m;
	char *path = tmpfile_path();

	REQUIRE(path);
	fill_meta(&m, NULL);
	memcpy(fmts, formats, sizeof(formats));
	fmts[3] = (struct strobe_tf_format){ "bad", bad_fmt, sizeof(bad_fmt) - 1 };
	m.formats = fmts;
	m.nr_formats = 4;
	m.printk = (struct strobe_tf_blob){ printk, sizeof(printk) - 1 };
	REQUIRE(strobe_tf_writer_open(path, &m, 0, &w, &err) == 0);
	CHECK_EQ(strobe_tf_writer_close(w, NULL, NULL, &err), 0);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (tf) {
		CHECK(strobe_formats_by_id(strobe_tracefile_formats(tf), SWITCH_ID) != NULL);
		CHECK(strobe_formats_by_id(strobe_tracefile_formats(tf), 77) == NULL);
		strobe_tracefile_close(tf);
	}
	drop(path);
}

/* kallsyms are parsed on the first address lookup: the answers are those
 * of an eager tep_parse_kallsyms() on the same text (the containing
 * function and its start; nothing below the first symbol; libtraceevent
 * matches the last one only exactly), on the first lookup and after. */
static void test_kallsyms_resolve_functions_on_first_lookup(void)
{
	static const unsigned long long addrs[] = {
		0xffffffff81000008ull, 0xffffffff81000000ull, 0xffffffff81001000ull,
		0xffffffff81001010ull, 0xffffffff80000000ull, 0,
	};
	char *path = write_fixture();
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct tep_handle *tep, *eager = tep_alloc();
	size_t i, k;

	REQUIRE(path && eager);
	REQUIRE(tep_parse_kallsyms(eager, kallsyms) == 0);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	if (!tf) {
		tep_free(eager);
		drop(path);
		return;
	}
	tep = strobe_tracefile_tep(tf);
	REQUIRE(tep);
	for (k = 0; k < 2; k++) {
		CHECK_STR(tep_find_function(tep, 0xffffffff81000008ull), "_stext");
		CHECK_EQ(tep_find_function_address(tep, 0xffffffff81000008ull),
			 0xffffffff81000000ull);
		CHECK_STR(tep_find_function(tep, 0xffffffff81001000ull), "do_sys_openat2");
		for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
			const char *want = tep_find_function(eager, addrs[i]);
			const char *got = tep_find_function(tep, addrs[i]);

			CHECK((!want && !got) || (want && got && !strcmp(want, got)));
			CHECK_EQ(tep_find_function_address(tep, addrs[i]),
				 tep_find_function_address(eager, addrs[i]));
		}
	}
	strobe_tracefile_close(tf);
	tep_free(eager);
	drop(path);
}

/*
 * The pipeline's workers each keep a model over the file's one tep_handle,
 * and libtraceevent builds its comm table and strobe its kallsyms map on
 * the first look-up: two threads making that first look-up together must
 * both get the right answers (a worker crashed in `strobe html` one run in
 * a hundred before format.c locked the comm table and tep.c the map).
 * Many comms and symbols widen the window; ASan sees the rest.
 */
#define RACE_COMMS	3000
#define RACE_ROUNDS	60

struct race_arg {
	struct strobe_tracefile *tf;
	int *ready, *go;
	int first, bad;
};

static void *race_lookups(void *p)
{
	struct race_arg *a = p;
	struct strobe_formats *f = strobe_tracefile_formats(a->tf);
	char want[32];
	int i, pid;

	/* spin, not a barrier: both threads on their CPUs when it opens */
	__atomic_add_fetch(a->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(a->go, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < RACE_COMMS; i++) {
		const char *comm, *fn;

		pid = 100 + (a->first + i) % RACE_COMMS;
		snprintf(want, sizeof(want), "task-%d", pid);
		comm = strobe_formats_comm(f, pid);
		a->bad += !comm || strcmp(comm, want);
		snprintf(want, sizeof(want), "fn_%d", pid);
		fn = strobe_formats_ksym(f, 0xffffffff81000000ull + (uint64_t)pid * 16 + 4);
		a->bad += !fn || strcmp(fn, want);
	}
	a->bad += strobe_formats_comm(f, 99) != NULL;
	return NULL;
}

static void test_first_comm_and_symbol_lookups_from_two_threads_agree(void)
{
	size_t cap = RACE_COMMS * 48 + 128, n = 0, k = 0;
	char *comms = malloc(cap), *syms = malloc(cap), *path;
	int i, round, bad = 0;

	REQUIRE(comms && syms);
	for (i = 0; i < RACE_COMMS; i++) {
		n += (size_t)snprintf(comms + n, cap - n, "%d task-%d\n", 100 + i, 100 + i);
		k += (size_t)snprintf(syms + k, cap - k, "%llx T fn_%d\n",
				      0xffffffff81000000ull + (100ull + (unsigned)i) * 16, 100 + i);
	}
	/* kallsyms' last symbol only ends the one before it */
	snprintf(syms + k, cap - k, "%llx T _etext\n",
		 0xffffffff81000000ull + (100ull + RACE_COMMS) * 16);
	path = write_fixture_with(pages_per_cpu, comms, syms);
	REQUIRE(path);
	for (round = 0; round < RACE_ROUNDS; round++) {
		struct strobe_error err = { 0 };
		struct strobe_tracefile *tf;
		int ready = 0, go = 0;
		struct race_arg a[2];
		pthread_t t[2];

		REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
		for (i = 0; i < 2; i++) {
			a[i] = (struct race_arg){ .tf = tf, .ready = &ready, .go = &go,
						  .first = i * 1500 };
			REQUIRE(pthread_create(&t[i], NULL, race_lookups, &a[i]) == 0);
		}
		while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < 2)
			;
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		for (i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			bad += a[i].bad;
		}
		strobe_tracefile_close(tf);
	}
	CHECK_EQ(bad, 0);
	drop(path);
	free(comms);
	free(syms);
}

/*
 * libtraceevent keeps its last event look-up in the handle and reads it
 * back three times: two threads finding two events by name at once got
 * each other's (the reading thread meets a new type while a worker prints
 * with tep_print_event).  Look-ups by name and by id hold strobe's lock.
 */
#define FIND_ROUNDS	200000

struct find_arg {
	struct strobe_formats *f;
	const char *system, *name;
	int id;
	int *ready, *go;
	int bad;
};

static void *find_loop(void *p)
{
	struct find_arg *a = p;
	int i;

	__atomic_add_fetch(a->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(a->go, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < FIND_ROUNDS; i++) {
		const struct strobe_format *fm = strobe_formats_find(a->f, a->system, a->name);

		a->bad += !fm || strobe_format_id(fm) != a->id ||
			  strobe_formats_by_id(a->f, a->id) != fm;
	}
	return NULL;
}

static void test_formats_found_by_name_from_two_threads_are_their_own(void)
{
	char *path = write_fixture();
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct find_arg a[2];
	int ready = 0, go = 0, i;
	pthread_t t[2];

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	a[0] = (struct find_arg){ strobe_tracefile_formats(tf), "sched", "sched_switch",
				  SWITCH_ID, &ready, &go, 0 };
	a[1] = (struct find_arg){ strobe_tracefile_formats(tf), "raw_syscalls", "sys_enter",
				  ENTER_ID, &ready, &go, 0 };
	for (i = 0; i < 2; i++)
		REQUIRE(pthread_create(&t[i], NULL, find_loop, &a[i]) == 0);
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < 2)
		;
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(a[0].bad, 0);
	CHECK_EQ(a[1].bad, 0);
	strobe_tracefile_close(tf);
	drop(path);
}

TESTS(T(test_v6_round_trip_reads_back_metadata_and_pages),
      T(test_trace_cmd_reports_v6_file_without_warnings),
      T(test_trace_cmd_v7_conversions_read_back_same_pages),
      T(test_open_rejects_non_trace_file_with_bad_magic),
      T(test_truncated_v6_fails_cleanly_or_reads_whole_pages),
      T(test_byte_flips_in_v6_headers_never_crash),
      T(test_v7_truncations_and_flips_never_crash),
      T(test_partial_tail_page_is_never_handed_out),
      T(test_unclosed_writer_leaves_file_with_no_data),
      T(test_add_cpu_out_of_space_keeps_whole_pages_and_file_readable),
      T(test_add_cpu_with_punch_releases_source_blocks),
      T(test_writer_rejects_bad_meta_and_out_of_order_cpus),
      T(test_long_cpustat_and_info_are_cut_at_line_boundaries),
      T(test_pipe_and_device_inputs_are_refused_at_once),
      T(test_file_shrinking_while_read_gives_error_not_sigbus),
      T(test_cursor_with_hold_keeps_pages_until_released),
      T(test_malformed_printk_lines_and_formats_are_skipped),
      T(test_kallsyms_resolve_functions_on_first_lookup),
      T(test_first_comm_and_symbol_lookups_from_two_threads_agree),
      T(test_formats_found_by_name_from_two_threads_are_their_own),
      T(test_diagnostics_time_backwards_and_intact_file),
      T(test_writer_replaces_symlink_at_output_never_its_target),
      T(test_writer_keeps_old_file_until_commit_and_after_discard));
