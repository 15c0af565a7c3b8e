/*
 * test_damage_detect.c - damage the readers used to pass over in silence
 * is a diagnostic now (strobe-damage(7)), named with what and where, and
 * valid files stay quiet: a v7 CPU whose chunk count is zeroed, a v7
 * BUFFER option whose CPU count is zeroed, a v7 chunk that does not
 * decompress (its file and CPU named once), a page of zeros, a format
 * whose field lies past its records, and two formats with one ID.  Each
 * damaged file is made from a fixture file (tracefile_fixture.h; v7 by
 * trace-cmd convert, skipped without it) by patching the bytes its name
 * says, found through the reader's own layout; the verdicts come from
 * the diagnostics a pipeline run leaves, as every command shows them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>

#include "formats.h"
#include "test.h"
#include "tracefile_fixture.h"
#include "tracefile/tracefile-int.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

#define TRACE_CMD "/usr/bin/trace-cmd"
#define ID_ENTER FX_ID_SYS_ENTER
#define ID_EXIT FX_ID_SYS_EXIT
#define MS 1000000ull


/* n enter/exit pairs of pid on CPUs 0 and 1 in turn (none on the CPUs
 * from nr_busy on). */
static int make_syscalls(struct fx_event *ev, int n, int nr_busy)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		int cpu = i % nr_busy;
		struct fx_event *e = fx_payload(&ev[k++], 1000 * MS + (uint64_t)i * MS, cpu,
						ID_ENTER, 7, 64);

		fx_put64(e->data + 8, 110);
		e = fx_payload(&ev[k++], 1000 * MS + (uint64_t)i * MS + 1000, cpu, ID_EXIT, 7, 24);
		fx_put64(e->data + 8, 110);
		fx_put64(e->data + 16, 7);
	}
	return k;
}

/* ---- running a file as a command would ---------------------------------- */

struct count {
	uint64_t events, finishes;
};

static int count_event(const struct strobe_event *ev, int source, void *arg,
		       struct strobe_error *err)
{
	((struct count *)arg)->events++;
	return 0;
}

static int count_finish(void *arg, struct strobe_error *err)
{
	((struct count *)arg)->finishes++;
	return 0;
}

/*
 * Open path and run it through a pipeline (strict or not): the run's
 * return in *ret, its events in *c.  The diagnostic of kind `kind`
 * (its message, malloc'd) or NULL; *nr_diags all of them.
 */
static char *run_file(const char *path, bool strict, enum strobe_tf_diag_kind kind,
		      struct count *c, int *ret, int *nr_diags, struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };
	struct strobe_consumer k = {
		.size = sizeof(k), .name = "count", .event = count_event,
		.finish = count_finish, .arg = c,
	};
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	enum strobe_tf_diag_kind kd;
	char *found = NULL;
	const char *m;
	int i;

	memset(c, 0, sizeof(*c));
	*nr_diags = 0;
	*ret = strobe_tracefile_open(path, &tf, err);
	if (*ret < 0)
		return NULL;
	if (strobe_pipeline_new(&po, &p, err) == 0 && strobe_pipeline_add_file(p, tf, NULL, err) == 0 &&
	    strobe_pipeline_add_consumer(p, &k, err) == 0)
		*ret = strobe_pipeline_run(p, err);
	for (i = 0; (m = strobe_pipeline_diag(p, i, &kd, NULL)); i++) {
		if (kd == kind && !found)
			found = strdup(m);
		++*nr_diags;
	}
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	return found;
}

/* ---- v7 files by trace-cmd ----------------------------------------------- */

static bool have_trace_cmd(const char *test)
{
	if (access(TRACE_CMD, X_OK) == 0)
		return true;
	printf("SKIP %s: %s is not installed\n", test, TRACE_CMD);
	return false;
}

/* trace-cmd convert of v6 file path into a new v7 zstd file (malloc'd). */
static char *to_v7(const char *path)
{
	char *out = strdup("/tmp/strobe-dmg7-XXXXXX.dat"), cmd[512];
	int fd;

	if (!out || (fd = mkstemps(out, 4)) < 0) {
		free(out);
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), TRACE_CMD " convert --file-version 7 --compression zstd "
		 "-i %s -o %s >/dev/null 2>&1", path, out);
	if (system(cmd) != 0) {
		unlink(out);
		free(out);
		return NULL;
	}
	return out;
}

