/*
 * test_model_watch.c - the watcher (lib/model/watch.c) over fixture trees
 * made under /tmp: a directory tree standing for a cgroup hierarchy
 * (inotify reports mkdir on any file system), runtime metadata and a
 * /proc with one task per container.  Each container "starts" (metadata
 * written, cgroup made, its task listed in cgroup.procs), lives 200 ms and
 * "stops" (metadata and cgroup removed, as `--rm` does) before the model
 * is given what the watcher found: the names must survive, for podman,
 * docker under a slice made after the watcher started, and a Kubernetes
 * pod (cgroupfs layout, made with all its levels at once) named by its
 * containerd bundle, the pod's own cgroup by the kubelet's folder; with
 * the tasks' NSpid read while they lived (a runtime helper in the host's
 * PID namespace shows none).  Metadata that never exists leaves the short
 * ID.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include "model/model-int.h"

#include "test.h"

#define PM	"5ab17b3f4cb1aa0c9e1b3f0a8c6d4e2f1a3b5c7d9e0f2a4b6c8d0e1f3a5b7c9d"
#define DK	"9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define K8	"7e1b3a7f0b3d5c2e9f8a6b4c2d0e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e"
#define NN	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID	"2b9a4c1e-7f3d-4e8a-9c6b-1d2e3f4a5b6c"

static char root[64];
static char cg[96], meta[96], proc[96];

static void sh(const char *fmt, const char *a)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, a, a);
	if (system(cmd) != 0)
		fprintf(stderr, "  failed: %s\n", cmd);
}

/* Write dir/rel, creating parent directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/strobe-watch-XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(cg, sizeof(cg), "%s/cg", root);
	snprintf(meta, sizeof(meta), "%s/meta", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	mkdir(cg, 0755);
	mkdir(meta, 0755);
	mkdir(proc, 0755);
}

/* A task of a container in the fixture /proc: host PID pid, PID 1 inside
 * (or, for a runtime's helper, in the host's PID namespace: no PID inside). */
static void put_task_ns(int pid, const char *comm, const char *cgpath, bool inside)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t0\n"
		 "NStgid:\t%d%s\nNSpid:\t%d%s\n", comm, pid, pid, pid, inside ? "\t1" : "",
		 pid, inside ? "\t1" : "");
	put(proc, rel, text);
	snprintf(rel, sizeof(rel), "%d/cgroup", pid);
	snprintf(text, sizeof(text), "0::%s\n", cgpath);
	put(proc, rel, text);
}

static void put_task(int pid, const char *comm, const char *cgpath)
{
	put_task_ns(pid, comm, cgpath, true);
}

/* The container's cgroup appears with its task in cgroup.procs. */
static void start_cgroup(const char *rel, int pid)
{
	char path[512], procs[600], line[32];

	snprintf(path, sizeof(path), "mkdir -p '%s/%s'", cg, rel);
	sh(path, "");
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", rel);
	snprintf(line, sizeof(line), "%d\n", pid);
	put(cg, procs, line);
}

static void rm(const char *dir, const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "rm -rf '%s/%s'", dir, rel);
	sh(path, "");
}

/* Apply until container `id` is in m named `name` (or 3 s passed). */
static const struct strobe_container *wait_named(struct model_watch *w,
						 struct strobe_model *m,
						 const char *id, const char *name)
{
	const struct strobe_container *c = NULL;
	int i, k;

	for (i = 0; i < 300; i++) {
		CHECK(model_watch_apply(w, m, NULL, NULL) >= 0);
		for (k = 2; k < strobe_model_nr_containers(m); k++) {
			const struct strobe_container *x = strobe_model_container(m, k);

			if (!strcmp(x->id, id))
				c = x;
		}
		if (c && (!name || !strcmp(c->name, name)))
			return c;
		msleep(10);
	}
	return c;
}

