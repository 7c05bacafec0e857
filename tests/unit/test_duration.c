// SPDX-License-Identifier: MIT
/* lib/cli/duration.h: DURATION values in every unit, and what is refused. */
#include <errno.h>
#include <limits.h>
#include "core/error.h"
#include "cli/duration.h"
#include "test.h"

TEST(units)
{
	static const struct { const char *arg; unsigned long long ns; } ok[] = {
		{ "7ns", 7 },
		{ "500us", 500000 },
		{ "10ms", 10000000 },
		{ "2s", 2000000000 },
		{ "250", 250000 },		/* microseconds */
		{ "1.5ms", 1500000 },
		{ "0", 0 },
		{ "0.5ns", 0 },			/* fractions of a ns dropped */
		{ "1e30s", ULLONG_MAX },	/* more than fits */
		{ "inf", ULLONG_MAX },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		unsigned long long ns = 12345;

		CHECK_EQ_INT(duration__parse(ok[i].arg, &ns), 0);
		if (ns != ok[i].ns) {
			fprintf(stderr, "%s: %llu ns, expected %llu\n",
				ok[i].arg, ns, ok[i].ns);
			CHECK(0);
		}
	}
}

TEST(bad_input)
{
	static const char *const bad[] = {
		"", "ms", "-1ms", "10 ms", "10MS", "10m", "10mss", "10sec",
		"nan", "abc", " ",
	};
	char want[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned long long ns = 0;

		gt_error_clear();
		CHECK_EQ_INT(duration__parse(bad[i], &ns), -EINVAL);
		snprintf(want, sizeof(want),
			 "invalid duration: %s (such as 10ms, 500us, 2s)", bad[i]);
		CHECK_EQ_STR(gt_last_error(), want);
	}
}

int main(void)
{
	RUN(units);
	RUN(bad_input);
	return TEST_SUMMARY();
}
