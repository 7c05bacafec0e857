// SPDX-License-Identifier: MIT
/*
 * Parse arbitrary probe specs and match arbitrary names against them. The
 * input is SPEC NUL NAME; without a NUL the whole input is the spec and
 * the name is empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "probe/probe_spec.h"

static void match_all(const char *pattern, const char *name)
{
	struct name_matcher m;
	int regex;

	for (regex = 0; regex < 2; regex++) {
		if (name_matcher__init(&m, pattern, regex))
			continue;
		name_matcher__match(&m, name);
		if (!regex && name_matcher__is_exact(&m, name) &&
		    !name_matcher__match(&m, name))
			abort();	/* a name always matches itself */
		/* and an instantiation its generic function as written */
		if (name_matcher__is_written(&m, name) &&
		    !name_matcher__match(&m, name))
			abort();
		name_matcher__free(&m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_spec spec;
	char *buf = malloc(size + 1);
	const char *name;
	int have_target;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	name = buf + strlen(buf);
	if ((size_t)(name - buf) < size)
		name++;

	for (have_target = 0; have_target < 2; have_target++) {
		if (probe_spec__parse(buf, have_target, &spec))
			continue;
		if (!spec.pattern || !*spec.pattern ||
		    (!have_target && !spec.binary))
			abort();
		match_all(spec.pattern, name);
		probe_spec__free(&spec);
	}
	match_all(buf, name);
	free(buf);
	return 0;
}
