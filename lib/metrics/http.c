/*
 * http.c - the metrics endpoint: libmicrohttpd serving a registry's
 * exposition on /metrics, with node exporter's web configuration (basic
 * authentication with bcrypt hashes, TLS through GnuTLS) beyond loopback.
 *
 * How it keeps tracing safe from its clients: the server runs in
 * libmicrohttpd's own thread (epoll, every signal blocked), which alone
 * reads requests and writes responses; a slow or hostile client costs
 * that thread a connection slot (at most max_connections, per_ip from one
 * address, each closed after timeout_s idle, 32 KiB of memory each), never
 * the pipeline's time.  The pipeline and this thread share only the
 * registry's mutex, which a scrape holds while it writes the text into a
 * buffer of its own; the response is a copy of that buffer, sent after
 * the lock is released.  A request body is never read (the answer goes
 * out once the headers are in, and libmicrohttpd then closes the
 * connection), headers are bounded by the connection's memory
 * (libmicrohttpd answers 431), and its strict parsing answers malformed
 * requests with 400.
 *
 * The listening socket is made here (so a bind failure has its errno and
 * a message); libmicrohttpd takes it over.  The library prints nothing:
 * libmicrohttpd's log is off.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metrics-int.h"
#include "util/file.h"
#include "util/opts.h"

#define CONF_MAX_BYTES STROBE_WEBCONF_MAX_TEXT
#define PEM_MAX_BYTES (1 << 20)
#define CONN_MEMORY (32 * 1024)

struct strobe_metrics_server {
	struct MHD_Daemon *d;
	struct strobe_metrics *m;
	struct strobe_webconf *conf;	/* NULL: no authentication, no TLS;
					 * its cache only on the server's
					 * (one) thread */
	char *cert, *key;		/* PEM, alive as long as d */
	int port;
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>strobe</title></head><body>\n"
	"<h1>strobe</h1>\n<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const void *body, size_t len, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), NULL);
}

