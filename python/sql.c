/*
 * sql.c - strobe.sql(): SQL over trace files, as `strobe sql` runs it.
 *
 * The database is the library's (strobe_sql_open for one file,
 * strobe_sql_open_many for several, strobe-sql(3)): in memory, or kept
 * at db= and reused while current.  It is built with the GIL released.
 * What the load noted (meta's diagnostic.* rows: damage skipped, lost
 * events, a file given twice) becomes warnings, as read_trace's do
 * (strict=True: damage raises DamagedDataError).  The query runs under
 * the library's guard (strobe_sql_guard): safe=True is strobe sql's
 * --safe (read-only, no ATTACH, no statement that writes, bounded memory
 * and time), timeout= its --timeout.  The rows of the last statement
 * that has columns come back as dicts, as analyze()'s rows do.
 */
#include <errno.h>
#include <string.h>

#include <sqlite3.h>

#include "_strobe.h"

/* source: one path or a list of them, each checked; *paths (PyMem) point
 * into *keep (a tuple of bytes). */
static int sql_paths(PyObject *source, PyObject **keep, const char ***paths, int *n)
{
	PyObject *t;
	Py_ssize_t i, len;
	char what[32];

	*keep = NULL;
	*paths = NULL;
	*n = 0;
	if (PyList_Check(source) || PyTuple_Check(source)) {
		t = PySequence_Tuple(source);
	} else {
		t = PyTuple_Pack(1, source);
	}
	if (!t)
		return -1;
	len = PyTuple_GET_SIZE(t);
	if (len == 0 || len > INT32_MAX) {
		Py_DECREF(t);
		PyErr_SetString(PyExc_ValueError, "sql() argument 'source' is an empty list");
		return -1;
	}
	*keep = PyTuple_New(len);
	*paths = PyMem_Calloc((size_t)len, sizeof(**paths));
	if (!*keep || !*paths) {
		Py_DECREF(t);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < len; i++) {
		PyObject *b;

		if (PyList_Check(source) || PyTuple_Check(source))
			snprintf(what, sizeof(what), "source[%zd]", i);
		else
			snprintf(what, sizeof(what), "source");
		if (arg_path("sql", what, PyTuple_GET_ITEM(t, i), &b) < 0) {
			Py_DECREF(t);
			return -1;
		}
		PyTuple_SET_ITEM(*keep, i, b);
		(*paths)[i] = PyBytes_AS_STRING(b);
	}
	Py_DECREF(t);
	*n = (int)len;
	return 0;
}

static bool kind_is_damage(const char *name)
{
	enum strobe_tf_diag_kind k;

	for (k = STROBE_TF_DIAG_BAD_FORMATS; k <= STROBE_TF_DIAG_SAME_FILE; k++)
		if (!strcmp(strobe_tf_diag_name(k), name))
			return strobe_tf_diag_is_damage(k);
	return false;
}

/* meta's diagnostic.KIND rows as warnings (strict: the first damage as
 * DamagedDataError).  0, or -1 raised. */
static int sql_diags(sqlite3 *db, bool strict)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(db, "SELECT d.key, d.value, t.value FROM meta d LEFT JOIN meta t "
			       "ON t.host = d.host AND t.key = 'trace' WHERE d.key LIKE "
			       "'diagnostic.%' ORDER BY d.rowid", -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT d.key, d.value, t.value FROM meta d LEFT JOIN meta t "
			       "ON t.key = 'trace' WHERE d.key LIKE 'diagnostic.%' "
			       "ORDER BY d.rowid", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *msg = (const char *)sqlite3_column_text(st, 1);
		const char *file = (const char *)sqlite3_column_text(st, 2);
		bool damage;
		PyObject *d;

		if (!key || !msg)
			continue;
		key += strlen("diagnostic.");
		damage = kind_is_damage(key);
		if (damage && strict) {
			struct strobe_error e = { -EBADMSG, "" };

			snprintf(e.msg, sizeof(e.msg), "damaged data (strict): %s%s%s",
				 file && !strstr(msg, file) ? file : "",
				 file && !strstr(msg, file) ? ": " : "", msg);
			raise_run(-EBADMSG, &e);
			r = -1;
			break;
		}
		d = Py_BuildValue("{sssssz}", "kind", key, "message", msg, "source", file);
		r = d ? warn_one(damage ? DamagedDataWarning : TraceWarning, d) : -1;
		Py_XDECREF(d);
	}
	sqlite3_finalize(st);
	return r;
}

