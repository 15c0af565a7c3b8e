/*
 * cpus.h - how many CPUs strobe may use: the default of --jobs.
 *
 * Not every online CPU: a process pinned by taskset or a container's
 * cpuset sees fewer in its affinity mask, and a container limited by its
 * cgroup v2 cpu.max (docker --cpus=1.5) gets quota/period CPUs' worth of
 * time however many it may run on.  Threads beyond that only wait for
 * each other.
 */
#ifndef STROBE_UTIL_CPUS_H
#define STROBE_UTIL_CPUS_H

/* strobe_cpus_usable() is public: declared in strobe/pipeline.h. */
#include <strobe/pipeline.h>

/*
 * The cpu.max cap alone, from a /proc/PID/cgroup file (proc_cgroup) and
 * the cgroup v2 mount (cgroot): the smallest quota/period rounded up of
 * the cgroup's cpu.max and its ancestors', or 0 when none sets a quota
 * ("max"), the file has no v2 line or cannot be read.  For tests, with
 * a fake tree.
 */
int strobe_cpus_quota_at(const char *proc_cgroup, const char *cgroot);

#endif
