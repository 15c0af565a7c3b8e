/*
 * session_priv.h - the definition of struct strobe_session, shared by
 * session.c (control) and meta.c (metadata collection).
 */
#ifndef STROBE_SESSION_PRIV_H
#define STROBE_SESSION_PRIV_H

#include <stdbool.h>

#include <strobe/session.h>

#include "../util/err.h"

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
	/* uprobes defined (strobe_session_add_uprobe), "strobe_<pid>/name",
	 * removed from uprobe_events at close (uprobe.c) */
	struct strobe_strv uprobes;
};

/* uprobe.c: remove the session's uprobe definitions (disabled in its
 * instance first); 0 or the first -errno. */
int strobe_session_uprobes_remove(struct strobe_session *s) STROBE_HIDDEN;
/* uprobe.c: remove the definitions of groups strobe_<pid> whose process
 * is gone; *removed (may be NULL) counts them.  0 or the first -errno. */
int strobe_session_uprobes_cleanup_stale(const char *top, int *removed) STROBE_HIDDEN;
/* session.c: the last entry of DIR/error_log as one line ("Invalid
 * argument (near 'x')"), "" when there is none. */
void strobe_session_kernel_error(const char *dir, char *out, size_t size) STROBE_HIDDEN;

#endif
