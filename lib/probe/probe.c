/*
 * probe.c - `--uprobe PATH:FUNCTION` and `--usdt PATH:PROVIDER:NAME`
 * made real: the spec parsed, PATH resolved inside a target's root
 * (/proc/PID/root, symbolic links followed inside it), the place found
 * in the file's ELF symbols or USDT notes (lib/symbols), the arguments
 * turned into the kernel's fetch-args, and the probe defined and enabled
 * through the session (lib/session/uprobe.c), which owns its removal.
 *
 * It sits above session and symbols and uses only their public
 * interfaces; everything here but the final definition is pure or reads
 * files, so the parsers are tested and fuzzed without a kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/probe.h>
#include <strobe/symbols.h>

#include "../util/err.h"

/* ---- paths inside a root ---------------------------------------------- */

#define MAX_LINKS 40

/*
 * Resolve path under root (a directory path with no trailing '/', "" for
 * strobe's own root) the way the kernel would inside a chroot: "." and
 * ".." never leave the root, a link's absolute target starts at the
 * root.  The result (root + canonical path) goes into out.
 */
static int resolve_in_root(const char *root, const char *path, char *out, size_t size)
{
	char cur[4096], rest[4096], link[4096], probe[8192];
	int links = 0;
	size_t rl;

	cur[0] = '\0';	/* canonical path inside the root, "" = "/" */
	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	snprintf(rest, sizeof(rest), "%s", path);
	while (rest[0]) {
		char comp[256], *p = rest, *slash;
		struct stat st;
		ssize_t n;
		size_t cl;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		cl = slash ? (size_t)(slash - p) : strlen(p);
		if (cl >= sizeof(comp))
			return -ENAMETOOLONG;
		memcpy(comp, p, cl);
		comp[cl] = '\0';
		memmove(rest, p + cl, strlen(p + cl) + 1);
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *last = strrchr(cur, '/');

			if (last)
				*last = '\0';
			continue;
		}
		if (strlen(cur) + 1 + cl >= sizeof(cur))
			return -ENAMETOOLONG;
		snprintf(probe, sizeof(probe), "%s%s/%s", root, cur, comp);
		if (lstat(probe, &st) < 0)
			return -errno;
		if (!S_ISLNK(st.st_mode)) {
			if (rest[strspn(rest, "/")] && !S_ISDIR(st.st_mode))
				return -ENOTDIR;
			strcat(cur, "/");
			strcat(cur, comp);
			continue;
		}
		if (++links > MAX_LINKS)
			return -ELOOP;
		n = readlink(probe, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		if ((size_t)n + 1 + strlen(rest) >= sizeof(rest))
			return -ENAMETOOLONG;
		/* the link's target, then what was left after it */
		memmove(rest + n, rest, strlen(rest) + 1);
		memcpy(rest, link, (size_t)n);
		if (link[0] == '/')
			cur[0] = '\0';
	}
	rl = (size_t)snprintf(out, size, "%s%s", root, cur[0] ? cur : "/");
	return rl >= size ? -ENAMETOOLONG : 0;
}

int strobe_probe_path(pid_t pid, const char *path, char *kpath, size_t size,
		      struct strobe_error *err)
{
	char root[64], where[96];
	struct stat st;
	int r;

	if (size)
		kpath[0] = '\0';
	char abs[4096], cwd[4096];

	if (!path || !*path)
		return strobe_err(err, -EINVAL, "no path given");
	/* strobe's own root: a relative path is from its working directory */
	if (path[0] != '/' && pid <= 0) {
		if (!getcwd(cwd, sizeof(cwd)) ||
		    (size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, path) >= sizeof(abs))
			return strobe_err(err, -ENAMETOOLONG, "cannot make '%s' absolute", path);
		path = abs;
	}
	if (path[0] != '/')
		return strobe_err(err, -EINVAL, "'%s': the path must be absolute (it is looked "
				  "up in the root of process %d)", path, (int)pid);
	if (pid > 0) {
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		if (stat(root, &st) < 0)
			return strobe_err(err, -ESRCH, "no process %d", (int)pid);
		snprintf(where, sizeof(where), " in the root of process %d", (int)pid);
	} else {
		root[0] = where[0] = '\0';
	}
	r = resolve_in_root(root, path, kpath, size);
	if (r == 0 && stat(kpath, &st) < 0)
		r = -errno;
	if (r == 0 && !S_ISREG(st.st_mode))
		return strobe_err(err, -EINVAL, "%s%s is not a regular file", path, where);
	if (r == -ENOENT || r == -ENOTDIR)
		return strobe_err(err, -ENOENT, "no file %s%s", path, where);
	if (r < 0)
		return strobe_err(err, r, "cannot resolve %s%s: %s", path, where, strerror(-r));
	return 0;
}