static void drop(char *path)
{
	if (path)
		unlink(path);
	free(path);
}

static bool patch(const char *path, uint64_t off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && pwrite(fd, bytes, n, (off_t)off) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* File offsets, as the reader found them: CPU cpu's data (v7: its chunk
 * count) and the top BUFFER option's CPU count. */
static bool v7_layout(const char *path, int cpu, uint64_t *cpu_off, uint64_t *cpus_off)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	const struct tf_buffer *b;
	const uint8_t *opt;
	size_t size;
	int i;

	if (strobe_tracefile_open(path, &tf, &err) < 0)
		return false;
	b = &tf->bufs[0];
	*cpu_off = 0;
	for (i = 0; i < b->nr_cpus; i++)
		if (b->cpus[i].cpu == cpu)
			*cpu_off = b->cpus[i].offset;
	opt = strobe_tracefile_option(tf, STROBE_TFO_BUFFER, &size);
	*cpus_off = 0;
	if (opt && size > 12) {
		const uint8_t *p = opt + 8;

		p += strnlen((const char *)p, size - 8) + 1;		/* name */
		p += strnlen((const char *)p, size - (size_t)(p - opt)) + 1;	/* clock */
		*cpus_off = (uint64_t)(p + 4 - tf->data);	/* past the page size */
	}
	strobe_tracefile_close(tf);
	return *cpu_off && *cpus_off;
}

/* 200 syscall pairs on CPUs 0 and 1 as a v6 file and its v7 conversion
 * (both paths malloc'd), and the v7 file's offsets of v7_layout(). */
static bool v7_of_syscalls(char **v6, char **v7, uint64_t *cpu_off, uint64_t *cpus_off)
{
	static struct fx_event ev[400];
	int n = make_syscalls(ev, 200, 2);

	*v7 = NULL;
	*v6 = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);
	*v7 = *v6 ? to_v7(*v6) : NULL;
	return *v7 && v7_layout(*v7, 0, cpu_off, cpus_off);
}

static void test_v7_intact_and_empty_cpus_are_quiet(void)
{
	static struct fx_event ev[400];
	struct strobe_error err = { 0 };
	struct count c;
	int n = make_syscalls(ev, 200, 2), ret, nd;
	char *v6, *v7, *m;

	if (!have_trace_cmd(__func__))
		return;
	/* four CPUs, two of them empty: valid, and nothing to say */
	REQUIRE((v6 = fx_write_file(NULL, fx_syscalls, 2, ev, n, 4)));
	REQUIRE((v7 = to_v7(v6)));
	m = run_file(v7, true, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 400);
	CHECK_EQ(nd, 0);
	CHECK(!m);
	free(m);
	drop(v7);
	drop(v6);
}

