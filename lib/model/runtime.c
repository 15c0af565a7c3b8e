/*
 * runtime.c - container names from the runtimes' on-disk metadata.
 *
 * A cgroup path gives a container ID; people want "web" or
 * "prod/checkout-7d9f/nginx".  Runtimes keep that in files we can read
 * without talking to their daemons (which may be absent, slow, or on
 * another machine's socket):
 *
 *   docker      <data-root>/containers/<id>/config.v2.json  "Name"
 *               (data-root: /etc/docker/daemon.json's or /var/lib/docker,
 *               then each running dockerd's, from its command line in
 *               /proc: a second daemon with its own root is common in CI)
 *   podman      <store>/overlay-containers/containers.json  "names"
 *   cri-o       <store>/overlay-containers/<id>/userdata/config.json
 *               annotations io.kubernetes.{pod.name,pod.namespace,
 *               container.name}
 *   containerd  /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>/
 *               config.json annotations io.kubernetes.cri.*
 *   kubelet     /var/log/containers/<pod>_<namespace>_<container>-<id>.log
 *               (the kubelet's log links, whatever the CRI runtime: only
 *               the names are read, never the links); a pod's own cgroup
 *               from /var/log/pods/<namespace>_<pod>_<uid>/
 *
 * Every file is optional: a runtime that is not installed, not running or
 * not readable simply does not answer, and the caller gets the short ID.
 * JSON is read with a small non-recursive scanner that only walks to the
 * few keys needed (so a hostile or truncated file costs one bounded pass
 * and cannot exhaust the stack); it checks that strings close and brackets
 * balance, not the whole grammar, so it is lenient with odd but balanced
 * files and gives up (no name) on anything it cannot skip.  Some of these
 * files lie in users' homes (rootless podman) where anyone may plant a
 * FIFO, a device or a symlink: files are opened without following a
 * symlink and without blocking, must be regular and at most
 * META_FILE_MAX bytes (lib/util/file.h); anything else is skipped with a
 * warning in the answer (out->warning), never printed.  A root
 * directory prefix lets tests use a fixture tree instead of the real
 * /var/lib and /run.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model-int.h"
#include "../util/file.h"

#define META_FILE_MAX	(32u << 20)

/* ---- a minimal JSON scanner ---------------------------------------------- */

static const char *ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at '"': returns the byte after the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\') {
			p++;
			continue;
		}
		if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* p at a value: returns the byte after it, or NULL if malformed. */
static const char *skip_value(const char *p, const char *e)
{
	size_t depth = 0;

	do {
		p = ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == '"') {
			p = skip_string(p, e);
			if (!p)
				return NULL;
		} else if (*p == '{' || *p == '[') {
			depth++;
			p++;
		} else if (*p == '}' || *p == ']') {
			if (!depth)
				return NULL;
			depth--;
			p++;
		} else if (*p == ',' || *p == ':') {
			if (!depth)
				return NULL;
			p++;
		} else {
			const char *s = p;

			while (p < e && *p != ',' && *p != '}' && *p != ']' &&
			       *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
			if (p == s)
				return NULL;
		}
	} while (depth);
	return p;
}

