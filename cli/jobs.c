/*
 * jobs.c - the --jobs option of the commands that read trace files
 * (analyze and every analysis command, report, sql, export --format
 * perfetto): the pipeline's threads (strobe_pipeline_opts.jobs).  Not
 * given: the CPUs strobe may use (strobe_cpus_usable: the affinity mask,
 * capped by the cgroup's cpu.max), as issue 27 asks.  Measured on this
 * project's 2-CPU VM (make bench, 8 M events, medians of 5 interleaved):
 * analyze -a cputop,syscalls,schedlat 1.67x as fast with two threads,
 * report 1.05x, export --format perfetto 1.2x; with both CPUs busy (two
 * `yes` and a make check beside it) two threads were as fast as one, not
 * slower.  The output is the same for every count (tests/cli/12-jobs.sh).
 */
#include <strobe/pipeline.h>

#include "cli.h"

int cli_jobs(int given)
{
	int n;

	if (given > 0)
		return given;
	n = strobe_cpus_usable();
	return n > CLI_MAX_JOBS ? CLI_MAX_JOBS : n;
}
