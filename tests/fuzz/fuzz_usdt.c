/*
 * fuzz_usdt.c - libFuzzer harness for the parsers behind user-space
 * probes (outside input): an ELF file's functions and .note.stapsdt USDT
 * notes (strobe_elf_probes_read: a container's binary), a note's
 * argument spec to fetch-args (strobe_usdt_args), and the user's probe
 * arguments with arg1..argN (strobe_probe_args).
 *
 * The first byte picks the parser; the rest is its input.  What a
 * parser accepts must hold together: every string is NUL-terminated
 * within its allocation (strlen under ASan), a note with a semaphore
 * offset has a semaphore, and the fetch-args fit the buffer they were
 * written to.  Seeds in corpus/fuzz_usdt/ (first byte 0 ELF, 1 a USDT
 * argument spec, 2 probe arguments).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/probe.h>
#include <strobe/symbols.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_elf_probes *p = NULL;
	char out[512], *text;
	unsigned skipped;
	size_t i, sum = 0;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		if (strobe_elf_probes_read(-1, data + 1, size - 1, &p, NULL) != 0)
			return 0;
		for (i = 0; i < p->nr_funcs; i++)
			sum += strlen(p->funcs[i].name);
		for (i = 0; i < p->nr_usdt; i++) {
			const struct strobe_usdt_note *u = &p->usdt[i];

			sum += strlen(u->provider) + strlen(u->name) + strlen(u->args);
			if (u->semaphore_offset && !u->semaphore)
				__builtin_trap();
			if (strobe_usdt_args(u->args, out, sizeof(out), &skipped) >= 0 &&
			    strlen(out) >= sizeof(out))
				__builtin_trap();
		}
		strobe_elf_probes_free(p);
		break;
	default:
		text = malloc(size);
		if (!text)
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		if (data[0] % 3 == 1) {
			if (strobe_usdt_args(text, out, sizeof(out), &skipped) >= 0 &&
			    strlen(out) >= sizeof(out))
				__builtin_trap();
		} else if (strobe_probe_args(text, out, sizeof(out), NULL) == 0 &&
			   strlen(out) >= sizeof(out)) {
			__builtin_trap();
		}
		free(text);
		break;
	}
	return (int)(sum & 0);
}
