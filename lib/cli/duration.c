// SPDX-License-Identifier: MIT
/* DURATION option values (duration.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "cli/duration.h"

int duration__parse(const char *arg, unsigned long long *ns)
{
	static const struct { const char *unit; unsigned long long ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000 },
	};
	char *end;
	double v;
	size_t i;

	v = strtod(arg, &end);
	for (i = 0; end != arg && v >= 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		/* 2^64: a larger double converts to no integer */
		*ns = v < 18446744073709551616.0 ? (unsigned long long)v :
						   ULLONG_MAX;
		return 0;
	}
	return gt_error(-EINVAL, "invalid duration: %s (such as 10ms, 500us, 2s)",
			arg);
}
