/*
 * test_model_procinfo.c - /proc/<pid>/status parsing (NSpid/NStgid across
 * nested PID namespaces, escaped names, old kernels, garbage) and the
 * /proc reader over a fixture tree and over the real /proc/self.
 *
 * "observed" strings were read on the development VM: a podman+runc
 * container's init seen from the host ("NSpid:\t13496\t1") and from
 * inside ("NSpid:\t16" for an exec'd shell), and two nested `unshare -pf`
 * ("NSpid:\t14169\t2\t1").
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/model.h>

#include "test.h"

static const char status_host_view[] =	/* observed, trimmed */
	"Name:\tbusybox\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t13496\n"
	"Ngid:\t0\n"
	"Pid:\t13496\n"
	"PPid:\t13443\n"
	"TracerPid:\t0\n"
	"Uid:\t0\t0\t0\t0\n"
	"NStgid:\t13496\t1\n"
	"NSpid:\t13496\t1\n"
	"NSpgid:\t13496\t1\n"
	"NSsid:\t13496\t1\n"
	"Threads:\t1\n";

static void test_status_host_view_of_container(void)
{
	struct strobe_proc_info pi;

	CHECK_EQ(strobe_proc_parse_status(status_host_view, strlen(status_host_view), &pi), 0);
	CHECK_EQ(pi.tid, 13496);
	CHECK_EQ(pi.tgid, 13496);
	CHECK_EQ(pi.ppid, 13443);
	CHECK_STR(pi.comm, "busybox");
	CHECK_EQ(pi.nr_nspid, 2);
	CHECK_EQ(pi.nspid[0], 13496);
	CHECK_EQ(pi.nspid[1], 1);
	CHECK_EQ(pi.nr_nstgid, 2);
	CHECK_EQ(pi.nstgid[1], 1);
	CHECK_EQ(pi.cgroup.runtime, STROBE_RT_HOST);
	CHECK_EQ(pi.pidns, 0);
}

static void test_status_nested_namespaces(void)
{
	static const char synth[] =
		"Name:\tworker\nTgid:\t4240\nPid:\t4242\nPPid:\t1\n"
		"NStgid:\t4240\t15\t1\nNSpid:\t4242\t17\t1\n";
	static const char observed[] =
		"Name:\tsleep\nPid:\t14169\nNStgid:\t14169\t2\t1\nNSpid:\t14169\t2\t1\n";
	static const char inside[] = "Name:\tsh\nPid:\t16\nNStgid:\t16\nNSpid:\t16\n";
	struct strobe_proc_info pi;

	CHECK_EQ(strobe_proc_parse_status(synth, strlen(synth), &pi), 0);
	CHECK_EQ(pi.tid, 4242);
	CHECK_EQ(pi.tgid, 4240);
	CHECK_EQ(pi.nr_nspid, 3);
	CHECK_EQ(pi.nspid[0], 4242);
	CHECK_EQ(pi.nspid[1], 17);
	CHECK_EQ(pi.nspid[2], 1);
	CHECK_EQ(pi.nr_nstgid, 3);
	CHECK_EQ(pi.nstgid[1], 15);

	CHECK_EQ(strobe_proc_parse_status(observed, strlen(observed), &pi), 0);
	CHECK_EQ(pi.nr_nspid, 3);
	CHECK_EQ(pi.nspid[1], 2);
	CHECK_EQ(pi.nspid[2], 1);

	CHECK_EQ(strobe_proc_parse_status(inside, strlen(inside), &pi), 0);
	CHECK_EQ(pi.nr_nspid, 1);
	CHECK_EQ(pi.nspid[0], 16);
}

static void test_status_max_nesting(void)
{
	char buf[512];
	struct strobe_proc_info pi;
	int i, n = snprintf(buf, sizeof(buf), "Pid:\t99\nNSpid:");

	for (i = 0; i < STROBE_PIDNS_LEVELS; i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "\t%d", 99 - i);
	CHECK_EQ(strobe_proc_parse_status(buf, (size_t)n, &pi), 0);
	CHECK_EQ(pi.nr_nspid, STROBE_PIDNS_LEVELS);
	CHECK_EQ(pi.nspid[STROBE_PIDNS_LEVELS - 1], 99 - STROBE_PIDNS_LEVELS + 1);
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "\t1");
	CHECK_EQ(strobe_proc_parse_status(buf, (size_t)n, &pi), -EINVAL);
}

static void test_status_escaped_and_long_names(void)
{
	static const char nl[] = "Name:\tfoo\\nbar\nPid:\t1\n";
	static const char bs[] = "Name:\ta\\\\b\nPid:\t1\n";
	static const char sp[] = "Name:\tWeb Content\nPid:\t1\n";
	static const char lng[] = "Name:\t0123456789abcdefXYZ\nPid:\t1\n";
	static const char empty[] = "Name:\t\nPid:\t1\n";
	struct strobe_proc_info pi;

	CHECK_EQ(strobe_proc_parse_status(nl, strlen(nl), &pi), 0);
	CHECK_STR(pi.comm, "foo\nbar");
	CHECK_EQ(strobe_proc_parse_status(bs, strlen(bs), &pi), 0);
	CHECK_STR(pi.comm, "a\\b");
	CHECK_EQ(strobe_proc_parse_status(sp, strlen(sp), &pi), 0);
	CHECK_STR(pi.comm, "Web Content");
	CHECK_EQ(strobe_proc_parse_status(lng, strlen(lng), &pi), 0);
	CHECK_STR(pi.comm, "0123456789abcde");
	CHECK_EQ(strobe_proc_parse_status(empty, strlen(empty), &pi), 0);
	CHECK_STR(pi.comm, "");
}

