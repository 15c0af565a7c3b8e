/*
 * tep.c - building libtraceevent's event-format handle from metadata
 * texts, for trace files and live captures alike (see tep.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "fmtcheck.h"
#include "tep.h"
#include "format-int.h"

/*
 * ftrace:kernel_stack as trace-cmd prints it (its trace-ftrace.c handler):
 * the record holds as many return addresses as the stack had (the format
 * declares caller[8], the kernel writes `size` of them, the record's
 * length says how many), so the print format, which reads caller[0..7],
 * cannot print it.  "<stack trace >", then "=> function (address)" per
 * frame up to the record's end or a -1 address.
 */
int strobe_tep_kernel_stack(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct tep_format_field *field = tep_find_any_field(event, "caller");
	int long_size = tep_get_long_size(event->tep);
	unsigned long long addr;
	const char *func;
	int off;

	(void)context;
	if (!field) {
		trace_seq_printf(s, "<CANT FIND FIELD %s>", "caller");
		return 0;
	}
	trace_seq_puts(s, "<stack trace >\n");
	if (long_size != 4 && long_size != 8)
		long_size = 8;
	for (off = field->offset; off >= 0 && off + long_size <= record->size; off += long_size) {
		addr = tep_read_number(event->tep, (char *)record->data + off, long_size);
		if ((long_size == 8 && addr == (unsigned long long)-1) || (int)addr == -1)
			break;
		func = tep_find_function(event->tep, addr);
		if (func)
			trace_seq_printf(s, "=> %s (%llx)\n", func, addr);
		else
			trace_seq_printf(s, "=> %llx\n", addr);
	}
	return 0;
}

/*
 * The function_graph tracer's records as trace-cmd report prints them
 * (the handlers of its trace-ftrace.c, default options; ftrace:function
 * is libtraceevent's function plugin's, as for trace-cmd): an overhead
 * mark ("+ " over 10 us, "! " 100 us, "# " 1 ms, "$ " 1 s), the duration
 * in microseconds with three decimals, padded to a column, "|  ", then
 * two spaces per depth and "func() {" (an entry), "}" (an exit) or
 * "func();" (an entry printed with its own exit, a leaf: see
 * strobe_fgraph_leaf in output.h).  Unknown addresses are hex.
 */
static int fg_field(struct trace_seq *s, struct tep_event *event, const char *name,
		    struct tep_record *record, unsigned long long *val)
{
	return tep_get_field_val(s, event, name, record, val, 1);
}

static void fg_overhead(struct trace_seq *s, unsigned long long d)
{
	trace_seq_puts(s, d == ~0ULL ? "  " : d > 1000000000ULL ? "$ " : d > 1000000ULL ? "# "
			  : d > 100000ULL ? "! " : d > 10000ULL ? "+ " : "  ");
}

