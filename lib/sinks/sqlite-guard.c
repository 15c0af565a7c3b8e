/*
 * sqlite-guard.c - bounds on what a query from somewhere else (a
 * dashboard, a script that builds queries) may do with a trace's
 * database: strobe sql's --safe and --timeout, and the Python module's
 * sql(safe=True, timeout=...), in one place.
 *
 * Safe: the database is read-only (a kept database reopened with
 * SQLITE_OPEN_READONLY, one in memory with PRAGMA query_only), SQLite's
 * defensive mode is on, the authorizer refuses ATTACH, DETACH and every
 * PRAGMA that sets something, and a statement that would write anywhere
 * (VACUUM INTO, CREATE TEMP TABLE, ...) is refused before it runs
 * (strobe_sql_guard_check).  One query may use STROBE_SQL_SAFE_HEAP
 * bytes of heap beyond what the database holds (SQLite's hard heap
 * limit, which is process-wide: set by the guard, restored when it is
 * freed), values of STROBE_SQL_SAFE_LENGTH bytes at most, and
 * STROBE_SQL_SAFE_TIMEOUT seconds unless a timeout says otherwise.  A
 * timeout alone bounds the time only, through a progress handler.
 *
 * Errors are said in the words of the limit hit, naming the caller's
 * option ("--safe", "safe=True"); the library never prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sqlite3.h>

#include <strobe/sql.h>
#include <strobe/strobe.h>

struct strobe_sql_guard {
	sqlite3 *db;
	bool safe;
	double timeout;		/* seconds per query; 0: none */
	double deadline;	/* CLOCK_MONOTONIC seconds of the current query's end */
	bool timed_out;
	bool heap_set;
	sqlite3_int64 old_heap;	/* the hard heap limit before */
	const char *safe_name, *timeout_name;
	char refused[96];	/* what the authorizer refused last */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int on_progress(void *arg)
{
	struct strobe_sql_guard *g = arg;

	if (g->timeout > 0 && now_s() > g->deadline)
		g->timed_out = true;
	return g->timed_out;
}

static int safe_authorize(void *arg, int action, const char *a1, const char *a2,
			  const char *dbname, const char *trigger)
{
	/* the pragmas that take an argument and only read the schema */
	static const char *const schema[] = { "table_info", "table_xinfo", "index_info",
					      "index_xinfo", "index_list", "foreign_key_list" };
	struct strobe_sql_guard *g = arg;
	size_t i;

	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		snprintf(g->refused, sizeof(g->refused), "%s",
			 action == SQLITE_ATTACH ? "ATTACH" : "DETACH");
		return SQLITE_DENY;
	case SQLITE_PRAGMA:
		if (!a2)
			return SQLITE_OK;
		for (i = 0; i < sizeof(schema) / sizeof(*schema); i++)
			if (a1 && !strcasecmp(a1, schema[i]))
				return SQLITE_OK;
		snprintf(g->refused, sizeof(g->refused), "PRAGMA %.40s = %.40s", a1 ? a1 : "", a2);
		return SQLITE_DENY;
	}
	return SQLITE_OK;
}

int strobe_sql_guard_new(struct sqlite3 **db, const char *db_path,
			 const struct strobe_sql_guard_opts *o, struct strobe_sql_guard **out,
			 struct strobe_error *err)
{
	struct strobe_sql_guard *g;

