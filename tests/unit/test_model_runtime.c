/*
 * test_model_runtime.c - container names from runtime metadata, over a
 * fixture tree written under /tmp (no runtime needs to be installed):
 * docker config.v2.json (and a daemon.json data-root), podman's
 * containers.json (rootful and rootless), cri-o's userdata config.json and
 * k8s_ storage names, containerd's k8s.io bundle config.json, the
 * kubelet's /var/log/containers links and /var/log/pods folders; plus the
 * short-ID fallback, malformed files and JSON escapes.
 *
 * The containers.json shape is the one podman 4 wrote on the development
 * VM for `podman run --name probe` (its "names" held the name).
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include "model/model-int.h"

#include "test.h"

#define OBS	"f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"
#define D	"9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define C	"7e1b3a7f0b3d5c2e9f8a6b4c2d0e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e"
#define X	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char root[64];

/* Write root/rel, creating parent directories. */
static void put(const char *rel, const char *text)
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
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/strobe-runtime-XXXXXX");
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

static void test_docker_config_v2_name(void)
{
	struct strobe_cgroup_id id = cg("/system.slice/docker-" D ".scope");
	struct strobe_container_meta m;
	char name[64], src[512];

	make_root();
	/* nested "Name" keys before the top-level one must not match */
	put("var/lib/docker/containers/" D "/config.v2.json",
	    "{\"StreamConfig\":{},\"State\":{\"Running\":true,\"Pid\":42,"
	    "\"Health\":null,\"Name\":\"nested\"},\"ID\":\"" D "\","
	    "\"Config\":{\"Hostname\":\"9ec39b91f3d7\",\"Labels\":{\"Name\":\"label\","
	    "\"com.docker.compose.service\":\"web\"},\"Cmd\":[\"nginx\",\"-g\"]},"
	    "\"Image\":\"sha256:abc\",\"Name\":\"/web-1\",\"Driver\":\"overlay2\"}");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_STR(m.name, "web-1");
	CHECK_EQ(m.runtime, STROBE_RT_DOCKER);
	snprintf(src, sizeof(src), "%s/var/lib/docker/containers/" D "/config.v2.json", root);
	CHECK_STR(m.source, src);
	CHECK_EQ(strobe_container_name(root, &id, name, sizeof(name)), 1);
	CHECK_STR(name, "web-1");
	CHECK_EQ(strobe_container_name(root, &id, name, 4), 1);
	CHECK_STR(name, "web");
	remove_root();
}

static void test_docker_data_root_and_kube_labels(void)
{
	struct strobe_cgroup_id id = cg("/kubepods/burstable/pod1234abcd-5678-90ef-1234-567890abcdef/" D);
	struct strobe_container_meta m;
	char name[128];

	make_root();
	put("etc/docker/daemon.json", "{ \"log-driver\": \"json-file\",\n  \"data-root\": \"/srv/docker\" }\n");
	put("srv/docker/containers/" D "/config.v2.json",
	    "{\"Config\":{\"Labels\":{\"io.kubernetes.container.name\":\"nginx\","
	    "\"io.kubernetes.pod.name\":\"web-7d9f\",\"io.kubernetes.pod.namespace\":\"prod\"}},"
	    "\"Name\":\"/k8s_nginx_web-7d9f_prod_1234_0\"}");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_EQ(m.runtime, STROBE_RT_DOCKER);	/* refined from kubepods */
	CHECK_STR(m.name, "nginx");
	CHECK_STR(m.pod, "web-7d9f");
	CHECK_STR(m.pod_ns, "prod");
	CHECK_EQ(strobe_container_name(root, &id, name, sizeof(name)), 1);
	CHECK_STR(name, "prod/web-7d9f/nginx");
	remove_root();
}