static bool authorized(struct strobe_metrics_server *s, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok;

	if (!s->conf || !s->conf->nr_users)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = user && pass && strobe_webconf_check(s->conf, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result serve_metrics(struct strobe_metrics_server *s, struct MHD_Connection *c)
{
	uint64_t t0 = mono_ns();
	struct strobe_buf *b = strobe_buf_new();
	enum MHD_Result ret;

	if (!b || strobe_metrics_write(s->m, b) < 0) {
		strobe_buf_free(b);
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	ret = reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
		    strobe_buf_data(b), strobe_buf_len(b), NULL);
	strobe_buf_free(b);
	strobe_metrics_scraped(s->m, mono_ns() - t0);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_size, void **con_cls)
{
	struct strobe_metrics_server *s = cls;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET), head = !strcmp(method, MHD_HTTP_METHOD_HEAD);

	if (*upload_size) {
		/* a body after an answer was queued at the headers cannot
		 * reach here; refuse it should libmicrohttpd ever pass one */
		*upload_size = 0;
		return text(c, MHD_HTTP_BAD_REQUEST, "a request body is not expected\n");
	}
	if (!authorized(s, c)) {
		static const char msg[] = "authentication needed\n";
		struct MHD_Response *r = MHD_create_response_from_buffer(
			sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret;

		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
		ret = MHD_queue_basic_auth_fail_response(c, "strobe", r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!get && !head)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			     "only GET and HEAD\n", 18, "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(s, c);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_page,
			     sizeof(index_page) - 1, NULL);
	return text(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

/* "IPV4:PORT", "[IPV6]:PORT", ":PORT", "localhost:PORT". */
static int parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len,
		      bool *loopback, struct strobe_error *err)
{
	const char *colon = strrchr(s, ':');
	char host[64], *end;
	unsigned long port;
	size_t hl;

	memset(sa, 0, sizeof(*sa));
	if (!colon || !colon[1])
		return strobe_err(err, -EINVAL, "'%s': not ADDR:PORT", s);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end || errno || port > 65535 || colon[1] < '0' || colon[1] > '9')
		return strobe_err(err, -EINVAL, "'%s': bad port '%s'", s, colon + 1);
	hl = colon - s;
	if (hl >= sizeof(host))
		return strobe_err(err, -EINVAL, "'%s': bad address", s);
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (host[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)sa;

		if (hl < 3 || host[hl - 1] != ']')
			return strobe_err(err, -EINVAL, "'%s': an IPv6 address needs [ ]", s);
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return strobe_err(err, -EINVAL, "'%s': bad IPv6 address", s);
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		*len = sizeof(*a);
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
			    (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)sa;

		if (!host[0] || !strcmp(host, "localhost"))
			strcpy(host, "127.0.0.1");
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return strobe_err(err, -EINVAL,
					  "'%s': bad address (IPv4, [IPv6] or nothing for loopback)", s);
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		*len = sizeof(*a);
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
}

/* The whole file (user's own argument: symlinks followed), NUL-ended. */
static int read_file(const char *path, size_t max, char **out, size_t *len,
		     struct strobe_error *err)
{
	struct stat st;
	char *buf;
	int fd = strobe_file_open_regular(path, 0, max, &st, err), r;

	if (fd < 0)
		return fd;
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	r = strobe_file_pread_all(fd, buf, st.st_size, 0);
	close(fd);
	if (r < 0) {
		free(buf);
		return strobe_err(err, r, "%s: cannot read: %s", path, strerror(-r));
	}
	buf[st.st_size] = '\0';
	*out = buf;
	*len = st.st_size;
	return 0;
}

static void server_free(struct strobe_metrics_server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	strobe_webconf_free(s->conf);
	if (s->key) {
		explicit_bzero(s->key, strlen(s->key));
		free(s->key);
	}
	free(s->cert);
	free(s);
}

void strobe_metrics_server_stop(struct strobe_metrics_server *s)
{
	server_free(s);
}

int strobe_metrics_server_port(const struct strobe_metrics_server *s)
{
	return s ? s->port : -1;
}

/* Start the daemon with every signal blocked, so its thread has them
 * blocked (it inherits the mask). */
static struct MHD_Daemon *start(struct strobe_metrics_server *s, unsigned flags, int fd,
				const struct strobe_metrics_web *w)
{
	sigset_t all, old;
	struct MHD_Daemon *d;
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_CONNECTION_LIMIT, w->max_connections, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, w->per_ip, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, w->timeout_s, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, NULL },
		{ MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL },
		{ fd >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_END, fd, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (s->cert)
		d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handle, s,
				     MHD_OPTION_ARRAY, opts,
				     MHD_OPTION_HTTPS_MEM_CERT, s->cert,
				     MHD_OPTION_HTTPS_MEM_KEY, s->key, MHD_OPTION_END);
	else
		d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_ARRAY, opts,
				     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

static void web_defaults(struct strobe_metrics_web *w, const struct strobe_metrics_web *web)
{
	strobe_opts_copy(w, sizeof(*w), web);
	if (w->max_connections <= 0)
		w->max_connections = 16;
	if (w->per_ip <= 0)
		w->per_ip = 4;
	if (!w->timeout_s)
		w->timeout_s = 10;
}

int strobe_metrics_serve(struct strobe_metrics *m, const char *addr_port,
			 const struct strobe_metrics_web *web, struct strobe_metrics_server **out,
			 struct strobe_error *err)
{
	struct strobe_metrics_server *s;
	struct strobe_metrics_web w;
	struct sockaddr_storage sa;
	socklen_t salen;
	bool loopback = false;
	int fd = -1, mfd, r, one = 1;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;

	*out = NULL;
	web_defaults(&w, web);
	if (!m || !addr_port)
		return strobe_err(err, -EINVAL, "no registry or address");
	if ((r = parse_addr(addr_port, &sa, &salen, &loopback, err)) < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	s->m = m;
	if (w.config_file) {
		char *text;
		size_t len;

		if ((r = read_file(w.config_file, CONF_MAX_BYTES, &text, &len, err)) < 0)
			goto fail;
		r = strobe_webconf_parse(text, len, &s->conf, err);
		free(text);
		if (r < 0) {
			strobe_err_prefix(err, "%s", w.config_file);
			goto fail;
		}
		if (s->conf->has_tls) {
			size_t n;

			if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
				r = strobe_err(err, -ENOTSUP, "%s: TLS is asked but libmicrohttpd "
					       "has no TLS", w.config_file);
				goto fail;
			}
			if ((r = read_file(s->conf->cert_file, PEM_MAX_BYTES, &s->cert, &n, err)) < 0 ||
			    (r = read_file(s->conf->key_file, PEM_MAX_BYTES, &s->key, &n, err)) < 0)
				goto fail;
		}
	}
	if (!loopback && !w.insecure && !(s->conf && (s->conf->has_tls || s->conf->nr_users))) {
		r = strobe_err(err, -EPERM, "%s is beyond loopback: give a web config with "
			       "tls_server_config or basic_auth_users, or serve insecure "
			       "on purpose", addr_port);
		goto fail;
	}
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = strobe_err(err, -errno, "%s: socket: %s", addr_port, strerror(errno));
		goto fail;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, salen) < 0 || listen(fd, 64) < 0) {
		r = strobe_err(err, -errno, "%s: cannot listen: %s", addr_port, strerror(errno));
		goto fail;
	}
	if (getsockname(fd, (struct sockaddr *)&sa, &salen) == 0)
		s->port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
						      : ((struct sockaddr_in *)&sa)->sin_port);
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* libmicrohttpd owns a copy: whether it closes the socket when it
	 * fails to start is not documented, and a second close could hit
	 * another thread's new descriptor */
	mfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mfd < 0) {
		r = strobe_err(err, -errno, "%s: %s", addr_port, strerror(errno));
		goto fail;
	}
	s->d = start(s, flags, mfd, &w);
	close(fd);
	fd = -1;
	if (!s->d) {
		r = strobe_err(err, -EIO, "%s: libmicrohttpd did not start%s", addr_port,
			       s->cert ? " (is the TLS key or certificate valid PEM?)" : "");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	server_free(s);
	return r;
}

