/*
 * sysdec.c - system call events as the analyses see them, whichever way
 * the trace has them: raw_syscalls:sys_enter/sys_exit (one event type for
 * every call, the number in "id", the arguments in "args") or the
 * syscalls:sys_enter_<name>/sys_exit_<name> events (one type per call,
 * the number in "__syscall_nr", the same layout in every one of them).
 * When a trace has both, raw_syscalls is used and the named events are
 * ignored, so no call counts twice.  syscalls.c and io.c decode through
 * here (ana_sysdec() in analysis-int.h runs per event).
 */
#include <errno.h>
#include <string.h>

#include "analyses/analysis-int.h"

/* The first syscalls:<prefix>* event type that has field. */
static int resolve_named(struct strobe_formats *fmts, const char *prefix, const char *field,
			 struct strobe_field *f)
{
	int i, max_id = strobe_formats_max_id(fmts);
	size_t n = strlen(prefix);
	const struct strobe_format *e;

	for (i = 0; i <= max_id; i++)
		if ((e = strobe_formats_by_id(fmts, i)) &&
		    !strcmp(strobe_format_system(e), "syscalls") &&
		    !strncmp(strobe_format_name(e), prefix, n) &&
		    !strobe_field_resolve(e, field, f))
			return 0;
	return -ENOENT;
}

int ana_sysdec_resolve(struct ana_sysdec *d, struct strobe_formats *fmts)
{
	const struct strobe_format *en = strobe_formats_find(fmts, "raw_syscalls", "sys_enter");
	const struct strobe_format *ex = strobe_formats_find(fmts, "raw_syscalls", "sys_exit");

	memset(d, 0, sizeof(*d));
	if (en && ex && !strobe_field_resolve(en, "id", &d->raw_id) &&
	    !strobe_field_resolve(en, "args", &d->raw_args) &&
	    !strobe_field_resolve(ex, "id", &d->raw_xid) &&
	    !strobe_field_resolve(ex, "ret", &d->raw_ret)) {
		d->use_raw = true;
		return 0;
	}
	if (!resolve_named(fmts, "sys_enter_", "__syscall_nr", &d->nr) &&
	    !resolve_named(fmts, "sys_exit_", "__syscall_nr", &d->xnr) &&
	    !resolve_named(fmts, "sys_exit_", "ret", &d->ret)) {
		d->named = true;
		return 0;
	}
	return -ENOENT;
}
