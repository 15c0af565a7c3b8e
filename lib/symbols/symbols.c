/*
 * symbols.c - names for code addresses (symbols.h): kallsyms for the
 * kernel; for a process, its maps (from perf's MMAP2 records, or
 * /proc/PID/maps when first needed), the ELF files behind them opened
 * through /proc/PID/root (the process's own mount namespace: a binary
 * that exists only in a container is read from the container), separate
 * debug files, and perf-PID.map files for JIT code.
 *
 * How it works: a process is a small array of mappings (start, end,
 * file offset, inode, path); a lookup finds the mapping holding the
 * address, turns the address into a file offset and, through the file's
 * load segments, into the ELF virtual address its symbols use.  Files
 * are loaded on first use and cached by (device, inode) of the opened
 * file, so libc is read once for every process that maps it.  A path is
 * opened as PROC/PID/root/PATH; if the process is gone, the same path on
 * the host is used only when its inode is the one the mapping named.
 *
 * Bounded memory in long system-wide profiles: a process's maps are
 * dropped once it exited and every sample before its exit was named
 * (strobe_symbols_exit marks it with its exit time, strobe_symbols_expire
 * with a later sample's time drops it; a fork or exec on a reused PID
 * starts it afresh), and the file cache is bounded (max_files,
 * max_file_bytes): past either, the least recently used files are
 * unloaded (the mappings pointing to them look them up again when next
 * needed).  A file is keyed by (device, inode, size, mtime): a deleted
 * file's inode reused by another file is not taken for it.
 *
 * Strings handed out: module names are interned in a pool of their own
 * and live as long as the struct strobe_symbols; function names live in
 * the files' tables and the processes' perf maps, so only until the next
 * call that may load or unload one (see symbols.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/symbols.h>

#include "symbols-int.h"

#define NR_BUCKETS 1024u
#define KALLSYMS_MAX (64u << 20)
#define PERF_MAP_MAX (256u << 20)

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL[] = "[kernel.kallsyms]";

struct sym_file {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t used;		/* the lookup stamp of its last use (LRU) */
	size_t bytes;		/* what its tables hold */
	const char *base;	/* pooled: the module name */
	struct sym_elf elf;
	bool ok;		/* read as ELF */
	struct sym_file *next;
};

struct sym_map {
	uint64_t start, end, pgoff, ino;
	char *path;		/* in the process's namespace, "" anonymous */
	struct sym_file *file;	/* NULL: not looked up, or failed (tried) */
	bool tried;
};

struct sym_proc {
	pid_t pid;
	struct sym_map *m;
	size_t n, cap;
	bool proc_read;		/* /proc/PID/maps was read (or need not be) */
	bool perf_map_tried;
	struct sym_table perf_map;
	uint64_t exit_ts;	/* exited at this time (0: running) */
	struct sym_proc *next;
};

/* A process waiting to be dropped (strobe_symbols_exit). */
struct sym_exit {
	pid_t pid;
	uint64_t ts;
};

/* A stable string: interned module names. */
struct pooled {
	struct pooled *next;
	char s[];
};

struct strobe_symbols {
	char proc[256];
	char debug[256];
	char *kallsyms;		/* given text (copy), NULL: /proc/kallsyms */
	struct tep_handle *ktep;
	bool ktried;
	struct sym_proc *procs[NR_BUCKETS];
	struct sym_file *files[NR_BUCKETS];
	struct pooled *pool[NR_BUCKETS];
	struct strobe_symbols_stats st;
	size_t max_files, max_bytes;
	uint64_t stamp;		/* lookups so far (LRU clock) */
	struct sym_exit *exits;	/* exited, not dropped yet */
	size_t nexits, exits_cap;
	uint64_t exits_min;	/* the earliest of their times */
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static const char *pool_str(struct strobe_symbols *s, const char *str)
{
	uint32_t b = hash_str(str) % NR_BUCKETS;
	struct pooled *p;
	size_t n = strlen(str);

	for (p = s->pool[b]; p; p = p->next)
		if (!strcmp(p->s, str))
			return p->s;
	p = malloc(sizeof(*p) + n + 1);
	if (!p)
		return NULL;
	memcpy(p->s, str, n + 1);
	p->next = s->pool[b];
	s->pool[b] = p;
	return p->s;
}

int strobe_symbols_new(const struct strobe_symbols_opts *o, struct strobe_symbols **out,
		       struct strobe_error *err)
{
	struct strobe_symbols *s = calloc(1, sizeof(*s));
	const char *proc = o && o->proc ? o->proc : "/proc";
	const char *debug = o && o->debug_dir ? o->debug_dir : "/usr/lib/debug";

