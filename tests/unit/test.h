/*
 * test.h - a minimal table-driven unit test harness.
 *
 * A test file defines functions `static void test_xxx(void)` and lists
 * them in a TESTS table; CHECK* macros record failures and go on.  The
 * binary prints one line per test and exits non-zero if any failed, so
 * tests/run-tests.sh can count them.
 *
 *     static void test_page_padding(void) { CHECK_EQ(1, 1); }
 *     TESTS(T(test_page_padding));
 */
#ifndef STROBE_TEST_H
#define STROBE_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_checks;

#define CHECK(cond) do { if (!(cond)) { test_failed_checks++; \
	fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)

#define CHECK_EQ(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a != _b) { test_failed_checks++; \
	fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
		#a, #b, _a, _b); } } while (0)

#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) { test_failed_checks++; \
	fprintf(stderr, "  %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
		#a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)

/* Stop the current test when a precondition fails. */
#define REQUIRE(cond) do { if (!(cond)) { test_failed_checks++; \
	fprintf(stderr, "  %s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond); \
	return; } } while (0)

struct test_case {
	const char *name;
	void (*fn)(void);
};

#define T(fn) { #fn, fn }

#define TESTS(...) \
	static const struct test_case test_cases[] = { __VA_ARGS__ }; \
	int main(int argc, char **argv) \
	{ \
		size_t i, n = sizeof(test_cases) / sizeof(test_cases[0]); \
		int failed = 0; \
		for (i = 0; i < n; i++) { \
			int before = test_failed_checks; \
			if (argc > 1 && !strstr(test_cases[i].name, argv[1])) \
				continue; \
			test_cases[i].fn(); \
			if (test_failed_checks != before) { \
				failed++; \
				printf("FAIL %s\n", test_cases[i].name); \
			} else { \
				printf("PASS %s\n", test_cases[i].name); \
			} \
			fflush(stdout); \
		} \
		return failed ? 1 : 0; \
	}

#endif