int strobe_metrics_serve_fds(struct strobe_metrics *m, const struct strobe_webconf *conf,
			     struct strobe_metrics_server **out, struct strobe_error *err)
{
	struct strobe_metrics_server *s = calloc(1, sizeof(*s));
	struct strobe_metrics_web w;
	int i;

	*out = NULL;
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	web_defaults(&w, NULL);
	/* every connection of the fuzzer comes "from" 127.0.0.1, and those
	 * it hangs up on stay until the timeout */
	w.timeout_s = 1;
	w.max_connections = 1000;
	w.per_ip = 1000;
	s->m = m;
	if (conf && conf->nr_users) {
		s->conf = calloc(1, sizeof(*s->conf));
		if (!s->conf)
			goto nomem;
		for (i = 0; i < conf->nr_users; i++) {
			s->conf->users[i].name = strdup(conf->users[i].name);
			s->conf->users[i].hash = strdup(conf->users[i].hash);
			s->conf->nr_users++;
			if (!s->conf->users[i].name || !s->conf->users[i].hash)
				goto nomem;
		}
	}
	s->d = start(s, MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		     MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC, -1, &w);
	if (!s->d) {
		server_free(s);
		return strobe_err(err, -EIO, "libmicrohttpd did not start");
	}
	*out = s;
	return 0;
nomem:
	server_free(s);
	return strobe_err(err, -ENOMEM, "out of memory");
}

int strobe_metrics_server_add_fd(struct strobe_metrics_server *s, int fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(40000) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* libmicrohttpd closes fd on failure too */
	return MHD_add_connection(s->d, fd, (struct sockaddr *)&a, sizeof(a)) == MHD_YES ? 0 : -EIO;
}
