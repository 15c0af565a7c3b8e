/*
 * fgraph.c - the leaf rule of function_graph output (output.h): trace-cmd
 * report prints an entry followed by its own exit as one line "func();",
 * by peeking at the next record; strobe's printers hold the entry one
 * event instead and ask here.  The line itself is the formats' handler
 * (format/tep.c), told about the exit through the catalogue.
 */
#include <stdbool.h>

#include <strobe/output.h>
#include <strobe/stream.h>

#include "format/format-int.h"
#include "output/output-int.h"

static void look(struct strobe_formats *f)
{
	const struct strobe_format *e = strobe_formats_find(f, "ftrace", "funcgraph_entry");
	const struct strobe_format *x = strobe_formats_find(f, "ftrace", "funcgraph_exit");

	f->fg_looked = true;
	f->fg_entry = f->fg_exit = -1;
	if (e && x && !strobe_field_resolve(e, "func", &f->fg_entry_func) &&
	    !strobe_field_resolve(x, "func", &f->fg_exit_func)) {
		f->fg_entry = strobe_format_id(e);
		f->fg_exit = strobe_format_id(x);
	}
}

bool strobe_fgraph_is_entry(struct strobe_formats *f, const struct strobe_event *ev)
{
	if (!f || !ev->format)
		return false;
	if (!f->fg_looked)
		look(f);
	return f->fg_entry >= 0 && (int)ev->type == f->fg_entry;
}

bool strobe_fgraph_leaf(struct strobe_formats *f, const struct strobe_event *entry,
			const struct strobe_event *next)
{
	if (!strobe_fgraph_is_entry(f, entry) || !next->format || (int)next->type != f->fg_exit)
		return false;
	/* a damaged exit (shorter than its fields) is printed as such */
	return next->pid == entry->pid && strobe_event_fits(next) &&
	       strobe_field_uint(next, &f->fg_exit_func) ==
	       strobe_field_uint(entry, &f->fg_entry_func);
}

void strobe_fgraph_set_leaf(struct strobe_formats *f, const struct strobe_event *exit)
{
	if (f)
		f->fgraph_leaf = exit;
}