int strobe_probe_list(pid_t pid, const char *path, struct strobe_elf_probes **out,
		      struct strobe_error *err)
{
	char kpath[4096];
	int fd, r;

	*out = NULL;
	r = strobe_probe_path(pid, path, kpath, sizeof(kpath), err);
	if (r < 0)
		return r;
	fd = open(kpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strobe_err(err, -errno, "cannot open %s: %s", kpath, strerror(errno));
	r = strobe_elf_probes_read(fd, NULL, 0, out, err);
	close(fd);
	if (r == -EINVAL)
		return strobe_err(err, r, "%s is not an ELF file", path);
	return r;
}

/* ---- arguments ---------------------------------------------------------- */

#if defined(__x86_64__)
/* The x86_64 System V integer argument registers, as fetch-args name them. */
static const char *const arg_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
#endif

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Append s (n bytes) to out at *off; false when it does not fit. */
static bool put(char *out, size_t size, size_t *off, const char *s, size_t n)
{
	if (*off + n >= size)
		return false;
	memcpy(out + *off, s, n);
	*off += n;
	out[*off] = '\0';
	return true;
}

/* fetch with argN (a whole word, not "$arg1") replaced; 0 or -errno. */
static int map_args(const char *fetch, size_t len, char *out, size_t size,
		    struct strobe_error *err)
{
	size_t i = 0, off = 0;

