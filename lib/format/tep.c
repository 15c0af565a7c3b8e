/*
 * tep.c - building libtraceevent's event-format handle from metadata
 * texts, for trace files and live captures alike (see tep.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * exports of fields) never turn an address into a function name, and
 * libtraceevent's parse of a 5 MiB /proc/kallsyms (sscanf and two
 * strdups per line) cost a sixth of `strobe analyze` on 4 M events.  The
 * texts are kept; the handle gets a function resolver that, on its first
 * call, parses them with tep_parse_kallsyms() into a handle of its own
 * and from then on answers from it.  The answers are the ones the handle
 * itself would give after an eager parse: the same parser, the same
 * sorted map and lookup (tep_find_function_info: the function containing
 * the address and its start).
 */
struct strobe_ksyms {
	char **texts;		/* not parsed yet, in the order given */
	size_t nr_texts;
	struct tep_handle *tep;	/* the parsed functions (after the first lookup) */
	bool parsed;
};

static void ksyms_parse(struct strobe_ksyms *k)
{
	size_t i;

	k->parsed = true;
	k->tep = tep_alloc();
	for (i = 0; i < k->nr_texts; i++) {
		if (k->tep)
			tep_parse_kallsyms(k->tep, k->texts[i]);
		free(k->texts[i]);
	}
	free(k->texts);
	k->texts = NULL;
	k->nr_texts = 0;
}

static char *ksyms_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct strobe_ksyms *k = priv;
	unsigned long long start;
	const char *name;

	(void)modp;
	if (!k->parsed)
		ksyms_parse(k);
	if (!k->tep || !tep_find_function_info(k->tep, *addrp, &name, &start, NULL))
		return NULL;
	*addrp = start;
	return (char *)name;
}

static void ksyms_free(struct strobe_ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_texts; i++)
		free(k->texts[i]);
	free(k->texts);
	if (k->tep)
		tep_free(k->tep);
	free(k);
}

int strobe_tep_kallsyms(struct strobe_tep *t, const char *text, size_t n)
{
	struct strobe_ksyms *k = t->ksyms;
	char **texts, *s;

	if (!n || !text)
		return 0;
	if (!(s = dup_text(text, n)))
		return -ENOMEM;
	if (!*s) {
		free(s);
		return 0;
	}
	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k || tep_set_function_resolver(t->tep, ksyms_resolve, k) < 0) {
			free(k);
			free(s);
			return -ENOMEM;
		}
		t->ksyms = k;
	}
	if (k->parsed) {	/* a lookup happened already */
		if (k->tep)
			tep_parse_kallsyms(k->tep, s);
		free(s);
		return 0;
	}
	texts = realloc(k->texts, (k->nr_texts + 1) * sizeof(*texts));
	if (!texts) {
		free(s);
		return -ENOMEM;
	}
	k->texts = texts;
	k->texts[k->nr_texts++] = s;
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
