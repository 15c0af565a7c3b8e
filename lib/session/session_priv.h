/*
 * session_priv.h - the definition of struct strobe_session, shared by
 * session.c (control) and meta.c (metadata collection).
 */
#ifndef STROBE_SESSION_PRIV_H
#define STROBE_SESSION_PRIV_H

#include <stdbool.h>

#include <strobe/session.h>

struct strobe_session {
	char top[64];		/* tracefs mount point */
	char name[64];		/* "strobe-<pid>[-n]" or the caller's name */
	char dir[192];		/* top/instances/name */
	char clock[32];		/* trace clock in use */
	int nr_cpus;		/* per_cpu/cpuN count (max N + 1) */
	bool created;		/* the instance directory exists */
	bool keep;		/* close leaves the instance (detached or
				 * attached) */
	bool avail_loaded;
	struct strobe_strv avail;	/* available_events, sorted */
	struct strobe_strv events;	/* enabled, "system:event", in order */
	/* triggers set (strobe_session_set_trigger), "system/event\ttrigger",
	 * removed again at close */
	struct strobe_strv triggers;
};

#endif
