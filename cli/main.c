/*
 * main.c - the strobe command: a table of subcommands, each in its own
 * cmd-<name>.c, in the manner of git and perf.  main() owns the terminal:
 * it checks that everything written to stdout really reached it (a full
 * disk or a closed pipe is an error, not silence).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cli.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "record a trace of a command, a process or the system" },
	{ "trigger", cmd_trigger, "make running flight recorders write a snapshot" },
	{ "report", cmd_report, "print the events of a trace file as text or JSON" },
	{ "list", cmd_list, "list available events, event systems and presets" },
	{ "ps", cmd_ps, "list processes and their containers, live or of a trace file" },
	{ "analyze", cmd_analyze, "run several analyses over a trace file in one pass" },
	{ "top", cmd_top, "a live, refreshing view per container, process or thread" },
	{ "cputop", cmd_cputop, "CPU time per thread, process, container and CPU" },
	{ "syscalls", cmd_syscalls, "system call counts, latency and errors" },
	{ "schedlat", cmd_schedlat, "wake-up to run latency (run-queue latency)" },
	{ "why", cmd_why, "where a container's time goes and whom it waits for" },
	{ "io", cmd_io, "I/O bytes and latency per process, file and disk" },
	{ "irq", cmd_irq, "hard and soft IRQ durations, softirq raise latency" },
	{ "mem", cmd_mem, "pages allocated and freed per process and container" },
	{ "periods", cmd_periods, "user-defined periods (requests) from begin/end expressions" },
	{ "sql", cmd_sql, "SQL queries over a trace file (SQLite)" },
	{ "export", cmd_export, "export a trace file to ClickHouse" },
	{ "flamegraph", cmd_flamegraph, "off-CPU time by stack as a flame graph (SVG) or folded" },
	{ "profile", cmd_profile, "CPU samples by function and stack, per container (perf)" },
	{ "probe", cmd_probe, "list the functions and USDT probes of a program in a container" },
	{ "heatmap", cmd_heatmap, "a latency heat map (SVG) of syscalls, schedlat, io, irq, periods" },
	{ "html", cmd_html, "one self-contained HTML report of a trace file" },
	{ "opensnoop", cmd_opensnoop, "one line per file open, with its path and container" },
	{ "execsnoop", cmd_execsnoop, "one line per exec, with its arguments and container" },
	{ "syncsnoop", cmd_syncsnoop, "one line per sync call, with its file and container" },
	{ "tcpretrans", cmd_tcpretrans, "one line per TCP retransmission, with its container" },
	{ "runqlat", cmd_runqlat, "run-queue latency histograms, per container (bcc's runqlat)" },
	{ "biolatency", cmd_biolatency, "block request latency histograms, per container, disk" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: strobe [--version] [--help] <command> [<args>]\n"
		"\n"
		"strobe records kernel traces of commands, processes and containers\n"
		"into trace.dat files (readable by trace-cmd and KernelShark) and\n"
		"analyses them.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Run 'strobe <command> --help' for a command's options, or see\n"
		"strobe(1) and strobe-<command>(1).\n"
		"\n"
		"Examples:\n"
		"  strobe record -e sched -e syscalls -- ls /      trace a command\n"
		"  strobe report | less                           read trace.dat\n"
		"  strobe analyze -a cputop,syscalls,schedlat     what it cost, per thread\n"
		"  strobe syscalls --group-by container           ... and per container\n"
		"  strobe list presets                            what each preset enables\n"
		"  strobe sql \"SELECT count(*) FROM sys_enter\"   SQL over trace.dat\n");
}

/*
 * A message to stderr with what the user typed inside it made harmless:
 * control characters (C0, DEL and the C1 range U+0080-U+009F, which some
 * terminals take as escape sequences) are written as \xHH; the rest,
 * UTF-8 included, as it is.
 */
static void put_message(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	const unsigned char *s;
	char *msg = NULL;

	fflush(stdout);
	fprintf(stderr, "strobe %s: %s", cmd, kind);
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	for (s = (const unsigned char *)msg; *s; s++) {
		if (*s < 0x20 || *s == 0x7f)
			fprintf(stderr, "\\x%02x", *s);
		else if (*s == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
			fprintf(stderr, "\\x%02x", *++s);
		else
			fputc(*s, stderr);
	}
	fputc('\n', stderr);
	free(msg);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_message(cmd, "", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_message(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

void cli_error_e(const char *cmd, const struct strobe_error *err)
{
	if (err->msg[0])
		cli_error(cmd, "%s", err->msg);
	else
		cli_error(cmd, "%s", strerror(err->code < 0 ? -err->code : err->code));
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_int(const char *s, int min, int max, int *out)
{
	long v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	double v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (*end == 's')
		end++;
	if (*end || errno == ERANGE || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "512M", "1G", "4096" (bytes): K/M/G/T (powers of 1024) with an optional
 * "iB" or "B"; 0 and negative sizes are refused. */
int cli_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || !v || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* The errno of the first failed write to stdout through cli_flush (0:
 * none), which may have happened on a pipeline worker thread. */
static int stdout_errno;

/* Report a failed write to stdout (ENOSPC, EPIPE, ...) as an error. */
static int finish_stdout(const char *cmd, int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = stdout_errno ? stdout_errno : errno;

		if (e != EPIPE)
			cli_error(cmd, "write error on standard output: %s", strerror(e));
		return status ? status : CLI_FAIL;
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *name;
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *help_argv[] = { argv[2], "--help", NULL };

			for (i = 0; i < NR_COMMANDS; i++)
				if (!strcmp(argv[2], commands[i].name))
					return finish_stdout(argv[2],
						commands[i].fn(2, help_argv));
			cli_error("help", "unknown command '%s'", argv[2]);
			return CLI_USAGE;
		}
		usage(stdout);
		return finish_stdout("help", CLI_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		printf("strobe %s\n", strobe_version());
		return finish_stdout("version", CLI_OK);
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return finish_stdout(name, commands[i].fn(argc - 1, argv + 1));

	fprintf(stderr, "strobe: '%s' is not a strobe command. See 'strobe --help'.\n", name);
	return CLI_USAGE;
}

struct strobe_buf *cli_buf_new(void)
{
	struct strobe_buf *b = strobe_buf_new();

	if (!b) {
		fprintf(stderr, "strobe: out of memory\n");
		exit(1);
	}
	return b;
}

/*
 * A closed pipe ends the process by SIGPIPE, as when `strobe report |
 * head` writes from the main thread: a --jobs worker thread runs with
 * signals blocked (lib/util/thread.c), so its write only fails with
 * EPIPE; the signal is then sent to the process, whose main thread takes
 * it.  Where SIGPIPE is ignored, the command ends as the failed write
 * says (finish_stdout: silently for EPIPE).
 */
bool cli_flush(struct strobe_buf *s)
{
	if (strobe_buf_len(s)) {
		size_t n = strobe_buf_len(s);

		errno = 0;
		if (fwrite(strobe_buf_data(s), 1, n, stdout) != n && !stdout_errno)
			stdout_errno = errno ? errno : EIO;
		strobe_buf_reset(s);
	}
	if (!ferror(stdout))
		return true;
	if (stdout_errno == EPIPE)
		cli_broken_pipe();
	return false;
}

void cli_broken_pipe(void)
{
	kill(getpid(), SIGPIPE);
}
