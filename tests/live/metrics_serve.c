/*
 * metrics_serve - serves a Prometheus registry fed with synthetic strobe
 * top intervals, through the public C API only, for tests/cli/11-metrics.sh
 * (no tracing: the figures are made up, the registry, the exposition and
 * the HTTP server are the real ones).
 *
 *   metrics_serve ADDR:PORT [-c WEBCONFIG] [-k] [-f PORTFILE] [-t TIMEOUT_S]
 *                 [-i INTERVAL_MS]
 *
 * Every interval (default 200 ms of wall time) adds one interval of:
 *   busy   a container whose one task ran the whole interval (its CPU
 *          seconds grow at 1 per second: rate() reads 1), 100 read calls
 *          per 100 ms, run-queue latencies in slot 3 ([8, 16) us)
 *   idle   a container that ran 1% of the interval, in pod "web-1" of
 *          namespace "shop"
 *   gone   a container seen in the first 3 intervals only (it expires
 *          after keep, 2 s here)
 * -k serves beyond loopback without TLS or authentication (insecure).
 * When listening, writes the port to PORTFILE (or stdout).  Runs until
 * SIGTERM or SIGINT, then stops the server and prints, on stderr,
 * intervals=N worst_update_us=N (the longest strobe_metrics_add_top_interval
 * took: what a scrape's lock could cost the pipeline).  Exit 1 when an
 * API call fails (its message on stderr).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/metrics.h>
#include <strobe/top.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct strobe_metrics_opts mo = { .size = sizeof(mo), .keep_ns = 2000000000ULL };
	struct strobe_metrics_web web = { .size = sizeof(web) };
	struct strobe_metrics_server *srv = NULL;
	struct strobe_metrics *m = NULL;
	struct strobe_error err = { 0 };
	const char *port_file = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	long interval_ms = 200;
	uint64_t worst = 0, t, prev;
	int opt, n = 0, r;

	while ((opt = getopt(argc, argv, "c:kf:t:i:")) != -1) {
		switch (opt) {
		case 'c': web.config_file = optarg; break;
		case 'k': web.insecure = true; break;
		case 'f': port_file = optarg; break;
		case 't': web.timeout_s = atoi(optarg); break;
		case 'i': interval_ms = atol(optarg); break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || interval_ms <= 0) {
		fprintf(stderr, "usage: metrics_serve ADDR:PORT [-c WEBCONFIG] [-k] [-f PORTFILE] "
			"[-t TIMEOUT_S] [-i INTERVAL_MS]\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (strobe_metrics_new(&mo, &m, &err) < 0 ||
	    strobe_metrics_serve(m, argv[optind], &web, &srv, &err) < 0) {
		fprintf(stderr, "metrics_serve: %s\n", err.msg);
		strobe_metrics_free(m);
		return 1;
	}
	if (port_file) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d\n", strobe_metrics_server_port(srv)) < 0 || fclose(f) ||
		    rename(tmp, port_file)) {
			perror(port_file);
			strobe_metrics_server_stop(srv);
			strobe_metrics_free(m);
			return 1;
		}
	} else {
		printf("%d\n", strobe_metrics_server_port(srv));
		fflush(stdout);
	}
	prev = now_ns();
	while (!stop) {
		struct timespec d = { interval_ms / 1000, (interval_ms % 1000) * 1000000 };
		struct strobe_top_syscall sys[] = { { "read", 0, 0 }, { "other", 3, 0 } };
		struct strobe_top_errno errs[] = { { "read", "EAGAIN", 1 } };
		struct strobe_top_container c[3];
		struct strobe_top_interval iv;
		uint64_t ns, t0;

		nanosleep(&d, NULL);
		t = now_ns();
		ns = t - prev;
		memset(c, 0, sizeof(c));
		sys[0].count = ns / 1000000;	/* 1000 per second */
		sys[0].errors = 1;
		c[0] = (struct strobe_top_container){ .name = "busy", .id = "b1", .pod = "",
			.ns = "", .cpu_ns = ns, .switches = 10, .syscalls = sys, .nr_syscalls = 2,
			.errnos = errs, .nr_errnos = 1, .read_bytes = 4096, .mem_bytes = 1 << 24,
			.tasks = 1 };
		c[0].runq_lat.slot[3] = 5;
		c[0].runq_lat.count = 5;
		c[0].runq_lat.sum_ns = 5 * 10000;
		c[0].syscall_lat.slot[0] = sys[0].count;
		c[0].syscall_lat.count = sys[0].count;
		c[0].syscall_lat.sum_ns = sys[0].count * 1000;
		c[1] = (struct strobe_top_container){ .name = "idle", .id = "i1", .pod = "web-1",
			.ns = "shop", .cpu_ns = ns / 100, .switches = 1, .mem_bytes = -1,
			.tasks = 2 };
		c[2] = (struct strobe_top_container){ .name = "gone", .id = "g1", .pod = "",
			.ns = "", .cpu_ns = ns / 2, .mem_bytes = -1, .tasks = 1 };
		iv = (struct strobe_top_interval){ .begin = prev, .end = t, .seconds = ns / 1e9,
			.containers = c, .nr_containers = n < 3 ? 3 : 2, .events = 1000,
			.lost = 0 };
		t0 = now_ns();
		r = strobe_metrics_add_top_interval(m, &iv, t);
		if (now_ns() - t0 > worst)
			worst = now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "metrics_serve: add_top_interval: %s\n", strerror(-r));
			break;
		}
		prev = t;
		n++;
	}
	strobe_metrics_server_stop(srv);
	strobe_metrics_free(m);
	fprintf(stderr, "intervals=%d worst_update_us=%llu\n", n,
		(unsigned long long)(worst / 1000));
	return stop ? 0 : 1;
}