static void fg_duration(struct trace_seq *s, unsigned long long d)
{
	char us[24];
	int len = snprintf(us, sizeof(us), "%llu", d / 1000), i;

	trace_seq_puts(s, us);
	if (len < 7) {
		trace_seq_printf(s, ".%03llu", d % 1000);
		len += 4;
	}
	trace_seq_puts(s, " us ");
	for (i = len; i < 7; i++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

static int fg_indent_func(struct trace_seq *s, struct tep_event *event,
			  struct tep_record *record, const char *tail)
{
	unsigned long long depth, val;
	const char *func;
	unsigned long long i;

	if (fg_field(s, event, "depth", record, &depth))
		return trace_seq_putc(s, '!');
	for (i = 0; i < depth * 2 && i < 4096; i++)
		trace_seq_putc(s, ' ');
	if (!tail)
		return trace_seq_putc(s, '}');
	if (fg_field(s, event, "func", record, &val))
		return trace_seq_putc(s, '!');
	func = tep_find_function(event->tep, val);
	if (func)
		return trace_seq_printf(s, "%s%s", func, tail);
	return trace_seq_printf(s, "%llx%s", val, tail);
}

static int fg_times(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		    unsigned long long *d)
{
	unsigned long long call, ret;

	if (fg_field(s, event, "rettime", record, &ret) ||
	    fg_field(s, event, "calltime", record, &call))
		return -1;
	*d = ret - call;
	return 0;
}

static int tep_fgraph_entry(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	const struct strobe_formats *f = context;
	const struct strobe_event *leaf = f ? f->fgraph_leaf : NULL;
	struct tep_event *exit_ev;
	struct tep_record r;
	unsigned long long d;

	if (leaf && (exit_ev = tep_find_event_by_name(event->tep, "ftrace", "funcgraph_exit"))) {
		memset(&r, 0, sizeof(r));
		r.data = (void *)leaf->data;
		r.size = (int)leaf->size;
		r.cpu = leaf->cpu;
		r.ts = leaf->ts;
		if (fg_times(s, exit_ev, &r, &d)) {
			trace_seq_putc(s, '!');
			return 0;
		}
		fg_overhead(s, d);
		fg_duration(s, d);
		fg_indent_func(s, event, record, "();");
		return 0;
	}
	fg_overhead(s, ~0ULL);
	trace_seq_puts(s, "           |  ");
	fg_indent_func(s, event, record, "() {");
	return 0;
}

static int tep_fgraph_exit(struct trace_seq *s, struct tep_record *record,
			   struct tep_event *event, void *context)
{
	unsigned long long d;

	(void)context;
	if (fg_times(s, event, record, &d)) {
		trace_seq_putc(s, '!');
		return 0;
	}
	fg_overhead(s, d);
	fg_duration(s, d);
	fg_indent_func(s, event, record, NULL);
	return 0;
}

int strobe_tep_init(struct strobe_tep *t, unsigned long_size, unsigned page_size)
{
	memset(t, 0, sizeof(*t));
	t->tep = tep_alloc();
	if (!t->tep)
		return -ENOMEM;
	t->formats = strobe_formats_new(t->tep);
	if (!t->formats) {
		tep_free(t->tep);
		t->tep = NULL;
		return -ENOMEM;
	}
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, (int)long_size);
	tep_set_page_size(t->tep, (int)page_size);
	/* Plugins first, as trace-cmd does, so their handlers attach. */
	t->plugins = tep_load_plugins(t->tep);
	tep_register_event_handler(t->tep, -1, "ftrace", "kernel_stack",
				   strobe_tep_kernel_stack, NULL);
	tep_register_event_handler(t->tep, -1, "ftrace", "funcgraph_entry", tep_fgraph_entry,
				   t->formats);
	tep_register_event_handler(t->tep, -1, "ftrace", "funcgraph_exit", tep_fgraph_exit,
				   NULL);
	return 0;
}

static char *dup_text(const char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* Commit field width from header_page text, if libtraceevent gave none. */
static unsigned commit_size_from_text(const char *text)
{
	const char *c = strstr(text, "commit;");
	const char *s = c ? strstr(c, "size:") : NULL;

	if (s && (s[5] == '4' || s[5] == '8') && (s[6] == ';' || s[6] == '\t'))
		return (unsigned)(s[5] - '0');
	return 0;
}

int strobe_tep_header_page(struct strobe_tep *t, const char *text, size_t n,
			   unsigned long_size)
{
	char *s = dup_text(text, n);

	if (!s)
		return -ENOMEM;
	tep_parse_header_page(t->tep, s, n, (int)long_size);
	t->commit_size = (unsigned)tep_get_header_page_size(t->tep);
	if (t->commit_size != 4 && t->commit_size != 8)
		t->commit_size = commit_size_from_text(s);
	free(s);
	if (t->commit_size != 4 && t->commit_size != 8)
		t->commit_size = long_size;
	return 0;
}

/* The "ID: N" line of a format text, -1 when there is none. */
static long text_id(const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	long id = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if ((size_t)(end - p) > 4 && !memcmp(p, "ID: ", 4)) {
			for (p += 4; p < end && *p >= '0' && *p <= '9' && id < 1000000; p++)
				id = id * 10 + (*p - '0');
			return id;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return -1;
}

/* "name: NAME" of a format text, at most 64 bytes, into out. */
static void text_name(const char *text, size_t n, char *out, size_t size)
{
	size_t len = 0;

	if (n > 6 && !memcmp(text, "name: ", 6))
		while (len < n - 6 && len < 64 && text[6 + len] > ' ' && text[6 + len] < 0x7f)
			len++;
	snprintf(out, size, "%.*s", (int)len, len ? text + 6 : "?");
}

/* A format with the ID of one registered before: its ID decodes nothing,
 * and the first such clash is remembered for the file's diagnostic. */
static void note_clash(struct strobe_tep *t, long id, const struct tep_event *old,
		       const char *text, size_t n, const char *system)
{
	char name[80];

	/* which of the two an event of that ID is, nobody knows: neither
	 * decodes it (strobe-damage(7): a damaged format's events are not
	 * decoded) */
	strobe_formats_refuse(t->formats, (uint32_t)id);
	if (t->nr_id_clashes++)
		return;
	text_name(text, n, name, sizeof(name));
	t->clash_id = (int)id;
	snprintf(t->clash_names, sizeof(t->clash_names), "%.64s:%.64s, %.32s:%.64s",
		 old->system ? old->system : "?", old->name ? old->name : "?", system, name);
}

bool strobe_tep_format(struct strobe_tep *t, const char *text, size_t n,
		       const char *system)
{
	struct tep_event *old;
	long id;
	int before;

	/* As trace-cmd: a format libtraceevent rejects is skipped; so is one
	 * it might crash on (fmtcheck.c). */
	if (!strobe_format_check(text, n, NULL)) {
		t->nr_bad_formats++;
		return false;
	}
	id = text_id(text, n);
	old = id >= 0 && id <= 0xffff ? tep_find_event(t->tep, (int)id) : NULL;
	before = tep_get_events_count(t->tep);
	tep_parse_event(t->tep, text, n, system);
	if (tep_get_events_count(t->tep) == before) {	/* not even kept as failed */
		t->nr_bad_formats++;
		return false;
	}
	if (old)
		note_clash(t, id, old, text, n, system);
	return true;
}

/*
 * Keep only lines shaped like the kernel's printk_formats lines,
 * `0xADDR : "text"`: libtraceevent 1.7 reads out of bounds on others
 * (and on a quoted text shorter than two characters).  Works in place.
 */
static void filter_printk(char *text)
{
	char *in = text, *out = text;

	while (*in) {
		size_t len = strcspn(in, "\n");
		char *colon = memchr(in, ':', len);
		const char *q = colon ? colon + 1 : NULL;
		bool ok = colon && len && (in[0] == ' ' || isxdigit((unsigned char)in[0]));

		if (ok) {
			while (*q == ' ')
				q++;
			ok = *q == '"' && (size_t)(in + len - q) >= 4 && in[len - 1] == '"';
		}
		if (ok) {
			memmove(out, in, len);
			out += len;
			*out++ = '\n';
		}
		in += len + (in[len] == '\n');
	}
	*out = '\0';
}

static int parse_blob(struct strobe_tep *t, const char *text, size_t n,
		      void (*prepare)(char *text),
		      int (*parse)(struct tep_handle *tep, const char *text))
{
	char *s;

	if (!n || !text)
		return 0;
	if (!(s = dup_text(text, n)))
		return -ENOMEM;
	if (prepare)
		prepare(s);
	if (*s)
		parse(t->tep, s);
	free(s);
	return 0;
}

/*
 * kallsyms, parsed when first needed: most readers (the analyses, SQL,
 * exports of fields) never turn an address into a function name.  The
 * texts are kept; the handle gets a function resolver that, on its first
 * call, parses them into a table of its own and from then on answers
 * from it.
 *
 * The table is libtraceevent's, built faster: tep_parse_kallsyms() runs
 * sscanf and two strdups per line, 0.15 to 0.3 s for a 5 MiB
 * /proc/kallsyms, most of `strobe flamegraph` on 2 M events.  Here a
 * line of the usual shape ("ADDR T name", "ADDR t name\t[mod]") is read
 * by hand, its name cut in place in the kept text; any other line goes
 * through the very sscanf of tep_parse_kallsyms (libtraceevent 1.7/1.8),
 * and a line it cannot read ends the parse as it ends it there.  The
 * answers are the ones tep_find_function_info gives after its own parse:
 * the same symbols ('$' names and 'A'/'a' types left out), the same
 * order (by address; at one address its list's order, the reverse of
 * the texts', which its stable sort keeps) and the same bsearch with its
 * comparison (an address matches an entry at or after its start and
 * before the next entry's; the entry past the last has address 0, so
 * nothing after the last symbol's start matches).  As in libtraceevent,
 * a text given after the first lookup is not looked at.
 */
struct ksym {
	unsigned long long addr;
	const char *name;		/* in one of texts */
	size_t seq;			/* order given (ties: later first) */
};

struct ksym_text {
	char *s;			/* NUL-terminated copy */
	size_t size;			/* mapped bytes; 0: malloc'd */
};

struct strobe_ksyms {
	struct ksym_text *texts;	/* in the order given */
	size_t nr_texts;
	struct ksym *map;		/* sorted, nr_map + 1 (the end entry) */
	size_t nr_map;
	bool parsed;
};

/*
 * A copy of a kallsyms text.  A big one (5 MiB) is mapped with its pages
 * allocated at once: malloc's fresh pages fault in one by one as the
 * copy writes them, a tenth of `strobe flamegraph` on 2 M events here.
 */
static int text_copy(struct ksym_text *t, const char *p, size_t n)
{
	t->size = 0;
	t->s = NULL;
	if (n >= (256u << 10)) {
		void *m = mmap(NULL, n + 1, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (m != MAP_FAILED) {
			t->s = m;
			t->size = n + 1;
		}
	}
	if (!t->s && !(t->s = malloc(n + 1)))
		return -ENOMEM;
	memcpy(t->s, p, n);
	t->s[n] = '\0';
	return 0;
}

static void text_free(struct ksym_text *t)
{
	if (t->size)
		munmap(t->s, t->size);
	else
		free(t->s);
}

static int ksym_sort(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * The order of ksym_sort (address, then the later given first) by a
 * radix sort: the entries, taken in reverse, sorted stably by address a
 * byte at a time, the bytes every address shares skipped (a kernel's
 * start with ffffffff).  A quarter of the qsort's cost on 120,000
 * symbols; qsort when the scratch copy cannot be had.
 */
static void ksyms_sort(struct ksym *map, size_t n)
{
	static const int BYTES = 8;
	size_t (*cnt)[256], i, j, sum;
	struct ksym *tmp, *src = map, *dst, *swap, x;
	int b;

	tmp = malloc(n * sizeof(*tmp));
	cnt = calloc((size_t)BYTES, sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		qsort(map, n, sizeof(*map), ksym_sort);
		return;
	}
	for (i = 0, j = n; i + 1 < j; i++, j--) {
		x = map[i];
		map[i] = map[j - 1];
		map[j - 1] = x;
	}
	for (i = 0; i < n; i++)
		for (b = 0; b < BYTES; b++)
			cnt[b][(map[i].addr >> (8 * b)) & 0xff]++;
	dst = tmp;
	for (b = 0; b < BYTES; b++) {
		if (n && cnt[b][(map[0].addr >> (8 * b)) & 0xff] == n)
			continue;		/* one value: the order stays */
		for (i = 0, sum = 0; i < 256; i++) {
			size_t c = cnt[b][i];

			cnt[b][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[b][(src[i].addr >> (8 * b)) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != map)
		memcpy(map, src, n * sizeof(*map));
	free(tmp);
	free(cnt);
}

/* func_bcmp of libtraceevent's event-parse.c */
static int ksym_bcmp(const void *a, const void *b)
{
	const struct ksym *key = a, *e = b;

	if (key->addr == e->addr || (key->addr > e->addr && key->addr < e[1].addr))
		return 0;
	return key->addr < e->addr ? -1 : 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One line (NUL-terminated, no '\n') as tep_parse_kallsyms reads it: 1
 * with *addr, *type and *name (cut in place; the caller leaves out what
 * libtraceevent leaves out), -1 for a line it stops at.
 */
static int ksym_line(char *line, unsigned long long *addr, char *type, char **name)
{
	unsigned long long a = 0;
	int i, v, n, fs = 0, fe = 0, ms = 0, me = 0;

	for (i = 0; i < 16 && (v = hexval(line[i])) >= 0; i++)
		a = a << 4 | (unsigned)v;
	if (i && line[i] == ' ' && line[i + 1] && !isspace((unsigned char)line[i + 1]) &&
	    line[i + 2] == ' ' && line[i + 3] && !isspace((unsigned char)line[i + 3])) {
		char *f = line + i + 3, *e = f;

		while (*e && !isspace((unsigned char)*e))
			e++;
		*addr = a;
		*type = line[i + 1];
		*e = '\0';
		*name = f;
		return 1;
	}
	errno = 0;
	n = sscanf(line, "%16llx %c %n%*s%n%*1[\t][%n%*s%n", addr, type, &fs, &fe, &ms, &me);
	(void)ms;
	(void)me;
	if (errno || n != 2 || !fe)
		return -1;
	line[fe] = '\0';
	*name = line + fs;
	return 1;
}

static void ksyms_parse(struct strobe_ksyms *k)
{
	size_t i, cap = 0, seq = 0;

	k->parsed = true;
	for (i = 0; i < k->nr_texts; i++) {
		char *line = k->texts[i].s, *next;
		bool stop = false;

		for (; *line && !stop; line = next) {
			unsigned long long addr;
			char type, *name;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			else
				next = line + strlen(line);
			if (!*line)
				continue;
			if (ksym_line(line, &addr, &type, &name) < 0) {
				stop = true;
				continue;
			}
			if (name[0] == '$' || type == 'A' || type == 'a')
				continue;
			if (k->nr_map + 2 > cap) {
				size_t nc = cap ? cap * 2 : 65536;
				struct ksym *m = realloc(k->map, nc * sizeof(*m));

				if (!m) {
					free(k->map);
					k->map = NULL;
					k->nr_map = 0;
					return;
				}
				k->map = m;
				cap = nc;
			}
			k->map[k->nr_map].addr = addr;
			k->map[k->nr_map].name = name;
			k->map[k->nr_map].seq = seq++;
			k->nr_map++;
		}
	}
	if (!k->map)
		return;
	ksyms_sort(k->map, k->nr_map);
	k->map[k->nr_map].addr = 0;
	k->map[k->nr_map].name = NULL;
}

static char *ksyms_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct strobe_ksyms *k = priv;
	struct ksym key = { .addr = *addrp }, *e;

	(void)modp;
	/* under strobe_tep_lock, as every tep_find_function: the pipeline's
	 * workers may look up at the same time, and libtraceevent keeps the
	 * answer in the tep_handle */
	if (!k->parsed)
		ksyms_parse(k);
	if (!k->map)
		return NULL;
	e = bsearch(&key, k->map, k->nr_map, sizeof(*k->map), ksym_bcmp);
	if (!e)
		return NULL;
	*addrp = e->addr;
	return (char *)e->name;
}

static void ksyms_free(struct strobe_ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_texts; i++)
		text_free(&k->texts[i]);
	free(k->texts);
	free(k->map);
	free(k);
}

int strobe_tep_kallsyms(struct strobe_tep *t, const char *text, size_t n)
{
	struct strobe_ksyms *k = t->ksyms;
	struct ksym_text *texts;

	if (!n || !text || !*text)
		return 0;
	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k || tep_set_function_resolver(t->tep, ksyms_resolve, k) < 0) {
			free(k);
			return -ENOMEM;
		}
		t->ksyms = k;
	}
	if (k->parsed)		/* a lookup happened already: libtraceevent
				 * would not look at it either */
		return 0;
	texts = realloc(k->texts, (k->nr_texts + 1) * sizeof(*texts));
	if (!texts)
		return -ENOMEM;
	k->texts = texts;
	if (text_copy(&k->texts[k->nr_texts], text, n) < 0)
		return -ENOMEM;
	k->nr_texts++;
	return 0;
}

int strobe_tep_printk(struct strobe_tep *t, const char *text, size_t n)
{
	return parse_blob(t, text, n, filter_printk, tep_parse_printk_formats);
}

int strobe_tep_cmdlines(struct strobe_tep *t, const char *text, size_t n)
{
	return parse_blob(t, text, n, NULL, tep_parse_saved_cmdlines);
}

int strobe_tep_from_meta(struct strobe_tep *t, const struct strobe_tf_meta *m,
			 struct strobe_error *err)
{
	size_t i;
	int r;

	r = strobe_tep_init(t, m->long_size, m->page_size);
	if (r == 0)
		r = strobe_tep_header_page(t, m->header_page.data, m->header_page.len,
					   m->long_size);
	for (i = 0; r == 0 && i < m->nr_formats; i++)
		strobe_tep_format(t, m->formats[i].text, m->formats[i].len,
				  m->formats[i].system);
	if (r == 0)
		r = strobe_tep_kallsyms(t, m->kallsyms.data, m->kallsyms.len);
	if (r == 0)
		r = strobe_tep_printk(t, m->printk.data, m->printk.len);
	if (r == 0)
		r = strobe_tep_cmdlines(t, m->cmdlines.data, m->cmdlines.len);
	if (r < 0) {
		strobe_tep_release(t);
		return strobe_err(err, r, "out of memory loading event formats");
	}
	return 0;
}

void strobe_tep_release(struct strobe_tep *t)
{
	strobe_formats_free(t->formats);
	if (t->tep) {
		if (t->plugins)
			tep_unload_plugins(t->plugins, t->tep);
		tep_free(t->tep);	/* and its resolver */
	}
	ksyms_free(t->ksyms);
	memset(t, 0, sizeof(*t));
}
