/*
 * test_cpus.c - the CPUs strobe may use (lib/util/cpus.c), the default
 * of --jobs: cgroup v2 cpu.max quotas read from a fake tree (the
 * smallest on the way up, rounded up; "max", v1-only files and missing
 * files set no cap), and strobe_cpus_usable() within the affinity mask.
 */
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/cpus.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

static int quota(void)
{
	char cg[512], mnt[512];

	snprintf(cg, sizeof(cg), "%s/cgroup", root);
	snprintf(mnt, sizeof(mnt), "%s/fs", root);
	return strobe_cpus_quota_at(cg, mnt);
}

static void make_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/strobe-test-cpus-%d", (int)getpid());
	mkdir(root, 0755);
	dir("fs");
	dir("fs/pod");
	dir("fs/pod/ctr");
	put("cgroup", "4:memory:/pod/ctr\n0::/pod/ctr\n");
}

static void remove_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "  cannot remove %s\n", root);
}

static void test_quota_of_the_cgroup_rounded_up(void)
{
	make_tree();
	put("fs/pod/ctr/cpu.max", "150000 100000\n");	/* docker --cpus=1.5 */
	CHECK_EQ(quota(), 2);
	put("fs/pod/ctr/cpu.max", "100000 100000\n");
	CHECK_EQ(quota(), 1);
	put("fs/pod/ctr/cpu.max", "50000 100000\n");
	CHECK_EQ(quota(), 1);
	remove_tree();
}

static void test_smallest_quota_on_the_way_up(void)
{
	make_tree();
	put("fs/pod/ctr/cpu.max", "max 100000\n");
	put("fs/pod/cpu.max", "300000 100000\n");
	CHECK_EQ(quota(), 3);
	put("fs/pod/ctr/cpu.max", "200000 100000\n");
	CHECK_EQ(quota(), 2);
	put("fs/pod/cpu.max", "100000 50000\n");
	CHECK_EQ(quota(), 2);
	put("fs/pod/cpu.max", "40000 50000\n");
	CHECK_EQ(quota(), 1);
	remove_tree();
}

static void test_no_quota(void)
{
	make_tree();
	CHECK_EQ(quota(), 0);				/* no cpu.max files */
	put("fs/pod/ctr/cpu.max", "max 100000\n");
	put("fs/pod/cpu.max", "max 100000\n");
	CHECK_EQ(quota(), 0);
	put("fs/pod/cpu.max", "garbage\n");
	CHECK_EQ(quota(), 0);
	put("fs/pod/cpu.max", "0 100000\n");
	CHECK_EQ(quota(), 0);
	put("cgroup", "4:memory:/pod/ctr\n1:cpu:/pod/ctr\n");	/* v1 only */
	put("fs/pod/ctr/cpu.max", "100000 100000\n");
	CHECK_EQ(quota(), 0);
	put("cgroup", "0::/\n");			/* the root */
	CHECK_EQ(quota(), 0);
	remove_tree();
	CHECK_EQ(quota(), 0);				/* no file at all */
}

static void test_usable_within_the_affinity_mask(void)
{
	cpu_set_t set;
	int n = strobe_cpus_usable();

	REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
	CHECK(n >= 1);
	CHECK(n <= CPU_COUNT(&set));
}

TESTS(T(test_quota_of_the_cgroup_rounded_up), T(test_smallest_quota_on_the_way_up),
      T(test_no_quota), T(test_usable_within_the_affinity_mask));
