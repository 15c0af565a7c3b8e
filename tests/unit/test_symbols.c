/*
 * test_symbols.c - the symbol finder (symbols.h) on ELF files this test
 * compiles: a function is named from .symtab, from a separate debug file
 * found by .gnu_debuglink (and refused when its build id differs), as
 * "[unknown]" with its module when nothing names it; the binary is read
 * through a fake PROC/PID/root (a file that exists only "inside the
 * container"); perf-PID.map under the namespaced PID names JIT code;
 * forks inherit maps, execs drop them; exited processes are dropped
 * once samples after their exit are named (none held after hundreds
 * come and go; a reused PID kept), and the file cache stays within its
 * bound, unloading and reloading files; the maps and perf-map line
 * parsers and kallsyms lookups, table-driven.  Needs cc, nm and objcopy
 * (skipped with a message otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <stdarg.h>

#include <strobe/symbols.h>

#include "test.h"

static char dir[256];
static int have_tools = -1;

/* A shell command made by printf from fmt and the arguments. */
__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Build DIR/root/bin/prog (with symbols), prog.stripped (debuglink to
 * prog.debug in root/bin/.debug), other.debug (another build). */
static int setup(void)
{
	char src[512];
	FILE *f;

	if (have_tools >= 0)
		return have_tools;
	have_tools = 0;
	snprintf(dir, sizeof(dir), "/tmp/strobe-test-symbols-%d", (int)getpid());
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return 0;
	f = fopen(src, "w");
	if (!f)
		return 0;
	fputs("__attribute__((noinline)) int alpha(int x) { return x * 3 + 1; }\n"
	      "__attribute__((noinline)) int beta(int x) { return alpha(x) ^ 7; }\n"
	      "int main(int c, char **v) { (void)v; return beta(c); }\n", f);
	fclose(f);
	if (sh("cd %s && mkdir -p root/bin/.debug root/tmp proc/4242 && "
	       "cc -O1 -no-pie -o root/bin/prog prog.c && "
	       "cc -O1 -no-pie -DOTHER=1 -Dalpha=alpha2 -o other prog.c && "
	       "objcopy --only-keep-debug root/bin/prog root/bin/.debug/prog.debug && "
	       "objcopy --only-keep-debug other other.debug && "
	       "objcopy --strip-all --add-gnu-debuglink=root/bin/.debug/prog.debug "
	       "root/bin/prog root/bin/stripped && "
	       "objcopy --strip-all --add-gnu-debuglink=other.debug root/bin/prog root/bin/wrongdebug && "
	       "cp other.debug root/bin/ && ln -sf %s/root proc/4242/root 2>/dev/null", dir, dir) != 0)
		return 0;
	have_tools = 1;
	return 1;
}

/* The address of symbol name in file (nm), 0 if none. */
static uint64_t nm_addr(const char *file, const char *name)
{
	char cmd[1024], line[256];
	uint64_t a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long v;
		char t, n[200];

		if (sscanf(line, "%llx %c %199s", &v, &t, n) == 3 && !strcmp(n, name))
			a = v;
	}
	pclose(p);
	return a;
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static struct strobe_symbols *new_symbols_max(size_t max_files)
{
	struct strobe_symbols_opts o = { .size = sizeof(o), .max_files = max_files };
	struct strobe_symbols *s = NULL;
	char proc[300], dbg[300];

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(dbg, sizeof(dbg), "%s/nodebug", dir);
	o.proc = proc;
	o.debug_dir = dbg;
	o.kallsyms = "ffffffff81000000 T _stext\n"
		     "ffffffff81000100 T do_work\n"
		     "ffffffff81000200 t helper\n"
		     "ffffffffc0000000 t mod_fn\t[mymod]\n"
		     "ffffffffc0000100 t mod_other\t[mymod]\n";
	if (strobe_symbols_new(&o, &s, NULL) < 0)
		return NULL;
	return s;
}

static struct strobe_symbols *new_symbols(void)
{
	return new_symbols_max(0);
}