static void test_v7_zeroed_chunk_count_is_damage_named_with_its_cpu(void)
{
	struct strobe_error err = { 0 };
	uint64_t cpu_off, cpus_off;
	uint32_t zero = 0;
	struct count c;
	int ret, nd;
	char *v6, *v7, *m;

	if (!have_trace_cmd(__func__))
		return;
	REQUIRE(v7_of_syscalls(&v6, &v7, &cpu_off, &cpus_off));
	REQUIRE(patch(v7, cpu_off, &zero, 4));
	m = run_file(v7, false, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 200);	/* CPU 1's: CPU 0's chunks are not reached */
	CHECK(m && strstr(m, "CPU 0 of buffer ''") && strstr(m, "chunk count") &&
	      strstr(m, "says 0 chunks") && strstr(m, "bytes are not read"));
	free(m);
	/* strict: at open, before any event */
	m = run_file(v7, true, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK_EQ(c.events, 0);
	CHECK(strstr(err.msg, "damaged data (strict): ") && strstr(err.msg, "chunk count"));
	free(m);
	drop(v7);
	drop(v6);
}

static void test_v7_zeroed_buffer_cpu_count_is_damage(void)
{
	struct strobe_error err = { 0 };
	uint64_t cpu_off, cpus_off;
	uint32_t zero = 0;
	struct count c;
	int ret, nd;
	char *v6, *v7, *m;

	if (!have_trace_cmd(__func__))
		return;
	REQUIRE(v7_of_syscalls(&v6, &v7, &cpu_off, &cpus_off));
	REQUIRE(patch(v7, cpus_off, &zero, 4));
	m = run_file(v7, false, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 0);
	CHECK(m && strstr(m, "the BUFFER option of buffer ''") && strstr(m, "says 0 CPUs") &&
	      strstr(m, "2 more CPU entries"));
	free(m);
	drop(v7);
	drop(v6);
}

/* how many times needle is in haystack */
static int times_in(const char *haystack, const char *needle)
{
	int n = 0;

	while (haystack && (haystack = strstr(haystack, needle))) {
		n++;
		haystack += strlen(needle);
	}
	return n;
}

static void test_v7_undecodable_chunk_names_its_file_and_cpu_once(void)
{
	struct strobe_error err = { 0 };
	uint64_t cpu_off, cpus_off;
	uint8_t hdr[8], junk[16];
	uint32_t csize;
	struct count c;
	int ret, nd, fd;
	char *v6, *v7, *m;

	if (!have_trace_cmd(__func__))
		return;
	REQUIRE(v7_of_syscalls(&v6, &v7, &cpu_off, &cpus_off));
	/* CPU 0's first chunk: its compressed bytes' middle made junk */
	REQUIRE((fd = open(v7, O_RDONLY)) >= 0);
	REQUIRE(pread(fd, hdr, 8, (off_t)cpu_off + 4) == 8);
	close(fd);
	csize = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
		(uint32_t)hdr[3] << 24;
	REQUIRE(csize > 64);
	memset(junk, 0x5a, sizeof(junk));
	REQUIRE(patch(v7, cpu_off + 4 + 8 + csize / 2, junk, sizeof(junk)));
	m = run_file(v7, false, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 200);	/* CPU 1's */
	CHECK(m && strstr(m, "cannot decompress chunk of CPU 0"));
	CHECK_EQ(times_in(m, v7), 1);
	CHECK_EQ(times_in(m, "cpu 0") + times_in(m, "CPU 0"), 1);
	free(m);
	/* strict: the run fails there, the file and the CPU named once */
	m = run_file(v7, true, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(strstr(err.msg, "damaged data (strict): ") &&
	      strstr(err.msg, "cannot decompress chunk of CPU 0"));
	CHECK_EQ(times_in(err.msg, v7), 1);
	CHECK_EQ(times_in(err.msg, "cpu 0") + times_in(err.msg, "CPU 0"), 1);
	free(m);
	drop(v7);
	drop(v6);
}

/* ---- pages and formats ----------------------------------------------------- */

static void test_page_of_zeros_is_skipped_and_said(void)
{
	static struct fx_event ev[600];
	static uint8_t zeros[FX_PS];
	struct strobe_error err = { 0 };
	struct count c;
	struct stat st;
	int n = 0, i, ret, nd;
	char *path, *m;

	/* one CPU, 150 events of 68 bytes: three pages, 59 + 59 + 32 */
	for (i = 0; i < 150; i++)
		fx_put64(fx_payload(&ev[n++], 1000 * MS + (uint64_t)i * MS, 0, ID_ENTER, 7,
				    64)->data + 8, 110);
	REQUIRE((path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 1)));
	m = run_file(path, false, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(c.events, 150);
	CHECK_EQ(nd, 0);
	free(m);
	/* v6: the CPU's pages end the file; zero the middle one */
	REQUIRE(stat(path, &st) == 0 && st.st_size >= 3 * (off_t)FX_PS);
	REQUIRE(patch(path, (uint64_t)st.st_size - 2 * FX_PS, zeros, FX_PS));
	m = run_file(path, false, STROBE_TF_DIAG_BAD_DATA, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK(c.events < 150 && c.events > 60);
	CHECK(m && strstr(m, "damaged data was skipped: 1 page") &&
	      strstr(m, "cpu 0: bad ring-buffer page at offset") &&
	      strstr(m, "the page is all zeros"));
	free(m);
	drop(path);
}

/* sys_exit's ret placed at offset 96 of records that are 24 bytes. */
static const char fmt_exit_far[] = "name: sys_exit\nID: 444\nformat:\n" FMT_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:96;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
/* kernel_stack-like: a trailing array the kernel writes shorter. */
static const char fmt_stack[] = "name: kernel_stack\nID: 445\nformat:\n" FMT_COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"size=%d\", REC->size\n";

static void test_format_past_its_records_is_said_and_fails_strict_at_the_end(void)
{
	static const struct strobe_tf_format far[] = {
		{ "raw_syscalls", fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1 },
		{ "raw_syscalls", fmt_exit_far, sizeof(fmt_exit_far) - 1 },
		{ "ftrace", fmt_stack, sizeof(fmt_stack) - 1 },
	};
	static struct fx_event ev[420];
	struct strobe_error err = { 0 };
	struct count c;
	int n = make_syscalls(ev, 200, 2), i, ret, nd;
	char *path, *m;

	/* stacks of 3 entries: 40 of the 80 bytes the format declares */
	for (i = 0; i < 20; i++)
		fx_put32(fx_payload(&ev[n++], 2000 * MS + (uint64_t)i * MS, 0, 445, 7, 40)->data + 8,
			 3);
	REQUIRE((path = fx_write_file(NULL, far, 3, ev, n, 2)));
	m = run_file(path, false, STROBE_TF_DIAG_BAD_FORMATS, &c, &ret, &nd, &err);
	CHECK_EQ(ret, STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 420);
	CHECK_EQ(nd, 1);	/* sys_exit only: a short trailing array is not damage */
	CHECK(m && strstr(m, "raw_syscalls:sys_exit does not fit its records") &&
	      strstr(m, "field 'ret' ends at byte 104") && strstr(m, "200 of its records") &&
	      strstr(m, "the first: 24 bytes"));
	free(m);
	/* strict: known at the end of the events, it fails before finish */
	m = run_file(path, true, STROBE_TF_DIAG_BAD_FORMATS, &c, &ret, &nd, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK_EQ(c.events, 420);
	CHECK_EQ(c.finishes, 0);
	CHECK(strstr(err.msg, "damaged data (strict): ") && strstr(err.msg, "does not fit"));
	free(m);
	drop(path);
}

static void test_two_formats_with_one_id_decode_neither(void)
{
	/* sys_enter's ID damaged into sys_exit's */
	static const char enter_444[] = "name: sys_enter\nID: 444\nformat:\n" FMT_COMMON
		FMT_SYS_ENTER_FIELDS "print fmt: \"NR %ld\", REC->id\n";
	static const struct strobe_tf_format clash[] = {
		{ "raw_syscalls", enter_444, sizeof(enter_444) - 1 },
		{ "raw_syscalls", fx_fmt_sys_exit, sizeof(fx_fmt_sys_exit) - 1 },
	};
	static struct fx_event ev[400];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf;
	struct strobe_stream *s;
	struct strobe_event e;
	enum strobe_tf_diag_kind kind = 0;
	struct count c;
	int n = make_syscalls(ev, 200, 2), ret, nd, decoded = 0;
	char *path, *m;
	const char *msg;

	REQUIRE((path = fx_write_file(NULL, clash, 2, ev, n, 2)));
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_tracefile_nr_diags(tf) == 1);
	msg = strobe_tracefile_diag(tf, 0, &kind);
	CHECK_EQ(kind, STROBE_TF_DIAG_BAD_FORMATS);
	CHECK(msg && strstr(msg, "2 event formats in the file have the same ID 444") &&
	      strstr(msg, "raw_syscalls:sys_enter, raw_syscalls:sys_exit") &&
	      strstr(msg, "not decoded"));
	CHECK(strobe_formats_by_id(strobe_tracefile_formats(tf), 444) == NULL);
	CHECK(strobe_formats_find(strobe_tracefile_formats(tf), "raw_syscalls", "sys_exit") == NULL);
	REQUIRE(strobe_stream_open_file(tf, NULL, &s, &err) == 0);
	while (strobe_stream_next(s, &e, &err) > 0)
		decoded += e.format != NULL;
	CHECK_EQ(decoded, 0);
	strobe_stream_close(s);
	strobe_tracefile_close(tf);
	/* strict: at open */
	m = run_file(path, true, STROBE_TF_DIAG_BAD_FORMATS, &c, &ret, &nd, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK_EQ(c.events, 0);
	free(m);
	drop(path);
}

TESTS(T(test_v7_intact_and_empty_cpus_are_quiet),
      T(test_v7_zeroed_chunk_count_is_damage_named_with_its_cpu),
      T(test_v7_zeroed_buffer_cpu_count_is_damage),
      T(test_v7_undecodable_chunk_names_its_file_and_cpu_once),
      T(test_page_of_zeros_is_skipped_and_said),
      T(test_format_past_its_records_is_said_and_fails_strict_at_the_end),
      T(test_two_formats_with_one_id_decode_neither));
