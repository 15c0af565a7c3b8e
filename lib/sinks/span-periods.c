/*
 * span-periods.c - the periods engine set up for the exporters that draw
 * periods as spans (otlp.c: OpenTelemetry spans, perfetto.c: async
 * slices): the --period definitions and --period-captures, system-call
 * argument names for raw_syscalls records, the expression context, and
 * the check against the source's formats, in one place instead of a copy
 * in each exporter.
 */
#include <errno.h>

#include <strobe/expr.h>

#include "expr/expr-int.h"
#include "sinks/sinks-int.h"
#include "util/err.h"

/* A definition that cannot match this source's events is no error for
 * an exporter: it draws what there is. */
static void no_warn(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int strobe_sink_periods_make(const char *const *defs, int nr_defs,
			     const char *const *captures, int nr_captures,
			     strobe_period_fn fn, void *arg, struct strobe_formats *fmts,
			     const struct strobe_expr_env *env, struct strobe_periods **per,
			     struct strobe_syscall_args **sysargs, struct strobe_error *err)
{
	int i, ret;

	if (!nr_defs)
		return 0;
	if (strobe_periods_new(fn, arg, per) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < nr_defs; i++)
		if ((ret = strobe_periods_define(*per, defs[i], err)) < 0)
			return ret;
	for (i = 0; i < nr_captures; i++)
		if ((ret = strobe_periods_capture(*per, captures[i], err)) < 0)
			return ret;
	if (expr_sysargs_for(fmts, sysargs) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_periods_set_syscall_args(*per, *sysargs);
	strobe_periods_set_env(*per, env);
	return strobe_periods_check(*per, fmts, 0, no_warn, NULL, err);
}
