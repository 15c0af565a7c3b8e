/*
 * test_model_cgroup.c - cgroup path -> container identity, over a table of
 * real-world paths (docker, containerd, cri-o, podman, Kubernetes, lxc;
 * systemd and cgroupfs drivers; cgroup v1 and v2), whole /proc/<pid>/cgroup
 * files, and garbage.
 *
 * Strings marked "observed" were read on the development VM (kernel
 * 6.18, hybrid cgroup v1 + v2) from `podman --runtime runc
 * --cgroup-manager cgroupfs run ... cat /proc/self/cgroup`.
 */
#include <errno.h>
#include <stdbool.h>

#include <strobe/strobe.h>
#include <strobe/model.h>

#include "test.h"

/* observed: podman 4 + runc, cgroupfs driver, on this VM */
#define OBS	"f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"
#define OBS2	"4a53c0b4e29d677877bc02ef43245282a49ed5258efcbf1b555ac05bbf918f8c"
#define D	"9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define C	"7e1b3a7f0b3d5c2e9f8a6b4c2d0e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e"
#define D2	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID	"1234abcd-5678-90ef-1234-567890abcdef"
#define UID_	"1234abcd_5678_90ef_1234_567890abcdef"
#define SUID	"0f9a9e1c2d3b4a5f6e7d8c9b0a1f2e3d"	/* static pod: a hash */

struct cg_case {
	const char *path;
	enum strobe_runtime rt;
	const char *id;
	const char *pod;
	enum strobe_qos qos;
	bool conmon;
	int uid;		/* rootless_uid */
};

#define H(p)		{ p, STROBE_RT_HOST, "", "", STROBE_QOS_NONE, false, -1 }
#define CT(p, r, i)	{ p, r, i, "", STROBE_QOS_NONE, false, -1 }