static void put_utf8(char *out, size_t size, size_t *n, unsigned cp)
{
	char b[3];
	size_t k, len;

	if (cp < 0x80) {
		b[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		len = 2;
	} else {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		len = 3;
	}
	if (*n + len >= size)
		return;
	for (k = 0; k < len; k++)
		out[(*n)++] = b[k];
}

/*
 * p at '"': copy the unescaped string to out[size] (truncated,
 * NUL-terminated; control bytes and lone surrogates become '?').
 * Returns false if p is not a well-formed string.
 */
static bool get_string(const char *p, const char *e, char *out, size_t size)
{
	size_t n = 0;

	if (p >= e || *p != '"' || !size)
		return false;
	for (p++; p < e && *p != '"'; p++) {
		unsigned cp = (unsigned char)*p;

		if (*p == '\\') {
			if (++p >= e)
				return false;
			switch (*p) {
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u': {
				int k;

				if (e - p < 5)
					return false;
				cp = 0;
				for (k = 1; k <= 4; k++) {
					char c = p[k];

					cp <<= 4;
					if (c >= '0' && c <= '9')
						cp |= (unsigned)(c - '0');
					else if (c >= 'a' && c <= 'f')
						cp |= (unsigned)(c - 'a' + 10);
					else if (c >= 'A' && c <= 'F')
						cp |= (unsigned)(c - 'A' + 10);
					else
						return false;
				}
				p += 4;
				if (cp >= 0xd800 && cp <= 0xdfff)
					cp = '?';
				break;
			}
			default: cp = (unsigned char)*p; break;
			}
		}
		if (cp < 0x20)
			cp = '?';
		if (cp < 0x80) {
			if (n + 1 < size)
				out[n++] = (char)cp;
		} else if ((unsigned char)*p >= 0x80) {
			if (n + 1 < size)	/* raw UTF-8 byte: copied as is */
				out[n++] = *p;
		} else {
			put_utf8(out, size, &n, cp);
		}
	}
	if (p >= e)
		return false;
	out[n] = '\0';
	return true;
}

/* Whether the string at p (at '"') is exactly `key` (no escapes). */
static bool key_is(const char *p, const char *end_quote, const char *key)
{
	size_t n = strlen(key);

	return (size_t)(end_quote - p - 2) == n && !memcmp(p + 1, key, n);
}

/* p at an object: the value of member `key` (after white space), or NULL. */
static const char *obj_get(const char *p, const char *e, const char *key)
{
	p = ws(p, e);
	if (p >= e || *p != '{')
		return NULL;
	p = ws(p + 1, e);
	if (p < e && *p == '}')
		return NULL;
	while (p < e) {
		const char *k = p, *ke;

		if (*k != '"' || !(ke = skip_string(k, e)))
			return NULL;
		p = ws(ke, e);
		if (p >= e || *p != ':')
			return NULL;
		p = ws(p + 1, e);
		if (key_is(k, ke, key))
			return p < e ? p : NULL;
		p = skip_value(p, e);
		if (!p)
			return NULL;
		p = ws(p, e);
		if (p >= e || *p != ',')
			return NULL;
		p = ws(p + 1, e);
	}
	return NULL;
}

/* The string member `key` of the object at p into out; false if absent. */
static bool obj_string(const char *p, const char *e, const char *key,
		       char *out, size_t size)
{
	const char *v = p ? obj_get(p, e, key) : NULL;

	return v && *v == '"' && get_string(v, e, out, size);
}

/* ---- metadata files -------------------------------------------------------- */

/* Pod, namespace and container name from Kubernetes annotations or labels. */
static void kube_keys(const char *obj, const char *e,
		      struct strobe_container_meta *out)
{
	if (!obj)
		return;
	if (!obj_string(obj, e, "io.kubernetes.cri.sandbox-name", out->pod, sizeof(out->pod)))
		obj_string(obj, e, "io.kubernetes.pod.name", out->pod, sizeof(out->pod));
	if (!obj_string(obj, e, "io.kubernetes.cri.sandbox-namespace", out->pod_ns,
			sizeof(out->pod_ns)))
		obj_string(obj, e, "io.kubernetes.pod.namespace", out->pod_ns,
			   sizeof(out->pod_ns));
	if (!obj_string(obj, e, "io.kubernetes.cri.container-name", out->name,
			sizeof(out->name)) &&
	    !obj_string(obj, e, "io.kubernetes.container.name", out->name,
			sizeof(out->name)))
		obj_string(obj, e, "nerdctl/name", out->name, sizeof(out->name));
}

