/*
 * declare.c - formats of records that are not ftrace events
 * (strobe_formats_declare, stream.h), and call chains.
 *
 * A declared format becomes an ftrace format text, parsed by
 * libtraceevent into the catalogue's handle like the formats of a file
 * or of tracefs: one kind of format, so field accessors, filters, the
 * text printer and the trace-file writer need nothing new.  Its print
 * format prints every field as `name=value` (strings with %s, arrays as
 * libtraceevent's __print_array), which is what `strobe report` and
 * `trace-cmd report` show for such records.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "format-int.h"

#define COMMON_SIZE 8u

static bool good_name(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

enum kind { K_INT, K_STR_FIXED, K_STR_DYN, K_ARRAY_DYN };

/* What a declared type is, and the element size of a dynamic array. */
static int classify(const struct strobe_field_decl *fd, enum kind *k, unsigned *elem,
		    struct strobe_error *err)
{
	const char *t = fd->type;
	size_t n;

	if (!t || !*t || strpbrk(t, ";\n\t\"\\"))
		return strobe_err(err, -EINVAL, "field '%s': a bad type", fd->name);
	if (!strncmp(t, "__data_loc ", 11)) {
		if (fd->size != 4)
			return strobe_err(err, -EINVAL, "field '%s': a __data_loc field has "
					  "size 4, not %u", fd->name, fd->size);
		t += 11;
		n = strlen(t);
		if (n < 3 || strcmp(t + n - 2, "[]"))
			return strobe_err(err, -EINVAL, "field '%s': a __data_loc type ends "
					  "in []", fd->name);
		if (!strncmp(t, "char[", 5)) {
			*k = K_STR_DYN;
			return 0;
		}
		*k = K_ARRAY_DYN;
		if (!strncmp(t, "u8[", 3) || !strncmp(t, "s8[", 3))
			*elem = 1;
		else if (!strncmp(t, "u16[", 4) || !strncmp(t, "s16[", 4))
			*elem = 2;
		else if (!strncmp(t, "u32[", 4) || !strncmp(t, "s32[", 4) || !strncmp(t, "int[", 4))
			*elem = 4;
		else if (!strncmp(t, "u64[", 4) || !strncmp(t, "s64[", 4) ||
			 !strncmp(t, "unsigned long[", 14))
			*elem = 8;
		else
			return strobe_err(err, -EINVAL, "field '%s': arrays of u8, u16, u32 "
					  "or u64 only", fd->name);
		return 0;
	}
	if (!strncmp(t, "char[", 5)) {
		*k = K_STR_FIXED;
		return 0;
	}
	if (strchr(t, '['))
		return strobe_err(err, -EINVAL, "field '%s': fixed arrays other than "
				  "char[N] are not declared (use __data_loc)", fd->name);
	if (fd->size != 1 && fd->size != 2 && fd->size != 4 && fd->size != 8)
		return strobe_err(err, -EINVAL, "field '%s': an integer of %u bytes", fd->name,
				  fd->size);
	*k = K_INT;
	return 0;
}

/* The format text of d, with event id `id`, into b. */
static int make_text(const struct strobe_format_decl *d, int id, struct strobe_buf *b,
		     struct strobe_error *err)
{
	struct strobe_buf *args = strobe_buf_new();
	unsigned elem = 0;
	enum kind k = K_INT;
	int i, r = 0;

	if (!args)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_buf_printf(b, "name: %s\nID: %d\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n", d->name, id);
	for (i = 0; i < d->nr_fields; i++) {
		const struct strobe_field_decl *fd = &d->fields[i];
		const char *t = fd->type;
		size_t tl = strlen(t), br = strcspn(t, "[");

		/* tracefs writes "char verb[8]": the array part after the name */
		if (br < tl && strncmp(t, "__data_loc ", 11))
			strobe_buf_printf(b, "\tfield:%.*s %s%s;", (int)br, t, fd->name, t + br);
		else
			strobe_buf_printf(b, "\tfield:%s %s;", t, fd->name);
		strobe_buf_printf(b, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", fd->offset, fd->size,
				  fd->is_signed ? 1 : 0);
	}
	strobe_buf_puts(b, "\nprint fmt: \"");
	for (i = 0; i < d->nr_fields; i++) {
		const struct strobe_field_decl *fd = &d->fields[i];

		r = classify(fd, &k, &elem, err);
		if (r < 0)
			goto out;
		strobe_buf_printf(b, "%s%s=", i ? " " : "", fd->name);
		switch (k) {
		case K_INT:
			strobe_buf_puts(b, fd->size == 8 ? (fd->is_signed ? "%lld" : "%llu")
						 : (fd->is_signed ? "%d" : "%u"));
			strobe_buf_printf(args, ", REC->%s", fd->name);
			break;
		case K_STR_FIXED:
			strobe_buf_puts(b, "%s");
			strobe_buf_printf(args, ", REC->%s", fd->name);
			break;
		case K_STR_DYN:
			strobe_buf_puts(b, "%s");
			strobe_buf_printf(args, ", __get_str(%s)", fd->name);
			break;
		case K_ARRAY_DYN:
			strobe_buf_puts(b, "%s");
			strobe_buf_printf(args, ", __print_array(__get_dynamic_array(%s), "
					  "__get_dynamic_array_len(%s) / %u, %u)", fd->name, fd->name,
					  elem, elem);
			break;
		}
	}
	strobe_buf_puts(b, "\"");
	strobe_buf_puts(b, strobe_buf_data(args));
	strobe_buf_puts(b, "\n");
	if (strobe_buf_failed(b) || strobe_buf_failed(args))
		r = strobe_err(err, -ENOMEM, "out of memory");
out:
	strobe_buf_free(args);
	return r;
}

