/*
 * profile.c - strobe.profile(): a CPU profile as Python objects, what
 * `strobe profile` prints (cli/cmd-profile.c), from the same library
 * parts: the perf sampling source merged into a live recording without a
 * file (strobe_record with add_records, on the "mono" clock the samples
 * carry), or the samples a recording holds (strobe record --profile,
 * read through the one pipeline with the recorded mappings replayed), and
 * the profile consumer that names and folds the stacks: one
 * strobe_profile_run, as `strobe profile` runs it.
 *
 * The result is a dict: "samples", "lost", "folded" ({stack: samples},
 * the stack "root;...;innermost" as --folded writes it) and "functions"
 * (the profile.functions table's rows with the --json keys, sorted by
 * self samples).
 *
 * Live, the GIL is released while sampling; the recording's tick (every
 * 100 ms, on this thread) takes it back to look at signals: Ctrl-C ends
 * the profile and the samples so far are returned, another exception
 * raised by a signal handler ends it and propagates.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/model.h>
#include <strobe/pictures.h>
#include <strobe/pipeline.h>
#include <strobe/profile.h>
#include <strobe/record.h>
#include <strobe/symbols.h>
#include <strobe/table.h>

#include "_strobe.h"

#define FN "profile"

/* {"samples", "lost", "folded", "functions"} of prof. */
static PyObject *result(struct strobe_profile *prof, int top)
{
	struct strobe_error err = { 0, "" };
	struct strobe_table *tab = NULL;
	struct strobe_buf *b = strobe_buf_new();
	PyObject *out = NULL, *folded = NULL, *rows = NULL, *v;
	const char *p, *end, *nl, *sp;

	if (!b)
		return PyErr_NoMemory();
	if (strobe_flame_write_folded(strobe_profile_flame(prof), b) < 0 ||
	    strobe_profile_table(prof, top, &tab, &err) < 0) {
		PyErr_NoMemory();
		goto out;
	}
	if (!(folded = PyDict_New()))
		goto out;
	p = strobe_buf_data(b);
	end = p + strobe_buf_len(b);
	for (; p < end; p = nl + 1) {
		PyObject *k;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp <= p)
			continue;
		k = PyUnicode_DecodeUTF8(p, sp - 1 - p, "replace");
		v = PyLong_FromUnsignedLongLong(strtoull(sp, NULL, 10));
		if (!k || !v || PyDict_SetItem(folded, k, v) < 0) {
			Py_XDECREF(k);
			Py_XDECREF(v);
			goto out;
		}
		Py_DECREF(k);
		Py_DECREF(v);
	}
	if (!(rows = table_rows(tab)))
		goto out;
	out = Py_BuildValue("{s:K,s:K,s:O,s:O}", "samples",
			    (unsigned long long)strobe_profile_samples(prof), "lost",
			    (unsigned long long)strobe_profile_lost(prof), "folded", folded, "functions", rows);
out:
	Py_XDECREF(folded);
	Py_XDECREF(rows);
	strobe_table_free(tab);
	strobe_buf_free(b);
	return out;
}

