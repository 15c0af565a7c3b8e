/*
 * cpus.c - the CPUs strobe may use (cpus.h): the affinity mask's count,
 * capped by the cgroup v2 cpu.max quotas on the way from the process's
 * cgroup up to the root.  Unreadable files mean "no cap": a wrong guess
 * then costs only an idle thread.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"

/* The cap one cpu.max file sets (0: "max", unreadable, malformed). */
static int cap_of(const char *path)
{
	unsigned long long quota, period;
	char buf[64];
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return 0;
	n = fgets(buf, sizeof(buf), f) ? sscanf(buf, "%llu %llu", &quota, &period) : 0;
	fclose(f);
	if (n != 2 || !period || !quota)
		return 0;	/* "max 100000" scans as 0 */
	quota = (quota + period - 1) / period;
	return quota > 1 << 20 ? 1 << 20 : (int)quota;
}

int strobe_cpus_quota_at(const char *proc_cgroup, const char *cgroot)
{
	char line[4096], path[4096 + 256];
	FILE *f = fopen(proc_cgroup, "re");
	char *rel = NULL, *slash;
	int cap = 0, c;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {	/* the v2 hierarchy */
			line[strcspn(line, "\n")] = 0;
			rel = line + 3;
			break;
		}
	fclose(f);
	if (!rel || *rel != '/')
		return 0;
	/* the cgroup, then each ancestor below the root (the root has no cpu.max) */
	while (rel[1]) {
		snprintf(path, sizeof(path), "%s%s/cpu.max", cgroot, rel);
		c = cap_of(path);
		if (c && (!cap || c < cap))
			cap = c;
		slash = strrchr(rel, '/');
		if (slash == rel)
			break;
		*slash = 0;
	}
	return cap;
}

/* Where cgroup v2 is mounted (/sys/fs/cgroup, or .../unified on a hybrid
 * system): from /proc/self/mounts. */
static void v2_root(char *out, size_t size)
{
	char dev[256], dir[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	snprintf(out, size, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(out, size, "%s", dir);
			break;
		}
	fclose(f);
}

int strobe_cpus_usable(void)
{
	char root[4096];
	cpu_set_t set;
	int n = 0, cap;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n < 1) {
		long on = sysconf(_SC_NPROCESSORS_ONLN);

		n = on > 0 ? (int)on : 1;
	}
	v2_root(root, sizeof(root));
	cap = strobe_cpus_quota_at("/proc/self/cgroup", root);
	return cap && cap < n ? cap : n;
}
