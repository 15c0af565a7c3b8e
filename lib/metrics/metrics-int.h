/*
 * metrics-int.h - what the registry (registry.c), strobe top's mapping
 * (top.c), the HTTP server (http.c) and the web configuration parser
 * (webconfig.c) share (internal).
 */
#ifndef STROBE_METRICS_INT_H
#define STROBE_METRICS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strobe/strobe.h>
#include <strobe/metrics.h>

#include "util/err.h"

/* Lookups and updates with m's lock held (the public functions take it
 * around these). */
void strobe_metrics_lock(struct strobe_metrics *m) STROBE_HIDDEN;
void strobe_metrics_unlock(struct strobe_metrics *m) STROBE_HIDDEN;
int strobe_metrics_add_locked(struct strobe_metrics *m, int family, const char *group,
			      const char *const *values, enum strobe_metric_type type,
			      int64_t value, const uint64_t *counts, uint64_t sum) STROBE_HIDDEN;
int strobe_metrics_family_add_locked(struct strobe_metrics *m,
				     const struct strobe_metrics_family_def *def,
				     struct strobe_error *err) STROBE_HIDDEN;
int strobe_metrics_alive_locked(struct strobe_metrics *m, const char *group,
				uint64_t now_ns) STROBE_HIDDEN;
int strobe_metrics_expire_locked(struct strobe_metrics *m, uint64_t now_ns) STROBE_HIDDEN;
/* Does the series exist?  How many series of family has group? */
bool strobe_metrics_has_locked(struct strobe_metrics *m, int family, const char *group,
			       const char *const *values) STROBE_HIDDEN;
int strobe_metrics_group_count_locked(struct strobe_metrics *m, int family,
				      const char *group) STROBE_HIDDEN;
/* The ids of strobe top's families, -1 before they are added. */
int *strobe_metrics_top_ids(struct strobe_metrics *m, int *nr) STROBE_HIDDEN;
int strobe_metrics_syscall_labels(const struct strobe_metrics *m) STROBE_HIDDEN;
/* The last scrape took ns (shown by the next one). */
void strobe_metrics_scraped(struct strobe_metrics *m, uint64_t ns) STROBE_HIDDEN;

/*
 * Web configuration (node exporter's --web.config.file, a YAML subset):
 *
 *   # comment
 *   tls_server_config:
 *     cert_file: /etc/strobe/cert.pem
 *     key_file: "/etc/strobe/key.pem"
 *   basic_auth_users:
 *     alice: $2y$10$...
 *
 * Block mappings two levels deep, indented by spaces; scalars plain or
 * quoted ('' or "" without escapes); `{}` for an empty mapping.  Other
 * keys (http_server_config, ...) are refused, not ignored, so a setting
 * the user relies on is never silently off.  The parser does no I/O.
 */
#define STROBE_WEBCONF_MAX_USERS 64
#define STROBE_WEBCONF_MAX_TEXT 65536
struct strobe_webconf_user {
	char *name, *hash;
	/* After a success: the password's cheap digest (sha256-crypt, 1000
	 * rounds, the config's random salt), so a scraper that sends the
	 * same password every second pays bcrypt's cost once, not each
	 * time (as node exporter caches).  "" until then. */
	char ok_digest[128];
};
struct strobe_webconf {
	char *cert_file, *key_file;	/* both or neither */
	bool has_tls;
	struct strobe_webconf_user users[STROBE_WEBCONF_MAX_USERS];
	int nr_users;
	char salt[32];		/* "$5$rounds=1000$<16 random>$" */
};
/* Parse text[0..len) (any bytes; at most STROBE_WEBCONF_MAX_TEXT).  0
 * with *out (free with strobe_webconf_free), -EINVAL with *err saying
 * the line and why, or -ENOMEM. */
int strobe_webconf_parse(const char *text, size_t len, struct strobe_webconf **out,
			 struct strobe_error *err) STROBE_HIDDEN;
void strobe_webconf_free(struct strobe_webconf *c) STROBE_HIDDEN;
/* Does user:password match a user's hash (crypt(3), bcrypt $2y$/$2b$
 * and the other methods libxcrypt knows)?  Remembers a success (see
 * ok_digest): one thread at a time. */
bool strobe_webconf_check(struct strobe_webconf *c, const char *user,
			  const char *password) STROBE_HIDDEN;

/*
 * A server that listens on nothing, for the fuzzer: connections are
 * handed to it with strobe_metrics_server_add_fd (a socketpair's end;
 * the server owns it from then on).  conf may be NULL; it is copied.
 */
int strobe_metrics_serve_fds(struct strobe_metrics *m, const struct strobe_webconf *conf,
			     struct strobe_metrics_server **out,
			     struct strobe_error *err) STROBE_HIDDEN;
int strobe_metrics_server_add_fd(struct strobe_metrics_server *s, int fd) STROBE_HIDDEN;

#endif
