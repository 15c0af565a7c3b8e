/*
 * fuzz_symbols.c - libFuzzer harness for the symbol finder's parsers of
 * outside input (lib/symbols): ELF files (a container's binaries, read
 * with libelf: sections, notes, symbol tables, debug links), lines of
 * /proc/PID/maps, perf-PID.map files a JIT writes, and kallsyms text.
 *
 * The first byte picks the parser; the rest is its input.  Whatever a
 * parser accepts must hold its invariants: a maps line's path lies inside
 * the line and its end is not below its start; a perf-map name lies
 * inside the line; a found ELF name is NUL-terminated in its buffer.
 * Seeds in corpus/fuzz_symbols/ (first byte 0 ELF, 1 maps, 2 perf map,
 * 3 kallsyms).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/symbols.h>

static void lines(const char *p, size_t n, int kind)
{
	const char *end = p + n, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (kind == 1) {
			struct strobe_maps_line ml;

			if (strobe_symbols_parse_maps_line(p, (size_t)(nl - p), &ml) &&
			    (ml.end < ml.start || ml.path < p || ml.path + ml.path_len > nl))
				__builtin_trap();
		} else {
			uint64_t start, size;
			const char *name;
			size_t len;

			if (strobe_symbols_parse_perf_map_line(p, (size_t)(nl - p), &start, &size,
							       &name, &len) &&
			    (name < p || name + len > nl || !len))
				__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;

	if (size < 1)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0: {
		char name[64];
		uint8_t id[20];
		size_t idn = 0;
		uint64_t va = 0;

		if (size > 9)
			memcpy(&va, data + 1, 8);
		if (strobe_symbols_elf_probe(copy, size - 1, 0x401000, name, sizeof(name), id,
					     &idn) >= 0 &&
		    (memchr(name, '\0', sizeof(name)) == NULL || idn > sizeof(id)))
			__builtin_trap();
		strobe_symbols_elf_probe(copy, size - 1, va, name, sizeof(name), NULL, NULL);
		break;
	}
	case 1:
	case 2:
		lines(copy, size - 1, data[0] % 4);
		break;
	case 3: {
		struct strobe_symbols_opts o = { .size = sizeof(o), .kallsyms = copy,
						 .proc = "/nonexistent" };
		struct strobe_symbols *s = NULL;
		struct strobe_sym sym;

		if (strobe_symbols_new(&o, &s, NULL) == 0) {
			strobe_symbols_kernel(s, 0xffffffff81000000ull, &sym);
			if (!sym.name || !sym.module)
				__builtin_trap();
			strobe_symbols_kernel(s, 0, &sym);
			strobe_symbols_user(s, 1, 0x400000, &sym);
		}
		strobe_symbols_free(s);
		break;
	}
	}
	free(copy);
	return 0;
}