static PyObject *column_value(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return PyLong_FromLongLong(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return PyFloat_FromDouble(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return PyUnicode_DecodeUTF8((const char *)sqlite3_column_text(st, i),
					    sqlite3_column_bytes(st, i), "replace");
	case SQLITE_BLOB:
		return PyBytes_FromStringAndSize(sqlite3_column_blob(st, i),
						 sqlite3_column_bytes(st, i));
	default:
		Py_RETURN_NONE;
	}
}

/* The query's every statement; the rows of the last one with columns, or
 * NULL raised. */
static PyObject *run_query(sqlite3 *db, struct strobe_sql_guard *g, const char *sql)
{
	struct strobe_error err = { 0, "" };
	PyObject *rows = PyList_New(0), *keys = NULL;
	const char *tail = sql;
	int rc, i, n, r;

	strobe_sql_guard_start(g);
	while (rows && tail && *tail) {
		sqlite3_stmt *st = NULL;

		Py_BEGIN_ALLOW_THREADS
		rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
		Py_END_ALLOW_THREADS
		if (rc != SQLITE_OK)
			goto sql_fail;
		if (!st)	/* blanks or a comment */
			continue;
		if ((r = strobe_sql_guard_check(g, st, &err)) < 0) {
			sqlite3_finalize(st);
			Py_CLEAR(rows);
			return raise_os(r, err.msg);
		}
		n = sqlite3_column_count(st);
		if (n) {	/* a new result replaces the one before */
			Py_SETREF(rows, PyList_New(0));
			Py_CLEAR(keys);
			keys = PyTuple_New(n);
			for (i = 0; keys && rows && i < n; i++) {
				PyObject *k = PyUnicode_FromString(sqlite3_column_name(st, i));

				if (!k)
					Py_CLEAR(keys);
				else
					PyTuple_SET_ITEM(keys, i, k);
			}
		}
		for (;;) {
			PyObject *row;

			Py_BEGIN_ALLOW_THREADS
			rc = sqlite3_step(st);
			Py_END_ALLOW_THREADS
			if (rc != SQLITE_ROW || !rows || !keys)
				break;
			row = PyDict_New();
			for (i = 0; row && i < n; i++) {
				PyObject *v = column_value(st, i);

				if (!v || PyDict_SetItem(row, PyTuple_GET_ITEM(keys, i), v) < 0)
					Py_CLEAR(row);
				Py_XDECREF(v);
			}
			if (!row || PyList_Append(rows, row) < 0)
				Py_CLEAR(rows);
			Py_XDECREF(row);
		}
		sqlite3_finalize(st);
		if (!rows || (n && !keys))
			break;
		if (rc != SQLITE_DONE && rc != SQLITE_ROW)
			goto sql_fail;
	}
	Py_XDECREF(keys);
	return rows;
sql_fail:
	Py_XDECREF(keys);
	Py_XDECREF(rows);
	r = strobe_sql_guard_error(g, &err);
	if (r == -EIO) {	/* the query itself: SQLite's message */
		PyErr_SetString(PyExc_ValueError, err.msg);
		return NULL;
	}
	return raise_os(r, err.msg);
}

PyObject *py_sql(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "query", "db", "analyses", "logs", "rebuild", "safe",
			       "timeout", "strict", NULL };
	PyObject *source, *pquery, *pdb = Py_None, *pan = Py_None, *plogs = NULL,
		*prebuild = NULL, *psafe = NULL, *ptimeout = Py_None, *pstrict = NULL,
		*keep = NULL, *dbb = NULL, *akeep = NULL, *out = NULL;
	struct strobe_sql_guard_opts go = { .safe_name = "safe=True",
					    .timeout_name = "timeout=" };
	struct strobe_sql_opts o = { 0 };
	struct strobe_error err = { 0, "" };
	struct strobe_sql_guard *g = NULL;
	const char **paths = NULL, **an = NULL, *query, *db_path = NULL;
	char *joined = NULL;
	int n = 0, nan = 0, logs = 0, rebuild = 0, safe = 0, strict = 0, r, i;
	size_t len = 1;
	sqlite3 *db = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOOOO:sql", kwl, &source, &pquery, &pdb,
					 &pan, &plogs, &prebuild, &psafe, &ptimeout, &pstrict))
		return NULL;
	if (arg_str("sql", "query", pquery, false, &query) < 0 ||
	    (pdb != Py_None && arg_path("sql", "db", pdb, &dbb) < 0) ||
	    arg_strs("sql", "analyses", pan, true, true, &akeep, &an, &nan) < 0 ||
	    arg_bool("sql", "logs", plogs, &logs) < 0 ||
	    arg_bool("sql", "rebuild", prebuild, &rebuild) < 0 ||
	    arg_bool("sql", "safe", psafe, &safe) < 0 ||
	    arg_seconds("sql", "timeout", ptimeout, &go.timeout) < 0 ||
	    arg_bool("sql", "strict", pstrict, &strict) < 0 ||
	    sql_paths(source, &keep, &paths, &n) < 0)
		goto out;
	if (go.timeout < 0)
		go.timeout = 0;
	else if (go.timeout == 0) {
		PyErr_SetString(PyExc_ValueError, "sql() argument 'timeout' must be above 0 "
				"seconds (None: no bound)");
		goto out;
	}
	go.safe = safe;
	db_path = dbb ? PyBytes_AS_STRING(dbb) : NULL;
	if (akeep) {	/* "" (an empty list): no analysis */
		for (i = 0; i < nan; i++)
			len += strlen(an[i]) + 1;
		joined = PyMem_Malloc(len);
		if (!joined) {
			PyErr_NoMemory();
			goto out;
		}
		joined[0] = '\0';
		for (i = 0; i < nan; i++) {
			if (i)
				strcat(joined, ",");
			strcat(joined, an[i]);
		}
		o.analyses = joined;
	}
	o.logs = logs;
	o.rebuild = rebuild;
	if (o.analyses && *o.analyses) {	/* a name it does not know: before the load */
		struct strobe_analysis *a;

		if (strobe_analysis_new(o.analyses, NULL, &a, &err) < 0) {
			PyErr_SetString(PyExc_ValueError, err.msg);
			goto out;
		}
		strobe_analysis_free(a);
	}
	Py_BEGIN_ALLOW_THREADS
	r = n > 1 ? strobe_sql_open_many(paths, n, db_path, &o, &db, NULL, &err)
		  : strobe_sql_open(paths[0], db_path, &o, &db, NULL, &err);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	if (sql_diags(db, strict) < 0)
		goto out;
	r = strobe_sql_guard_new(&db, db_path, &go, &g, &err);
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	out = run_query(db, g, query);
out:
	strobe_sql_guard_free(g);
	if (db)
		sqlite3_close(db);
	PyMem_Free(joined);
	PyMem_Free(an);
	PyMem_Free(paths);
	Py_XDECREF(akeep);
	Py_XDECREF(keep);
	Py_XDECREF(dbb);
	return out;
}