/* CRI-O's storage names: "k8s_<container>_<pod>_<namespace>_<uid>_<n>". */
static void split_k8s_name(struct strobe_container_meta *out)
{
	char *f[6], *s = out->name;
	int n = 0;

	if (strncmp(s, "k8s_", 4))
		return;
	while (n < 6 && s) {
		f[n++] = s;
		s = strchr(s, '_');
		if (s)
			*s++ = '\0';
	}
	if (n == 6 && !s && f[1][0] && f[2][0]) {
		snprintf(out->pod, sizeof(out->pod), "%s", f[2]);
		snprintf(out->pod_ns, sizeof(out->pod_ns), "%s", f[3]);
		memmove(out->name, f[1], strlen(f[1]) + 1);
		return;
	}
	/* not that shape: put the underscores back */
	while (--n > 0)
		f[n][-1] = '_';
}

static int parse_storage_list(const char *p, const char *e, const char *id,
			      struct strobe_container_meta *out)
{
	char cid[72];

	p = ws(p, e);
	if (p >= e || *p != '[')
		return 0;
	p = ws(p + 1, e);
	while (p < e && *p != ']') {
		const char *elem = p, *names;

		if (*elem == '{' && obj_string(elem, e, "id", cid, sizeof(cid)) &&
		    !strcmp(cid, id)) {
			names = obj_get(elem, e, "names");
			if (!names || *names != '[')
				return 0;
			names = ws(names + 1, e);
			if (!get_string(names, e, out->name, sizeof(out->name)))
				return 0;
			split_k8s_name(out);
			return out->name[0] != '\0';
		}
		p = skip_value(elem, e);
		if (!p)
			return 0;
		p = ws(p, e);
		if (p < e && *p == ',')
			p = ws(p + 1, e);
		else
			break;
	}
	return 0;
}

int strobe_meta_parse(enum strobe_meta_kind kind, const char *text, size_t len,
		      const char *id, struct strobe_container_meta *out)
{
	const char *e = text + len, *cfg;
	char name[sizeof(out->name)];

	if (!text)
		return 0;
	switch (kind) {
	case STROBE_META_DOCKER_CONFIG:
		if (obj_string(text, e, "Name", name, sizeof(name)))
			snprintf(out->name, sizeof(out->name), "%s",
				 name[0] == '/' ? name + 1 : name);
		cfg = obj_get(text, e, "Config");
		kube_keys(cfg ? obj_get(cfg, e, "Labels") : NULL, e, out);
		break;
	case STROBE_META_STORAGE_LIST:
		return id ? parse_storage_list(text, e, id, out) : 0;
	case STROBE_META_OCI_CONFIG:
		kube_keys(obj_get(text, e, "annotations"), e, out);
		break;
	}
	return out->name[0] || out->pod[0];
}

/* ---- reading --------------------------------------------------------------- */

/*
 * Read a whole file (capped) into a malloc'ed buffer; NULL if absent or
 * unusable.  A file that is there but is no regular file, a symlink (with
 * `nofollow`), or too large leaves its reason in out->warning (the first
 * one met): a runtime that is not installed is normal, a FIFO where
 * metadata belongs is worth saying.
 */
static char *read_file(const char *path, size_t *len, bool nofollow,
		       struct strobe_container_meta *out)
{
	struct strobe_error err = { 0, "" };
	struct stat st;
	size_t cap, n = 0;
	char *buf;
	int fd = strobe_file_open_regular(path, nofollow ? STROBE_FILE_NOFOLLOW : 0,
					  META_FILE_MAX, &st, &err);

