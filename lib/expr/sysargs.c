/*
 * sysargs.c - the syscall argument table: which of raw_syscalls:sys_enter's
 * six argument words is `fd`, `count`, `filename` ... for each syscall.
 *
 * It is built from the kernel's syscalls:sys_enter_<name> formats (a format
 * text, a tracefs events directory, or the formats a trace file holds) and
 * stored as text in trace files by recorders, so a file recorded with
 * raw_syscalls alone still resolves argument names on another machine.
 * Entries are kept sorted by name (bsearch; a few hundred of them).
 *
 * Text form (outside input when read back; malformed lines are skipped):
 *     strobe-syscall-args 1
 *     openat<TAB>dfd:i32<TAB>filename:ptr<TAB>flags:i32<TAB>mode:u32
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

#define NAME_MAX_LEN 48
#define MAX_ARGS 6
#define MAGIC "strobe-syscall-args"

struct sysarg_entry {
	char name[NAME_MAX_LEN];
	int nr_args;
	char args[MAX_ARGS][NAME_MAX_LEN];
	uint8_t kinds[MAX_ARGS];
};

struct strobe_syscall_args {
	struct sysarg_entry *v;
	int n, cap;
};

static const char *const kind_names[] = {
	[STROBE_SYSARG_U64] = "u64", [STROBE_SYSARG_I64] = "i64",
	[STROBE_SYSARG_I32] = "i32", [STROBE_SYSARG_U32] = "u32",
	[STROBE_SYSARG_PTR] = "ptr",
};

int strobe_syscall_args_new(struct strobe_syscall_args **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void strobe_syscall_args_free(struct strobe_syscall_args *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}

int strobe_syscall_args_count(const struct strobe_syscall_args *t)
{
	return t ? t->n : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct sysarg_entry *)a)->name,
		      ((const struct sysarg_entry *)b)->name);
}

static const struct sysarg_entry *find(const struct strobe_syscall_args *t, const char *name)
{
	struct sysarg_entry key;

	if (!t || !t->n || strlen(name) >= NAME_MAX_LEN)
		return NULL;
	strcpy(key.name, name);
	return bsearch(&key, t->v, (size_t)t->n, sizeof(key), cmp_entry);
}

/* Insert or replace, keeping the order. */
static int put_entry(struct strobe_syscall_args *t, const struct sysarg_entry *e)
{
	int lo = 0, hi = t->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2, c = strcmp(t->v[mid].name, e->name);

		if (!c) {
			t->v[mid] = *e;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		struct sysarg_entry *v = realloc(t->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	memmove(&t->v[lo + 1], &t->v[lo], (size_t)(t->n - lo) * sizeof(*e));
	t->v[lo] = *e;
	t->n++;
	return 0;
}

static bool valid_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= NAME_MAX_LEN || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* How to read an argument word of C type `type` (the kernel's spelling). */
enum strobe_sysarg_kind expr_sysarg_kind_of(const char *type)
{
	static const char *const i32[] = {
		"int", "pid_t", "clockid_t", "key_serial_t", "timer_t", "mqd_t", "rwf_t",
		"s32", "__s32", "signed int", "key_t",
	};
	static const char *const u32[] = {
		"unsigned int", "unsigned", "uid_t", "gid_t", "umode_t", "u32", "__u32",
		"qid_t", "old_uid_t", "old_gid_t", "unsigned short", "u16", "__u16",
		"aio_context_t *",
	};
	size_t i;

	if (strchr(type, '*'))
		return STROBE_SYSARG_PTR;
	for (i = 0; i < sizeof(i32) / sizeof(i32[0]); i++)
		if (!strcmp(type, i32[i]))
			return STROBE_SYSARG_I32;
	for (i = 0; i < sizeof(u32) / sizeof(u32[0]); i++)
		if (!strcmp(type, u32[i]))
			return STROBE_SYSARG_U32;
	if (!strcmp(type, "long") || !strcmp(type, "loff_t") || !strcmp(type, "off_t") ||
	    !strcmp(type, "ssize_t") || !strcmp(type, "s64") || !strcmp(type, "__s64") ||
	    !strcmp(type, "time_t") || !strcmp(type, "long long"))
		return STROBE_SYSARG_I64;
	return STROBE_SYSARG_U64;
}

/*
 * One "field:TYPE NAME;" declaration: the type (trimmed, "const " kept as
 * written) and the name, or false.  Arrays ("x[6]") are not arguments.
 */
static bool split_decl(const char *decl, size_t n, char *type, size_t tsize, char *name,
		       size_t nsize)
{
	size_t e = n, b;

	while (e && decl[e - 1] == ' ')
		e--;
	b = e;
	while (b && decl[b - 1] != ' ' && decl[b - 1] != '*')
		b--;
	if (b == e || e - b >= nsize || !valid_ident(decl + b, e - b))
		return false;
	memcpy(name, decl + b, e - b);
	name[e - b] = '\0';
	while (b && decl[b - 1] == ' ')
		b--;
	if (!b || b >= tsize)
		return false;
	memcpy(type, decl, b);
	type[b] = '\0';
	return true;
}

int strobe_syscall_args_add_format(struct strobe_syscall_args *t, const char *text,
				   size_t len, struct strobe_error *err)
{
	struct sysarg_entry e;
	const char *p = text, *end = text + len;
	bool named = false, after_nr = false;
	int last_off = -1;

	memset(&e, 0, sizeof(e));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *f;
		size_t n = (size_t)(le - p);

		if (n > 6 && !memcmp(p, "name: ", 6)) {
			const char *s = p + 6;
			size_t sn = (size_t)(le - s);

			if (sn <= 10 || memcmp(s, "sys_enter_", 10) || !valid_ident(s + 10, sn - 10))
				return strobe_err(err, -EINVAL, "not a syscalls:sys_enter_ format "
						  "(name: %.*s)", (int)(sn > 64 ? 64 : sn), s);
			memcpy(e.name, s + 10, sn - 10);
			e.name[sn - 10] = '\0';
			named = true;
		} else if ((f = memmem(p, n, "field:", 6))) {
			const char *semi, *off;
			char type[128], name[NAME_MAX_LEN];
			int o;

			f += 6;
			semi = memchr(f, ';', (size_t)(le - f));
			off = memmem(f, (size_t)(le - f), "offset:", 7);
			if (!semi || !off || !split_decl(f, (size_t)(semi - f), type, sizeof(type),
							 name, sizeof(name)))
				goto nextline;
			o = atoi(off + 7);
			if (!strncmp(name, "common_", 7))
				goto nextline;
			if (!strcmp(name, "__syscall_nr") || !strcmp(name, "nr")) {
				after_nr = true;
				goto nextline;
			}
			if (!after_nr)
				goto nextline;
			if (e.nr_args == MAX_ARGS || o <= last_off)
				return strobe_err(err, -EINVAL, "sys_enter_%s: more than %d arguments "
						  "or out of order", e.name, MAX_ARGS);
			last_off = o;
			strcpy(e.args[e.nr_args], name);
			e.kinds[e.nr_args] = (uint8_t)expr_sysarg_kind_of(type);
			e.nr_args++;
		}
nextline:
		p = nl ? nl + 1 : end;
	}
	if (!named)
		return strobe_err(err, -EINVAL, "not an event format (no 'name:' line)");
	if (!after_nr)
		return strobe_err(err, -EINVAL, "sys_enter_%s: no __syscall_nr field", e.name);
	if (put_entry(t, &e) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	return 0;
}

int strobe_syscall_args_load_tracefs(struct strobe_syscall_args *t, const char *events_dir,
				     struct strobe_error *err)
{
	char path[4096];
	DIR *d;
	struct dirent *de;
	int added = 0;
	char *buf = NULL;
	size_t cap = 0;

	if (!events_dir)
		events_dir = "/sys/kernel/tracing/events";
	snprintf(path, sizeof(path), "%s/syscalls", events_dir);
	d = opendir(path);
	if (!d)
		return strobe_err(err, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		int fd, rc;
		size_t n = 0;
		ssize_t r;

		if (strncmp(de->d_name, "sys_enter_", 10))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/syscalls/%s/format", events_dir,
				     de->d_name) >= sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (;;) {
			if (n + 4096 > cap) {
				char *nb = realloc(buf, cap + 65536);

				if (!nb) {
					close(fd);
					closedir(d);
					free(buf);
					return strobe_err(err, -ENOMEM, "out of memory");
				}
				buf = nb;
				cap += 65536;
			}
			r = read(fd, buf + n, cap - n);
			if (r <= 0)
				break;
			n += (size_t)r;
			if (n > 1 << 20)
				break;
		}
		close(fd);
		rc = strobe_syscall_args_add_format(t, buf ? buf : "", n, NULL);
		if (rc == -ENOMEM) {
			closedir(d);
			free(buf);
			return strobe_err(err, rc, "out of memory");
		}
		if (!rc)
			added++;
	}
	closedir(d);
	free(buf);
	return added;
}

int expr_sysargs_for(struct strobe_formats *fmts, struct strobe_syscall_args **out)
{
	int n;

	if (strobe_syscall_args_new(out) < 0)
		return -ENOMEM;
	n = strobe_syscall_args_add_formats(*out, fmts);
	if (n <= 0)
		n = strobe_syscall_args_load_tracefs(*out, NULL, NULL);
	return n > 0 ? n : 0;
}

int strobe_syscall_args_add_formats(struct strobe_syscall_args *t,
				    struct strobe_formats *fmts)
{
	struct tep_handle *tep = strobe_formats_tep(fmts);
	struct tep_event **evs;
	int i, n, added = 0;

	if (!tep)
		return 0;
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	n = tep_get_events_count(tep);
	for (i = 0; evs && i < n && evs[i]; i++) {
		struct tep_event *ev = evs[i];
		struct tep_format_field *f;
		struct sysarg_entry e;
		bool after_nr = false, ok = true;

		if (!ev->system || strcmp(ev->system, "syscalls") || !ev->name ||
		    strncmp(ev->name, "sys_enter_", 10) || !valid_ident(ev->name + 10,
									strlen(ev->name + 10)))
			continue;
		memset(&e, 0, sizeof(e));
		strcpy(e.name, ev->name + 10);
		for (f = ev->format.fields; f; f = f->next) {
			if (!f->name || !f->type)
				continue;
			if (!strcmp(f->name, "__syscall_nr") || !strcmp(f->name, "nr")) {
				after_nr = true;
				continue;
			}
			if (!after_nr)
				continue;
			if (e.nr_args == MAX_ARGS || !valid_ident(f->name, strlen(f->name))) {
				ok = false;
				break;
			}
			strcpy(e.args[e.nr_args], f->name);
			e.kinds[e.nr_args] = (uint8_t)expr_sysarg_kind_of(f->type);
			e.nr_args++;
		}
		if (!ok || !after_nr)
			continue;
		if (put_entry(t, &e) < 0)
			return -ENOMEM;
		added++;
	}
	return added;
}

int strobe_syscall_args_write(const struct strobe_syscall_args *t, char **out, size_t *len,
			      struct strobe_error *err)
{
	size_t cap = 64 + (size_t)(t ? t->n : 0) * (NAME_MAX_LEN + MAX_ARGS * (NAME_MAX_LEN + 5)),
	       n;
	char *buf = malloc(cap);
	int i, a;

	*out = NULL;
	*len = 0;
	if (!buf)
		return strobe_err(err, -ENOMEM, "out of memory");
	n = (size_t)sprintf(buf, MAGIC " 1\n");
	for (i = 0; t && i < t->n; i++) {
		const struct sysarg_entry *e = &t->v[i];

		n += (size_t)sprintf(buf + n, "%s", e->name);
		for (a = 0; a < e->nr_args; a++)
			n += (size_t)sprintf(buf + n, "\t%s:%s", e->args[a],
					     kind_names[e->kinds[a]]);
		buf[n++] = '\n';
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* One "name<TAB>arg:kind..." line into e; false if malformed. */
static bool parse_line(const char *p, size_t n, struct sysarg_entry *e)
{
	size_t i = 0, j;

	memset(e, 0, sizeof(*e));
	while (i < n && p[i] != '\t')
		i++;
	if (!valid_ident(p, i))
		return false;
	memcpy(e->name, p, i);
	while (i < n) {
		size_t colon = 0;
		int k;

		j = ++i;		/* after the tab */
		while (i < n && p[i] != '\t') {
			if (p[i] == ':' && !colon)
				colon = i;
			i++;
		}
		if (!colon || e->nr_args == MAX_ARGS || !valid_ident(p + j, colon - j))
			return false;
		for (k = 0; k <= STROBE_SYSARG_PTR; k++)
			if (i - colon - 1 == 3 && !memcmp(p + colon + 1, kind_names[k], 3))
				break;
		if (k > STROBE_SYSARG_PTR)
			return false;
		memcpy(e->args[e->nr_args], p + j, colon - j);
		e->kinds[e->nr_args++] = (uint8_t)k;
	}
	return true;
}

int strobe_syscall_args_parse(struct strobe_syscall_args *t, const char *text, size_t len,
			      struct strobe_error *err)
{
	const char *p = text, *end = text + len, *nl, *v;
	size_t ml = strlen(MAGIC), vl;
	struct sysarg_entry e;

	nl = memchr(p, '\n', len);
	if (!nl || (size_t)(nl - p) < ml + 2 || memcmp(p, MAGIC " ", ml + 1))
		return strobe_err(err, -EPROTO, "not a syscall argument table (no '"
				  MAGIC "' line)");
	v = p + ml + 1;
	for (vl = 0; v + vl < nl && v[vl] != '.'; vl++)
		;
	if (vl != 1 || v[0] != '1')
		return strobe_err(err, -EPROTO, "syscall argument table of version %.*s, this "
				  "library reads version 1", (int)(nl - v > 16 ? 16 : nl - v), v);
	for (p = nl + 1; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (parse_line(p, (size_t)((nl ? nl : end) - p), &e) && put_entry(t, &e) < 0)
			return strobe_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int strobe_syscall_args_lookup(const struct strobe_syscall_args *t, const char *name,
			       const char *arg, enum strobe_sysarg_kind *kind)
{
	const struct sysarg_entry *e = find(t, name);
	int i;

	for (i = 0; e && i < e->nr_args; i++)
		if (!strcmp(e->args[i], arg)) {
			if (kind)
				*kind = (enum strobe_sysarg_kind)e->kinds[i];
			return i;
		}
	return -ENOENT;
}

uint8_t expr_sysarg_code(const struct strobe_syscall_args *t, const char *name,
			 const char *arg)
{
	enum strobe_sysarg_kind k;
	int pos = strobe_syscall_args_lookup(t, name, arg, &k);

	return pos < 0 ? 0 : (uint8_t)(SYSARG_OK | (unsigned)k << 3 | (unsigned)pos);
}