static void test_symtab_through_proc_root(void)
{
	struct strobe_symbols *s;
	struct strobe_sym sym;
	char prog[300];
	uint64_t a;

	if (!setup()) {
		printf("  (skipped: cc, nm or objcopy missing)\n");
		return;
	}
	snprintf(prog, sizeof(prog), "%s/root/bin/prog", dir);
	a = nm_addr(prog, "alpha");
	REQUIRE(a);
	/* the process's maps: the whole file, executable, from 0x400000 */
	write_file("proc/4242/maps", "00400000-00500000 r-xp 00000000 08:01 12345 /bin/prog\n"
		   "7ffd0000-7ffd1000 rw-p 00000000 00:00 0 [stack]\n");
	s = new_symbols();
	REQUIRE(s);
	CHECK_EQ(strobe_symbols_user(s, 4242, a + 2, &sym), 0);
	CHECK_STR(sym.name, "alpha");
	CHECK_STR(sym.module, "prog");
	CHECK_EQ(sym.offset, 2);
	CHECK(sym.known);
	a = nm_addr(prog, "beta");
	CHECK_EQ(strobe_symbols_user(s, 4242, a, &sym), 0);
	CHECK_STR(sym.name, "beta");
	/* nothing mapped there, no perf map: unknown */
	CHECK_EQ(strobe_symbols_user(s, 4242, 0x10, &sym), 0);
	CHECK_STR(sym.name, "[unknown]");
	CHECK(!sym.known);
	strobe_symbols_free(s);
}

static void test_debuglink_and_build_id(void)
{
	struct strobe_symbols *s;
	struct strobe_symbols_stats st;
	struct strobe_sym sym;
	char prog[300];
	uint64_t a;

	if (!setup())
		return;
	snprintf(prog, sizeof(prog), "%s/root/bin/prog", dir);
	a = nm_addr(prog, "alpha");
	REQUIRE(a);
	s = new_symbols();
	REQUIRE(s);
	/* stripped: the symbols come from root/bin/.debug/prog.debug */
	CHECK_EQ(strobe_symbols_mmap(s, 4242, 0x400000, 0x100000, 0, 0, "/bin/stripped"), 0);
	CHECK_EQ(strobe_symbols_user(s, 4242, a + 1, &sym), 0);
	CHECK_STR(sym.name, "alpha");
	CHECK_STR(sym.module, "stripped");
	strobe_symbols_stats(s, &st);
	CHECK_EQ(st.debug_files, 1);
	/* a debug link to another build: its build id differs, refused */
	strobe_symbols_exec(s, 4242);
	CHECK_EQ(strobe_symbols_mmap(s, 4242, 0x400000, 0x100000, 0, 0, "/bin/wrongdebug"), 0);
	CHECK_EQ(strobe_symbols_user(s, 4242, a + 1, &sym), 0);
	CHECK_STR(sym.name, "[unknown]");
	CHECK_STR(sym.module, "wrongdebug");
	CHECK(!sym.known);
	strobe_symbols_free(s);
}

static void test_perf_map_under_namespaced_pid(void)
{
	struct strobe_symbols *s;
	struct strobe_sym sym;

	if (!setup())
		return;
	write_file("proc/4242/status", "Name:\tjava\nNSpid:\t4242\t7\n");
	write_file("root/tmp/perf-7.map", "7f0000001000 100 LJava/Foo;::bar\n"
		   "0x7f0000002000 0x20 jit_stub\n" "garbage line\n");
	write_file("proc/4242/maps", "7f0000000000-7f0000100000 r-xp 00000000 00:00 0 \n");
	s = new_symbols();
	REQUIRE(s);
	CHECK_EQ(strobe_symbols_user(s, 4242, 0x7f0000001010, &sym), 0);
	CHECK_STR(sym.name, "LJava/Foo;::bar");
	CHECK_STR(sym.module, "perf-4242.map");
	CHECK_EQ(sym.offset, 0x10);
	CHECK_EQ(strobe_symbols_user(s, 4242, 0x7f0000002010, &sym), 0);
	CHECK_STR(sym.name, "jit_stub");
	CHECK_EQ(strobe_symbols_user(s, 4242, 0x7f0000003000, &sym), 0);
	CHECK_STR(sym.name, "[unknown]");
	CHECK_STR(sym.module, "[anon]");
	strobe_symbols_free(s);
}

static void test_fork_and_exec(void)
{
	struct strobe_symbols *s;
	struct strobe_sym sym;
	char prog[300];
	uint64_t a;

	if (!setup())
		return;
	snprintf(prog, sizeof(prog), "%s/root/bin/prog", dir);
	a = nm_addr(prog, "beta");
	REQUIRE(a);
	write_file("proc/4242/maps", "00400000-00500000 r-xp 00000000 08:01 12345 /bin/prog\n");
	s = new_symbols();
	REQUIRE(s);
	CHECK_EQ(strobe_symbols_user(s, 4242, a, &sym), 0);
	CHECK_STR(sym.name, "beta");
	/* the child (no /proc entry of its own) knows the parent's maps; its
	 * file opens through its own root, which does not exist, then the
	 * host path only with a matching inode: none here */
	CHECK_EQ(strobe_symbols_fork(s, 4242, 5000), 0);
	CHECK_EQ(strobe_symbols_user(s, 5000, a, &sym), 0);
	CHECK_STR(sym.name, "[unknown]");
	CHECK_STR(sym.module, "prog");
	/* exec: the old maps are gone */
	strobe_symbols_exec(s, 4242);
	CHECK_EQ(strobe_symbols_user(s, 4242, a, &sym), 0);
	CHECK(sym.module == NULL);
	strobe_symbols_free(s);
}

