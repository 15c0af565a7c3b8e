/*
 * jobs.c - the --jobs option of the commands that read trace files
 * (analyze and every analysis command, report, sql, export --format
 * perfetto, flamegraph, heatmap, html): the pipeline's threads (strobe_pipeline_opts.jobs).  Not
 * given: the CPUs strobe may use (strobe_cpus_usable: the affinity mask,
 * capped by the cgroup's cpu.max), as issue 27 asks.  Measured on this
 * project's 2-CPU VM (make bench's jobs part, 8 M events, medians of 5
 * interleaved, six runs over a day whose host speed moved by a third):
 * analyze -a cputop,syscalls,schedlat 0.90x to 1.67x as fast with two
 * threads (the slower the host, the more it gains: the reading thread
 * does most of the work), report 0.96x to 1.56x, export --format
 * perfetto 1.04x to 1.34x, flamegraph --folded on 14.6 M events 1.27x,
 * for 60-90% more CPU time; with both CPUs busy (two `yes` and a make
 * check beside it) two threads were as fast as one.  The output is the
 * same for every count (tests/cli/12-jobs.sh).
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