	if (fd < 0) {
		if ((fd == -ELOOP || fd == -EINVAL || fd == -EFBIG) && !out->warning[0])
			snprintf(out->warning, sizeof(out->warning), "%.480s: skipped", err.msg);
		return NULL;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	while (buf && n < cap - 1) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* snprintf that says whether the result fit (paths that do not are skipped). */
static bool __attribute__((format(printf, 3, 4)))
fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

/* Parse root+path as `kind`; on success record the source.  Returns 1/0. */
static int try_file(const char *root, const char *path, enum strobe_meta_kind kind,
		    const char *id, struct strobe_container_meta *out)
{
	char full[sizeof(out->source)];
	size_t len;
	char *text;
	int found;

	if (!fmt(full, sizeof(full), "%s%s", root, path))
		return 0;
	text = read_file(full, &len, true, out);
	if (!text)
		return 0;
	found = strobe_meta_parse(kind, text, len, id, out);
	free(text);
	if (found)
		snprintf(out->source, sizeof(out->source), "%s", full);
	return found;
}

/* ---- docker's data roots ---------------------------------------------------- */

int strobe_docker_daemon_parse(const char *text, size_t len, char *data_root,
			       size_t size)
{
	const char *e = text + len, *v;
	char buf[STROBE_DOCKER_ROOT_MAX];

	if (!text || !size)
		return 0;
	/* "graph" is the key's name before docker 17.05 */
	if (!((v = obj_get(text, e, "data-root")) && *v == '"') &&
	    !((v = obj_get(text, e, "graph")) && *v == '"'))
		return 0;
	if (!get_string(v, e, buf, sizeof(buf)) || buf[0] != '/' ||
	    strlen(buf) >= size || strlen(buf) >= sizeof(buf) - 1)
		return 0;
	memcpy(data_root, buf, strlen(buf) + 1);
	return 1;
}

/*
 * The value of option `name` at argv[*i] ("--name VALUE", "--name=VALUE",
 * and for a one-letter name also "-nVALUE"), advancing *i past a separate
 * VALUE; NULL if argv[*i] is not that option.
 */
static const char *opt_value(char *const *argv, int argc, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0')
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (n == 2)	/* -gVALUE */
		return a + n;
	return NULL;
}

int strobe_dockerd_parse_cmdline(const char *cmdline, size_t len,
				 struct strobe_dockerd_args *out)
{
	char *argv[STROBE_DOCKERD_ARGS_MAX];
	char *copy;
	const char *v;
	size_t off = 0;
	int argc = 0, i;

	memset(out, 0, sizeof(*out));
	if (!cmdline || !len)
		return 0;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, cmdline, len);
	copy[len] = '\0';
	/* NUL-separated; a last argument without its NUL still counts */
	while (off < len && argc < STROBE_DOCKERD_ARGS_MAX) {
		argv[argc++] = copy + off;
		off += strlen(copy + off) + 1;
	}
	/* argv[0] is the program; the last occurrence of an option wins */
	for (i = 1; i < argc; i++) {
		char *dst;
		size_t size;

		if (!strcmp(argv[i], "--"))
			break;
		if ((v = opt_value(argv, argc, &i, "--data-root")) ||
		    (v = opt_value(argv, argc, &i, "--graph")) ||
		    (v = opt_value(argv, argc, &i, "-g"))) {
			dst = out->data_root;
			size = sizeof(out->data_root);
		} else if ((v = opt_value(argv, argc, &i, "--config-file"))) {
			dst = out->config_file;
			size = sizeof(out->config_file);
		} else {
			continue;
		}
		/* relative paths (to dockerd's own working folder) are not
		 * followed; neither is a path that does not fit */
		if (v[0] == '/' && strlen(v) < size)
			memcpy(dst, v, strlen(v) + 1);
		else
			dst[0] = '\0';
	}
	free(copy);
	return out->data_root[0] || out->config_file[0];
}

/* Read at most size - 1 bytes of a (/proc) file into buf; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	struct strobe_error err = { 0, "" };
	struct stat st;
	size_t n = 0;
	int fd = strobe_file_open_regular(path, STROBE_FILE_NOFOLLOW, 0, &st, &err);

	if (fd < 0)
		return -1;
	while (n < size - 1) {
		ssize_t r = read(fd, buf + n, size - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* root/etc/docker/daemon.json's data root, or /var/lib/docker */
static void default_data_root(const char *root, const char *config, char *dr,
			      size_t size, struct strobe_container_meta *out)
{
	char path[STROBE_DOCKER_ROOT_MAX + 256];
	size_t len;
	char *text;

	snprintf(dr, size, "/var/lib/docker");
	/* the configuration may be a symlink (config management) */
	if (!fmt(path, sizeof(path), "%s%s", root, config ? config : "/etc/docker/daemon.json"))
		return;
	text = read_file(path, &len, false, out);
	if (text)
		strobe_docker_daemon_parse(text, len, dr, size);
	free(text);
}

/*
 * The data roots of the dockerd processes running under root/proc (at
 * most STROBE_DOCKERD_MAX): each one's --data-root (or -g/--graph), else
 * the "data-root" of its --config-file, else of /etc/docker/daemon.json,
 * else /var/lib/docker.  Only processes whose comm is "dockerd" are read.
 * Returns how many distinct roots were put in dirs.
 */
static int scan_dockerd(const char *root, char dirs[][STROBE_DOCKER_ROOT_MAX],
			struct strobe_container_meta *out)
{
	struct strobe_dockerd_args *args = malloc(sizeof(*args));
	char *cmdline = malloc(STROBE_DOCKERD_CMDLINE_MAX);
	char path[512], comm[32], dr[STROBE_DOCKER_ROOT_MAX];
	struct dirent *de;
	ssize_t len;
	DIR *d = NULL;
	int n = 0, k;