	out[0] = '\0';
	while (i < len) {
		if (!strncmp(fetch + i, "arg", 3) && i + 3 < len && fetch[i + 3] >= '1' &&
		    fetch[i + 3] <= '9' && (i == 0 || (!is_word(fetch[i - 1]) &&
		    fetch[i - 1] != '$' && fetch[i - 1] != '%'))) {
			size_t j = i + 3;
			int n = 0;

			while (j < len && fetch[j] >= '0' && fetch[j] <= '9' && n < 100)
				n = n * 10 + (fetch[j++] - '0');
			if (j >= len || !is_word(fetch[j])) {
#if defined(__x86_64__)
				if (n > 6)
					return strobe_err(err, -EINVAL, "arg%d: only arg1..arg6 are in "
							  "registers (use +OFF(%%sp) for the stack)", n);
				if (!put(out, size, &off, arg_regs[n - 1], strlen(arg_regs[n - 1])))
					return strobe_err(err, -ENAMETOOLONG, "arguments too long");
				i = j;
				continue;
#else
				return strobe_err(err, -EINVAL, "arg%d: arg1..argN follow the x86_64 "
						  "calling convention; on this machine give the "
						  "registers (fetch-args)", n);
#endif
			}
		}
		if (!put(out, size, &off, fetch + i, 1))
			return strobe_err(err, -ENAMETOOLONG, "arguments too long");
		i++;
	}
	return 0;
}

/* The name a token gets when it has none. */
static void default_name(const char *fetch, size_t len, int pos, char *name, size_t size)
{
	size_t i;

	if (len > 3 && len < 6 && !strncmp(fetch, "arg", 3)) {
		for (i = 3; i < len && fetch[i] >= '0' && fetch[i] <= '9'; i++)
			;
		if (i == len) {
			snprintf(name, size, "%.*s", (int)len, fetch);
			return;
		}
	}
	if (len > 1 && len < 8 && (fetch[0] == '$' || fetch[0] == '%')) {
		for (i = 1; i < len && is_word(fetch[i]); i++)
			;
		if (i == len) {
			snprintf(name, size, "%.*s", (int)(len - 1), fetch + 1);
			return;
		}
	}
	snprintf(name, size, "arg%d", pos);
}

int strobe_probe_args(const char *args, char *out, size_t size, struct strobe_error *err)
{
	char names[32][40], fetch[1024], name[40];
	const char *p = args ? args : "";
	size_t off = 0, nn = 0, k;
	int pos = 0, r;

	if (size)
		out[0] = '\0';
	for (;;) {
		const char *tok, *eq, *colon, *f;
		size_t tl, fl;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		tl = (size_t)(p - tok);
		pos++;
		if (nn == sizeof(names) / sizeof(names[0]))
			return strobe_err(err, -EINVAL, "too many arguments (at most %zu)", nn);
		if (memchr(tok, '\n', tl) || memchr(tok, '\r', tl))
			return strobe_err(err, -EINVAL, "bad argument");
		/* NAME= only when what precedes '=' is a name */
		eq = memchr(tok, '=', tl);
		if (eq) {
			for (k = 0; tok + k < eq && is_word(tok[k]); k++)
				;
			if (tok + k != eq || !k || k >= sizeof(name) || (tok[0] >= '0' && tok[0] <= '9'))
				return strobe_err(err, -EINVAL, "bad argument name in '%.*s'", (int)tl,
						  tok);
		}
		f = eq ? eq + 1 : tok;
		fl = tl - (size_t)(f - tok);
		/* :TYPE is the last ':' outside parentheses */
		colon = NULL;
		for (k = 0; k < fl; k++)
			if (f[k] == ':')
				colon = f + k;
		if (!fl || colon == f)
			return strobe_err(err, -EINVAL, "empty argument in '%.*s'", (int)tl, tok);
		if (eq)
			snprintf(name, sizeof(name), "%.*s", (int)(eq - tok), tok);
		else
			default_name(f, colon ? (size_t)(colon - f) : fl, pos, name, sizeof(name));
		for (k = 0; k < nn; k++)
			if (!strcmp(names[k], name)) {
				if (eq)
					return strobe_err(err, -EINVAL, "two arguments named '%s'", name);
				char suffix[16];

				snprintf(suffix, sizeof(suffix), "_%d", pos);
				name[sizeof(name) - sizeof(suffix)] = '\0';
				strcat(name, suffix);
				break;
			}
		snprintf(names[nn++], sizeof(names[0]), "%s", name);
		r = map_args(f, fl, fetch, sizeof(fetch), err);
		if (r < 0)
			return r;
		if ((off && !put(out, size, &off, " ", 1)) ||
		    !put(out, size, &off, name, strlen(name)) || !put(out, size, &off, "=", 1) ||
		    !put(out, size, &off, fetch, strlen(fetch)))
			return strobe_err(err, -ENAMETOOLONG, "arguments too long");
	}
	return 0;
}

#if defined(__x86_64__)
/* An assembler register name to pt_regs's ("%edi" -> "di"), or NULL. */
static const char *kernel_reg(const char *r, size_t n)
{
	static const struct { const char *k; const char *names[5]; } regs[] = {
		{ "ax", { "rax", "eax", "ax", "al" } }, { "bx", { "rbx", "ebx", "bx", "bl" } },
		{ "cx", { "rcx", "ecx", "cx", "cl" } }, { "dx", { "rdx", "edx", "dx", "dl" } },
		{ "si", { "rsi", "esi", "si", "sil" } }, { "di", { "rdi", "edi", "di", "dil" } },
		{ "bp", { "rbp", "ebp", "bp", "bpl" } }, { "sp", { "rsp", "esp", "sp", "spl" } },
		{ "ip", { "rip", "eip", "ip" } },
	};
	size_t i, j;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (j = 0; j < 5 && regs[i].names[j]; j++)
			if (strlen(regs[i].names[j]) == n && !strncmp(regs[i].names[j], r, n))
				return regs[i].k;
	/* r8 .. r15 with the d, w, b suffixes */
	if (n >= 2 && r[0] == 'r' && r[1] >= '1' && r[1] <= '9') {
		static const char *const rn[] = { "r8", "r9", "r10", "r11", "r12", "r13", "r14",
						  "r15" };
		size_t l = 2 + (n > 2 && r[2] >= '0' && r[2] <= '9');

		if (n == l || (n == l + 1 && strchr("dwb", r[l])))
			for (i = 0; i < 8; i++)
				if (strlen(rn[i]) == l && !strncmp(rn[i], r, l))
					return rn[i];
	}
	return NULL;
}
#endif

/* One USDT operand ("%edi", "-8(%rbp)", "$5") to a fetch-arg, or false. */
static bool usdt_operand(const char *op, size_t n, char *out, size_t size)
{
#if defined(__x86_64__)
	const char *paren, *kr;
	char *end;
	long long v;

	if (n > 1 && op[0] == '%') {
		kr = kernel_reg(op + 1, n - 1);
		return kr && (size_t)snprintf(out, size, "%%%s", kr) < size;
	}
	if (n > 1 && op[0] == '$') {
		char num[32];

		if (n - 1 >= sizeof(num))
			return false;
		memcpy(num, op + 1, n - 1);
		num[n - 1] = '\0';
		errno = 0;
		v = strtoll(num, &end, 0);
		return !errno && !*end && end != num &&
		       (size_t)snprintf(out, size, "\\%lld", v) < size;
	}
	paren = memchr(op, '(', n);
	if (paren && op[n - 1] == ')' && paren[1] == '%') {
		char num[32];
		size_t nl = (size_t)(paren - op);

		if (nl >= sizeof(num))
			return false;
		memcpy(num, op, nl);
		num[nl] = '\0';
		v = 0;
		if (nl) {
			errno = 0;
			v = strtoll(num, &end, 0);
			if (errno || *end || end == num)
				return false;	/* a symbol: foo(%rip) */
		}
		kr = kernel_reg(paren + 2, (size_t)(op + n - 1 - (paren + 2)));
		if (!kr || !strcmp(kr, "ip"))
			return false;
		return (size_t)snprintf(out, size, "%+lld(%%%s)", v, kr) < size;
	}
#endif
	return false;
}

int strobe_usdt_args(const char *spec, char *out, size_t size, unsigned *skipped)
{
	const char *p = spec ? spec : "";
	size_t off = 0;
	int pos = 0, n = 0;

	if (size)
		out[0] = '\0';
	if (skipped)
		*skipped = 0;
	for (;;) {
		const char *tok, *at;
		char fetch[128], item[192], *end;
		long sz;
		size_t tl;
		int len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		tl = (size_t)(p - tok);
		pos++;
		at = memchr(tok, '@', tl);
		sz = at ? strtol(tok, &end, 10) : 0;
		if (!at || end != at || !(labs(sz) == 1 || labs(sz) == 2 || labs(sz) == 4 ||
					   labs(sz) == 8) ||
		    !usdt_operand(at + 1, tl - (size_t)(at + 1 - tok), fetch, sizeof(fetch))) {
			if (skipped && pos <= 32)
				*skipped |= 1u << (pos - 1);
			continue;
		}
		len = snprintf(item, sizeof(item), "%sarg%d=%s:%c%ld", off ? " " : "", pos, fetch,
			       sz < 0 ? 's' : 'u', labs(sz) * 8);
		if (len < 0 || !put(out, size, &off, item, (size_t)len))
			return -ENAMETOOLONG;
		n++;
	}
	return n;
}

/* ---- the probe ------------------------------------------------------------- */

/* An event name from a function or probe name (a, then "_" b when b is
 * given, then suffix): letters, digits and '_', at most 48 bytes. */
static void event_name(const char *a, const char *b, const char *suffix, char *out, size_t size)
{
	char tmp[256];
	size_t i, o = 0, keep;

	if (a[0] >= '0' && a[0] <= '9')
		tmp[o++] = '_';
	for (i = 0; a[i] && o + 1 < sizeof(tmp); i++)
		tmp[o++] = is_word(a[i]) ? a[i] : '_';
	if (b && o + 1 < sizeof(tmp))
		tmp[o++] = '_';
	for (i = 0; b && b[i] && o + 1 < sizeof(tmp); i++)
		tmp[o++] = is_word(b[i]) ? b[i] : '_';
	tmp[o] = '\0';
	keep = 48 - strlen(suffix);
	if (o > keep)
		tmp[keep] = '\0';
	snprintf(out, size, "%s%s", tmp, suffix);
}

/* The places of one probe: a file met through several roots (the same
 * image in two containers) is one file, known by its device and inode. */
struct place_set {
	struct strobe_uprobe_place v[64];
	char paths[64][4096];
	dev_t dev[64];
	ino_t ino[64];
	size_t n;
};

static int add_place(struct place_set *ps, const char *path, const struct stat *st,
		     uint64_t off, uint64_t ref)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].offset == off && ps->dev[i] == st->st_dev && ps->ino[i] == st->st_ino)
			return 0;
	if (ps->n == 64)
		return -E2BIG;
	snprintf(ps->paths[ps->n], sizeof(ps->paths[0]), "%s", path);
	ps->v[ps->n].path = ps->paths[ps->n];
	ps->v[ps->n].offset = off;
	ps->v[ps->n].ref_ctr_offset = ref;
	ps->dev[ps->n] = st->st_dev;
	ps->ino[ps->n] = st->st_ino;
	ps->n++;
	return 0;
}

