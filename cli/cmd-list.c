/*
 * cmd-list.c - `strobe list events [GLOB]|systems|presets`: what can be
 * traced on this machine, from the kernel's available_events and
 * strobe's preset table.  Output is plain lines on stdout, easy to grep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const cmd = "list";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe list events [GLOB] | systems | presets\n"
		"\n"
		"List what strobe record can enable on this kernel.\n"
		"\n"
		"  events [GLOB]   every event as SYSTEM:EVENT; GLOB matches the full\n"
		"                  name, the system or the event name\n"
		"  systems         event systems and how many events each has\n"
		"  presets         strobe's presets and the events each enables\n"
		"\n"
		"Examples:\n"
		"  strobe list events 'sched:*'\n"
		"  strobe list events 'sys_enter_open*'\n"
		"  strobe list events block\n"
		"  strobe list presets\n");
}

static bool event_matches(const char *glob, const char *name)
{
	const char *c = strchr(name, ':');
	char sys[256];
	size_t len;

	if (!glob || strobe_glob_match(glob, name))
		return true;
	if (!c || strchr(glob, ':'))
		return false;
	len = c - name;
	if (len >= sizeof(sys))
		return false;
	memcpy(sys, name, len);
	sys[len] = '\0';
	return strobe_glob_match(glob, sys) || strobe_glob_match(glob, c + 1);
}

static int list_events(const char *glob)
{
	struct strobe_error err = { 0, "" };
	struct strobe_strv all;
	size_t i, n = 0;

	if (strobe_events_list(NULL, &all, &err) < 0) {
		cli_error_e(cmd, &err);
		return CLI_FAIL;
	}
	for (i = 0; i < all.n; i++)
		if (event_matches(glob, all.v[i])) {
			puts(all.v[i]);
			n++;
		}
	strobe_strv_free(&all);
	if (!n && glob) {
		cli_error(cmd, "no event matches '%s'", glob);
		return CLI_FAIL;
	}
	return CLI_OK;
}

static int list_systems(void)
{
	struct strobe_error err = { 0, "" };
	struct strobe_strv all;
	size_t i, count = 0, len, plen = 0;
	const char *prev = NULL;

	if (strobe_events_list(NULL, &all, &err) < 0) {
		cli_error_e(cmd, &err);
		return CLI_FAIL;
	}
	/* sorted: one run per system */
	for (i = 0; i <= all.n; i++) {
		const char *c = i < all.n ? strchr(all.v[i], ':') : NULL;

		len = c ? (size_t)(c - all.v[i]) : 0;
		if (prev && (i == all.n || len != plen || strncmp(prev, all.v[i], len))) {
			printf("%-20.*s %zu\n", (int)plen, prev, count);
			count = 0;
		}
		if (i < all.n) {
			prev = all.v[i];
			plen = len;
			count++;
		}
	}
	strobe_strv_free(&all);
	return CLI_OK;
}

static int list_presets(void)
{
	const struct strobe_preset *p;
	struct strobe_error err = { 0, "" };
	struct strobe_strv all = { NULL, 0 };
	bool have = strobe_events_list(NULL, &all, &err) == 0;
	size_t i, j;

	for (p = strobe_presets(); p->name; p++) {
		printf("%s: %s\n", p->name, p->summary);
		for (i = 0; p->events[i]; i++) {
			bool found = !have;

			for (j = 0; have && j < all.n && !found; j++)
				found = !strcmp(all.v[j], p->events[i]);
			printf("  %s%s\n", p->events[i], found ? "" : "  (not on this kernel)");
		}
	}
	strobe_strv_free(&all);
	return CLI_OK;
}

int cmd_list(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "events") && argc <= 3)
		return list_events(argc == 3 ? argv[2] : NULL);
	if (!strcmp(argv[1], "systems") && argc == 2)
		return list_systems();
	if (!strcmp(argv[1], "presets") && argc == 2)
		return list_presets();
	cli_error(cmd, "unknown or misused list '%s'", argv[1]);
	fprintf(stderr, "See 'strobe list --help'.\n");
	return CLI_USAGE;
}
