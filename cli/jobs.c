/*
 * jobs.c - the --jobs option of the commands that read trace files
 * (analyze and every analysis command, report, sql, export, html): the
 * pipeline's threads (strobe_pipeline_opts.jobs).  Not given: one.
 * Measured on this project's 2-CPU machines, a second thread made
 * `analyze -a cputop,syscalls,schedlat` 0.6-0.7x as fast on a quiet
 * machine (the reading thread does 57% of the work and every event is
 * copied to the workers) and faster only when the other CPU was busy,
 * so the threads are asked for, not assumed; strobe_cpus_usable() is
 * there for the day the split pays.
 */
#include "cli.h"

int cli_jobs(int given)
{
	return given > 0 ? given : 1;
}