static uint64_t inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void test_exited_processes_dropped(void)
{
	struct strobe_symbols_stats st;
	struct strobe_symbols *s;
	struct strobe_sym sym;
	char prog[300];
	uint64_t a, ino;
	int i, named = 0;

	if (!setup())
		return;
	snprintf(prog, sizeof(prog), "%s/root/bin/prog", dir);
	a = nm_addr(prog, "alpha");
	ino = inode_of(prog);
	REQUIRE(a && ino);
	s = new_symbols();
	REQUIRE(s);
	/* 300 processes come and go (no /proc entry: their file is the
	 * host's path, taken because the inode matches) */
	for (i = 0; i < 300; i++) {
		pid_t pid = 20000 + i;
		uint64_t t = 1000 + 10 * (uint64_t)i;

		CHECK_EQ(strobe_symbols_mmap(s, pid, 0x400000, 0x100000, 0, ino, prog), 0);
		CHECK_EQ(strobe_symbols_user(s, pid, a, &sym), 0);
		strobe_symbols_exit(s, pid, t);
		/* a sample before its exit, named after the exit was read */
		strobe_symbols_expire(s, t - 1);
		CHECK_EQ(strobe_symbols_user(s, pid, a, &sym), 0);
		named += sym.known && !strcmp(sym.name, "alpha");
	}
	CHECK_EQ(named, 300);
	strobe_symbols_stats(s, &st);
	CHECK(st.processes_held >= 1);	/* the last one, not expired yet */
	strobe_symbols_expire(s, 1000 + 10 * 300);
	strobe_symbols_stats(s, &st);
	CHECK_EQ(st.processes_held, 0);
	CHECK_EQ(st.processes_dropped, 300);
	CHECK_EQ(st.files_held, 1);	/* the one file, shared */
	/* a PID reused (exec) before the drop is kept */
	CHECK_EQ(strobe_symbols_mmap(s, 30000, 0x400000, 0x100000, 0, ino, prog), 0);
	strobe_symbols_exit(s, 30000, 5000);
	strobe_symbols_exec(s, 30000);
	CHECK_EQ(strobe_symbols_mmap(s, 30000, 0x400000, 0x100000, 0, ino, prog), 0);
	strobe_symbols_expire(s, 6000);
	CHECK_EQ(strobe_symbols_user(s, 30000, a, &sym), 0);
	CHECK_STR(sym.name, "alpha");
	strobe_symbols_stats(s, &st);
	CHECK_EQ(st.processes_held, 1);
	strobe_symbols_free(s);
}

static void test_file_cache_bounded(void)
{
	struct strobe_symbols_stats st;
	struct strobe_symbols *s;
	struct strobe_sym sym;
	char prog[300], other[300];
	uint64_t a, b;
	int i, ok = 0;

	if (!setup())
		return;
	snprintf(prog, sizeof(prog), "%s/root/bin/prog", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	a = nm_addr(prog, "alpha");
	b = nm_addr(other, "alpha2");
	REQUIRE(a && b);
	s = new_symbols_max(1);
	REQUIRE(s);
	CHECK_EQ(strobe_symbols_mmap(s, 31000, 0x400000, 0x100000, 0, inode_of(prog), prog), 0);
	CHECK_EQ(strobe_symbols_mmap(s, 31001, 0x400000, 0x100000, 0, inode_of(other), other), 0);
	/* alternate: each lookup unloads the other file and reloads its own */
	for (i = 0; i < 10; i++) {
		CHECK_EQ(strobe_symbols_user(s, 31000, a, &sym), 0);
		ok += sym.known && !strcmp(sym.name, "alpha");
		CHECK_EQ(strobe_symbols_user(s, 31001, b, &sym), 0);
		ok += sym.known && !strcmp(sym.name, "alpha2");
		strobe_symbols_stats(s, &st);
		CHECK_EQ(st.files_held, 1);
	}
	CHECK_EQ(ok, 20);
	strobe_symbols_stats(s, &st);
	CHECK_EQ(st.files_evicted, 19);
	CHECK(st.file_bytes > 0);
	strobe_symbols_free(s);
}

static void test_kallsyms(void)
{
	struct strobe_symbols *s;
	struct strobe_sym sym;
	static const struct { uint64_t addr; const char *name; uint64_t off; } cases[] = {
		{ 0xffffffff81000104, "do_work", 4 },
		{ 0xffffffff81000200, "helper", 0 },
		{ 0xffffffffc0000010, "mod_fn", 0x10 },
	};
	size_t i;

	if (!setup())
		return;
	s = new_symbols();
	REQUIRE(s);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(strobe_symbols_kernel(s, cases[i].addr, &sym), 0);
		CHECK_STR(sym.name, cases[i].name);
		CHECK_EQ(sym.offset, cases[i].off);
		CHECK_STR(sym.module, "[kernel.kallsyms]");
	}
	CHECK_EQ(strobe_symbols_kernel(s, 0x1000, &sym), 0);
	CHECK_STR(sym.name, "[unknown]");
	strobe_symbols_free(s);
}