	*out = NULL;
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (strlen(proc) >= sizeof(s->proc) || strlen(debug) >= sizeof(s->debug)) {
		free(s);
		return strobe_err(err, -EINVAL, "a path too long for the symbol finder");
	}
	strcpy(s->proc, proc);
	strcpy(s->debug, debug);
	s->max_files = o && o->max_files ? o->max_files : 1024;
	s->max_bytes = o && o->max_file_bytes ? o->max_file_bytes : (size_t)256 << 20;
	if (o && o->kallsyms && !(s->kallsyms = strdup(o->kallsyms))) {
		free(s);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

static void proc_clear(struct sym_proc *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->m[i].path);
	p->n = 0;
}

void strobe_symbols_free(struct strobe_symbols *s)
{
	unsigned b;

	if (!s)
		return;
	for (b = 0; b < NR_BUCKETS; b++) {
		struct sym_proc *p = s->procs[b], *pn;
		struct sym_file *f = s->files[b], *fn;
		struct pooled *q = s->pool[b], *qn;

		for (; p; p = pn) {
			pn = p->next;
			proc_clear(p);
			free(p->m);
			sym_table_release(&p->perf_map);
			free(p);
		}
		for (; f; f = fn) {
			fn = f->next;
			sym_elf_release(&f->elf);
			free(f);
		}
		for (; q; q = qn) {
			qn = q->next;
			free(q);
		}
	}
	if (s->ktep)
		tep_free(s->ktep);
	free(s->exits);
	free(s->kallsyms);
	free(s);
}

void strobe_symbols_stats(const struct strobe_symbols *s, struct strobe_symbols_stats *st)
{
	*st = s->st;
}

/* ---- reading files ------------------------------------------------------ */

/* The whole of a file whose size stat cannot tell (/proc), at most max
 * bytes, NUL-terminated.  NULL with errno set. */
static char *read_text(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (cap - n < 65536) {
			char *p;

			cap = cap ? cap * 2 : 131072;
			if (cap > max + 1)
				cap = max + 1;
			if (cap <= n + 1 || !(p = realloc(buf, cap))) {
				free(buf);
				close(fd);
				errno = cap <= n + 1 ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* ---- kernel --------------------------------------------------------------- */

static void kernel_load(struct strobe_symbols *s)
{
	char *text = s->kallsyms;

	s->ktried = true;
	if (!text)
		text = read_text("/proc/kallsyms", KALLSYMS_MAX, NULL);
	if (!text)
		return;
	s->ktep = tep_alloc();
	if (s->ktep && tep_parse_kallsyms(s->ktep, text) < 0) {
		tep_free(s->ktep);
		s->ktep = NULL;
	}
	if (text != s->kallsyms)
		free(text);
}

int strobe_symbols_kernel(struct strobe_symbols *s, uint64_t addr, struct strobe_sym *out)
{
	unsigned long long start;
	const char *name;

	memset(out, 0, sizeof(*out));
	out->name = UNKNOWN;
	out->module = KERNEL;
	if (!s->ktried)
		kernel_load(s);
	if (s->ktep && tep_find_function_info(s->ktep, addr, &name, &start, NULL) && name) {
		out->name = name;
		out->offset = addr - start;
		out->known = true;
	}
	return 0;
}

/* ---- processes and their maps ------------------------------------------- */

static struct sym_proc *proc_get(struct strobe_symbols *s, pid_t pid, bool create)
{
	unsigned b = (unsigned)pid % NR_BUCKETS;
	struct sym_proc *p;

	for (p = s->procs[b]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->next = s->procs[b];
	s->procs[b] = p;
	s->st.processes++;
	s->st.processes_held++;
	return p;
}

/* Unlink and free process pid. */
static void proc_drop(struct strobe_symbols *s, pid_t pid)
{
	struct sym_proc **pp = &s->procs[(unsigned)pid % NR_BUCKETS], *p;

	for (; (p = *pp); pp = &p->next)
		if (p->pid == pid) {
			*pp = p->next;
			proc_clear(p);
			free(p->m);
			sym_table_release(&p->perf_map);
			free(p);
			s->st.processes_held--;
			s->st.processes_dropped++;
			return;
		}
}

void strobe_symbols_exit(struct strobe_symbols *s, pid_t pid, uint64_t ts)
{
	struct sym_proc *p = proc_get(s, pid, false);

	if (!p)
		return;
	if (s->nexits == s->exits_cap) {
		size_t cap = s->exits_cap ? s->exits_cap * 2 : 64;
		struct sym_exit *v = realloc(s->exits, cap * sizeof(*v));

		if (!v)
			return;	/* kept: memory, not correctness */
		s->exits = v;
		s->exits_cap = cap;
	}
	p->exit_ts = ts ? ts : 1;
	if (!s->nexits || p->exit_ts < s->exits_min)
		s->exits_min = p->exit_ts;
	s->exits[s->nexits].pid = pid;
	s->exits[s->nexits].ts = p->exit_ts;
	s->nexits++;
}

void strobe_symbols_expire(struct strobe_symbols *s, uint64_t ts)
{
	size_t i, j;

	if (!s->nexits || ts <= s->exits_min)
		return;
	s->exits_min = UINT64_MAX;
	for (i = j = 0; i < s->nexits; i++) {
		struct sym_exit e = s->exits[i];

		if (e.ts < ts) {
			struct sym_proc *p = proc_get(s, e.pid, false);

			/* a PID reused since (a fork or exec cleared the mark, or
			 * a later exit re-marked it) stays */
			if (p && p->exit_ts == e.ts)
				proc_drop(s, e.pid);
			continue;
		}
		if (e.ts < s->exits_min)
			s->exits_min = e.ts;
		s->exits[j++] = e;
	}
	s->nexits = j;
}

/* Add a mapping, dropping those it overlaps (the newer one wins). */
static int proc_add(struct sym_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		    uint64_t ino, const char *path, size_t path_len)
{
	size_t i, j;
	char *copy;

	if (end <= start)
		return 0;
	for (i = j = 0; i < p->n; i++) {
		if (p->m[i].start < end && start < p->m[i].end) {
			free(p->m[i].path);
			continue;
		}
		p->m[j++] = p->m[i];
	}
	p->n = j;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct sym_map *m = realloc(p->m, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		p->m = m;
		p->cap = cap;
	}
	if (!(copy = strndup(path, path_len)))
		return -ENOMEM;
	memset(&p->m[p->n], 0, sizeof(p->m[p->n]));
	p->m[p->n].start = start;
	p->m[p->n].end = end;
	p->m[p->n].pgoff = pgoff;
	p->m[p->n].ino = ino;
	p->m[p->n].path = copy;
	p->n++;
	return 0;
}

int strobe_symbols_mmap(struct strobe_symbols *s, pid_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, uint64_t ino, const char *path)
{
	struct sym_proc *p = proc_get(s, pid, true);

	if (!p)
		return -ENOMEM;
	if (!path)
		path = "";
	return proc_add(p, start, start + len, pgoff, ino, path, strlen(path));
}

void strobe_symbols_exec(struct strobe_symbols *s, pid_t pid)
{
	struct sym_proc *p = proc_get(s, pid, true);

	if (!p)
		return;
	proc_clear(p);
	p->exit_ts = 0;
	/* the new image's mappings come as records */
	p->proc_read = true;
	p->perf_map_tried = false;
	sym_table_release(&p->perf_map);
}

static void proc_read_maps(struct strobe_symbols *s, struct sym_proc *p);

int strobe_symbols_touch(struct strobe_symbols *s, pid_t pid)
{
	struct sym_proc *p = proc_get(s, pid, true);

	if (!p)
		return -ENOMEM;
	if (!p->proc_read)
		proc_read_maps(s, p);
	return 0;
}

int strobe_symbols_fork(struct strobe_symbols *s, pid_t parent, pid_t child)
{
	struct sym_proc *pp, *c;
	size_t i;
	int r;

	if (parent == child)
		return 0;
	/* the child starts as a copy of the parent: learn the parent's maps
	 * now if nothing told them */
	r = strobe_symbols_touch(s, parent);
	if (r < 0)
		return r;
	pp = proc_get(s, parent, false);
	c = proc_get(s, child, true);
	if (!c)
		return -ENOMEM;
	proc_clear(c);
	c->exit_ts = 0;
	c->perf_map_tried = false;
	sym_table_release(&c->perf_map);
	c->proc_read = false;
	if (!pp)
		return 0;
	for (i = 0; i < pp->n; i++) {
		r = proc_add(c, pp->m[i].start, pp->m[i].end, pp->m[i].pgoff, pp->m[i].ino,
			     pp->m[i].path, strlen(pp->m[i].path));
		if (r < 0)
			return r;
	}
	c->proc_read = pp->proc_read;
	return 0;
}

static bool hexnum(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && isxdigit((unsigned char)*s)) {
		int d = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);

		if (++n > 16)
			return false;
		x = x * 16 + (uint64_t)d;
		s++;
	}
	if (!n)
		return false;
	*v = x;
	*p = s;
	return true;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

int strobe_symbols_parse_maps_line(const char *line, size_t n, struct strobe_maps_line *out)
{
	const char *p = line, *end = line + n;
	uint64_t dev;
	int i;

	memset(out, 0, sizeof(*out));
	out->path = "";
	if (!line)
		return 0;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (!hexnum(&p, end, &out->start) || p >= end || *p++ != '-' ||
	    !hexnum(&p, end, &out->end) || out->end < out->start)
		return 0;
	skip_spaces(&p, end);
	for (i = 0; i < 4; i++) {
		if (p >= end || *p == ' ')
			return 0;
		out->perms[i] = *p++;
	}
	skip_spaces(&p, end);
	if (!hexnum(&p, end, &out->pgoff))
		return 0;
	skip_spaces(&p, end);
	/* device major:minor */
	if (!hexnum(&p, end, &dev) || p >= end || *p++ != ':' || !hexnum(&p, end, &dev))
		return 0;
	skip_spaces(&p, end);
	out->ino = 0;
	while (p < end && isdigit((unsigned char)*p)) {
		if (out->ino > UINT64_MAX / 10)
			return 0;
		out->ino = out->ino * 10 + (uint64_t)(*p++ - '0');
	}
	skip_spaces(&p, end);
	out->path = p;
	out->path_len = (size_t)(end - p);
	return 1;
}

/* Read PROC/PID/maps (executable mappings) into p, under what it holds. */
static void proc_read_maps(struct strobe_symbols *s, struct sym_proc *p)
{
	char path[320];
	char *text, *line, *nl;
	size_t len;

	p->proc_read = true;
	snprintf(path, sizeof(path), "%s/%d/maps", s->proc, (int)p->pid);
	text = read_text(path, 64u << 20, &len);
	if (!text)
		return;
	for (line = text; line < text + len; line = nl + 1) {
		struct strobe_maps_line ml;
		size_t i;
		bool known = false;

		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (!nl)
			nl = text + len;
		if (!strobe_symbols_parse_maps_line(line, (size_t)(nl - line), &ml) ||
		    ml.perms[2] != 'x')
			continue;
		/* records learnt since are newer: keep them */
		for (i = 0; i < p->n && !known; i++)
			known = p->m[i].start < ml.end && ml.start < p->m[i].end;
		if (!known && proc_add(p, ml.start, ml.end, ml.pgoff, ml.ino, ml.path,
				       ml.path_len) < 0)
			break;
	}
	free(text);
}

static struct sym_map *proc_find(struct sym_proc *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (addr >= p->m[i].start && addr < p->m[i].end)
			return &p->m[i];
	return NULL;
}

/* ---- ELF files --------------------------------------------------------- */

static int open_in_root(struct strobe_symbols *s, pid_t pid, const char *path)
{
	char full[4400];
	int n;

	if (pid > 0)
		n = snprintf(full, sizeof(full), "%s/%d/root%s", s->proc, (int)pid, path);
	else
		n = snprintf(full, sizeof(full), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -1;
	return open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static bool build_id_equal(const struct sym_elf *a, const struct sym_elf *b)
{
	return a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* A debug file at path (inside pid's root, or the host's for pid 0) whose
 * build id matches e's (when e has one): its symbols replace e's. */
static bool try_debug(struct strobe_symbols *s, pid_t pid, const char *path, struct sym_elf *e)
{
	struct sym_elf d;
	struct stat st;
	int fd = open_in_root(s, pid, path);
	bool ok = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && sym_elf_read(fd, NULL, 0, &d) == 0) {
		if (d.has_symtab && (!e->build_id_len || build_id_equal(e, &d))) {
			sym_table_release(&e->t);
			e->t = d.t;
			memset(&d.t, 0, sizeof(d.t));
			e->has_symtab = true;
			ok = true;
		}
		sym_elf_release(&d);
	}
	close(fd);
	return ok;
}

/* Look for a debug file of e (mapped from path, in pid's namespace). */
static bool find_debug(struct strobe_symbols *s, pid_t pid, const char *path, struct sym_elf *e)
{
	char cand[8800], dir[4096], hex[41];
	const char *slash = strrchr(path, '/');
	pid_t where[2] = { pid, 0 };
	size_t i, dlen;
	int w;

	for (i = 0; i < e->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", e->build_id[i]);
	dlen = slash ? (size_t)(slash - path) : 0;
	if (dlen >= sizeof(dir))
		return false;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	for (w = 0; w < 2; w++) {
		/* the container's own /usr/lib/debug, then the host's */
		const char *dbg = where[w] ? "/usr/lib/debug" : s->debug;

		if (where[w] <= 0 && w == 0)
			continue;
		if (e->build_id_len >= 2) {
			snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", dbg, hex, hex + 2);
			if (try_debug(s, where[w], cand, e))
				return true;
		}
		if (e->debuglink[0]) {
			snprintf(cand, sizeof(cand), "%s/%s", dir, e->debuglink);
			if (strcmp(cand, path) && try_debug(s, where[w], cand, e))
				return true;
			snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, e->debuglink);
			if (try_debug(s, where[w], cand, e))
				return true;
			snprintf(cand, sizeof(cand), "%s%s/%s", dbg, dir, e->debuglink);
			if (try_debug(s, where[w], cand, e))
				return true;
		}
	}
	return false;
}

static size_t file_bytes(const struct sym_file *f)
{
	return sizeof(*f) + f->elf.t.cap * sizeof(struct sym_entry) + f->elf.t.names_cap;
}

/* Unload the least recently used files (never keep) while over the
 * bounds; the mappings that pointed to one look it up again. */
static void files_trim(struct strobe_symbols *s, const struct sym_file *keep)
{
	while (s->st.files_held > s->max_files || s->st.file_bytes > s->max_bytes) {
		struct sym_file **victim = NULL, **fp, *f;
		unsigned b;
		size_t i;

		for (b = 0; b < NR_BUCKETS; b++)
			for (fp = &s->files[b]; *fp; fp = &(*fp)->next)
				if (*fp != keep && (!victim || (*fp)->used < (*victim)->used))
					victim = fp;
		if (!victim)
			return;
		f = *victim;
		*victim = f->next;
		for (b = 0; b < NR_BUCKETS; b++) {
			struct sym_proc *p;

			for (p = s->procs[b]; p; p = p->next)
				for (i = 0; i < p->n; i++)
					if (p->m[i].file == f) {
						p->m[i].file = NULL;
						p->m[i].tried = false;
					}
		}
		s->st.files_held--;
		s->st.file_bytes -= f->bytes;
		s->st.files_evicted++;
		sym_elf_release(&f->elf);
		free(f);
	}
}

/* The file of mapping m of process pid, loaded once per (dev, inode,
 * size, mtime) while it stays in the cache. */
static struct sym_file *map_file(struct strobe_symbols *s, pid_t pid, struct sym_map *m)
{
	char path[4096];
	const char *base;
	struct sym_file *f;
	struct stat st;
	size_t n;
	unsigned b;
	int fd;

	if (m->tried) {
		if (m->file)
			m->file->used = ++s->stamp;
		return m->file;
	}
	m->tried = true;
	n = strlen(m->path);
	if (n >= sizeof(path) || m->path[0] != '/')
		return NULL;
	memcpy(path, m->path, n + 1);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		path[n - 10] = '\0';
	fd = open_in_root(s, pid, path);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && m->ino) {
		/* the process is gone: the host's file, if it is the same */
		fd = open_in_root(s, 0, path);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
				(uint64_t)st.st_ino != m->ino)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		s->st.files_failed++;
		return NULL;
	}
	b = (unsigned)((st.st_ino * 31u + st.st_dev) % NR_BUCKETS);
	for (f = s->files[b]; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size == st.st_size &&
		    f->mtime.tv_sec == st.st_mtim.tv_sec && f->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			close(fd);
			f->used = ++s->stamp;
			m->file = f;
			return f;
		}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->used = ++s->stamp;
	base = strrchr(path, '/');
	f->base = pool_str(s, base ? base + 1 : path);
	if (sym_elf_read(fd, NULL, 0, &f->elf) == 0) {
		f->ok = true;
		s->st.files++;
		if (!f->elf.has_symtab && find_debug(s, pid, path, &f->elf))
			s->st.debug_files++;
	} else {
		s->st.files_failed++;
	}
	close(fd);
	f->bytes = file_bytes(f);
	f->next = s->files[b];
	s->files[b] = f;
	s->st.files_held++;
	s->st.file_bytes += f->bytes;
	m->file = f;
	files_trim(s, f);
	return f;
}

/* ---- perf-PID.map ------------------------------------------------------- */

int strobe_symbols_parse_perf_map_line(const char *line, size_t n, uint64_t *start,
				       uint64_t *size, const char **name, size_t *name_len)
{
	const char *p = line, *end = line + n;

	if (!line)
		return 0;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!hexnum(&p, end, start) || p >= end || *p != ' ')
		return 0;
	skip_spaces(&p, end);
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!hexnum(&p, end, size) || p >= end || *p != ' ')
		return 0;
	skip_spaces(&p, end);
	if (p >= end)
		return 0;
	*name = p;
	*name_len = (size_t)(end - p);
	return 1;
}

/* The process's PID in its own namespace (the last NSpid field). */
static pid_t ns_pid(struct strobe_symbols *s, pid_t pid)
{
	char path[320], *text, *l;
	pid_t last = pid;

	snprintf(path, sizeof(path), "%s/%d/status", s->proc, (int)pid);
	text = read_text(path, 1u << 20, NULL);
	if (!text)
		return pid;
	l = strstr(text, "\nNSpid:");
	if (l) {
		char *e;

		l += 7;
		for (;;) {
			long v = strtol(l, &e, 10);

			if (e == l)
				break;
			last = (pid_t)v;
			l = e;
		}
	}
	free(text);
	return last;
}

static void load_perf_map(struct strobe_symbols *s, struct sym_proc *p)
{
	char path[320], *text, *line, *nl;
	size_t len;

	p->perf_map_tried = true;
	snprintf(path, sizeof(path), "%s/%d/root/tmp/perf-%d.map", s->proc, (int)p->pid,
		 (int)ns_pid(s, p->pid));
	text = read_text(path, PERF_MAP_MAX, &len);
	if (!text)
		return;
	s->st.perf_maps++;
	for (line = text; line < text + len; line = nl + 1) {
		uint64_t start, size;
		const char *name;
		size_t nlen;

		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (!nl)
			nl = text + len;
		if (strobe_symbols_parse_perf_map_line(line, (size_t)(nl - line), &start, &size,
						       &name, &nlen) &&
		    sym_table_add(&p->perf_map, start, size ? size : 1, name,
				  nlen > 1024 ? 1024 : nlen) < 0)
			break;
	}
	free(text);
	sym_table_sort(&p->perf_map);
}

/* ---- user addresses ------------------------------------------------------ */

int strobe_symbols_user(struct strobe_symbols *s, pid_t pid, uint64_t addr,
			struct strobe_sym *out)
{
	struct sym_proc *p;
	struct sym_map *m;
	uint64_t start;
	const char *name;

	memset(out, 0, sizeof(*out));
	out->name = UNKNOWN;
	p = proc_get(s, pid, true);
	if (!p)
		return -ENOMEM;
	m = proc_find(p, addr);
	if (!m && !p->proc_read) {
		proc_read_maps(s, p);
		m = proc_find(p, addr);
	}
	if (m && m->path[0] == '/') {
		struct sym_file *f = map_file(s, pid, m);
		uint64_t va;

		if (f) {
			out->module = f->base;
			if (f->ok && sym_elf_vaddr(&f->elf, addr - m->start + m->pgoff, &va) &&
			    (name = sym_table_find(&f->elf.t, va, &start))) {
				out->name = name;
				out->offset = va - start;
				out->known = true;
			}
		} else {
			const char *b = strrchr(m->path, '/');

			out->module = pool_str(s, b ? b + 1 : m->path);
		}
		return 0;
	}
	/* anonymous executable memory, or none known: JIT code? */
	if (!p->perf_map_tried)
		load_perf_map(s, p);
	if ((name = sym_table_find(&p->perf_map, addr, &start))) {
		char mod[32];

		snprintf(mod, sizeof(mod), "perf-%d.map", (int)pid);
		out->module = pool_str(s, mod);
		out->name = name;
		out->offset = addr - start;
		out->known = true;
		return 0;
	}
	if (m)
		out->module = m->path[0] ? pool_str(s, m->path) : pool_str(s, "[anon]");
	return 0;
}