static const struct cg_case cases[] = {
	/* host */
	H("/"),
	H("/init.scope"),
	H("/system.slice/sshd.service"),
	H("/system.slice/docker.service"),
	H("/system.slice/containerd.service"),
	H("/user.slice/user-1000.slice/session-3.scope"),
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome.scope",
	  STROBE_RT_HOST, "", "", STROBE_QOS_NONE, false, 1000 },
	H("/docker"),
	H("/kubepods"),
	H("/kubepods/besteffort"),
	H("/kubepods.slice/kubepods-besteffort.slice"),
	H("/machine.slice/machine-qemu\\x2d1\\x2dvm.scope"),
	H("/process_api/120bba545e7ae74d49e7d5b03868ea4b"),	/* observed: 32 hex */
	H("/libpod_parent/conmon"),				/* observed: conmon */
	H("/docker/" "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3"),
	H("/system.slice/docker-" "9EC39B91F3D70E1BEFF50A308F77067065EA6BE0D91A3378375056CD4422CF3D.scope"),
	H("/system.slice/docker-" D ".scope.bak"),
	H("/../../.."),

	/* docker */
	CT("/system.slice/docker-" D ".scope", STROBE_RT_DOCKER, D),
	CT("/docker/" D, STROBE_RT_DOCKER, D),
	CT("/docker/" D "/init.scope", STROBE_RT_DOCKER, D),
	CT("/docker/" D "/system.slice/nginx.service", STROBE_RT_DOCKER, D),
	CT("/docker/" D "/docker/" D2, STROBE_RT_DOCKER, D),	/* dind: outer */
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/docker-" D ".scope",
	  STROBE_RT_DOCKER, D, "", STROBE_QOS_NONE, false, 1000 },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/docker-" D ".scope",
	  STROBE_RT_DOCKER, D, UID, STROBE_QOS_BURSTABLE, false, -1 },
	/* kind: a Kubernetes node in a docker container is that container */
	CT("/system.slice/docker-" D ".scope/kubelet.slice/kubelet-kubepods.slice/"
	   "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID_
	   ".slice/cri-containerd-" C ".scope", STROBE_RT_DOCKER, D),

	/* containerd (CRI) */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" C ".scope",
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_BURSTABLE, false, -1 },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" C ".scope",
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" C ".scope",
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_GUARANTEED, false, -1 },
	{ "/kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" C,
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },
	{ "/system.slice/containerd.service/kubepods-burstable-pod" UID_
	  ".slice:cri-containerd:" C,
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_BURSTABLE, false, -1 },
	{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" C ".scope",
	  STROBE_RT_CONTAINERD, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },

	/* Kubernetes, cgroupfs driver: the runtime is not in the path */
	{ "/kubepods/besteffort/pod" UID "/" C,
	  STROBE_RT_KUBEPODS, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },
	{ "/kubepods/burstable/pod" UID "/" C,
	  STROBE_RT_KUBEPODS, C, UID, STROBE_QOS_BURSTABLE, false, -1 },
	{ "/kubepods/pod" UID "/" C,
	  STROBE_RT_KUBEPODS, C, UID, STROBE_QOS_GUARANTEED, false, -1 },
	{ "/kubepods/burstable/pod" SUID "/" C,
	  STROBE_RT_KUBEPODS, C, SUID, STROBE_QOS_BURSTABLE, false, -1 },
	{ "/kubepods/burstable/pod" UID,		/* pod-level cgroup */
	  STROBE_RT_KUBEPODS, "", UID, STROBE_QOS_BURSTABLE, false, -1 },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
	  STROBE_RT_KUBEPODS, "", UID, STROBE_QOS_BURSTABLE, false, -1 },
	/* a malformed pod UID: no pod, the ID is kept as unknown */
	CT("/kubepods/besteffort/podxyz/" C, STROBE_RT_UNKNOWN, C),

	/* cri-o */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/crio-" C ".scope",
	  STROBE_RT_CRIO, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/crio-conmon-" C ".scope",
	  STROBE_RT_CRIO, C, UID, STROBE_QOS_BESTEFFORT, true, -1 },
	{ "/kubepods/besteffort/pod" UID "/crio-" C,
	  STROBE_RT_CRIO, C, UID, STROBE_QOS_BESTEFFORT, false, -1 },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" C ".scope/container",
	  STROBE_RT_CRIO, C, UID, STROBE_QOS_GUARANTEED, false, -1 },

	/* podman */
	CT("/libpod_parent/libpod-" OBS, STROBE_RT_PODMAN, OBS),	/* observed */
	CT("/libpod_parent/libpod-" OBS2, STROBE_RT_PODMAN, OBS2),	/* observed */
	CT("/libpod_parent/" D2 "/libpod-" OBS, STROBE_RT_PODMAN, OBS),	/* pod */
	CT("/machine.slice/libpod-" C ".scope", STROBE_RT_PODMAN, C),
	CT("/machine.slice/libpod-" C ".scope/container", STROBE_RT_PODMAN, C),
	CT("/machine.slice/libpod-payload-" C ".scope", STROBE_RT_PODMAN, C),
	CT("/machine.slice/machine-libpod_pod_" D2 ".slice/libpod-" C ".scope",
	   STROBE_RT_PODMAN, C),
	{ "/machine.slice/libpod-conmon-" C ".scope",
	  STROBE_RT_PODMAN, C, "", STROBE_QOS_NONE, true, -1 },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" C ".scope",
	  STROBE_RT_PODMAN, C, "", STROBE_QOS_NONE, false, 1000 },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" C
	  ".scope/container", STROBE_RT_PODMAN, C, "", STROBE_QOS_NONE, false, 1000 },

	/* lxc */
	CT("/lxc/web01", STROBE_RT_LXC, "web01"),
	CT("/lxc.payload.web01", STROBE_RT_LXC, "web01"),
	CT("/lxc.payload.web01/system.slice/cron.service", STROBE_RT_LXC, "web01"),
	{ "/lxc.monitor.web01", STROBE_RT_LXC, "web01", "", STROBE_QOS_NONE, true, -1 },

	/* an ID under something we do not know */
	CT("/ecs/0f1e2d3c4b5a69788796a5b4c3d2e1f0/" D, STROBE_RT_UNKNOWN, D),
	CT("/" D, STROBE_RT_UNKNOWN, D),
	CT("/system.slice/mystery-" D ".scope", STROBE_RT_UNKNOWN, D),
	CT("/garden/" D "/docker-" C ".scope", STROBE_RT_DOCKER, C),	/* strong wins */
	CT("//docker//" D "/", STROBE_RT_DOCKER, D),
};

