/*
 * test_ksyms.c - the kallsyms lookup of lib/format/tep.c (its own parse,
 * faster than tep_parse_kallsyms) gives libtraceevent's answers: the
 * same function and start for every address, against a handle that
 * libtraceevent itself filled from the same text.  Texts: one made here
 * with what the parse must treat alike (ties at one address, '$' names,
 * 'A'/'a' symbols, module suffixes, blank lines, an address that is not
 * of the usual shape, a line that ends the parse) and, when readable,
 * this machine's /proc/kallsyms (zeros without root: the ties then).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "test.h"
#include "format/tep.h"

/* Every address of interest: each symbol's, one before and one after,
 * the gaps, 0 and the top. */
static void compare(const char *text, const unsigned long long *extra, int nr_extra)
{
	struct strobe_tep t = { 0 };
	struct tep_handle *ref = tep_alloc();
	char *copy = strdup(text), *line, *save = NULL;
	int checked = 0, found = 0, i;

	REQUIRE(ref && copy);
	REQUIRE(strobe_tep_init(&t, 8, 4096) == 0);
	REQUIRE(strobe_tep_kallsyms(&t, text, strlen(text)) == 0);
	tep_parse_kallsyms(ref, text);
	for (line = strtok_r(copy, "\n", &save); ; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long base = 0, probe[3];
		int k;

		if (line)
			base = strtoull(line, NULL, 16);
		probe[0] = base;
		probe[1] = base - 1;
		probe[2] = base + 1;
		for (k = 0; k < 3; k++) {
			const char *n1 = NULL, *n2 = NULL;
			unsigned long long s1 = 0, s2 = 0;
			int r1 = tep_find_function_info(t.tep, probe[k], &n1, &s1, NULL);
			int r2 = tep_find_function_info(ref, probe[k], &n2, &s2, NULL);

			CHECK_EQ(r1, r2);
			if (r1 && r2) {
				CHECK_STR(n1, n2);
				CHECK_EQ(s1, s2);
				found++;
			}
			checked++;
		}
		if (!line)
			break;
	}
	for (i = 0; i < nr_extra; i++) {
		const char *n1 = NULL, *n2 = NULL;
		int r1 = tep_find_function_info(t.tep, extra[i], &n1, NULL, NULL);
		int r2 = tep_find_function_info(ref, extra[i], &n2, NULL, NULL);

		CHECK_EQ(r1, r2);
		if (r1 && r2)
			CHECK_STR(n1, n2);
	}
	CHECK(checked > 0);
	CHECK(found > 0);
	free(copy);
	tep_free(ref);
	strobe_tep_release(&t);
}

static void test_ksyms_made_text_as_libtraceevent(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T startup_64\n"		/* a tie */
		"ffffffff81000040 t secondary\n"
		"\n"
		"ffffffff81000080 T $x\n"			/* left out */
		"0000000000001000 A fixed_percpu_data\n"	/* left out */
		"0000000000002000 a abs_local\n"		/* left out */
		"ffffffff81000100 W weak_fn\n"
		"ffffffff81000200 d some_data\n"
		"ffffffff81000300 t tabbed_fn\t[mod_a]\n"
		"ffffffff81000300 t tabbed_tie\t[mod_b]\n"
		"ffffffff81000300 t third_tie\n"
		"  ffffffff81000400 T leading_spaces\n"	/* sscanf's path */
		"0xffffffff81000500 T hex_prefix\n"
		"ffffffff81000600  T two_spaces\n"
		"ffffffff81000700 T name_then  words\n"
		"fffffffffffffff0 T near_top\n"
		"ffffffff81000050 t unsorted\n";
	static const char stops[] =
		"ffffffff81000000 T first\n"
		"ffffffff81000100 T second\n"
		"not an address\n"				/* ends the parse */
		"ffffffff81000200 T never\n";
	static const unsigned long long extra[] = {
		0, 1, 0xffffffff810000ffULL, 0xffffffff81000350ULL, 0xffffffff81000800ULL,
		0xfffffffffffffff0ULL, 0xffffffffffffffffULL, 0xffffffff81000250ULL,
	};

	compare(text, extra, (int)(sizeof(extra) / sizeof(extra[0])));
	compare(stops, extra, (int)(sizeof(extra) / sizeof(extra[0])));
}

static void test_ksyms_this_machine_as_libtraceevent(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		printf("  (no /proc/kallsyms: only the made text)\n");
		return;
	}
	for (;;) {
		size_t r;

		if (n + 1 >= cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	if (n)
		compare(buf, NULL, 0);
	free(buf);
}

TESTS(T(test_ksyms_made_text_as_libtraceevent), T(test_ksyms_this_machine_as_libtraceevent));
