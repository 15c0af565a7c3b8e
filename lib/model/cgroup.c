/*
 * cgroup.c - cgroup path -> container identity (runtime, container ID,
 * Kubernetes pod UID and QoS class).
 *
 * Pure string work over a path the caller read (from /proc/<pid>/cgroup
 * now, from a trace file's process table later): no I/O, no allocation,
 * one pass over the input, so it is safe on untrusted text and cheap
 * enough to run for every new process.
 *
 * How it works: the path is cut into '/'-separated components and each
 * component is matched, outermost first, against the layouts the runtimes
 * create (learned from the runtimes themselves and from how Falco, Tracee
 * and cadvisor recognise them):
 *
 *   systemd driver   <prefix>-<64 hex>.scope, prefix one of docker,
 *                    cri-containerd, crio, crio-conmon, libpod,
 *                    libpod-conmon, libpod-payload
 *   cgroupfs driver  /docker/<64 hex>, /kubepods/<qos>/pod<uid>/<64 hex>,
 *                    /libpod_parent/libpod-<64 hex>, .../crio-<64 hex>
 *   containerd's systemd notation written by a cgroupfs runc:
 *                    <slice>:cri-containerd:<64 hex> (also :docker:, :crio:)
 *   lxc              /lxc/<name>, /lxc.payload.<name>, /lxc.monitor.<name>
 *
 * The first component that names a container by one of these ("strong"
 * matches) wins.  A 64-hex ID under a prefix or parent we do not know is
 * kept as a "weak" match, used only when nothing strong follows (so a
 * podman pod's /libpod_parent/<pod id>/libpod-<ctr id> picks the
 * container, and an unknown engine still gets an ID).  Kubernetes
 * components ("kubepods", "kubepods-burstable.slice",
 * "kubepods-burstable-pod<uid with _>.slice", "pod<uid>") above the
 * container give the pod UID and the QoS class; a pod with no QoS
 * component is Guaranteed.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <strobe/model.h>

#include "util/err.h"

struct span {
	const char *p;
	size_t n;
};

static bool span_eq(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && memcmp(s.p, lit, n) == 0;
}

static bool span_starts(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static bool span_ends(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.p + s.n - n, lit, n) == 0;
}

/* Position of the first `lit` in s, or -1. */
static long span_find(struct span s, const char *lit)
{
	size_t n = strlen(lit), i;

	for (i = 0; n && i + n <= s.n; i++)
		if (memcmp(s.p + i, lit, n) == 0)
			return (long)i;
	return -1;
}

static bool is_lhex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_hex64(struct span s)
{
	size_t i;

	if (s.n != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!is_lhex(s.p[i]))
			return false;
	return true;
}

/*
 * A pod UID as the kubelet writes it: 32 hex digits, either plain (static
 * pods: a hash) or split 8-4-4-4-12 by '-' (cgroupfs) or '_' (systemd,
 * which reserves '-').  Writes the dashed form (or the plain one) to out.
 */
static bool parse_pod_uid(struct span s, char out[37])
{
	static const size_t dash[] = { 8, 13, 18, 23 };
	size_t i, k;

	if (s.n == 32) {
		for (i = 0; i < 32; i++)
			if (!is_lhex(s.p[i]))
				return false;
		memcpy(out, s.p, 32);
		out[32] = '\0';
		return true;
	}
	if (s.n != 36)
		return false;
	for (i = 0, k = 0; i < 36; i++) {
		if (k < 4 && i == dash[k]) {
			if (s.p[i] != '-' && s.p[i] != '_')
				return false;
			out[i] = '-';
			k++;
		} else if (is_lhex(s.p[i])) {
			out[i] = s.p[i];
		} else {
			return false;
		}
	}
	out[36] = '\0';
	return true;
}

/* Prefixes of "<prefix>-<id>[.scope]" container cgroups. */
static const struct {
	const char *prefix;
	enum strobe_runtime rt;
	bool conmon;
} prefixes[] = {
	{ "docker", STROBE_RT_DOCKER, false },
	{ "cri-containerd", STROBE_RT_CONTAINERD, false },
	{ "crio", STROBE_RT_CRIO, false },
	{ "crio-conmon", STROBE_RT_CRIO, true },
	{ "libpod", STROBE_RT_PODMAN, false },
	{ "libpod-conmon", STROBE_RT_PODMAN, true },
	{ "libpod-payload", STROBE_RT_PODMAN, false },
};