	if (args && cmdline && fmt(path, sizeof(path), "%s/proc", root))
		d = opendir(path);
	while (d && n < STROBE_DOCKERD_MAX && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		if (!fmt(path, sizeof(path), "%s/proc/%s/comm", root, de->d_name) ||
		    read_small(path, comm, sizeof(comm)) < 0 || strcmp(comm, "dockerd\n"))
			continue;
		if (!fmt(path, sizeof(path), "%s/proc/%s/cmdline", root, de->d_name) ||
		    (len = read_small(path, cmdline, STROBE_DOCKERD_CMDLINE_MAX)) <= 0 ||
		    strobe_dockerd_parse_cmdline(cmdline, (size_t)len, args) < 0)
			continue;
		if (args->data_root[0])
			snprintf(dr, sizeof(dr), "%s", args->data_root);
		else
			default_data_root(root, args->config_file[0] ? args->config_file : NULL,
					  dr, sizeof(dr), out);
		for (k = 0; k < n && strcmp(dirs[k], dr); k++)
			;
		if (k == n)
			memcpy(dirs[n++], dr, sizeof(dr));
	}
	if (d)
		closedir(d);
	free(cmdline);
	free(args);
	return n;
}

/*
 * The last scan of dockerd processes, for the root it was made under.  A
 * lookup happens when a container is first seen, not per event; still,
 * reading every /proc/PID/comm for each new container of a busy
 * Kubernetes node (whose cgroups may be any runtime's) is avoidable: the
 * scan is reused for a second, and redone sooner only for a docker
 * cgroup whose ID none of the known roots holds (a dockerd started since).
 */
static struct {
	pthread_mutex_t lock;
	bool valid;
	char root[256];
	int64_t at;		/* CLOCK_MONOTONIC ns of the scan */
	int n;
	char dirs[STROBE_DOCKERD_MAX][STROBE_DOCKER_ROOT_MAX];
} dockerd_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The cached scan if fresh and not `force`d, else a new one (*scanned). */
static int cached_dockerd(const char *root, bool force,
			  char dirs[][STROBE_DOCKER_ROOT_MAX], bool *scanned,
			  struct strobe_container_meta *out)
{
	int64_t now = mono_ns();
	int n;