	*out = NULL;
	if (!o || !(o->timeout >= 0) || o->timeout > 1e9) {
		snprintf(err->msg, sizeof(err->msg), "a timeout is a number of seconds from 0 "
			 "to 1e9");
		return -EINVAL;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	g->safe = o->safe;
	g->timeout = o->timeout;
	g->safe_name = o->safe_name ? o->safe_name : "--safe";
	g->timeout_name = o->timeout_name ? o->timeout_name : "--timeout ";
	if (g->safe) {
		if (db_path) {
			sqlite3 *ro = NULL;

			if (sqlite3_open_v2(db_path, &ro, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
				snprintf(err->msg, sizeof(err->msg), "%s: %s", db_path,
					 ro ? sqlite3_errmsg(ro) : "out of memory");
				sqlite3_close(ro);
				free(g);
				return -EIO;
			}
			sqlite3_close(*db);
			*db = ro;
		} else if (sqlite3_exec(*db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK) {
			snprintf(err->msg, sizeof(err->msg), "%s: %s", g->safe_name,
				 sqlite3_errmsg(*db));
			free(g);
			return -EIO;
		}
		sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
		sqlite3_limit(*db, SQLITE_LIMIT_LENGTH, STROBE_SQL_SAFE_LENGTH);
		g->old_heap = sqlite3_hard_heap_limit64(-1);
		sqlite3_hard_heap_limit64(sqlite3_memory_used() + STROBE_SQL_SAFE_HEAP);
		g->heap_set = true;
		sqlite3_set_authorizer(*db, safe_authorize, g);
		if (g->timeout == 0)
			g->timeout = STROBE_SQL_SAFE_TIMEOUT;
	}
	if (g->timeout > 0)
		sqlite3_progress_handler(*db, 10000, on_progress, g);
	g->db = *db;
	*out = g;
	return 0;
}

void strobe_sql_guard_start(struct strobe_sql_guard *g)
{
	g->deadline = now_s() + g->timeout;
	g->timed_out = false;
	g->refused[0] = '\0';
}

int strobe_sql_guard_check(struct strobe_sql_guard *g, struct sqlite3_stmt *st,
			   struct strobe_error *err)
{
	const char *sql;
	int n;

	if (!g->safe || !st || sqlite3_stmt_readonly(st))
		return 0;
	sql = sqlite3_sql(st);
	sql += strspn(sql, " \t\r\n");
	n = (int)strcspn(sql, ";");
	snprintf(err->msg, sizeof(err->msg), "%s: '%.*s%s' is refused: it writes, and a %s "
		 "query only reads the trace's database", g->safe_name, n > 80 ? 80 : n, sql,
		 n > 80 ? "..." : "", g->safe_name);
	return -EPERM;
}

int strobe_sql_guard_error(struct strobe_sql_guard *g, struct strobe_error *err)
{
	int code = sqlite3_errcode(g->db);

	if (code == SQLITE_INTERRUPT && g->timed_out) {
		snprintf(err->msg, sizeof(err->msg), "the query ran longer than %s%g s: stopped",
			 g->timeout_name, g->timeout);
		return -ETIMEDOUT;
	}
	if (code == SQLITE_AUTH && g->safe) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s is refused: a %s query only reads "
			 "the trace's database", g->safe_name,
			 g->refused[0] ? g->refused : "the statement", g->safe_name);
		return -EPERM;
	}
	if (code == SQLITE_NOMEM && g->safe) {
		snprintf(err->msg, sizeof(err->msg), "%s: the query needs more than its %lld MiB "
			 "of memory: stopped", g->safe_name, STROBE_SQL_SAFE_HEAP >> 20);
		return -ENOMEM;
	}
	if (code == SQLITE_TOOBIG && g->safe) {
		snprintf(err->msg, sizeof(err->msg), "%s: the query makes a value larger than "
			 "%d MiB: stopped", g->safe_name, STROBE_SQL_SAFE_LENGTH >> 20);
		return -E2BIG;
	}
	snprintf(err->msg, sizeof(err->msg), "SQL error: %s", sqlite3_errmsg(g->db));
	return -EIO;
}

void strobe_sql_guard_free(struct strobe_sql_guard *g)
{
	if (!g)
		return;
	sqlite3_set_authorizer(g->db, NULL, NULL);
	sqlite3_progress_handler(g->db, 0, NULL, NULL);
	if (g->heap_set)
		sqlite3_hard_heap_limit64(g->old_heap);
	free(g);
}
