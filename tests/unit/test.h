/* SPDX-License-Identifier: MIT */
/*
 * A minimal unit-test harness. Each tests/unit/test_*.c defines cases with
 * TEST(name) and lists them in main() through RUN(name); the binary prints
 * one line per failed check and ends with "N passed, N failed".
 * A case that cannot run (a fixture missing) must FAIL, never skip.
 */
#ifndef GOTOOLS_TEST_H
#define GOTOOLS_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed, test_case_failed;

#define TEST(name) static void test_##name(void)

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		test_case_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ_INT(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n",	\
			__FILE__, __LINE__, #a, _a, _b);		\
		test_case_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b) != 0) {			\
		fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n",\
			__FILE__, __LINE__, #a, _a ? _a : "(null)",	\
			_b ? _b : "(null)");				\
		test_case_failed = 1;					\
	}								\
} while (0)

#define RUN(name) do {							\
	test_case_failed = 0;						\
	test_##name();							\
	if (test_case_failed) {						\
		test_failed++;						\
		fprintf(stderr, "FAIL %s\n", #name);			\
	} else {							\
		test_passed++;						\
	}								\
} while (0)

#define TEST_SUMMARY() ({						\
	printf("%s: %d passed, %d failed\n", __FILE__, test_passed,	\
	       test_failed);						\
	test_failed ? 1 : 0;						\
})

/* The cache of toolchains and fixtures: $GT_CACHE, or /var/cache/gotools. */
static inline const char *test_cache(void)
{
	const char *c = getenv("GT_CACHE");

	return c ? c : "/var/cache/gotools";
}

/* Path of a prebuilt fixture binary, from $GT_FIXTURES (set by `make test`). */
static inline const char *test_fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("GT_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "build/fixtures",
		 name);
	return path;
}

/* Into PATH (LEN bytes), the libgo.so the gccgo fixtures load, as
 * tests/fixtures/build.sh wrote it into libgo.path; false without it. */
static inline bool test_libgo_path(char *path, size_t len)
{
	FILE *f = fopen(test_fixture("libgo.path"), "r");
	bool ok = f && fgets(path, (int)len, f);

	if (f)
		fclose(f);
	if (!ok)
		path[0] = '\0';
	path[strcspn(path, "\n")] = '\0';
	return path[0] != '\0';
}

#endif
