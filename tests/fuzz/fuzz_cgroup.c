/*
 * fuzz_cgroup.c - libFuzzer harness for the model layer's pure parsers:
 * /proc/<pid>/cgroup text and cgroup paths, /proc/<pid>/status, the
 * runtime metadata JSON (docker config.v2.json, containers.json, OCI
 * config.json), and where docker keeps its data (a dockerd's
 * /proc/<pid>/cmdline, daemon.json).
 *
 * Input: byte 0 selects the parser (low 4 bits), the rest is its text,
 * copied to a heap block of exactly its size so ASan catches any read
 * past the end.  Seeds in corpus/fuzz_cgroup/ are plain text files whose
 * first byte is '0'..'5', '8' or '9' (so they stay readable).  Each parser is checked
 * for its output invariants (NUL-terminated strings of bounded length,
 * short ID a prefix of the ID, results only on success) and traps if one
 * breaks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include "model/model-int.h"

#define ID64 "f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"

static void check_id(const struct strobe_cgroup_id *id, int r)
{
	size_t n = strnlen(id->id, sizeof(id->id));

	if (n == sizeof(id->id) || strnlen(id->short_id, 13) == 13 ||
	    strnlen(id->pod_uid, 37) == 37)
		__builtin_trap();
	if (strncmp(id->id, id->short_id, strlen(id->short_id)) ||
	    strlen(id->short_id) != (n < 12 ? n : 12))
		__builtin_trap();
	if ((unsigned)id->runtime >= STROBE_RT_NR || (r >= 0 &&
	    (r == 0) != (id->runtime == STROBE_RT_HOST)))
		__builtin_trap();
	if (id->qos != STROBE_QOS_NONE && !id->pod_uid[0])
		__builtin_trap();
	if (r < 0 && (id->runtime || id->id[0]))
		__builtin_trap();
}

static void fuzz_proc(const char *t, size_t n)
{
	struct strobe_cgroup_id id;
	char path[256];
	int r = strobe_cgroup_parse_proc(t, n, path, sizeof(path), &id);

	if (r != -ENOBUFS)
		check_id(&id, r);
	if (strnlen(path, sizeof(path)) == sizeof(path))
		__builtin_trap();
	if (r >= 0 && path[0] != '/')
		__builtin_trap();
	r = strobe_cgroup_parse_proc(t, n, NULL, 0, &id);
	check_id(&id, r);
}

static void fuzz_path(const char *t, size_t n)
{
	struct strobe_cgroup_id id;

	check_id(&id, strobe_cgroup_parse_path(t, n, &id));
}

static void fuzz_status(const char *t, size_t n)
{
	struct strobe_proc_info pi;
	int r = strobe_proc_parse_status(t, n, &pi);

	if (strnlen(pi.comm, sizeof(pi.comm)) == sizeof(pi.comm))
		__builtin_trap();
	if (pi.nr_nspid < 0 || pi.nr_nspid > STROBE_PIDNS_LEVELS ||
	    pi.nr_nstgid < 0 || pi.nr_nstgid > STROBE_PIDNS_LEVELS)
		__builtin_trap();
	if (r == 0 && pi.tid < 0)
		__builtin_trap();
}

static void fuzz_meta(enum strobe_meta_kind kind, const char *t, size_t n)
{
	struct strobe_container_meta m;

	memset(&m, 0, sizeof(m));
	strobe_meta_parse(kind, t, n, ID64, &m);
	if (strnlen(m.name, sizeof(m.name)) == sizeof(m.name) ||
	    strnlen(m.pod, sizeof(m.pod)) == sizeof(m.pod) ||
	    strnlen(m.pod_ns, sizeof(m.pod_ns)) == sizeof(m.pod_ns))
		__builtin_trap();
}

static void fuzz_dockerd(const char *t, size_t n)
{
	struct strobe_dockerd_args a;
	char dr[STROBE_DOCKER_ROOT_MAX];
	int r = strobe_dockerd_parse_cmdline(t, n, &a);

	if (r < 0 && r != -ENOMEM)
		__builtin_trap();
	if (strnlen(a.data_root, sizeof(a.data_root)) == sizeof(a.data_root) ||
	    strnlen(a.config_file, sizeof(a.config_file)) == sizeof(a.config_file))
		__builtin_trap();
	if ((a.data_root[0] && a.data_root[0] != '/') ||
	    (a.config_file[0] && a.config_file[0] != '/') ||
	    (r == 1) != (a.data_root[0] || a.config_file[0]))
		__builtin_trap();
	dr[0] = '\0';
	r = strobe_docker_daemon_parse(t, n, dr, sizeof(dr));
	if (strnlen(dr, sizeof(dr)) == sizeof(dr) || (r == 1) != (dr[0] == '/'))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t;
	size_t n;

	if (size < 1)
		return 0;
	n = size - 1;
	t = malloc(n ? n : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, n);
	switch (data[0] & 15) {
	case 0: fuzz_proc(t, n); break;
	case 1: fuzz_path(t, n); break;
	case 2: fuzz_status(t, n); break;
	case 3: fuzz_meta(STROBE_META_DOCKER_CONFIG, t, n); break;
	case 4: fuzz_meta(STROBE_META_STORAGE_LIST, t, n); break;
	case 5: fuzz_meta(STROBE_META_OCI_CONFIG, t, n); break;
	case 8: case 9: fuzz_dockerd(t, n); break;
	default: fuzz_proc(t, n); fuzz_path(t, n); break;
	}
	free(t);
	return 0;
}