static void test_short_lived_containers_keep_their_names(void)
{
	const char *const roots[] = { cg, NULL };
	const struct strobe_container *c;
	struct strobe_task_info ti;
	struct model_watch *w = NULL;
	struct strobe_model *m = NULL;
	char *table = NULL;
	size_t len;

	make_root();
	put(cg, "libpod_parent/cgroup.procs", "");
	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_set_roots(m, proc, meta) == 0);
	REQUIRE(model_watch_start(&w, roots, proc, meta, NULL) == 0);
	msleep(50);	/* the thread has its watches */

	/* podman: containers.json, cgroupfs layout */
	put(meta, "var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" PM "\",\"names\":[\"writer\"],\"image\":\"\"}]");
	put_task(4242, "getppid_n", "/libpod_parent/libpod-" PM);
	put_task_ns(4240, "runc:[0:PARENT]", "/libpod_parent/libpod-" PM, false);
	start_cgroup("libpod_parent/libpod-" PM, 4240);
	msleep(20);
	put(cg, "libpod_parent/libpod-" PM "/cgroup.procs", "4240\n4242\n");
	/* docker, systemd layout, in a slice made after the start */
	put(meta, "var/lib/docker/containers/" DK "/config.v2.json",
	    "{\"ID\":\"" DK "\",\"Name\":\"/cron-job\",\"Config\":{\"Labels\":{}}}");
	put_task(4343, "backup", "/system.slice/docker-" DK ".scope");
	start_cgroup("system.slice/docker-" DK ".scope", 4343);
	/* a Kubernetes pod, every level made at once */
	put(meta, "run/containerd/io.containerd.runtime.v2.task/k8s.io/" K8 "/config.json",
	    "{\"ociVersion\":\"1.0.2\",\"annotations\":{"
	    "\"io.kubernetes.cri.container-name\":\"migrate\","
	    "\"io.kubernetes.cri.sandbox-name\":\"db-migrate-x7k2p\","
	    "\"io.kubernetes.cri.sandbox-namespace\":\"prod\"}}");
	put(meta, "var/log/pods/prod_db-migrate-x7k2p_" UID "/migrate/0.log", "");
	put_task(4444, "migrate", "/kubepods/besteffort/pod" UID "/" K8);
	start_cgroup("kubepods/besteffort/pod" UID "/" K8, 4444);
	/* no metadata at all */
	start_cgroup("libpod_parent/libpod-" NN, 4545);

	msleep(200);	/* a short life: real ones last 100 ms or more */
	/* --rm: everything gone before the model hears of it */
	rm(meta, "var");
	rm(meta, "run");
	rm(cg, "libpod_parent/libpod-" PM);
	rm(cg, "system.slice");
	rm(cg, "kubepods");
	rm(cg, "libpod_parent/libpod-" NN);

	c = wait_named(w, m, PM, "writer");
	CHECK(c && !strcmp(c->name, "writer") && c->runtime == STROBE_RT_PODMAN);
	c = wait_named(w, m, DK, "cron-job");
	CHECK(c && !strcmp(c->name, "cron-job"));
	c = wait_named(w, m, K8, "prod/db-migrate-x7k2p/migrate");
	CHECK(c && !strcmp(c->name, "prod/db-migrate-x7k2p/migrate"));
	CHECK_STR(c ? c->pod_uid : NULL, UID);
	{
		/* the pod's own cgroup, named from the kubelet's folder */
		int k;

		c = NULL;
		for (k = 2; k < strobe_model_nr_containers(m); k++) {
			const struct strobe_container *x = strobe_model_container(m, k);

			if (!x->id[0] && !strcmp(x->pod_uid, UID))
				c = x;
		}
		CHECK(c && !strcmp(c->name, "prod/db-migrate-x7k2p"));
	}
	c = wait_named(w, m, NN, NULL);
	CHECK(c && !strcmp(c->name, "0123456789ab"));

	/* the tasks, read while they lived: PID 1 inside, in their container */
	CHECK(model_watch_apply(w, m, NULL, NULL) >= 0);
	REQUIRE(strobe_model_table_write(m, &table, &len, NULL) == 0);
	CHECK(strstr(table, "A\t4242\t4242\t0\tgetppid_n\t"));
	CHECK(strstr(table, "\t4242,1\t4242,1\t"));
	free(table);
	/* proc fixture gone too: only the model knows */
	rm(proc, "4242");
	CHECK_EQ(strobe_model_task_info(m, 4242, &ti), 0);
	CHECK_EQ(ti.task->nstid, 1);
	CHECK_STR(ti.task->container->name, "writer");
	/* runc's first stage: in the container, not in its PID namespace */
	CHECK_EQ(strobe_model_task_info(m, 4240, &ti), 0);
	CHECK_STR(ti.task->container->name, "writer");
	CHECK_EQ(ti.task->nstid, -1);
	CHECK_EQ(ti.task->nstgid, -1);
	CHECK_EQ(ti.nr_nspid, 1);
	CHECK_EQ(strobe_model_task_info(m, 4343, &ti), 0);
	CHECK_STR(ti.task->container->name, "cron-job");

	/* the names survive the trip through a stored table */
	REQUIRE(strobe_model_table_write(m, &table, &len, NULL) == 0);
	{
		struct strobe_model *m2 = NULL;

		REQUIRE(strobe_model_new(&m2, NULL) == 0);
		CHECK_EQ(strobe_model_table_load(m2, table, len, NULL), 0);
		c = strobe_model_find_container(m2, "writer");
		CHECK(c && !strcmp(c->id, PM));
		c = strobe_model_find_container(m2, "prod/db-migrate-x7k2p/migrate");
		CHECK(c && !strcmp(c->id, K8));
		strobe_model_free(m2);
	}
	free(table);
	model_watch_free(w);
	strobe_model_free(m);
	sh("rm -rf '%s'", root);
}