static void test_cgroup_paths_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cg_case *c = &cases[i];
		struct strobe_cgroup_id id;
		char shrt[13];
		int r = strobe_cgroup_parse_path(c->path, strlen(c->path), &id);

		snprintf(shrt, sizeof(shrt), "%s", c->id);
		if (r != (c->rt != STROBE_RT_HOST) || id.runtime != c->rt ||
		    strcmp(id.id, c->id) || strcmp(id.short_id, shrt) ||
		    strcmp(id.pod_uid, c->pod) || id.qos != c->qos ||
		    id.conmon != c->conmon || id.rootless_uid != c->uid) {
			test_failed_checks++;
			fprintf(stderr, "  case %zu %s\n    got r=%d %s id=%s short=%s "
				"pod=%s qos=%s conmon=%d uid=%d\n", i, c->path, r,
				strobe_runtime_name(id.runtime), id.id, id.short_id,
				id.pod_uid, strobe_qos_name(id.qos), id.conmon,
				id.rootless_uid);
		}
	}
}

static void test_cgroup_path_not_nul_terminated(void)
{
	static const char buf[] = "/docker/" D "XXXX";
	struct strobe_cgroup_id id;

	CHECK_EQ(strobe_cgroup_parse_path(buf, strlen(buf) - 4, &id), 1);
	CHECK_STR(id.id, D);
	CHECK_STR(id.short_id, "9ec39b91f3d7");
}

static void test_cgroup_path_rejects_garbage(void)
{
	static char longp[STROBE_CGROUP_PATH_MAX + 2];
	struct strobe_cgroup_id id;

	CHECK_EQ(strobe_cgroup_parse_path("", 0, &id), -EINVAL);
	CHECK_EQ(strobe_cgroup_parse_path(NULL, 3, &id), -EINVAL);
	CHECK_EQ(strobe_cgroup_parse_path("docker/" D, 71, &id), -EINVAL);
	CHECK_EQ(strobe_cgroup_parse_path("/a\nb", 4, &id), -EINVAL);
	CHECK_EQ(strobe_cgroup_parse_path("/a\0b", 4, &id), -EINVAL);
	CHECK_EQ(id.runtime, STROBE_RT_HOST);
	CHECK_EQ(id.rootless_uid, -1);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	CHECK_EQ(strobe_cgroup_parse_path(longp, STROBE_CGROUP_PATH_MAX + 1, &id),
		 -ENAMETOOLONG);
	CHECK_EQ(strobe_cgroup_parse_path(longp, STROBE_CGROUP_PATH_MAX, &id), 0);
	CHECK_EQ(strobe_cgroup_parse_path("/user.slice/user@99999999999.service",
					  36, &id), 0);
	CHECK_EQ(id.rootless_uid, -1);
}

/* observed: the whole /proc/self/cgroup inside the podman+runc container */
static const char observed_podman[] =
	"9:name=systemd:/libpod_parent/libpod-" OBS "\n"
	"8:pids:/libpod_parent/libpod-" OBS "\n"
	"7:blkio:/libpod_parent/libpod-" OBS "\n"
	"6:freezer:/libpod_parent/libpod-" OBS "\n"
	"5:devices:/libpod_parent/libpod-" OBS "\n"
	"4:memory:/libpod_parent/libpod-" OBS "\n"
	"3:cpuset:/libpod_parent/libpod-" OBS "\n"
	"2:cpuacct:/libpod_parent/libpod-" OBS "\n"
	"1:cpu:/libpod_parent/libpod-" OBS "\n"
	"0::/libpod_parent/libpod-" OBS "\n";

/* observed: a host shell on the same VM */
static const char observed_host[] =
	"9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
	"4:memory:/process_api/120bba545e7ae74d49e7d5b03868ea4b\n"
	"3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";

/* observed: podman's conmon (cgroupfs driver): v1 moved, v2 untouched */
static const char observed_conmon[] =
	"9:name=systemd:/\n8:pids:/libpod_parent/conmon\n4:memory:/\n0::/\n";

/* cgroup v1, systemd driver (CentOS 7 docker), no v2 line */
static const char v1_docker_systemd[] =
	"11:hugetlb:/system.slice/docker-" D ".scope\n"
	"10:memory:/system.slice/docker-" D ".scope\n"
	"9:cpuacct,cpu:/system.slice/docker-" D ".scope\n"
	"8:pids:/system.slice/docker-" D ".scope\n"
	"1:name=systemd:/system.slice/docker-" D ".scope\n";