/* Up to three names of p's functions close to name, ", "-separated. */
static void close_names(const struct strobe_elf_probes *p, const char *name, char *out,
			size_t size)
{
	size_t i, best[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX }, which[3] = { 0, 0, 0 }, nl, k;
	size_t off = 0;

	out[0] = '\0';
	nl = strlen(name);
	for (i = 0; i < p->nr_funcs; i++) {
		const char *f = p->funcs[i].name;
		size_t d = 0, fl = strlen(f), j;

		/* a cheap distance: common prefix and length difference */
		for (j = 0; j < nl && j < fl && f[j] == name[j]; j++)
			;
		d = (nl - j) + (fl - j);
		if (strstr(f, name))
			d = fl - nl;
		if (d > nl / 2 + 1)
			continue;
		for (k = 0; k < 3; k++)
			if (d < best[k]) {
				memmove(best + k + 1, best + k, (2 - k) * sizeof(best[0]));
				memmove(which + k + 1, which + k, (2 - k) * sizeof(which[0]));
				best[k] = d;
				which[k] = i;
				break;
			}
	}
	for (k = 0; k < 3 && best[k] != SIZE_MAX; k++)
		off += (size_t)snprintf(out + off, off < size ? size - off : 0, "%s%s",
					k ? ", " : "", p->funcs[which[k]].name);
}