static void test_podman_containers_json(void)
{
	struct strobe_cgroup_id id = cg("/libpod_parent/libpod-" OBS);
	struct strobe_container_meta m;

	make_root();
	put("var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" X "\",\"names\":[\"other\"],\"image\":\"\"},"
	    "{\"id\":\"" OBS "\",\"names\":[\"probe\"],\"image\":\"\","
	    "\"layer\":\"dbd2728387433853d82a4ab70b423132982728f22beea0dd8a0c2df328066940\","
	    "\"metadata\":\"{\\\"image-name\\\":\\\"\\\",\\\"image-id\\\":\\\"\\\","
	    "\\\"name\\\":\\\"probe\\\",\\\"created-at\\\":1795267635}\","
	    "\"created\":\"2026-11-21T13:27:15.220562033Z\","
	    "\"flags\":{\"MountLabel\":\"\",\"ProcessLabel\":\"\"}}]");
	/* podman's own bundle config.json has no name: it must fall through */
	put("var/lib/containers/storage/overlay-containers/" OBS "/userdata/config.json",
	    "{\"ociVersion\":\"1.0.0\",\"annotations\":{\"io.container.manager\":\"libpod\"}}");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_STR(m.name, "probe");
	CHECK_EQ(m.runtime, STROBE_RT_PODMAN);
	CHECK(strstr(m.source, "overlay-containers/containers.json") != NULL);
	remove_root();
}

static void test_podman_rootless(void)
{
	struct passwd *pw = getpwuid(getuid());
	struct strobe_cgroup_id id;
	struct strobe_container_meta m;
	char path[512], rel[400];

	if (!pw) {
		printf("SKIP test_podman_rootless: no passwd entry\n");
		return;
	}
	snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service/"
		 "user.slice/libpod-" C ".scope", getuid(), getuid());
	id = cg(path);
	CHECK_EQ(id.rootless_uid, (int)getuid());
	make_root();
	snprintf(rel, sizeof(rel), "%s/.local/share/containers/storage/"
		 "overlay-containers/containers.json", pw->pw_dir + 1);
	put(rel, "[{\"id\":\"" C "\",\"names\":[\"mine\"]}]");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_STR(m.name, "mine");
	remove_root();
}

static void test_crio_annotations_and_storage_names(void)
{
	struct strobe_cgroup_id id = cg("/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod1234abcd_5678_90ef_1234_567890abcdef.slice/crio-" C ".scope");
	struct strobe_cgroup_id id2 = cg("/kubepods/besteffort/pod1234abcd-5678-90ef-1234-567890abcdef/crio-" D);
	struct strobe_container_meta m;
	char name[128];

	make_root();
	put("run/containers/storage/overlay-containers/" C "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.container.name\":\"coredns\","
	    "\"io.kubernetes.pod.name\":\"coredns-5d78c9869d-abcde\","
	    "\"io.kubernetes.pod.namespace\":\"kube-system\","
	    "\"io.kubernetes.cri-o.ContainerType\":\"container\"}}");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_EQ(m.runtime, STROBE_RT_CRIO);
	CHECK_STR(m.name, "coredns");
	CHECK_STR(m.pod, "coredns-5d78c9869d-abcde");
	CHECK_EQ(strobe_container_name(root, &id, name, sizeof(name)), 1);
	CHECK_STR(name, "kube-system/coredns-5d78c9869d-abcde/coredns");

	put("var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" D "\",\"names\":[\"k8s_etcd_etcd-node1_kube-system_0f9a_1\"]}]");
	CHECK_EQ(strobe_container_lookup(root, &id2, &m), 1);
	CHECK_STR(m.name, "etcd");
	CHECK_STR(m.pod, "etcd-node1");
	CHECK_STR(m.pod_ns, "kube-system");
	remove_root();
}

static void test_containerd_k8s_bundle(void)
{
	struct strobe_cgroup_id id = cg("/kubepods/besteffort/pod1234abcd-5678-90ef-1234-567890abcdef/" C);
	struct strobe_cgroup_id sb = cg("/kubepods/besteffort/pod1234abcd-5678-90ef-1234-567890abcdef/" X);
	struct strobe_container_meta m;
	char name[128];

	make_root();
	put("run/containerd/io.containerd.runtime.v2.task/k8s.io/" C "/config.json",
	    "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"/pause\"]},"
	    "\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
	    "\"io.kubernetes.cri.container-name\":\"nginx\","
	    "\"io.kubernetes.cri.sandbox-name\":\"web-7d9f\","
	    "\"io.kubernetes.cri.sandbox-namespace\":\"default\"}}");
	put("run/containerd/io.containerd.runtime.v2.task/k8s.io/" X "/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri.container-type\":\"sandbox\","
	    "\"io.kubernetes.cri.sandbox-name\":\"web-7d9f\","
	    "\"io.kubernetes.cri.sandbox-namespace\":\"default\"}}");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_EQ(m.runtime, STROBE_RT_CONTAINERD);
	CHECK_STR(m.name, "nginx");
	CHECK_EQ(strobe_container_name(root, &id, name, sizeof(name)), 1);
	CHECK_STR(name, "default/web-7d9f/nginx");
	CHECK_EQ(strobe_container_name(root, &sb, name, sizeof(name)), 1);
	CHECK_STR(name, "default/web-7d9f");
	remove_root();
}