static void test_parse_maps_lines(void)
{
	static const struct { const char *line; int ok; uint64_t start, end, pgoff, ino;
			      const char *path; } cases[] = {
		{ "00400000-00452000 r-xp 00001000 08:01 173521 /usr/bin/dbus\n", 1,
		  0x400000, 0x452000, 0x1000, 173521, "/usr/bin/dbus" },
		{ "7f2c4000-7f2c5000 r-xp 00000000 00:00 0 \n", 1, 0x7f2c4000, 0x7f2c5000, 0, 0, "" },
		{ "7f2c4000-7f2c5000 r-xp 00000000 00:19 12 /a b (deleted)", 1,
		  0x7f2c4000, 0x7f2c5000, 0, 12, "/a b (deleted)" },
		{ "zz-7f2c5000 r-xp 0 0:0 0", 0, 0, 0, 0, 0, "" },
		{ "5000-4000 r-xp 0 0:0 0", 0, 0, 0, 0, 0, "" },
		{ "4000-5000 r-", 0, 0, 0, 0, 0, "" },
		{ "", 0, 0, 0, 0, 0, "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strobe_maps_line ml;
		int r = strobe_symbols_parse_maps_line(cases[i].line, strlen(cases[i].line), &ml);

		CHECK_EQ(r, cases[i].ok);
		if (r != 1)
			continue;
		CHECK_EQ(ml.start, cases[i].start);
		CHECK_EQ(ml.end, cases[i].end);
		CHECK_EQ(ml.pgoff, cases[i].pgoff);
		CHECK_EQ(ml.ino, cases[i].ino);
		CHECK_EQ(ml.path_len, strlen(cases[i].path));
		CHECK(!strncmp(ml.path, cases[i].path, ml.path_len));
	}
}

static void test_parse_perf_map_lines(void)
{
	uint64_t start, size;
	const char *name;
	size_t n;

	CHECK_EQ(strobe_symbols_parse_perf_map_line("1000 20 foo bar\n", 16, &start, &size,
						    &name, &n), 1);
	CHECK_EQ(start, 0x1000);
	CHECK_EQ(size, 0x20);
	CHECK_EQ(n, 7);
	CHECK(!strncmp(name, "foo bar", n));
	CHECK_EQ(strobe_symbols_parse_perf_map_line("1000 20", 7, &start, &size, &name, &n), 0);
	CHECK_EQ(strobe_symbols_parse_perf_map_line("x 20 a", 6, &start, &size, &name, &n), 0);
	CHECK_EQ(strobe_symbols_parse_perf_map_line("11112222333344445 1 a", 21, &start, &size,
						    &name, &n), 0);
}

static void test_elf_probe_refuses_garbage(void)
{
	static const char junk[] = "\x7f" "ELF this is not an ELF file at all";
	uint8_t id[20];
	size_t idn = 99;
	char name[64];

	CHECK(strobe_symbols_elf_probe(junk, sizeof(junk), 0, name, sizeof(name), id, &idn) < 0);
	CHECK(strobe_symbols_elf_probe(NULL, 0, 0, name, sizeof(name), id, &idn) < 0);
}

static void cleanup(void)
{
	if (have_tools >= 0 && dir[0])
		sh("rm -rf %s", dir);
}

static void test_zz_cleanup(void)
{
	cleanup();
}

TESTS(T(test_symtab_through_proc_root), T(test_debuglink_and_build_id),
      T(test_perf_map_under_namespaced_pid), T(test_fork_and_exec),
      T(test_exited_processes_dropped), T(test_file_cache_bounded), T(test_kallsyms),
      T(test_parse_maps_lines), T(test_parse_perf_map_lines),
      T(test_elf_probe_refuses_garbage), T(test_zz_cleanup));