	pthread_mutex_lock(&dockerd_cache.lock);
	if (!force && dockerd_cache.valid && !strcmp(dockerd_cache.root, root) &&
	    now - dockerd_cache.at < 1000000000) {
		n = dockerd_cache.n;
		memcpy(dirs, dockerd_cache.dirs, sizeof(dockerd_cache.dirs));
		pthread_mutex_unlock(&dockerd_cache.lock);
		*scanned = false;
		return n;
	}
	pthread_mutex_unlock(&dockerd_cache.lock);

	n = scan_dockerd(root, dirs, out);
	*scanned = true;
	pthread_mutex_lock(&dockerd_cache.lock);
	if (strlen(root) < sizeof(dockerd_cache.root)) {
		dockerd_cache.valid = true;
		memcpy(dockerd_cache.root, root, strlen(root) + 1);
		dockerd_cache.at = now;
		dockerd_cache.n = n;
		memcpy(dockerd_cache.dirs, dirs, sizeof(dockerd_cache.dirs));
	}
	pthread_mutex_unlock(&dockerd_cache.lock);
	return n;
}

static int try_docker_root(const char *root, const char *data_root, const char *id,
			   struct strobe_container_meta *out)
{
	char path[STROBE_DOCKER_ROOT_MAX + 128];

	return fmt(path, sizeof(path), "%s/containers/%s/config.v2.json", data_root, id) &&
	       try_file(root, path, STROBE_META_DOCKER_CONFIG, id, out);
}

/*
 * Docker keeps config.v2.json under its data root: the configured one
 * first (/etc/docker/daemon.json or /var/lib/docker), then those of the
 * dockerd processes running (a second daemon with a root of its own, as
 * CI jobs and tests start).  `is_docker`: the cgroup says docker.
 */
static int try_docker(const char *root, const char *id, bool is_docker,
		      struct strobe_container_meta *out)
{
	char dr[STROBE_DOCKER_ROOT_MAX];
	char (*dirs)[STROBE_DOCKER_ROOT_MAX];
	bool scanned = false;
	int n, k, found = 0;

	default_data_root(root, NULL, dr, sizeof(dr), out);
	if (try_docker_root(root, dr, id, out))
		return 1;
	dirs = malloc(STROBE_DOCKERD_MAX * sizeof(*dirs));
	if (!dirs)
		return 0;
	/* the cached scan, then (docker cgroups only) a fresh one */
	n = cached_dockerd(root, false, dirs, &scanned, out);
	for (k = 0; !found && k < n; k++)
		found = strcmp(dirs[k], dr) && try_docker_root(root, dirs[k], id, out);
	if (!found && is_docker && !scanned) {
		n = cached_dockerd(root, true, dirs, &scanned, out);
		for (k = 0; !found && k < n; k++)
			found = strcmp(dirs[k], dr) && try_docker_root(root, dirs[k], id, out);
	}
	free(dirs);
	return found;
}

static int try_containerd(const char *root, const char *id,
			  struct strobe_container_meta *out)
{
	static const char *const dirs[] = {
		"/run/containerd/io.containerd.runtime.v2.task",
		"/run/containerd/io.containerd.runtime.v1.linux",
	};
	static const char *const namespaces[] = { "k8s.io", "moby", "default" };
	char path[256];
	size_t d, n;

	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		for (n = 0; n < sizeof(namespaces) / sizeof(namespaces[0]); n++) {
			if (fmt(path, sizeof(path), "%s/%s/%s/config.json",
				dirs[d], namespaces[n], id) &&
			    try_file(root, path, STROBE_META_OCI_CONFIG, id, out))
				return 1;
		}
	}
	return 0;
}

/* containers/storage (podman, cri-o): config.json annotations, then names. */
static int try_storage(const char *root, const char *id, int uid,
		       struct strobe_container_meta *out)
{
	static const char *const drivers[] = { "overlay", "vfs", "btrfs", "zfs" };
	char stores[4][300], path[512];
	size_t nr = 0, s, d;

