/*
 * fuzz_http.c - libFuzzer harness for the metrics endpoint's request path
 * (lib/metrics/http.c): a real libmicrohttpd daemon running strobe's
 * handler over a registry that holds one strobe top interval, fed the
 * input as raw request bytes through a socketpair
 * (MHD_add_connection), so parsing, authentication, routing, the
 * exposition and the replies all run as they do for a network client.
 *
 * Input: byte 0 picks the daemon (bit 0: with basic authentication,
 * user "alice", password "secret", bcrypt cost 4); the rest is what the
 * client sends before it closes its side.  Checked: whatever comes back
 * starts with an HTTP/1.x status line, and under ASan nothing of strobe's
 * handler reads or leaks memory it should not.  A request cut short is
 * held by libmicrohttpd until its timeout (as for a network client), so
 * the harness hangs up after 100 ms of silence.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/metrics.h>
#include <strobe/top.h>

#include "metrics/metrics-int.h"

static struct strobe_metrics *m;
static struct strobe_metrics_server *plain, *authed;

static void setup(void)
{
	static const char conf_text[] =
		"basic_auth_users:\n"
		"  alice: $2y$04$XbjjHHXN3N3cpYqt3DGK6OkqwsoT53b3YWSwQ.G2QudfCzpxdeese\n";
	static struct strobe_top_syscall sys[] = { { "read", 10, 1 }, { "other", 2, 0 } };
	static struct strobe_top_errno errs[] = { { "read", "EAGAIN", 1 } };
	static struct strobe_top_container c[] = {
		{ .name = "we\"b", .id = "1", .pod = "p", .ns = "n", .cpu_ns = 5, .switches = 1,
		  .syscalls = sys, .nr_syscalls = 2, .errnos = errs, .nr_errnos = 1,
		  .mem_bytes = 10, .tasks = 1 },
	};
	struct strobe_top_interval iv = { .end = 1, .containers = c, .nr_containers = 1,
					  .events = 3 };
	struct strobe_webconf *conf;

	c[0].runq_lat.slot[3] = 2;
	c[0].runq_lat.count = 2;
	if (strobe_metrics_new(NULL, &m, NULL) < 0 ||
	    strobe_metrics_add_top_interval(m, &iv, 1) < 0 ||
	    strobe_webconf_parse(conf_text, sizeof(conf_text) - 1, &conf, NULL) < 0 ||
	    strobe_metrics_serve_fds(m, NULL, &plain, NULL) < 0 ||
	    strobe_metrics_serve_fds(m, conf, &authed, NULL) < 0)
		__builtin_trap();
	strobe_webconf_free(conf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char reply[8192];
	size_t got = 0, off = 1;
	int sv[2];

	if (!m)
		setup();
	if (size < 1)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	if (strobe_metrics_server_add_fd(data[0] & 1 ? authed : plain, sv[1]) < 0) {
		close(sv[0]);
		return 0;
	}
	/* send all (the daemon reads while we write), then close our side */
	while (off < size) {
		struct pollfd p = { sv[0], POLLOUT, 0 };
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0)
			break;
		n = send(sv[0], data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0)
			off += n;
		/* drain replies so a pipelined client cannot fill both
		 * directions */
		n = recv(sv[0], reply + got, sizeof(reply) - got > 0 ? sizeof(reply) - got : 0,
			 MSG_DONTWAIT);
		if (n > 0 && got + n < sizeof(reply))
			got += n;
	}
	shutdown(sv[0], SHUT_WR);
	for (;;) {
		struct pollfd p = { sv[0], POLLIN, 0 };
		char sink[4096];
		ssize_t n;

		/* libmicrohttpd keeps a connection whose request is cut
		 * short until its timeout, even after the client's EOF:
		 * after 100 ms of silence, hang up (the daemon frees it on
		 * its timeout; its limits are set high for this) */
		if (poll(&p, 1, 100) <= 0)
			break;
		n = recv(sv[0], got < sizeof(reply) ? reply + got : sink,
			 got < sizeof(reply) ? sizeof(reply) - got : sizeof(sink), 0);
		if (n <= 0)
			break;
		if (got < sizeof(reply))
			got += n;
	}
	close(sv[0]);
	if (getenv("STROBE_FUZZ_SHOW"))		/* the status lines, for a look */
		for (size_t i = 0; i + 8 < got; i++)
			if (!memcmp(reply + i, "HTTP/1.", 7) && (!i || reply[i - 1] == '\n'))
				fprintf(stderr, "%.*s\n", (int)strcspn(reply + i, "\r"), reply + i);
	if (got && (got < 9 || memcmp(reply, "HTTP/1.", 7)))
		__builtin_trap();
	return 0;
}