/* hybrid: systemd did not move the task in v2, docker (cgroupfs) did in v1 */
static const char hybrid_docker[] =
	"12:cpu,cpuacct:/docker/" D "\n"
	"5:memory:/docker/" D "\n"
	"3:pids:/docker/" D "\n"
	"1:name=systemd:/docker/" D "\n"
	"0::/\n";

/* v1 Kubernetes cgroupfs */
static const char v1_kube[] =
	"11:perf_event:/kubepods/besteffort/pod" UID "/" C "\n"
	"4:cpu,cpuacct:/kubepods/besteffort/pod" UID "/" C "\n"
	"1:name=systemd:/kubepods/besteffort/pod" UID "/" C;	/* no final \n */

static void test_cgroup_proc_observed_podman(void)
{
	struct strobe_cgroup_id id;
	char path[256];

	CHECK_EQ(strobe_cgroup_parse_proc(observed_podman, strlen(observed_podman),
					  path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_PODMAN);
	CHECK_STR(id.id, OBS);
	CHECK_STR(id.short_id, "f307780c078f");
	CHECK_STR(path, "/libpod_parent/libpod-" OBS);
}

static void test_cgroup_proc_observed_host_and_conmon(void)
{
	struct strobe_cgroup_id id;
	char path[256];

	CHECK_EQ(strobe_cgroup_parse_proc(observed_host, strlen(observed_host),
					  path, sizeof(path), &id), 0);
	CHECK_EQ(id.runtime, STROBE_RT_HOST);
	CHECK_STR(path, "/");
	CHECK_EQ(strobe_cgroup_parse_proc(observed_conmon, strlen(observed_conmon),
					  path, sizeof(path), &id), 0);
	CHECK_STR(path, "/");
}

static void test_cgroup_proc_v1_multiline(void)
{
	struct strobe_cgroup_id id;
	char path[256];

	CHECK_EQ(strobe_cgroup_parse_proc(v1_docker_systemd, strlen(v1_docker_systemd),
					  path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_DOCKER);
	CHECK_STR(id.id, D);
	CHECK_STR(path, "/system.slice/docker-" D ".scope");

	CHECK_EQ(strobe_cgroup_parse_proc(v1_kube, strlen(v1_kube),
					  path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_KUBEPODS);
	CHECK_STR(id.pod_uid, UID);
	CHECK_EQ(id.qos, STROBE_QOS_BESTEFFORT);
}

static void test_cgroup_proc_hybrid_falls_back_to_v1(void)
{
	struct strobe_cgroup_id id;
	char path[256];

	CHECK_EQ(strobe_cgroup_parse_proc(hybrid_docker, strlen(hybrid_docker),
					  path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_DOCKER);
	CHECK_STR(path, "/docker/" D);	/* from the pids line */
}

static void test_cgroup_proc_prefers_v2_then_pids(void)
{
	static const char both[] =
		"4:memory:/docker/" D2 "\n"
		"3:pids:/docker/" D "\n"
		"0::/system.slice/docker-" C ".scope\n";
	static const char v1[] =
		"6:memory:/docker/" D2 "\n"
		"5:blkio:/docker/" C "\n"
		"4:cpu,cpuacct:/docker/" OBS "\n"
		"3:pids:/docker/" D "\n";
	static const char other[] = "7:blkio:/docker/" C "\n2:memory:/\n";
	struct strobe_cgroup_id id;

	CHECK_EQ(strobe_cgroup_parse_proc(both, strlen(both), NULL, 0, &id), 1);
	CHECK_STR(id.id, C);
	CHECK_EQ(strobe_cgroup_parse_proc(v1, strlen(v1), NULL, 0, &id), 1);
	CHECK_STR(id.id, D);
	/* a container only in a controller we do not rank still counts */
	CHECK_EQ(strobe_cgroup_parse_proc(other, strlen(other), NULL, 0, &id), 1);
	CHECK_STR(id.id, C);
}

static void test_cgroup_proc_single_line_and_bare_path(void)
{
	static const char v2[] = "0::/kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" C "\n";
	static const char bare[] = "/machine.slice/libpod-" C ".scope/container\n";
	struct strobe_cgroup_id id;
	char path[256];

	CHECK_EQ(strobe_cgroup_parse_proc(v2, strlen(v2), path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_CONTAINERD);
	CHECK_STR(id.pod_uid, UID);
	CHECK_STR(path, "/kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" C);
	CHECK_EQ(strobe_cgroup_parse_proc(bare, strlen(bare), path, sizeof(path), &id), 1);
	CHECK_EQ(id.runtime, STROBE_RT_PODMAN);
	CHECK_STR(path, "/machine.slice/libpod-" C ".scope/container");
}

static void test_cgroup_proc_small_path_buffer(void)
{
	struct strobe_cgroup_id id;
	char path[16] = "junk";

	CHECK_EQ(strobe_cgroup_parse_proc(observed_podman, strlen(observed_podman),
					  path, sizeof(path), &id), -ENOBUFS);
	CHECK_STR(path, "");
	CHECK_EQ(id.runtime, STROBE_RT_PODMAN);	/* still filled */
}

static void test_cgroup_proc_rejects_garbage(void)
{
	static const char *const bad[] = {
		"", "hello", "x:y:z", "::", "0::relative", "a:b:/c", "\n\n\n",
		"12:memory", ":memory:/docker", "\xff\xfe:\x01:/", "0::",
	};
	static const char mixed[] = "garbage\n0::/docker/" D "\n::\n";
	struct strobe_cgroup_id id;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = strobe_cgroup_parse_proc(bad[i], strlen(bad[i]), NULL, 0, &id);

		if (r != -EINVAL) {
			test_failed_checks++;
			fprintf(stderr, "  bad[%zu] gave %d\n", i, r);
		}
	}
	CHECK_EQ(strobe_cgroup_parse_proc(NULL, 5, NULL, 0, &id), -EINVAL);
	CHECK_EQ(strobe_cgroup_parse_proc(mixed, strlen(mixed), NULL, 0, &id), 1);
	CHECK_STR(id.id, D);
}

static void test_cgroup_names(void)
{
	CHECK_STR(strobe_runtime_name(STROBE_RT_HOST), "host");
	CHECK_STR(strobe_runtime_name(STROBE_RT_DOCKER), "docker");
	CHECK_STR(strobe_runtime_name(STROBE_RT_CONTAINERD), "containerd");
	CHECK_STR(strobe_runtime_name(STROBE_RT_CRIO), "cri-o");
	CHECK_STR(strobe_runtime_name(STROBE_RT_PODMAN), "podman");
	CHECK_STR(strobe_runtime_name(STROBE_RT_KUBEPODS), "kubepods");
	CHECK_STR(strobe_runtime_name(STROBE_RT_LXC), "lxc");
	CHECK_STR(strobe_runtime_name(STROBE_RT_UNKNOWN), "unknown");
	CHECK_STR(strobe_runtime_name(STROBE_RT_NR), "?");
	CHECK_STR(strobe_runtime_name((enum strobe_runtime)-1), "?");
	CHECK_STR(strobe_qos_name(STROBE_QOS_NONE), "");
	CHECK_STR(strobe_qos_name(STROBE_QOS_GUARANTEED), "guaranteed");
	CHECK_STR(strobe_qos_name(STROBE_QOS_BURSTABLE), "burstable");
	CHECK_STR(strobe_qos_name(STROBE_QOS_BESTEFFORT), "besteffort");
	CHECK_STR(strobe_qos_name((enum strobe_qos)9), "?");
}

TESTS(T(test_cgroup_paths_table),
      T(test_cgroup_path_not_nul_terminated),
      T(test_cgroup_path_rejects_garbage),
      T(test_cgroup_proc_observed_podman),
      T(test_cgroup_proc_observed_host_and_conmon),
      T(test_cgroup_proc_v1_multiline),
      T(test_cgroup_proc_hybrid_falls_back_to_v1),
      T(test_cgroup_proc_prefers_v2_then_pids),
      T(test_cgroup_proc_single_line_and_bare_path),
      T(test_cgroup_proc_small_path_buffer),
      T(test_cgroup_proc_rejects_garbage),
      T(test_cgroup_names));