struct match {
	enum strobe_runtime rt;	/* HOST = no match */
	bool conmon;
	struct span id;
};

/* The runtime a prefix names, or UNKNOWN. */
static void match_prefix(struct span prefix, struct span id, struct match *m)
{
	size_t i;

	m->rt = STROBE_RT_UNKNOWN;
	m->conmon = false;
	m->id = id;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (span_eq(prefix, prefixes[i].prefix)) {
			m->rt = prefixes[i].rt;
			m->conmon = prefixes[i].conmon;
			return;
		}
	}
}

struct walk {
	bool kube;		/* seen a kubepods component */
	enum strobe_qos qos;
	char pod_uid[37];
	int rootless_uid;
	struct span parent;	/* previous component */
	struct match strong, weak;
};

/* Kubernetes components: "kubepods", "besteffort", "pod<uid>" (cgroupfs);
 * "kubepods.slice", "kubepods-burstable.slice",
 * "kubepods-burstable-pod<uid>.slice" (systemd, also under kind's
 * "kubelet-kubepods-..." names).  Returns true if c was one. */
static bool walk_kube(struct walk *w, struct span c)
{
	long at;

	if (span_eq(c, "kubepods")) {
		w->kube = true;
		return true;
	}
	if (span_find(c, "kubepods") >= 0 && span_ends(c, ".slice")) {
		struct span rest = c;

		w->kube = true;
		rest.n -= strlen(".slice");
		at = span_find(rest, "-pod");
		if (at >= 0) {
			struct span uid = { rest.p + at + 4, rest.n - (size_t)at - 4 };

			if (!w->pod_uid[0])
				parse_pod_uid(uid, w->pod_uid);
			rest.n = (size_t)at;
		}
		if (span_ends(rest, "-besteffort"))
			w->qos = STROBE_QOS_BESTEFFORT;
		else if (span_ends(rest, "-burstable"))
			w->qos = STROBE_QOS_BURSTABLE;
		return true;
	}
	if (!w->kube)
		return false;
	if (span_eq(c, "besteffort")) {
		w->qos = STROBE_QOS_BESTEFFORT;
		return true;
	}
	if (span_eq(c, "burstable")) {
		w->qos = STROBE_QOS_BURSTABLE;
		return true;
	}
	if (span_starts(c, "pod") && !w->pod_uid[0]) {
		struct span uid = { c.p + 3, c.n - 3 };

		if (parse_pod_uid(uid, w->pod_uid))
			return true;
	}
	return false;
}

/* "user@1000.service" -> 1000 */
static void walk_user(struct walk *w, struct span c)
{
	size_t i;
	long v = 0;

	if (!span_starts(c, "user@") || !span_ends(c, ".service") || c.n <= 13)
		return;
	for (i = 5; i < c.n - 8; i++) {
		if (c.p[i] < '0' || c.p[i] > '9' || v > 100000000)
			return;
		v = v * 10 + (c.p[i] - '0');
	}
	w->rootless_uid = (int)v;
}

static void set_match(struct match *m, enum strobe_runtime rt, bool conmon,
		      struct span id)
{
	m->rt = rt;
	m->conmon = conmon;
	m->id = id;
}

/* An LXC name: 1..64 printable bytes other than '/' (already split). */
static bool is_lxc_name(struct span s)
{
	size_t i;

	if (s.n == 0 || s.n > 64)
		return false;
	for (i = 0; i < s.n; i++)
		if ((unsigned char)s.p[i] <= ' ' || (unsigned char)s.p[i] >= 0x7f)
			return false;
	return true;
}