	if (uid >= 0) {
		struct passwd pw, *res = NULL;
		char pwbuf[1024];

		if (!getpwuid_r((uid_t)uid, &pw, pwbuf, sizeof(pwbuf), &res) && res &&
		    fmt(stores[nr], sizeof(stores[0]),
			"%s/.local/share/containers/storage", res->pw_dir))
			nr++;
		fmt(stores[nr++], sizeof(stores[0]), "/run/user/%d/containers", uid);
	}
	fmt(stores[nr++], sizeof(stores[0]), "/var/lib/containers/storage");
	fmt(stores[nr++], sizeof(stores[0]), "/run/containers/storage");

	for (s = 0; s < nr; s++) {
		for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
			if (fmt(path, sizeof(path), "%s/%s-containers/%s/userdata/config.json",
				stores[s], drivers[d], id) &&
			    try_file(root, path, STROBE_META_OCI_CONFIG, id, out))
				return 1;
			if (fmt(path, sizeof(path), "%s/%s-containers/containers.json",
				stores[s], drivers[d]) &&
			    try_file(root, path, STROBE_META_STORAGE_LIST, id, out))
				return 1;
		}
	}
	return 0;
}

/*
 * Kubernetes names need no runtime at all: the kubelet names a link per
 * container /var/log/containers/<pod>_<namespace>_<container>-<id>.log
 * (pod and namespace names are DNS names, container names DNS labels:
 * none holds '_').  Only directory entries are read.
 */
static bool split3(const char *s, size_t len, char sep, char *f0, char *f1, char *f2,
		   size_t size)
{
	const char *a = memchr(s, sep, len), *b;

	if (!a || a == s)
		return false;
	b = memchr(a + 1, sep, len - (size_t)(a + 1 - s));
	if (!b || b == a + 1 || b + 1 >= s + len || memchr(b + 1, sep, len - (size_t)(b + 1 - s)))
		return false;
	if ((size_t)(a - s) >= size || (size_t)(b - a - 1) >= size ||
	    (size_t)(s + len - b - 1) >= size)
		return false;
	snprintf(f0, size, "%.*s", (int)(a - s), s);
	snprintf(f1, size, "%.*s", (int)(b - a - 1), a + 1);
	snprintf(f2, size, "%.*s", (int)(s + len - b - 1), b + 1);
	return true;
}

static int try_kubelet(const char *root, const char *id,
		       struct strobe_container_meta *out)
{
	char dir[400], suffix[72];
	struct dirent *de;
	size_t sl;
	DIR *d;
	int found = 0;

	if (!fmt(dir, sizeof(dir), "%s/var/log/containers", root))
		return 0;
	snprintf(suffix, sizeof(suffix), "-%s.log", id);
	sl = strlen(suffix);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n <= sl || strcmp(de->d_name + n - sl, suffix))
			continue;
		if (split3(de->d_name, n - sl, '_', out->pod, out->pod_ns, out->name,
			   sizeof(out->name))) {
			found = 1;
			fmt(out->source, sizeof(out->source), "%s/%.200s", dir, de->d_name);
		}
	}
	closedir(d);
	return found;
}

int strobe_pod_lookup(const char *root, const char *pod_uid,
		      struct strobe_container_meta *out)
{
	char dir[400], suffix[40], ns[256], pod[256], uid[256];
	struct dirent *de;
	size_t sl;
	DIR *d;
	int found = 0;

	memset(out, 0, sizeof(*out));
	if (!pod_uid || !pod_uid[0] || strlen(pod_uid) > 36 || strchr(pod_uid, '/'))
		return -EINVAL;
	if (!root || !strcmp(root, "/"))
		root = "";
	out->runtime = STROBE_RT_KUBEPODS;
	if (!fmt(dir, sizeof(dir), "%s/var/log/pods", root))
		return 0;
	snprintf(suffix, sizeof(suffix), "_%s", pod_uid);
	sl = strlen(suffix);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n <= sl || strcmp(de->d_name + n - sl, suffix) ||
		    !split3(de->d_name, n, '_', ns, pod, uid, sizeof(ns)))
			continue;
		snprintf(out->pod_ns, sizeof(out->pod_ns), "%s", ns);
		snprintf(out->pod, sizeof(out->pod), "%s", pod);
		fmt(out->source, sizeof(out->source), "%s/%.200s", dir, de->d_name);
		found = 1;
	}
	closedir(d);
	return found;
}

