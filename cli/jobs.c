/*
 * jobs.c - the --jobs option of the commands that read trace files
 * (analyze and every analysis command, report, sql, export, html): the
 * pipeline's threads (strobe_pipeline_opts.jobs).  Not given: the CPUs
 * strobe may use (its affinity mask and its cgroup's cpu.max, not every
 * online CPU), so a container limited to one CPU runs one thread.
 */
#include <strobe/pipeline.h>

#include "cli.h"

int cli_jobs(int given)
{
	return given > 0 ? given : strobe_cpus_usable();
}