/* Match one container component; fills w->strong or w->weak. */
static void walk_container(struct walk *w, struct span c)
{
	struct span base = c, id, prefix;
	struct match m;
	long at;

	/* "<slice>:<prefix>:<id>": containerd's systemd cgroup notation */
	at = span_find(c, ":");
	if (at >= 0) {
		struct span rest = { c.p + at + 1, c.n - (size_t)at - 1 };
		long at2 = span_find(rest, ":");

		walk_kube(w, (struct span){ c.p, (size_t)at });
		if (at2 < 0)
			return;
		prefix = (struct span){ rest.p, (size_t)at2 };
		id = (struct span){ rest.p + at2 + 1, rest.n - (size_t)at2 - 1 };
		if (!is_hex64(id))
			return;
		match_prefix(prefix, id, &m);
		if (m.rt == STROBE_RT_UNKNOWN)
			w->weak = w->weak.rt ? w->weak : m;
		else
			w->strong = m;
		return;
	}

	if (span_starts(c, "lxc.payload.") || span_starts(c, "lxc.monitor.")) {
		id = (struct span){ c.p + 12, c.n - 12 };
		if (is_lxc_name(id))
			set_match(&w->strong, STROBE_RT_LXC, c.p[4] == 'm', id);
		return;
	}
	if (span_eq(w->parent, "lxc") && is_lxc_name(c)) {
		set_match(&w->strong, STROBE_RT_LXC, false, c);
		return;
	}

	if (span_ends(base, ".scope"))
		base.n -= strlen(".scope");
	if (is_hex64(base)) {
		/* a bare ID: its parent says whose it is */
		if (span_eq(w->parent, "docker"))
			set_match(&w->strong, STROBE_RT_DOCKER, false, base);
		else if (span_eq(w->parent, "libpod_parent"))
			return;	/* a podman pod (cgroupfs): its containers follow */
		else if (w->kube && w->pod_uid[0])
			set_match(&w->strong, STROBE_RT_KUBEPODS, false, base);
		else if (!w->weak.rt)
			set_match(&w->weak, STROBE_RT_UNKNOWN, false, base);
		return;
	}
	if (base.n <= 65 || base.p[base.n - 65] != '-')
		return;
	id = (struct span){ base.p + base.n - 64, 64 };
	if (!is_hex64(id))
		return;
	prefix = (struct span){ base.p, base.n - 65 };
	match_prefix(prefix, id, &m);
	if (m.rt != STROBE_RT_UNKNOWN)
		w->strong = m;
	else if (!w->weak.rt)
		w->weak = m;
}

int strobe_cgroup_parse_path(const char *path, size_t len,
			     struct strobe_cgroup_id *out)
{
	struct walk w;
	struct match *m;
	size_t i, start;

	memset(out, 0, sizeof(*out));
	out->rootless_uid = -1;
	if (!path || len == 0 || path[0] != '/')
		return -EINVAL;
	if (len > STROBE_CGROUP_PATH_MAX)
		return -ENAMETOOLONG;
	if (memchr(path, '\0', len) || memchr(path, '\n', len))
		return -EINVAL;

	memset(&w, 0, sizeof(w));
	w.rootless_uid = -1;
	for (start = 1; start <= len && !w.strong.rt; start = i + 1) {
		struct span c;

		for (i = start; i < len && path[i] != '/'; i++)
			;
		c = (struct span){ path + start, i - start };
		if (c.n == 0)
			continue;
		if (!walk_kube(&w, c)) {
			walk_user(&w, c);
			walk_container(&w, c);
		}
		w.parent = c;
	}

	m = w.strong.rt ? &w.strong : &w.weak;
	if (m->rt) {
		out->runtime = m->rt;
		out->conmon = m->conmon;
		memcpy(out->id, m->id.p, m->id.n);
		out->id[m->id.n] = '\0';
		memcpy(out->short_id, m->id.p, m->id.n < 12 ? m->id.n : 12);
		out->short_id[m->id.n < 12 ? m->id.n : 12] = '\0';
	}
	if (w.kube && w.pod_uid[0]) {
		memcpy(out->pod_uid, w.pod_uid, sizeof(out->pod_uid));
		out->qos = w.qos ? w.qos : STROBE_QOS_GUARANTEED;
		if (!out->runtime)
			out->runtime = STROBE_RT_KUBEPODS;
	}
	out->rootless_uid = w.rootless_uid;
	return out->runtime != STROBE_RT_HOST;
}

/* Rank of a v1 controller list: lower is preferred. */
static int controllers_rank(struct span ctl)
{
	static const char *const pref[] = { "pids", "cpu", "memory", "name=systemd" };
	int best = 5;
	size_t i, start, k;

	for (start = 0; start <= ctl.n; start = i + 1) {
		struct span t;

		for (i = start; i < ctl.n && ctl.p[i] != ','; i++)
			;
		t = (struct span){ ctl.p + start, i - start };
		for (k = 0; k < sizeof(pref) / sizeof(pref[0]); k++)
			if (span_eq(t, pref[k]) && (int)k + 1 < best)
				best = (int)k + 1;
	}
	return best;
}