static int check_layout(const struct strobe_format_decl *d, struct strobe_error *err)
{
	int i, j;

	if (!good_name(d->system) || !good_name(d->name))
		return strobe_err(err, -EINVAL, "a declared format needs a system and a name "
				  "of letters, digits and '_' ('%s:%s')",
				  d->system ? d->system : "", d->name ? d->name : "");
	if (d->nr_fields < 0 || (d->nr_fields && !d->fields))
		return strobe_err(err, -EINVAL, "%s: a bad field list", d->name);
	for (i = 0; i < d->nr_fields; i++) {
		const struct strobe_field_decl *fd = &d->fields[i];

		if (!good_name(fd->name) || !strncmp(fd->name, "common_", 7))
			return strobe_err(err, -EINVAL, "%s: a bad field name '%s'", d->name,
					  fd->name ? fd->name : "");
		if (fd->offset < COMMON_SIZE || !fd->size ||
		    (uint32_t)fd->offset + fd->size > 65535)
			return strobe_err(err, -EINVAL, "%s: field '%s' lies outside the payload "
					  "(offset %u, size %u; fields start at 8)", d->name,
					  fd->name, fd->offset, fd->size);
		for (j = 0; j < i; j++) {
			const struct strobe_field_decl *o = &d->fields[j];

			if (!strcmp(o->name, fd->name))
				return strobe_err(err, -EINVAL, "%s: field '%s' declared twice",
						  d->name, fd->name);
			if (fd->offset < o->offset + o->size && o->offset < fd->offset + fd->size)
				return strobe_err(err, -EINVAL, "%s: fields '%s' and '%s' overlap",
						  d->name, o->name, fd->name);
		}
	}
	return 0;
}

int strobe_formats_declare(struct strobe_formats *f, const struct strobe_format_decl *d,
			   const struct strobe_format **out, struct strobe_error *err)
{
	struct strobe_format_decl dc = { 0 };
	const struct strobe_format *fm;
	struct tep_event *ev = NULL;
	struct strobe_buf *b;
	char *text;
	int id, r;

	if (out)
		*out = NULL;
	if (!f || !f->tep || !d)
		return strobe_err(err, -EINVAL, "no catalogue or declaration");
	memcpy(&dc, d, d->size && d->size < sizeof(dc) ? d->size : sizeof(dc));
	r = check_layout(&dc, err);
	if (r < 0)
		return r;
	if (strobe_formats_find(f, dc.system, dc.name))
		return strobe_err(err, -EEXIST, "%s:%s is declared already", dc.system, dc.name);
	id = strobe_formats_max_id(f) + 1;
	if (id < 1)
		id = 1;
	if (id >= 65536)
		return strobe_err(err, -EINVAL, "no event id left for %s:%s", dc.system, dc.name);
	b = strobe_buf_new();
	if (!b)
		return strobe_err(err, -ENOMEM, "out of memory");
	r = make_text(&dc, id, b, err);
	if (r < 0) {
		strobe_buf_free(b);
		return r;
	}
	text = strdup(strobe_buf_data(b));
	strobe_buf_free(b);
	if (!text)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (tep_parse_format(f->tep, &ev, text, strlen(text), dc.system) != 0 || !ev) {
		free(text);
		return strobe_err(err, -EINVAL, "%s:%s: libtraceevent refused the format",
				  dc.system, dc.name);
	}
	/* a look-up of this id before may have noted it as absent */
	if ((uint32_t)id < f->nr_ids)
		f->by_id[id] = NULL;
	fm = strobe_formats_get(f, id);
	if (!fm) {
		free(text);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	((struct strobe_format *)fm)->text = text;
	if (out)
		*out = fm;
	return id;
}

const char *strobe_format_text(const struct strobe_format *fmt)
{
	return fmt ? fmt->text : NULL;
}

int strobe_event_callchain(const struct strobe_event *e, uint64_t *ips, int max)
{
	struct strobe_format *fm = (struct strobe_format *)e->format;
	const char *p;
	uint32_t len;
	int i, n;

	if (!fm)
		return 0;
	if (!__atomic_load_n(&fm->chain_state, __ATOMIC_ACQUIRE)) {
		/* resolved on first use, once: workers may ask together */
		strobe_tep_lock();
		if (!fm->chain_state)
			__atomic_store_n(&fm->chain_state,
					 !strobe_field_resolve(fm, "callchain", &fm->chain) &&
					 fm->chain.is_dynamic ? 2 : 1, __ATOMIC_RELEASE);
		strobe_tep_unlock();
	}
	if (fm->chain_state != 2)
		return 0;
	p = strobe_field_str(e, &fm->chain, &len);
	if (!p)
		return 0;
	n = (int)(len / 8);
	for (i = 0; ips && i < n && i < max; i++) {
		uint64_t v;

		memcpy(&v, p + 8 * i, 8);	/* payloads are only 4-byte aligned */
		ips[i] = le64toh(v);
	}
	return n;
}