static void test_status_old_kernel_without_nspid(void)
{
	static const char old[] = "Name:\tinit\nTgid:\t1\nPid:\t1\nPPid:\t0\n";
	struct strobe_proc_info pi;

	CHECK_EQ(strobe_proc_parse_status(old, strlen(old), &pi), 0);
	CHECK_EQ(pi.nr_nspid, 0);
	CHECK_EQ(pi.nr_nstgid, 0);
	CHECK_EQ(pi.ppid, 0);
}

static void test_status_rejects_garbage(void)
{
	static const char *const bad[] = {
		"", "garbage", "Name:\tx\n", "Pid:\n", "Pid:\tabc\n", "Pid:\t-1\n",
		"Pid:\t99999999999\n", "Pid:\t1\nNSpid:\t1\tx\n", "Pid:\t1\nPPid:\t\n",
		"Pid:\t1\nTgid:\t1 2\n", "Pid\t1\n",
	};
	struct strobe_proc_info pi;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = strobe_proc_parse_status(bad[i], strlen(bad[i]), &pi);

		if (r != -EINVAL) {
			test_failed_checks++;
			fprintf(stderr, "  bad[%zu] gave %d\n", i, r);
		}
	}
	CHECK_EQ(strobe_proc_parse_status(NULL, 4, &pi), -EINVAL);
	/* no final newline, CR-free, unknown keys ignored */
	CHECK_EQ(strobe_proc_parse_status("Foo:\tbar\nPid:\t7", 15, &pi), 0);
	CHECK_EQ(pi.tid, 7);
}

/* ---- the reader ---------------------------------------------------------- */

static char fixture[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixture, rel);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void make_fixture(void)
{
	char path[256];

	snprintf(fixture, sizeof(fixture), "/tmp/strobe-procinfo-XXXXXX");
	if (!mkdtemp(fixture))
		abort();
	snprintf(path, sizeof(path), "%s/13496", fixture);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/13496/ns", fixture);
	mkdir(path, 0755);
	put("13496/status", status_host_view);
	put("13496/cgroup", "8:pids:/libpod_parent/libpod-"
	    "f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944\n0::/\n");
	snprintf(path, sizeof(path), "%s/13496/ns/pid", fixture);
	if (symlink("pid:[4026532252]", path))
		abort();
	snprintf(path, sizeof(path), "%s/13496/ns/mnt", fixture);
	if (symlink("mnt:[4026532249]", path))
		abort();
	snprintf(path, sizeof(path), "%s/13496/ns/cgroup", fixture);
	if (symlink("cgroup:[bogus]", path))
		abort();
	snprintf(path, sizeof(path), "%s/7", fixture);	/* status but no cgroup */
	mkdir(path, 0755);
	put("7/status", "Name:\tx\nPid:\t7\n");
	snprintf(path, sizeof(path), "%s/8", fixture);	/* not a status file */
	mkdir(path, 0755);
	put("8/status", "hello\n");
	put("8/cgroup", "0::/\n");
}

static void remove_fixture(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fixture);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", fixture);
}

static void test_read_fixture(void)
{
	struct strobe_proc_info pi;
	struct strobe_error err = { 0 };

	make_fixture();
	CHECK_EQ(strobe_proc_read(fixture, 13496, &pi, &err), 0);
	CHECK_EQ(pi.tid, 13496);
	CHECK_EQ(pi.nr_nspid, 2);
	CHECK_EQ(pi.nspid[1], 1);
	CHECK_EQ(pi.pidns, 4026532252ULL);
	CHECK_EQ(pi.mntns, 4026532249ULL);
	CHECK_EQ(pi.cgroupns, 0);	/* unparsable link: unknown */
	CHECK_EQ(pi.cgroup.runtime, STROBE_RT_PODMAN);
	CHECK_STR(pi.cgroup.short_id, "f307780c078f");

	CHECK_EQ(strobe_proc_read(fixture, 12345, &pi, &err), -ENOENT);
	CHECK(strstr(err.msg, "12345: no such task") != NULL);
	CHECK_EQ(strobe_proc_read(fixture, 7, &pi, &err), -ENOENT);
	CHECK_EQ(strobe_proc_read(fixture, 8, &pi, &err), -EINVAL);
	CHECK(strstr(err.msg, "8/status: not a /proc status file") != NULL);
	CHECK_EQ(strobe_proc_read(fixture, 0, &pi, &err), -EINVAL);
	CHECK_EQ(strobe_proc_read(fixture, -3, &pi, NULL), -EINVAL);
	remove_fixture();
}

static void test_read_real_self(void)
{
	struct strobe_proc_info pi;
	struct strobe_error err = { 0 };
	struct stat st;

	CHECK_EQ(strobe_proc_read(NULL, getpid(), &pi, &err), 0);
	CHECK_EQ(pi.tid, getpid());
	CHECK_EQ(pi.tgid, getpid());
	CHECK_EQ(pi.ppid, getppid());
	if (pi.nr_nspid)
		CHECK_EQ(pi.nspid[0], getpid());
	CHECK(pi.comm[0] != '\0');
	if (stat("/proc/self/ns/pid", &st) == 0)
		CHECK_EQ(pi.pidns, st.st_ino);
	CHECK(pi.mntns != 0);
}

TESTS(T(test_status_host_view_of_container),
      T(test_status_nested_namespaces),
      T(test_status_max_nesting),
      T(test_status_escaped_and_long_names),
      T(test_status_old_kernel_without_nspid),
      T(test_status_rejects_garbage),
      T(test_read_fixture),
      T(test_read_real_self));
