/*
 * tcp_retrans - TCP retransmissions on loopback, counted by the kernel,
 * for tcpretrans's test (tests/kernel/82-bpf-tools.sh); static so it
 * runs in a busybox container (its own network namespace: the counters
 * read are that namespace's).
 *
 *   tcp_retrans PORT SECONDS GO
 *
 * listens on 127.0.0.1:PORT, connects to it and accepts, prints
 * "connected", then waits for the path GO to exist (the test has made
 * the namespace drop what arrives for PORT meanwhile), writes 100 bytes
 * that never arrive, lets the kernel retransmit them for SECONDS, and
 * aborts both ends (SO_LINGER 0: resets, no FIN left to retransmit
 * after the exit).  It prints "retranssegs N", N the namespace's
 * Tcp RetransSegs (/proc/net/snmp) after less before: every
 * retransmission this namespace made meanwhile, ours only when nothing
 * else in it talks.  Exit 0, or 1 with a message.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Tcp: RetransSegs of this network namespace, or -1. */
static long retranssegs(void)
{
	char names[1024], values[1024];
	FILE *f = fopen("/proc/net/snmp", "r");
	long v = -1;

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f)) {
		char *n, *x, *sn, *sx;

		if (strncmp(names, "Tcp:", 4) || !fgets(values, sizeof(values), f))
			continue;
		n = strtok_r(names, " \n", &sn);
		x = strtok_r(values, " \n", &sx);
		while (n && x) {
			if (!strcmp(n, "RetransSegs"))
				v = atol(x);
			n = strtok_r(NULL, " \n", &sn);
			x = strtok_r(NULL, " \n", &sx);
		}
		break;
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct linger lg = { 1, 0 };
	char data[100];
	int l, c, s, one = 1;
	long before, after;

	if (argc != 4) {
		fprintf(stderr, "usage: tcp_retrans PORT SECONDS GO\n");
		return 2;
	}
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) < 0 || (s = accept(l, NULL, NULL)) < 0) {
		perror("tcp_retrans: loopback connection");
		return 1;
	}
	printf("connected\n");
	fflush(stdout);
	while (access(argv[3], F_OK) != 0)
		nanosleep(&ts, NULL);
	before = retranssegs();
	memset(data, 'x', sizeof(data));
	if (write(c, data, sizeof(data)) != (ssize_t)sizeof(data)) {
		perror("tcp_retrans: write");
		return 1;
	}
	sleep((unsigned)atoi(argv[2]));
	/* both ends abort: no FIN left to retransmit once we are gone */
	setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(c);
	close(s);
	after = retranssegs();
	if (before < 0 || after < 0) {
		fprintf(stderr, "tcp_retrans: cannot read Tcp RetransSegs in /proc/net/snmp\n");
		return 1;
	}
	printf("retranssegs %ld\n", after - before);
	close(l);
	return 0;
}