static void test_containers_there_at_start_are_named(void)
{
	const char *const roots[] = { cg, NULL };
	const struct strobe_container *c;
	struct model_watch *w = NULL;
	struct strobe_model *m = NULL;
	char *table = NULL;
	size_t len;

	make_root();
	put(meta, "var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" PM "\",\"names\":[\"old-timer\"]}]");
	put_task(5151, "sleep", "/machine.slice/libpod-" PM ".scope");
	start_cgroup("machine.slice/libpod-" PM ".scope", 5151);
	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(model_watch_start(&w, roots, proc, meta, NULL) == 0);
	c = wait_named(w, m, PM, "old-timer");
	CHECK(c && !strcmp(c->name, "old-timer"));
	/* the tasks it has are the /proc snapshot's business */
	msleep(50);
	CHECK(model_watch_apply(w, m, NULL, NULL) >= 0);
	REQUIRE(strobe_model_table_write(m, &table, &len, NULL) == 0);
	CHECK(strstr(table, "\t5151\t") == NULL);
	free(table);
	/* a task it forks later is read while it lives (the slow poll) */
	put_task(5152, "worker", "/machine.slice/libpod-" PM ".scope");
	put(cg, "machine.slice/libpod-" PM ".scope/cgroup.procs", "5151\n5152\n");
	table = NULL;
	for (int i = 0; i < 100; i++) {
		msleep(10);
		CHECK(model_watch_apply(w, m, NULL, NULL) >= 0);
		free(table);
		REQUIRE(strobe_model_table_write(m, &table, &len, NULL) == 0);
		if (strstr(table, "A\t5152\t"))
			break;
	}
	CHECK(strstr(table, "A\t5152\t5152\t0\tworker\t2\t5152,1\t5152,1\t"));
	CHECK(strstr(table, "\t5151\t") == NULL);
	free(table);
	model_watch_free(w);
	strobe_model_free(m);
	sh("rm -rf '%s'", root);
}

static void test_watch_without_roots_fails_cleanly(void)
{
	const char *const roots[] = { "/nonexistent-strobe-cg", NULL };
	struct model_watch *w = (struct model_watch *)1;
	const char *const none[] = { NULL };

	/* a missing root: the thread starts and simply sees nothing */
	CHECK_EQ(model_watch_start(&w, roots, NULL, NULL, NULL), 0);
	CHECK_EQ(model_watch_apply(w, NULL, NULL, NULL), 0);
	model_watch_free(w);
	w = (struct model_watch *)1;
	CHECK_EQ(model_watch_start(&w, none, NULL, NULL, NULL), -ENOENT);
	CHECK(w == NULL);
	model_watch_free(NULL);
	CHECK_EQ(model_watch_apply(NULL, NULL, NULL, NULL), 0);
}

TESTS(T(test_short_lived_containers_keep_their_names),
      T(test_containers_there_at_start_are_named),
      T(test_watch_without_roots_fails_cleanly));