int strobe_container_lookup(const char *root, const struct strobe_cgroup_id *id,
			    struct strobe_container_meta *out)
{
	char warning[sizeof(out->warning)];
	enum strobe_runtime rt;
	const char *cid;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!id || !id->id[0])
		return -EINVAL;
	if (!root || !strcmp(root, "/"))
		root = "";
	cid = id->id;
	rt = out->runtime = id->runtime;
	if (rt == STROBE_RT_LXC) {
		snprintf(out->name, sizeof(out->name), "%s", cid);
		return 1;
	}
	/* IDs are 64 hex here: they never escape the directories below */
	if (strlen(cid) != 64)
		goto fallback;
	for (i = 0; i < 64; i++)
		if (!((cid[i] >= '0' && cid[i] <= '9') || (cid[i] >= 'a' && cid[i] <= 'f')))
			goto fallback;

	if ((rt == STROBE_RT_DOCKER || rt == STROBE_RT_KUBEPODS || rt == STROBE_RT_UNKNOWN) &&
	    try_docker(root, cid, rt == STROBE_RT_DOCKER, out)) {
		out->runtime = STROBE_RT_DOCKER;
		return 1;
	}
	if ((rt == STROBE_RT_CONTAINERD || rt == STROBE_RT_KUBEPODS || rt == STROBE_RT_UNKNOWN) &&
	    try_containerd(root, cid, out)) {
		out->runtime = STROBE_RT_CONTAINERD;
		return 1;
	}
	if ((rt == STROBE_RT_PODMAN || rt == STROBE_RT_CRIO || rt == STROBE_RT_KUBEPODS ||
	     rt == STROBE_RT_UNKNOWN) &&
	    try_storage(root, cid, id->rootless_uid, out)) {
		if (rt != STROBE_RT_PODMAN && rt != STROBE_RT_CRIO)
			out->runtime = out->pod[0] ? STROBE_RT_CRIO : STROBE_RT_PODMAN;
		return 1;
	}
	/* any runtime under a Kubernetes pod: the kubelet's names */
	if ((id->pod_uid[0] || rt == STROBE_RT_KUBEPODS || rt == STROBE_RT_UNKNOWN) &&
	    try_kubelet(root, cid, out))
		return 1;
fallback:
	memcpy(warning, out->warning, sizeof(warning));
	memset(out, 0, sizeof(*out));
	memcpy(out->warning, warning, sizeof(warning));
	out->runtime = rt;
	snprintf(out->name, sizeof(out->name), "%s", id->short_id);
	return 0;
}

void strobe_meta_display(const struct strobe_container_meta *m, char *name,
			 size_t size)
{
	if (m->pod[0] && m->name[0])
		snprintf(name, size, "%s%s%s/%s", m->pod_ns,
			 m->pod_ns[0] ? "/" : "", m->pod, m->name);
	else if (m->pod[0])
		snprintf(name, size, "%s%s%s", m->pod_ns,
			 m->pod_ns[0] ? "/" : "", m->pod);
	else
		snprintf(name, size, "%s", m->name);
}

int strobe_container_name(const char *root, const struct strobe_cgroup_id *id,
			  char *name, size_t size)
{
	struct strobe_container_meta *m;
	int ret;

	if (!size)
		return -EINVAL;
	name[0] = '\0';
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = strobe_container_lookup(root, id, m);
	if (ret >= 0)
		strobe_meta_display(m, name, size);
	free(m);
	return ret;
}