PyObject *py_profile(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "argv", "pid", "container", "duration", "freq",
			       "group_by", "kernel", "top", NULL };
	static const struct { const char *name; enum strobe_flame_group g; } groups[] = {
		{ "container", STROBE_FLAME_BY_CONTAINER }, { "process", STROBE_FLAME_BY_PROCESS },
		{ "thread", STROBE_FLAME_BY_THREAD }, { "none", STROBE_FLAME_BY_NONE },
	};
	PyObject *source = Py_None, *argv = Py_None, *pid = Py_None, *cont = Py_None,
		*duration = Py_None, *freq = NULL, *group = NULL, *kernel = NULL, *top = NULL;
	PyObject *path = NULL, *keep = NULL, *out = NULL;
	struct strobe_profile_opts pro = { .size = sizeof(pro),
					   .group_by = STROBE_FLAME_BY_CONTAINER };
	struct strobe_record_opts o = { .size = sizeof(o) };
	struct strobe_profile_run_opts ro = { .size = sizeof(ro), .record = &o };
	struct strobe_profile_run_result res;
	struct strobe_error err = { 0, "" };
	struct strobe_symbols *syms = NULL;
	struct strobe_profile *prof = NULL;
	struct py_rec_run pr;
	const char **av = NULL, *cname = NULL, *gname = NULL;
	char **args_z = NULL;
	long long v_pid = 0, v_freq = 99, v_top = 0;
	double secs = -1;
	int nav = 0, with_kernel = 1, nt, r;
	size_t k;

	memset(&pr, 0, sizeof(pr));
	memset(&res, 0, sizeof(res));
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOOOOOO:profile", kwl, &source, &argv,
					 &pid, &cont, &duration, &freq, &group, &kernel, &top))
		return NULL;
	if (source != Py_None && arg_path(FN, "source", source, &path) < 0)
		return NULL;
	if ((argv != Py_None && arg_strs(FN, "argv", argv, false, false, &keep, &av, &nav) < 0) ||
	    (pid != Py_None && arg_int(FN, "pid", pid, 1, 0x3fffffff, &v_pid) < 0) ||
	    arg_str(FN, "container", cont, true, &cname) < 0 ||
	    arg_seconds(FN, "duration", duration, &secs) < 0 ||
	    arg_int(FN, "freq", freq, 1, 100000, &v_freq) < 0 ||
	    arg_str(FN, "group_by", group, false, &gname) < 0 ||
	    arg_bool(FN, "kernel", kernel, &with_kernel) < 0 ||
	    arg_int(FN, "top", top, 0, 1 << 30, &v_top) < 0)
		goto out;
	if (gname) {
		for (k = 0; k < sizeof(groups) / sizeof(groups[0]); k++)
			if (!strcmp(gname, groups[k].name))
				break;
		if (k == sizeof(groups) / sizeof(groups[0])) {
			PyErr_Format(PyExc_ValueError, "profile() argument 'group_by' must be "
				     "container, process, thread or none, not '%s'", gname);
			goto out;
		}
		pro.group_by = groups[k].g;
	}
	if (argv != Py_None && !nav) {
		PyErr_SetString(PyExc_ValueError, "profile() argument 'argv' is an empty list");
		goto out;
	}
	nt = (path != NULL) + (argv != Py_None) + (pid != Py_None) + (cont != Py_None);
	if (nt > 1) {
		PyErr_SetString(PyExc_ValueError, "profile() takes one of source, argv, pid and "
				"container (none: the whole system)");
		goto out;
	}
	if (path && secs >= 0) {
		PyErr_SetString(PyExc_ValueError, "profile() argument 'duration' is for live "
				"sampling, not with source");
		goto out;
	}
	if (cname && !*cname) {
		PyErr_SetString(PyExc_ValueError, "profile() argument 'container' must name a "
				"container, not ''");
		goto out;
	}
	pro.no_kernel = !with_kernel;
	r = strobe_symbols_new(NULL, &syms, &err);
	if (r == 0)
		pro.symbols = syms;
	if (r == 0)
		r = strobe_profile_new(&pro, &prof, &err);
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	if (py_record_target(&o, av, nav, &cname, v_pid, secs, &pr, &args_z) < 0)
		goto out;
	ro.input = path ? PyBytes_AS_STRING(path) : NULL;
	ro.freq = (unsigned)v_freq;
	Py_BEGIN_ALLOW_THREADS
	r = strobe_profile_run(prof, &ro, &res, &err);
	Py_END_ALLOW_THREADS
	if (py_record_ended(&pr, r, &err) < 0)
		goto out;
	out = result(prof, (int)v_top);
out:
	strobe_profile_run_result_free(&res);
	strobe_profile_free(prof);
	strobe_symbols_free(syms);
	free(args_z);
	PyMem_Free(av);
	Py_XDECREF(keep);
	Py_XDECREF(path);
	return out;
}