int strobe_probe_add(struct strobe_session *s, const char *spec, unsigned flags,
		     const pid_t *roots, size_t nr_roots, char *event, size_t size,
		     struct strobe_error *err)
{
	bool usdt = flags & STROBE_PROBE_USDT, ret = false;
	char head[4096], name[64], fargs[2048], kpath[4096], near[200];
	const char *args, *c1, *c2 = NULL, *func;
	struct place_set *ps = NULL;
	struct strobe_uprobe u;
	struct stat st;
	size_t hl, i, k, found;
	pid_t none = 0;
	int r;

	if (event && size)
		event[0] = '\0';
	if (!spec)
		return strobe_err(err, -EINVAL, "no probe given");
	hl = strcspn(spec, " \t");
	args = spec + hl;
	while (*args == ' ' || *args == '\t')
		args++;
	if (hl >= sizeof(head))
		return strobe_err(err, -ENAMETOOLONG, "probe '%.40s...' too long", spec);
	memcpy(head, spec, hl);
	head[hl] = '\0';
	c1 = strrchr(head, ':');
	if (usdt && c1) {
		for (c2 = c1 - 1; c2 >= head && *c2 != ':'; c2--)
			;
		if (c2 < head)
			c2 = NULL;
	}
	if (!c1 || c1 == head || !c1[1] || (usdt && (!c2 || c2 == head || c2 + 1 == c1)))
		return strobe_err(err, -EINVAL, usdt ? "bad USDT probe '%s' (PATH:PROVIDER:NAME)"
				  : "bad probe '%s' (PATH:FUNCTION[%%return] [ARGS...])", head);
	if (usdt && *args)
		return strobe_err(err, -EINVAL, "USDT probe %s: its arguments come from its note "
				  "(no ARGS)", head);
	if (usdt)
		head[c2 - head] = head[c1 - head] = '\0';
	else
		head[c1 - head] = '\0';
	func = head + (c1 - head) + 1;
	if (!usdt) {
		char *pct = strchr(head + (c1 - head) + 1, '%');

		if (pct) {
			if (strcmp(pct, "%return"))
				return strobe_err(err, -EINVAL, "bad probe '%.*s': only %%return may "
						  "follow the function", (int)hl, spec);
			*pct = '\0';
			ret = true;
		}
		if (!*func)
			return strobe_err(err, -EINVAL, "bad probe '%.*s': no function", (int)hl, spec);
	}
	fargs[0] = '\0';
	if (!usdt) {
		r = strobe_probe_args(args, fargs, sizeof(fargs), err);
		if (r < 0) {
			strobe_err_prefix(err, "probe %.*s", (int)hl, spec);
			return r;
		}
	}
	if (!roots || !nr_roots) {
		roots = &none;
		nr_roots = 1;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < nr_roots; i++) {
		struct strobe_elf_probes *ep = NULL;
		char where[64] = "";

		if (roots[i] > 0)
			snprintf(where, sizeof(where), " in the root of process %d", (int)roots[i]);
		r = strobe_probe_path(roots[i], head, kpath, sizeof(kpath), err);
		if (r == 0 && stat(kpath, &st) < 0)
			r = strobe_err(err, -errno, "cannot read %s: %s", kpath, strerror(errno));
		if (r == 0)
			r = strobe_probe_list(roots[i], head, &ep, err);
		if (r < 0)
			goto out;
		found = 0;
		if (usdt) {
			const char *prov = head + (c2 - head) + 1;

			for (k = 0; k < ep->nr_usdt; k++) {
				const struct strobe_usdt_note *n = &ep->usdt[k];

				if (strcmp(n->provider, prov) || strcmp(n->name, func))
					continue;
				if (!found) {
					unsigned skipped;

					strobe_usdt_args(n->args, fargs, sizeof(fargs), &skipped);
				}
				if (n->semaphore && !n->semaphore_offset) {
					r = strobe_err(err, -EINVAL, "USDT probe %s:%s in %s: its "
						       "semaphore is outside the file's segments",
						       prov, func, head);
					strobe_elf_probes_free(ep);
					goto out;
				}
				r = add_place(ps, kpath, &st, n->offset, n->semaphore_offset);
				if (r < 0)
					break;
				found++;
			}
			if (!found && r == 0)
				r = strobe_err(err, -ENOENT, "no USDT probe %s:%s in %s%s (it has %zu)",
					       prov, func, head, where, ep->nr_usdt);
		} else {
			for (k = 0; k < ep->nr_funcs; k++) {
				if (strcmp(ep->funcs[k].name, func))
					continue;
				r = add_place(ps, kpath, &st, ep->funcs[k].offset, 0);
				if (r < 0)
					break;
				found++;
			}
			if (!found && r == 0) {
				close_names(ep, func, near, sizeof(near));
				r = strobe_err(err, -ENOENT, "no function '%s' in %s%s%s%s%s", func, head,
					       where, near[0] ? " (did you mean " : "", near,
					       near[0] ? "?)" : "");
			}
		}
		if (r == -E2BIG)
			r = strobe_err(err, r, "probe %s: too many places", spec);
		strobe_elf_probes_free(ep);
		if (r < 0)
			goto out;
	}
	if (usdt)
		event_name(head + (c2 - head) + 1, func, "", name, sizeof(name));
	else
		event_name(func, NULL, ret ? "__return" : "", name, sizeof(name));
	memset(&u, 0, sizeof(u));
	u.name = name;
	u.ret = ret;
	u.args = fargs[0] ? fargs : NULL;
	u.places = ps->v;
	u.nr_places = ps->n;
	r = strobe_session_add_uprobe(s, &u, event, size, err);
out:
	free(ps);
	return r;
}
