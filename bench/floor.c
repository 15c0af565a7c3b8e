/*
 * floor.c - the capture floor for make bench: a bare tracefs instance
 * with the given events, drained by one thread per CPU that splices
 * trace_pipe_raw into a file, and nothing else (no model, no /proc scans,
 * no guardian, no metadata).  What strobe record costs beyond this is
 * strobe's own; the bench compares the two on the same workload in the
 * same run (issue 27: "capture at the ftrace floor").
 *
 *   floor [-p] -b KB -o DIR -e SYSTEM/EVENT [-e ...] -- CMD [ARGS...]
 *
 * -p traces only the command and its descendants, as `strobe record --
 * CMD` does: the command's PID in set_event_pid and options/event-fork
 * on.  The kernel's PID filter has a cost of its own (probes on every
 * context switch and wake-up that keep a per-CPU "ignore" flag), so
 * strobe's recording of a command compares with this floor, not with the
 * whole machine's.
 *
 * The command starts once tracing is on; its own wrapper (helpers/timed)
 * measures its time.  At its exit tracing stops, the readers stop at the
 * next empty read, the per-CPU overrun counts are printed as
 * "floor: lost=N" and the instance (floor-PID, never strobe-*) is
 * removed.  Root only; it touches nothing at the top level.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define MAX_EV 64
#define MAX_CPU 256

static char inst[256];
static volatile int stopping;

struct reader {
	pthread_t th;
	int cpu;
	const char *dir;
	long bytes;
};

static int write_file(const char *rel, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", inst, rel);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -EIO;
}

static void *drain(void *arg)
{
	struct reader *r = arg;
	char path[512];
	int in, out, p[2];
	long ps = sysconf(_SC_PAGESIZE);

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, r->cpu);
	in = open(path, O_RDONLY | O_NONBLOCK);
	snprintf(path, sizeof(path), "%s/cpu%d", r->dir, r->cpu);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0 || pipe(p) < 0) {
		perror("floor: reader");
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return NULL;
	}
	for (;;) {
		ssize_t n = splice(in, NULL, p[1], NULL, (size_t)ps * 16, SPLICE_F_MOVE |
				   SPLICE_F_NONBLOCK);

		if (n > 0) {
			while (n > 0) {
				ssize_t m = splice(p[0], NULL, out, NULL, (size_t)n, SPLICE_F_MOVE);

				if (m <= 0)
					break;
				n -= m;
				r->bytes += m;
			}
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (stopping)
			break;
		{
			struct pollfd pf = { in, POLLIN, 0 };

			poll(&pf, 1, 100);
		}
	}
	close(in);
	close(out);
	close(p[0]);
	close(p[1]);
	return NULL;
}

static long overrun(int cpu)
{
	char path[512], buf[1024], *s;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", inst, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	s = strstr(buf, "overrun:");
	return s ? strtol(s + 8, NULL, 10) : 0;
}

int main(int argc, char **argv)
{
	const char *ev[MAX_EV], *dir = NULL, *kb = "8192";
	struct reader rd[MAX_CPU];
	int nev = 0, i, c, ncpu, go[2], status = 1, pid_filter = 0;
	long lost = 0;
	pid_t child;
	char rel[512];

	while ((c = getopt(argc, argv, "+pb:o:e:")) != -1) {
		if (c == 'p')
			pid_filter = 1;
		else if (c == 'b')
			kb = optarg;
		else if (c == 'o')
			dir = optarg;
		else if (c == 'e' && nev < MAX_EV)
			ev[nev++] = optarg;
		else
			goto usage;
	}
	if (!dir || !nev || optind >= argc)
		goto usage;
	if (!strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		goto usage;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		perror("floor: output directory");
		return 1;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > MAX_CPU)
		ncpu = MAX_CPU;
	snprintf(inst, sizeof(inst), TRACEFS "/instances/floor-%d", (int)getpid());
	if (mkdir(inst, 0700) < 0) {
		perror("floor: instance");
		return 1;
	}
	if (write_file("tracing_on", "0") || write_file("buffer_size_kb", kb)) {
		fprintf(stderr, "floor: cannot set up the instance\n");
		goto out;
	}
	for (i = 0; i < nev; i++) {
		snprintf(rel, sizeof(rel), "events/%s/enable", ev[i]);
		if (write_file(rel, "1")) {
			fprintf(stderr, "floor: cannot enable %s\n", ev[i]);
			goto out;
		}
	}
	if (pipe(go) < 0)
		goto out;
	child = fork();
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execvp(argv[optind], &argv[optind]);
		_exit(127);
	}
	close(go[0]);
	if (pid_filter) {
		char pid[32];

		snprintf(pid, sizeof(pid), "%d", (int)child);
		if (write_file("options/event-fork", "1") || write_file("set_event_pid", pid)) {
			fprintf(stderr, "floor: cannot set the PID filter\n");
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			goto out;
		}
	}
	for (i = 0; i < ncpu; i++) {
		rd[i] = (struct reader){ .cpu = i, .dir = dir };
		pthread_create(&rd[i].th, NULL, drain, &rd[i]);
	}
	write_file("tracing_on", "1");
	if (write(go[1], "g", 1) != 1)
		perror("floor: start");
	close(go[1]);
	waitpid(child, &status, 0);
	write_file("tracing_on", "0");
	stopping = 1;
	for (i = 0; i < ncpu; i++)
		pthread_join(rd[i].th, NULL);
	for (i = 0; i < ncpu; i++)
		lost += overrun(i);
	printf("floor: lost=%ld\n", lost);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
out:
	for (i = 0; i < nev; i++) {
		snprintf(rel, sizeof(rel), "events/%s/enable", ev[i]);
		write_file(rel, "0");
	}
	rmdir(inst);
	return status;
usage:
	fprintf(stderr, "usage: floor [-p] -b KB -o DIR -e SYSTEM/EVENT [-e ...] -- CMD [ARGS...]\n");
	return 2;
}
