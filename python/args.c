/*
 * args.c - the checks every public function and method of the module
 * makes of its arguments, so that a wrong one gets the answer a Python
 * user expects, naming the function and the argument:
 *
 *   TypeError   a wrong type, with the type expected and the one given
 *               ("analyze() argument 'top' must be an int, not str");
 *               an item of a list, with its index
 *   ValueError  a string holding a NUL character (C would cut it short
 *               there, and a filter meant for 3 rows would match none),
 *               a number out of its range, a NaN or infinite time
 *
 * Arguments are taken as objects (PyArg_ParseTupleAndKeywords' "O") and
 * checked here, since the converters of "s", "i" or "p" name neither the
 * argument (a positional one is "argument 3") nor a NUL's argument, and
 * "p" takes any object at all as a bool.
 */
#include <math.h>
#include <string.h>

#include "_strobe.h"

static int type_error(const char *fn, const char *name, const char *want, PyObject *o)
{
	PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be %s, not %.100s", fn, name, want,
		     Py_TYPE(o)->tp_name);
	return -1;
}

/* The UTF-8 of str o, refused when it holds a NUL (item >= 0: of a list). */
static const char *utf8_no_nul(const char *fn, const char *name, Py_ssize_t item,
			       PyObject *o)
{
	Py_ssize_t len;
	const char *s = PyUnicode_AsUTF8AndSize(o, &len);

	if (!s)
		return NULL;
	if ((Py_ssize_t)strlen(s) != len) {
		if (item >= 0)
			PyErr_Format(PyExc_ValueError,
				     "%s() argument '%s' item %zd holds a NUL character (at %zu)",
				     fn, name, item, strlen(s));
		else
			PyErr_Format(PyExc_ValueError,
				     "%s() argument '%s' holds a NUL character (at %zu)", fn, name,
				     strlen(s));
		return NULL;
	}
	return s;
}

int arg_str(const char *fn, const char *name, PyObject *o, bool none_ok, const char **out)
{
	if (!o || (none_ok && o == Py_None)) {
		*out = NULL;
		return 0;
	}
	if (!PyUnicode_Check(o))
		return type_error(fn, name, none_ok ? "a str or None" : "a str", o);
	*out = utf8_no_nul(fn, name, -1, o);
	return *out ? 0 : -1;
}

int arg_path(const char *fn, const char *name, PyObject *o, PyObject **bytes)
{
	PyObject *p;

	*bytes = NULL;
	if (!PyUnicode_Check(o) && !PyBytes_Check(o) && !PyObject_HasAttrString(o, "__fspath__"))
		return type_error(fn, name, "a path (str, bytes or os.PathLike)", o);
	p = PyOS_FSPath(o);
	if (!p)
		return -1;
	if (PyUnicode_Check(p) && !utf8_no_nul(fn, name, -1, p)) {
		Py_DECREF(p);
		return -1;
	}
	if (PyBytes_Check(p) && (size_t)PyBytes_GET_SIZE(p) != strlen(PyBytes_AS_STRING(p))) {
		PyErr_Format(PyExc_ValueError, "%s() argument '%s' holds a NUL character (at %zu)",
			     fn, name, strlen(PyBytes_AS_STRING(p)));
		Py_DECREF(p);
		return -1;
	}
	if (!PyUnicode_FSConverter(p, bytes)) {
		Py_DECREF(p);
		return -1;
	}
	Py_DECREF(p);
	return 0;
}

int arg_strs(const char *fn, const char *name, PyObject *o, bool one_ok, bool none_ok,
	     PyObject **keep, const char ***out, int *n)
{
	Py_ssize_t i, len;

	*keep = NULL;
	*out = NULL;
	*n = 0;
	if (!o || (none_ok && o == Py_None))
		return 0;
	if (one_ok && PyUnicode_Check(o))
		*keep = PyTuple_Pack(1, o);
	else if (PyList_Check(o) || PyTuple_Check(o))
		*keep = PySequence_Tuple(o);
	else
		return type_error(fn, name, one_ok ? "a str or a list of str" : "a list of str", o);
	if (!*keep)
		return -1;
	len = PyTuple_GET_SIZE(*keep);
	if (len > INT32_MAX) {
		PyErr_Format(PyExc_ValueError, "%s() argument '%s' has too many items", fn, name);
		return -1;
	}
	*out = PyMem_Malloc((size_t)(len ? len : 1) * sizeof(**out));
	if (!*out) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < len; i++) {
		PyObject *x = PyTuple_GET_ITEM(*keep, i);

		if (!PyUnicode_Check(x)) {
			PyErr_Format(PyExc_TypeError, "%s() argument '%s' item %zd must be a str, "
				     "not %.100s", fn, name, i, Py_TYPE(x)->tp_name);
			return -1;
		}
		if (!((*out)[i] = utf8_no_nul(fn, name, one_ok && PyUnicode_Check(o) ? -1 : i, x)))
			return -1;
	}
	*n = (int)len;
	return 0;
}

int arg_int(const char *fn, const char *name, PyObject *o, long long min, long long max,
	    long long *out)
{
	int over = 0;
	long long v;

	if (!o)
		return 0;
	if (!PyLong_Check(o) || PyBool_Check(o))
		return type_error(fn, name, "an int", o);
	v = PyLong_AsLongLongAndOverflow(o, &over);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (over || v < min || v > max) {
		PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be from %lld to %lld, not %S",
			     fn, name, min, max, o);
		return -1;
	}
	*out = v;
	return 0;
}

int arg_bool(const char *fn, const char *name, PyObject *o, int *out)
{
	if (!o)
		return 0;
	/* an int 0 or 1 too, as C and trace-cruncher's callers write them */
	if (PyBool_Check(o) || (PyLong_Check(o) && PyLong_AsLong(o) >= 0 &&
				PyLong_AsLong(o) <= 1 && !PyErr_Occurred())) {
		*out = PyObject_IsTrue(o);
		return 0;
	}
	PyErr_Clear();
	return type_error(fn, name, "a bool", o);
}

int arg_seconds(const char *fn, const char *name, PyObject *o, double *out)
{
	double t;

	*out = -1;
	if (!o || o == Py_None)
		return 0;
	if (PyBool_Check(o) || (!PyLong_Check(o) && !PyFloat_Check(o)))
		return type_error(fn, name, "a number of seconds or None", o);
	t = PyFloat_AsDouble(o);
	if (t == -1.0 && PyErr_Occurred()) {
		PyErr_Clear();
		t = HUGE_VAL;	/* an int too large for a double */
	}
	if (!(t >= 0) || t > 1e9) {
		PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be from 0 to 1e9 seconds, "
			     "not %R", fn, name, o);
		return -1;
	}
	*out = t;
	return 0;
}

int arg_callable(const char *fn, const char *name, PyObject *o, bool none_ok)
{
	if ((none_ok && (!o || o == Py_None)) || (o && PyCallable_Check(o)))
		return 0;
	return type_error(fn, name, none_ok ? "callable or None" : "callable", o ? o : Py_None);
}