/*
 * Split "hier:controllers:/path" into its path and a rank (0 for v2's
 * "0::", 1..5 for v1).  Returns false for a malformed line.
 */
static bool split_line(struct span line, struct span *path, int *rank)
{
	long c1, c2;
	struct span ctl, rest;
	size_t i;

	c1 = span_find(line, ":");
	if (c1 <= 0)
		return false;
	for (i = 0; i < (size_t)c1; i++)
		if (line.p[i] < '0' || line.p[i] > '9')
			return false;
	rest = (struct span){ line.p + c1 + 1, line.n - (size_t)c1 - 1 };
	c2 = span_find(rest, ":");
	if (c2 < 0)
		return false;
	ctl = (struct span){ rest.p, (size_t)c2 };
	*path = (struct span){ rest.p + c2 + 1, rest.n - (size_t)c2 - 1 };
	if (path->n == 0 || path->p[0] != '/')
		return false;
	if (ctl.n == 0)
		*rank = c1 == 1 && line.p[0] == '0' ? 0 : 5;
	else
		*rank = controllers_rank(ctl);
	return true;
}

int strobe_cgroup_parse_proc(const char *text, size_t len,
			     char *path_out, size_t path_size,
			     struct strobe_cgroup_id *out)
{
	struct span best_any = { NULL, 0 }, best_ctr = { NULL, 0 }, chosen;
	int rank_any = 99, rank_ctr = 99, ret = -EINVAL;
	struct strobe_cgroup_id tmp;
	size_t i, start;

	memset(out, 0, sizeof(*out));
	out->rootless_uid = -1;
	if (path_out && path_size)
		path_out[0] = '\0';
	if (!text)
		return -EINVAL;
	if (len && text[0] == '/') {
		/* a bare path (trailing newline tolerated) */
		size_t n = len;

		if (text[n - 1] == '\n')
			n--;
		best_any = (struct span){ text, n };
		ret = strobe_cgroup_parse_path(text, n, out);
		if (ret < 0)
			return ret;
		goto copy;
	}

	for (start = 0; start < len; start = i + 1) {
		struct span line, path;
		int rank, r;

		for (i = start; i < len && text[i] != '\n'; i++)
			;
		line = (struct span){ text + start, i - start };
		if (!split_line(line, &path, &rank))
			continue;
		r = strobe_cgroup_parse_path(path.p, path.n, &tmp);
		if (r < 0)
			continue;
		if (rank < rank_any) {
			rank_any = rank;
			best_any = path;
		}
		if (r == 1 && rank < rank_ctr) {
			rank_ctr = rank;
			best_ctr = path;
		}
	}
	chosen = best_ctr.p ? best_ctr : best_any;
	if (!chosen.p)
		return -EINVAL;
	best_any = chosen;
	ret = strobe_cgroup_parse_path(chosen.p, chosen.n, out);
copy:
	if (path_out || path_size) {
		if (!path_out || best_any.n >= path_size)
			return -ENOBUFS;
		memcpy(path_out, best_any.p, best_any.n);
		path_out[best_any.n] = '\0';
	}
	return ret;
}

const char *strobe_runtime_name(enum strobe_runtime rt)
{
	static const char *const names[STROBE_RT_NR] = {
		[STROBE_RT_HOST] = "host",
		[STROBE_RT_DOCKER] = "docker",
		[STROBE_RT_CONTAINERD] = "containerd",
		[STROBE_RT_CRIO] = "cri-o",
		[STROBE_RT_PODMAN] = "podman",
		[STROBE_RT_KUBEPODS] = "kubepods",
		[STROBE_RT_LXC] = "lxc",
		[STROBE_RT_UNKNOWN] = "unknown",
	};

	if ((unsigned)rt >= STROBE_RT_NR)
		return "?";
	return names[rt];
}

const char *strobe_qos_name(enum strobe_qos qos)
{
	switch (qos) {
	case STROBE_QOS_NONE:
		return "";
	case STROBE_QOS_GUARANTEED:
		return "guaranteed";
	case STROBE_QOS_BURSTABLE:
		return "burstable";
	case STROBE_QOS_BESTEFFORT:
		return "besteffort";
	}
	return "?";
}
