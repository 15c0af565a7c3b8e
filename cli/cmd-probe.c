/*
 * cmd-probe.c - `strobe probe --list PATH [-c NAME | -p PID]`: where a
 * uprobe can go in a program as a container (or process) sees it: its
 * defined functions (name, address, size, file offset) and its USDT
 * probes (provider, name, address, semaphore, argument spec and the
 * fetch-args strobe record --usdt makes of it).  PATH is resolved in the
 * target's root (lib/probe), so a binary that exists only inside a
 * container is listed without knowing where its file system lives.
 *
 * Exit status: 0, 1 on an error (no such container, file, not ELF), 2 on
 * bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/probe.h>
#include <strobe/symbols.h>

#include "cli.h"

static const char *const cmd = "probe";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe probe --list PATH [-c NAME | -p PID]\n"
		"\n"
		"List where user-space probes can go in program PATH as a container or a\n"
		"process sees it (PATH is looked up in its own root file system): its\n"
		"functions, for strobe record --uprobe PATH:FUNCTION, and its USDT probes,\n"
		"for strobe record --usdt PATH:PROVIDER:NAME.\n"
		"\n"
		"Options:\n"
		"  -l, --list PATH       the program or library to list\n"
		"  -c, --container NAME  PATH inside this container (name, ID or ID prefix)\n"
		"  -p, --pid PID         PATH as process PID sees it\n"
		"      --functions       only the functions\n"
		"      --usdt            only the USDT probes\n"
		"  -h, --help            this help\n"
		"\n"
		"Functions: FUNCTION ADDRESS SIZE OFFSET (the file offset a uprobe takes).\n"
		"USDT probes: PROVIDER NAME ADDRESS SEMAPHORE ARGUMENTS, then the\n"
		"fetch-args strobe record --usdt records them with (arguments it cannot\n"
		"translate are named).\n"
		"\n"
		"Examples:\n"
		"  strobe probe --list /usr/sbin/nginx -c web\n"
		"  strobe probe --list /usr/lib/x86_64-linux-gnu/libc.so.6 --usdt -p 1234\n"
		"\n"
		"See strobe-probe(1).\n");
}

/* A task of container name's (its root is the container's), or -1. */
static pid_t container_pid(const char *name)
{
	struct strobe_error err = { 0, "" };
	struct strobe_model *m = NULL;
	const struct strobe_task *t;
	size_t cur = 0;
	pid_t pid = 0;

	if (strobe_model_new(&m, &err) < 0 || strobe_model_load_proc(m, &err) < 0) {
		cli_error_e(cmd, &err);
		strobe_model_free(m);
		return -1;
	}
	while ((t = strobe_model_next_task(m, &cur)))
		if (t->container && t->container->index >= 2 &&
		    strobe_container_matches(t->container, name) && t->tgid > 0) {
			pid = t->tgid;
			break;
		}
	strobe_model_free(m);
	if (!pid) {
		cli_error(cmd, "no running container '%s'", name);
		return -1;
	}
	return pid;
}

static void list_usdt(const struct strobe_elf_probes *p)
{
	size_t i;

	printf("USDT probes (%zu):\n", p->nr_usdt);
	if (!p->nr_usdt)
		return;
	printf("  %-20s %-24s %-18s %-18s %s\n", "PROVIDER", "NAME", "ADDRESS", "SEMAPHORE",
	       "ARGUMENTS");
	for (i = 0; i < p->nr_usdt; i++) {
		const struct strobe_usdt_note *u = &p->usdt[i];
		char fetch[2048], sem[24], miss[128];
		unsigned skipped = 0;
		size_t off = 0;
		int k;

		if (u->semaphore)
			snprintf(sem, sizeof(sem), "0x%" PRIx64, u->semaphore);
		else
			snprintf(sem, sizeof(sem), "-");
		printf("  %-20s %-24s 0x%-16" PRIx64 " %-18s %s\n", u->provider, u->name, u->addr,
		       sem, u->args[0] ? u->args : "-");
		if (!u->args[0])
			continue;
		if (strobe_usdt_args(u->args, fetch, sizeof(fetch), &skipped) < 0)
			snprintf(fetch, sizeof(fetch), "(too long)");
		miss[0] = '\0';
		for (k = 0; k < 32 && off < sizeof(miss); k++)
			if (skipped & (1u << k))
				off += (size_t)snprintf(miss + off, sizeof(miss) - off, "%sarg%d",
							off ? "," : "", k + 1);
		printf("      recorded as: %s%s%s%s\n", fetch[0] ? fetch : "(no arguments)",
		       miss[0] ? "  (not translated: " : "", miss, miss[0] ? ")" : "");
	}
}

