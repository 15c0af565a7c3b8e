/*
 * test_model_docker.c - docker containers named when their dockerd keeps
 * its data elsewhere than /var/lib/docker: the parsing of dockerd command
 * lines (as /proc/PID/cmdline gives them) and of daemon.json, and the
 * lookup over a fixture tree with a fake /proc (processes named dockerd
 * with --data-root, with --config-file, with neither; a process of
 * another name whose --data-root must not be believed).
 *
 * The first command line is the one tests/kernel/56-docker.sh gives its
 * private dockerd, as /proc/PID/cmdline read it on the development VM.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include "model/model-int.h"

#include "test.h"

#define D1	"375d9ba14a25e657257203bf44cfe94fb4b3507d04cb762538737dc6d2267f60"
#define D2	"9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define D3	"7e1b3a7f0b3d5c2e9f8a6b4c2d0e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e"
#define D4	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define D5	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static char root[64];

/* Write root/rel (len bytes of text), creating parent directories. */
static void put_n(const char *rel, const char *text, size_t len)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len)
		abort();
	fclose(f);
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/strobe-docker-XXXXXX");
	if (!mkdtemp(root))
		abort();
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", root);
}

static struct strobe_cgroup_id cg(const char *path)
{
	struct strobe_cgroup_id id;

	if (strobe_cgroup_parse_path(path, strlen(path), &id) < 0)
		abort();
	return id;
}

/* A cmdline literal holds its own NULs: sizeof - 1 drops the final one. */
#define CMD(s)	s, sizeof(s) - 1

static void test_dockerd_cmdline_forms(void)
{
	static const struct {
		const char *cmd;
		size_t len;
		int ret;
		const char *data_root, *config;
	} cases[] = {
		{ CMD("dockerd\0--data-root\0/tmp/dk/data\0--exec-root\0/tmp/dk/exec\0"
		      "--pidfile\0/tmp/dk/dockerd.pid\0-H\0unix:///tmp/dk/docker.sock\0"
		      "--bridge=none\0--iptables=false\0--ip6tables=false\0"
		      "--exec-opt\0native.cgroupdriver=cgroupfs\0"), 1, "/tmp/dk/data", "" },
		{ CMD("/usr/bin/dockerd\0--data-root=/srv/docker\0"), 1, "/srv/docker", "" },
		{ CMD("dockerd\0-g\0/old/graph\0"), 1, "/old/graph", "" },
		{ CMD("dockerd\0-g/old/graph2\0"), 1, "/old/graph2", "" },
		{ CMD("dockerd\0-g=/old/graph3\0"), 1, "/old/graph3", "" },
		{ CMD("dockerd\0--graph\0/old/graph4\0"), 1, "/old/graph4", "" },
		{ CMD("dockerd\0--graph=/old/graph5\0"), 1, "/old/graph5", "" },
		{ CMD("dockerd\0--config-file\0/etc/ci/daemon.json\0"), 1, "", "/etc/ci/daemon.json" },
		{ CMD("dockerd\0--config-file=/c.json\0--data-root\0/a\0"), 1, "/a", "/c.json" },
		/* the last one wins; a missing NUL at the end is no matter */
		{ "dockerd\0--data-root\0/a\0--data-root\0/b", 37, 1, "/b", "" },
		/* no value, a relative value, a look-alike, after "--" */
		{ CMD("dockerd\0--data-root\0"), 0, "", "" },
		{ CMD("dockerd\0--data-root\0/a\0-g\0\0"), 0, "", "" },
		{ CMD("dockerd\0--data-root\0relative/dir\0"), 0, "", "" },
		{ CMD("dockerd\0--data-rooted=/x\0--graphs\0/y\0"), 0, "", "" },
		{ CMD("dockerd\0--\0--data-root\0/x\0"), 0, "", "" },
		/* argv[0] is not an option */
		{ CMD("--data-root=/x\0"), 0, "", "" },
		{ CMD("dockerd\0-H\0fd://\0--containerd=/run/containerd/containerd.sock\0"), 0, "", "" },
		{ "", 0, 0, "", "" },
	};
	struct strobe_dockerd_args a;
	char longpath[400];
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(strobe_dockerd_parse_cmdline(cases[i].cmd, cases[i].len, &a), cases[i].ret);
		CHECK_STR(a.data_root, cases[i].data_root);
		CHECK_STR(a.config_file, cases[i].config);
	}
	/* a value that does not fit counts as absent */
	n = (size_t)snprintf(longpath, sizeof(longpath), "dockerd%c--data-root=/", 0);
	memset(longpath + n, 'x', sizeof(longpath) - n - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_EQ(strobe_dockerd_parse_cmdline(longpath, sizeof(longpath), &a), 0);
	CHECK_STR(a.data_root, "");
}