static void test_missing_runtime_falls_back_to_short_id(void)
{
	static const char *const paths[] = {
		"/system.slice/docker-" D ".scope", "/machine.slice/libpod-" C ".scope",
		"/kubepods/pod1234abcd-5678-90ef-1234-567890abcdef/" C,
		"/system.slice/crio-" C ".scope", "/system.slice/cri-containerd-" C ".scope",
		"/ecs/abc/" X,
	};
	struct strobe_container_meta m;
	char name[64];
	size_t i;

	make_root();
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct strobe_cgroup_id id = cg(paths[i]);

		CHECK_EQ(strobe_container_lookup(root, &id, &m), 0);
		CHECK_STR(m.name, id.short_id);
		CHECK_STR(m.source, "");
		CHECK_EQ(strobe_container_name(root, &id, name, sizeof(name)), 0);
		CHECK_STR(name, id.short_id);
	}
	remove_root();
}

static void test_no_container_id(void)
{
	struct strobe_cgroup_id host = cg("/init.scope");
	struct strobe_cgroup_id pod = cg("/kubepods/pod1234abcd-5678-90ef-1234-567890abcdef");
	struct strobe_cgroup_id lxc = cg("/lxc.payload.web01");
	struct strobe_container_meta m;
	char name[16];

	CHECK_EQ(strobe_container_lookup(NULL, &host, &m), -EINVAL);
	CHECK_EQ(strobe_container_lookup(NULL, &pod, &m), -EINVAL);
	CHECK_EQ(strobe_container_lookup(NULL, NULL, &m), -EINVAL);
	CHECK_EQ(strobe_container_name(NULL, &host, name, sizeof(name)), -EINVAL);
	CHECK_STR(name, "");
	CHECK_EQ(strobe_container_name(NULL, &lxc, name, 0), -EINVAL);
	CHECK_EQ(strobe_container_name(NULL, &lxc, name, sizeof(name)), 1);
	CHECK_STR(name, "web01");
}

static void test_malformed_metadata_is_not_an_error(void)
{
	static const char *const bad[] = {
		"", "{", "[", "{\"Name\":", "{\"Name\":\"/unterminated", "null",
		"{\"Name\":42}", "{\"a\":[1,2,{\"b\":1}}],\"Name\":\"/x\"}", "\xff\xfe",
		"{\"Config\":{\"Labels\":[]},\"Name\":\"/\\u12\"}",
	};
	struct strobe_cgroup_id id = cg("/docker/" D);
	struct strobe_container_meta m;
	size_t i;

	make_root();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put("var/lib/docker/containers/" D "/config.v2.json", bad[i]);
		if (strobe_container_lookup(root, &id, &m) != 0 ||
		    strcmp(m.name, "9ec39b91f3d7")) {
			test_failed_checks++;
			fprintf(stderr, "  bad[%zu] gave name '%s'\n", i, m.name);
		}
	}
	remove_root();
}

