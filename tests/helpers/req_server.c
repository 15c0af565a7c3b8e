/*
 * req_server - the request example of the periods tests: a TCP server
 * whose requests take a duration the client chooses, so a trace of it has
 * requests of known length (accept4 ... close of that fd), each with one
 * nanosleep inside.
 *
 *   req_server serve PORT N     accept N connections on 127.0.0.1:PORT, one
 *                               at a time: accept4, read "MS\n", nanosleep
 *                               MS milliseconds (the nanosleep syscall
 *                               itself), write "ok\n", close; then exit 0
 *   req_server client PORT MS,MS,...   one connection per duration, in turn
 *                               (MSxN: N requests of MS milliseconds);
 *                               prints each request's round trip (rtt_ns=)
 *   req_server both MS,MS,...  fork: the child serves on a free port, the
 *                               parent is the client; prints server_pid=
 *                               and server_tid= on stdout
 * Static, so the same binary runs inside a busybox container.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "req_server: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int listener(int port, int *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0)
		die("bind/listen");
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		die("getsockname");
	*bound = ntohs(a.sin_port);
	return fd;
}

/* n requests; then each one's time from accept4's return to just
 * before its close, as "served_ns=" lines in order (printed at the end,
 * so that no write falls inside a request) */
static void serve(int lfd, long n)
{
	long long *served = calloc((size_t)n + 1, sizeof(*served));
	struct timespec a0, a1;
	long i;

	if (!served)
		die("calloc");
	for (i = 0; i < n; i++) {
		char buf[32];
		ssize_t k;
		long ms;
		struct timespec ts;
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			die("accept4");
		clock_gettime(CLOCK_MONOTONIC, &a0);
		k = read(c, buf, sizeof(buf) - 1);
		if (k <= 0)
			die("read");
		buf[k] = '\0';
		ms = strtol(buf, NULL, 10);
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		syscall(SYS_nanosleep, &ts, NULL);
		if (write(c, "ok\n", 3) != 3)
			die("write");
		clock_gettime(CLOCK_MONOTONIC, &a1);
		close(c);
		served[i] = (long long)(a1.tv_sec - a0.tv_sec) * 1000000000LL +
			    (a1.tv_nsec - a0.tv_nsec);
	}
	for (i = 0; i < n; i++)
		printf("served_ns=%lld\n", served[i]);
	fflush(stdout);
	free(served);
}

static void request(int port, const char *tok);

static void client(int port, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *x = strchr(tok, 'x');
		long rep = x ? atol(x + 1) : 1;

		if (x)
			*x = '\0';
		while (rep-- > 0)
			request(port, tok);
	}
	free(copy);
}

/* One request asking for ms milliseconds; prints its round trip. */
static void request(int port, const char *tok)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[32];
	struct timespec t0, t1;
	int fd, tries;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)port);
	for (tries = 0;; tries++) {	/* the server may not listen yet */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		if (tries == 100)
			die("connect");
		if (fd >= 0)
			close(fd);
		usleep(10000);
	}
	snprintf(buf, sizeof(buf), "%s\n", tok);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write(fd, buf, strlen(buf)) < 0 || read(fd, buf, sizeof(buf)) <= 0)
		die("request");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	printf("rtt_ns=%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
}

static long count(const char *list)
{
	long n = 0;

	for (;;) {
		const char *x = strchr(list, 'x'), *c = strchr(list, ',');

		n += x && (!c || x < c) ? atol(x + 1) : 1;
		if (!c)
			return n;
		list = c + 1;
	}
}

int main(int argc, char **argv)
{
	int port, lfd;
	pid_t pid;

	if (argc == 4 && !strcmp(argv[1], "serve")) {
		lfd = listener(atoi(argv[2]), &port);
		serve(lfd, atol(argv[3]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "client")) {
		client(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "both")) {
		lfd = listener(0, &port);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			serve(lfd, count(argv[2]));
			_exit(0);
		}
		close(lfd);
		printf("server_pid=%d\nserver_tid=%d\n", (int)pid, (int)pid);
		fflush(stdout);
		client(port, argv[2]);
		return waitpid(pid, NULL, 0) == pid ? 0 : 1;
	}
	fprintf(stderr, "usage: req_server serve PORT N | client PORT MS,... | both MS,...\n");
	return 2;
}
