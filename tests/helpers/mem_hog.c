/*
 * mem_hog - the OOM tests' victim: allocates memory a MiB at a time and
 * touches every page, so that a memory-limited cgroup's OOM killer picks
 * it.  A bound keeps a cgroup that fails to limit it from taking the
 * machine: past MAX MiB it stops and exits 2, so a test sees "not
 * killed" rather than an OOM of the host.
 *
 *   mem_hog MAX_MIB     allocate up to MAX_MIB MiB (until killed), then
 *                       exit 2; prints nothing while it runs
 * Static, so the same binary runs inside a busybox container.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long max, i;
	char *end;

	if (argc != 2 || (max = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: mem_hog MAX_MIB\n");
		return 1;
	}
	for (i = 0; i < max; i++) {
		char *p = malloc(1 << 20);

		if (!p) {
			fprintf(stderr, "mem_hog: malloc failed after %ld MiB\n", i);
			return 3;
		}
		memset(p, 0x5a, 1 << 20);	/* resident, charged to the cgroup */
	}
	fprintf(stderr, "mem_hog: %ld MiB and not killed\n", max);
	return 2;
}