static void test_json_escapes_and_deep_nesting(void)
{
	static const char esc[] =
		"{\"Name\":\"/w\\u00e9b\\\"x\\\\y\\/z\\n\\ud800\"}";
	struct strobe_container_meta m;
	char *deep;
	size_t i, n = 200000;

	memset(&m, 0, sizeof(m));
	CHECK_EQ(strobe_meta_parse(STROBE_META_DOCKER_CONFIG, esc, strlen(esc), NULL, &m), 1);
	CHECK_STR(m.name, "w\xc3\xa9" "b\"x\\y/z??");

	/* 200k nested arrays before the key: no recursion, no crash */
	deep = malloc(2 * n + 64);
	if (!deep)
		abort();
	deep[0] = '{';
	memcpy(deep + 1, "\"a\":", 4);
	for (i = 0; i < n; i++)
		deep[5 + i] = '[';
	for (i = 0; i < n; i++)
		deep[5 + n + i] = ']';
	strcpy(deep + 5 + 2 * n, ",\"Name\":\"/deep\"}");
	memset(&m, 0, sizeof(m));
	CHECK_EQ(strobe_meta_parse(STROBE_META_DOCKER_CONFIG, deep, strlen(deep), NULL, &m), 1);
	CHECK_STR(m.name, "deep");
	free(deep);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Anyone may plant a FIFO (open would block forever) or a symlink to
 * /dev/zero (read would never end) where rootless podman keeps its
 * metadata.  The lookup skips them at once, says so in m.warning, prints
 * nothing, and still finds the name in the next store.
 */
static void test_fifo_and_symlink_at_podman_metadata_are_skipped_with_warning(void)
{
	struct passwd *pw = getpwuid(getuid());
	struct strobe_container_meta m;
	struct strobe_cgroup_id id;
	char path[600], rel[400];
	double t0;
	int r;

	if (!pw) {
		printf("SKIP test_fifo_and_symlink_at_podman_metadata: no passwd entry\n");
		return;
	}
	snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service/"
		 "user.slice/libpod-" C ".scope", getuid(), getuid());
	id = cg(path);
	make_root();
	/* home store: a FIFO as containers.json, a FIFO as the container's
	 * userdata/config.json */
	snprintf(rel, sizeof(rel), "%s/.local/share/containers/storage/"
		 "overlay-containers/containers.json", pw->pw_dir + 1);
	put(rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	REQUIRE(mkfifo(path, 0666) == 0);
	snprintf(rel, sizeof(rel), "%s/.local/share/containers/storage/"
		 "overlay-containers/" C "/userdata/config.json", pw->pw_dir + 1);
	put(rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	REQUIRE(mkfifo(path, 0666) == 0);
	/* runtime store: symlinks to /dev/zero */
	snprintf(rel, sizeof(rel), "run/user/%u/containers/overlay-containers/"
		 "containers.json", getuid());
	put(rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	REQUIRE(symlink("/dev/zero", path) == 0);

	t0 = now_s();
	r = strobe_container_lookup(root, &id, &m);
	CHECK(now_s() - t0 < 1.0);
	CHECK_EQ(r, 0);				/* fell back to the short ID */
	CHECK_STR(m.name, "7e1b3a7f0b3d");
	CHECK(strstr(m.warning, "userdata/config.json") != NULL);
	CHECK(strstr(m.warning, "not a regular file (a FIFO)") != NULL);

	/* only the symlink left in the way: said so; then the system store
	 * (further down the list) still answers */
	snprintf(rel, sizeof(rel), "%s/.local", pw->pw_dir + 1);
	snprintf(path, sizeof(path), "rm -rf '%s/%s'", root, rel);
	REQUIRE(system(path) == 0);
	t0 = now_s();
	r = strobe_container_lookup(root, &id, &m);
	CHECK(now_s() - t0 < 1.0);
	CHECK_EQ(r, 0);
	CHECK(strstr(m.warning, "containers.json: is a symlink") != NULL);
	put("var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" C "\",\"names\":[\"behind\"]}]");
	CHECK_EQ(strobe_container_lookup(root, &id, &m), 1);
	CHECK_STR(m.name, "behind");
	CHECK(strstr(m.warning, "is a symlink") != NULL);
	remove_root();
}

/* A link named as the kubelet names it, pointing nowhere (never followed). */
static void link_at(const char *rel)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	if (symlink("/nonexistent/strobe/0.log", path) < 0)
		abort();
}

static void test_kubelet_log_links_name_any_runtime(void)
{
	/* cgroupfs kubepods (no runtime in the path), and a CRI-O scope in a
	 * pod slice, with no runtime metadata left: the kubelet's links */
	struct strobe_cgroup_id kp = cg("/kubepods/burstable/pod1234abcd-5678-90ef-1234-567890abcdef/" C);
	struct strobe_cgroup_id cr = cg("/kubepods.slice/kubepods-besteffort.slice/"
					"kubepods-besteffort-pod1234abcd_5678_90ef_1234_567890abcdef.slice/"
					"crio-" X ".scope");
	struct strobe_cgroup_id dk = cg("/docker/" D);
	struct strobe_container_meta m;
	char name[128];

	make_root();
	link_at("var/log/containers/web-7d9f-abcde_default_nginx-" C ".log");
	link_at("var/log/containers/etcd-node1_kube-system_etcd-" X ".log");
	/* malformed names are skipped: too few or too many fields */
	link_at("var/log/containers/lonely_nginx-" D ".log");
	link_at("var/log/containers/a_b_c_d-" D ".log");
	CHECK_EQ(strobe_container_lookup(root, &kp, &m), 1);
	CHECK_STR(m.name, "nginx");
	CHECK_STR(m.pod, "web-7d9f-abcde");
	CHECK_STR(m.pod_ns, "default");
	CHECK(strstr(m.source, "/var/log/containers/web-7d9f-abcde_default_nginx-") != NULL);
	CHECK_EQ(strobe_container_name(root, &kp, name, sizeof(name)), 1);
	CHECK_STR(name, "default/web-7d9f-abcde/nginx");
	CHECK_EQ(strobe_container_name(root, &cr, name, sizeof(name)), 1);
	CHECK_STR(name, "kube-system/etcd-node1/etcd");
	/* not in a pod: docker's own metadata or nothing */
	CHECK_EQ(strobe_container_lookup(root, &dk, &m), 0);
	CHECK_STR(m.name, "9ec39b91f3d7");
	remove_root();
}

static void test_kubelet_pod_dirs_name_pod_cgroups(void)
{
	struct strobe_cgroup_id pod = cg("/kubepods/besteffort/pod1234abcd-5678-90ef-1234-567890abcdef");
	const char *path = "/kubepods/besteffort/pod1234abcd-5678-90ef-1234-567890abcdef";
	const struct mpath *mp;
	struct strobe_container_meta m;
	struct strobe_model *model = NULL;

	make_root();
	put("var/log/pods/prod_db-migrate-x7k2p_1234abcd-5678-90ef-1234-567890abcdef/migrate/0.log", "");
	put("var/log/pods/prod_other_99999999-5678-90ef-1234-567890abcdef/x/0.log", "");
	CHECK_EQ(strobe_pod_lookup(root, pod.pod_uid, &m), 1);
	CHECK_STR(m.pod, "db-migrate-x7k2p");
	CHECK_STR(m.pod_ns, "prod");
	CHECK_EQ(strobe_pod_lookup(root, "../x", &m), -EINVAL);
	CHECK_EQ(strobe_pod_lookup(root, "00000000-5678-90ef-1234-567890abcdef", &m), 0);
	/* the model names a pod's own cgroup so */
	REQUIRE(strobe_model_new(&model, NULL) == 0);
	REQUIRE(strobe_model_set_roots(model, "/nonexistent-proc", root) == 0);
	strobe_model_set_options(model, STROBE_MODEL_NAMES);
	mp = model_path(model, path, strlen(path));
	CHECK(mp && !strcmp(mp->c->name, "prod/db-migrate-x7k2p"));
	strobe_model_free(model);
	remove_root();
}

TESTS(T(test_docker_config_v2_name),
      T(test_docker_data_root_and_kube_labels),
      T(test_podman_containers_json),
      T(test_podman_rootless),
      T(test_crio_annotations_and_storage_names),
      T(test_containerd_k8s_bundle),
      T(test_missing_runtime_falls_back_to_short_id),
      T(test_no_container_id),
      T(test_malformed_metadata_is_not_an_error),
      T(test_json_escapes_and_deep_nesting),
      T(test_fifo_and_symlink_at_podman_metadata_are_skipped_with_warning),
      T(test_kubelet_log_links_name_any_runtime),
      T(test_kubelet_pod_dirs_name_pod_cgroups));
