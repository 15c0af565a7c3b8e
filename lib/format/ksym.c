/*
 * ksym.c - kernel addresses into function names for the consumers that
 * show kernel stacks (the off-CPU flame graph, strobe why), through the
 * kallsyms that libtraceevent loaded from the file or the machine.
 */
#include <string.h>

#include <traceevent/event-parse.h>

#include "format-int.h"

const char *strobe_formats_ksym(const struct strobe_formats *f, uint64_t addr)
{
	const char *fn;

	if (!f || !f->tep)
		return NULL;
	/* libtraceevent returns the resolver's answer through a map in the
	 * tep_handle, and the first look-up parses kallsyms (tep.c): one
	 * thread at a time; the name itself stays valid */
	strobe_tep_lock();
	fn = tep_find_function(f->tep, addr);
	strobe_tep_unlock();
	return fn;
}

int strobe_kstack_skip(const struct strobe_formats *f, const uint64_t *addrs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *fn = strobe_formats_ksym(f, addrs[i]);

		if (!fn || !(!strncmp(fn, "trace_event_raw_event_", 22) ||
			     !strncmp(fn, "__traceiter_", 12) ||
			     !strncmp(fn, "event_triggers_", 15) ||
			     !strncmp(fn, "__trace_stack", 13) ||
			     !strncmp(fn, "stacktrace_trigger", 18) ||
			     !strncmp(fn, "__ftrace_trace_stack", 20)))
			break;
	}
	return i;
}
