// SPDX-License-Identifier: MIT
/* Go functions that never return (go_noreturn.h). */
#include <string.h>
#include "goabi/go_noreturn.h"

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool go_func__never_returns(const char *name)
{
	static const char *const exact[] = {
		"runtime.gopanic", "runtime.throw", "runtime.fatal",
		"runtime.fatalthrow", "runtime.fatalpanic", "runtime.block",
		"runtime.Goexit",
	};
	size_t i;

	if (has_prefix(name, "runtime.panic"))
		return !has_prefix(name, "runtime.panicCheck");
	if (has_prefix(name, "runtime.goPanic"))
		return true;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return false;
}
