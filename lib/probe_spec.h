/* SPDX-License-Identifier: MIT */
/*
 * Probe specs `[BINARY:]PATTERN` and matching Go function names.
 *
 * Go names contain '*', '(', ')', '[', ']', '/', and since Go 1.20 ':'
 * (type:eq.T). A pattern that equals a name matches exactly that name; else
 * '*' is a wildcard for any run of characters and every other character is
 * literal; with -r the pattern is a POSIX extended regular expression.
 */
#ifndef GOTOOLS_PROBE_SPEC_H
#define GOTOOLS_PROBE_SPEC_H

#include <regex.h>
#include <stdbool.h>

struct probe_spec {
	char *binary;		/* path or library short name ("go"), or NULL */
	char *pattern;
};

/*
 * Split SPEC at the first ':' into binary and pattern when the part before
 * it looks like a binary: contains '/', names an existing file, or
 * HAVE_TARGET is false (then a binary is required). Names such as
 * "type:eq.T" stay whole when HAVE_TARGET is true. Fails with -EINVAL and a
 * reason for an empty spec, an empty pattern or a missing binary.
 */
int probe_spec__parse(const char *spec, bool have_target,
		      struct probe_spec *out);
void probe_spec__free(struct probe_spec *spec);

struct name_matcher {
	char *pattern;
	bool regex;
	bool has_wildcard;	/* glob pattern containing '*' */
	regex_t re;
};

/* Prepare PATTERN; -EINVAL with a reason for a bad regular expression. */
int name_matcher__init(struct name_matcher *m, const char *pattern,
		       bool regex);
void name_matcher__free(struct name_matcher *m);

/* Does NAME match as a glob (or regex)? Exactness is decided by the caller,
 * which sees all names: see name_matcher__is_exact(). */
bool name_matcher__match(const struct name_matcher *m, const char *name);

/* True when the pattern, taken literally, equals NAME. */
bool name_matcher__is_exact(const struct name_matcher *m, const char *name);

#endif