static void test_daemon_json_data_root(void)
{
	char dr[64] = "unchanged";

	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"log-driver\":\"json-file\",\"data-root\":\"/srv/d\"}"),
					    dr, sizeof(dr)), 1);
	CHECK_STR(dr, "/srv/d");
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{ \"graph\" : \"/old\" }"), dr, sizeof(dr)), 1);
	CHECK_STR(dr, "/old");
	/* nested keys, relative paths, non-strings, garbage: untouched */
	snprintf(dr, sizeof(dr), "unchanged");
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"x\":{\"data-root\":\"/n\"}}"), dr, sizeof(dr)), 0);
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"data-root\":\"rel\"}"), dr, sizeof(dr)), 0);
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"data-root\":17}"), dr, sizeof(dr)), 0);
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"data-root\":\"/unterminated"), dr, sizeof(dr)), 0);
	CHECK_EQ(strobe_docker_daemon_parse(CMD("not json"), dr, sizeof(dr)), 0);
	CHECK_EQ(strobe_docker_daemon_parse(CMD("{\"data-root\":\"/0123456789\"}"), dr, 8), 0);
	CHECK_STR(dr, "unchanged");
}

static void config(const char *data_root, const char *id, const char *name)
{
	char rel[512], text[256];

	snprintf(rel, sizeof(rel), "%s/containers/%s/config.v2.json", data_root + 1, id);
	snprintf(text, sizeof(text), "{\"State\":{\"Running\":true},\"ID\":\"%s\",\"Name\":\"/%s\"}",
		 id, name);
	put(rel, text);
}

static void test_private_dockerd_roots_from_proc(void)
{
	struct strobe_cgroup_id id1 = cg("/docker/" D1), id2 = cg("/docker/" D2),
		id3 = cg("/system.slice/docker-" D3 ".scope"), id4 = cg("/docker/" D4),
		id5 = cg("/docker/" D5);
	struct strobe_container_meta m;
	char src[512];

	make_root();
	/* a private dockerd with --data-root (the kernel test's shape) */
	put("proc/4242/comm", "dockerd\n");
	put_n("proc/4242/cmdline", CMD("dockerd\0--data-root\0/tmp/dk/data\0"
				       "--exec-root\0/tmp/dk/exec\0-H\0unix:///tmp/dk/docker.sock\0"
				       "--bridge=none\0"));
	config("/tmp/dk/data", D1, "strobe-dk-busy");
	/* one with a configuration file of its own */
	put("proc/777/comm", "dockerd\n");
	put_n("proc/777/cmdline", CMD("/usr/sbin/dockerd\0--config-file=/etc/ci/daemon.json\0"));
	put("etc/ci/daemon.json", "{\"data-root\": \"/ci/docker\", \"bridge\": \"none\"}");
	config("/ci/docker", D2, "ci-job");
	/* the system's, configured in /etc/docker/daemon.json */
	put("proc/1000/comm", "dockerd\n");
	put_n("proc/1000/cmdline", CMD("/usr/sbin/dockerd\0-H\0fd://\0"));
	put("etc/docker/daemon.json", "{\"data-root\": \"/srv/docker\"}");
	config("/srv/docker", D3, "system-web");
	/* not dockerd: its arguments are not believed */
	put("proc/555/comm", "bash\n");
	put_n("proc/555/cmdline", CMD("bash\0--data-root\0/evil\0"));
	config("/evil", D4, "planted");
	put("proc/self/comm", "dockerd\n");

	CHECK_EQ(strobe_container_lookup(root, &id1, &m), 1);
	CHECK_STR(m.name, "strobe-dk-busy");
	CHECK_EQ(m.runtime, STROBE_RT_DOCKER);
	snprintf(src, sizeof(src), "%s/tmp/dk/data/containers/" D1 "/config.v2.json", root);
	CHECK_STR(m.source, src);
	CHECK_EQ(strobe_container_lookup(root, &id2, &m), 1);
	CHECK_STR(m.name, "ci-job");
	CHECK_EQ(strobe_container_lookup(root, &id3, &m), 1);
	CHECK_STR(m.name, "system-web");
	CHECK_EQ(strobe_container_lookup(root, &id4, &m), 0);
	CHECK_STR(m.name, "0123456789ab");

	/* a dockerd started after the scan: a docker cgroup nobody knows
	 * makes a new scan at once */
	put("proc/9000/comm", "dockerd\n");
	put_n("proc/9000/cmdline", CMD("dockerd\0-g\0/late\0"));
	config("/late", D5, "late-one");
	CHECK_EQ(strobe_container_lookup(root, &id5, &m), 1);
	CHECK_STR(m.name, "late-one");
	remove_root();
}

static void test_no_proc_no_dockerd_is_not_an_error(void)
{
	struct strobe_cgroup_id id = cg("/docker/" D1);
	struct strobe_container_meta m;

	make_root();
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 0);
	CHECK_STR(m.name, "375d9ba14a25");
	CHECK_STR(m.warning, "");
	/* a FIFO planted at a cmdline is skipped without blocking */
	put("proc/12/comm", "dockerd\n");
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/proc/12/cmdline", root);
		REQUIRE(mkfifo(path, 0600) == 0);
	}
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 0);
	CHECK_STR(m.name, "375d9ba14a25");
	remove_root();
}

TESTS(T(test_dockerd_cmdline_forms),
      T(test_daemon_json_data_root),
      T(test_private_dockerd_roots_from_proc),
      T(test_no_proc_no_dockerd_is_not_an_error));