int cmd_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", required_argument, NULL, 'l' },
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "functions", no_argument, NULL, 256 },
		{ "usdt", no_argument, NULL, 257 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_error err = { 0, "" };
	struct strobe_elf_probes *p = NULL;
	const char *path = NULL, *cont = NULL;
	bool funcs_only = false, usdt_only = false;
	int c, pid = 0, r;
	size_t i;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+l:c:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			path = optarg;
			break;
		case 'c':
			if (!*optarg) {
				cli_error(cmd, "empty container name");
				goto usage_err;
			}
			cont = optarg;
			break;
		case 'p':
			if (cli_parse_int(optarg, 1, 1 << 30, &pid) < 0) {
				cli_error(cmd, "bad PID '%s'", optarg);
				goto usage_err;
			}
			break;
		case 256:
			funcs_only = true;
			break;
		case 257:
			usdt_only = true;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			if (optopt && strchr("lcp", optopt))
				cli_error(cmd, "option -%c needs an argument", optopt);
			else if (optopt)
				cli_error(cmd, "unknown option -%c", optopt);
			else
				cli_error(cmd, "unknown option '%s'", argv[optind - 1]);
			goto usage_err;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unexpected argument '%s'", argv[optind]);
		goto usage_err;
	}
	if (!path) {
		cli_error(cmd, "what to list? --list PATH");
		goto usage_err;
	}
	if (cont && pid) {
		cli_error(cmd, "give a container (-c) or a process (-p), not both");
		goto usage_err;
	}
	if (funcs_only && usdt_only) {
		cli_error(cmd, "--functions and --usdt: give one (neither lists both)");
		goto usage_err;
	}
	if (cont) {
		pid = container_pid(cont);
		if (pid < 0)
			return CLI_FAIL;
	}
	r = strobe_probe_list(pid, path, &p, &err);
	if (r < 0) {
		cli_error_e(cmd, &err);
		return CLI_FAIL;
	}
	if (cont)
		printf("%s in container %s (through the root of process %d)\n", path, cont, pid);
	else if (pid)
		printf("%s as process %d sees it\n", path, pid);
	if (!usdt_only) {
		size_t n = 0;

		for (i = 0; i < p->nr_funcs; i++)
			n += p->funcs[i].size > 0;
		printf("Functions (%zu, from %s):\n", n, p->has_symtab ? ".symtab" : ".dynsym");
		if (n)
			printf("  %-40s %-18s %8s %s\n", "FUNCTION", "ADDRESS", "SIZE", "OFFSET");
		for (i = 0; i < p->nr_funcs; i++)
			if (p->funcs[i].size)
				printf("  %-40s 0x%-16" PRIx64 " %8" PRIu64 " 0x%" PRIx64 "\n",
			       p->funcs[i].name, p->funcs[i].addr, p->funcs[i].size,
			       p->funcs[i].offset);
	}
	if (!funcs_only)
		list_usdt(p);
	strobe_elf_probes_free(p);
	return CLI_OK;
usage_err:
	fprintf(stderr, "See 'strobe probe --help'.\n");
	return CLI_USAGE;
}
