/*
 * replay.c - a main() for libFuzzer harnesses so `make check` can replay
 * the committed corpus under gcc's ASan and UBSan without clang.
 * Usage: fuzz-replay-binary DIR|FILE...  Prints "PASS <name>" per input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		printf("FAIL %s: cannot open\n", path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		printf("FAIL %s: cannot read\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, bad = 0, count = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &st) < 0) {
			printf("SKIP %s: no corpus\n", argv[i]);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad += replay_file(argv[i]);
			count++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			bad += replay_file(p);
			count++;
		}
		if (d)
			closedir(d);
	}
	if (!bad)
		printf("PASS replayed %d inputs of %s\n", count, argc > 1 ? argv[1] : "");
	return bad ? 1 : 0;
}
