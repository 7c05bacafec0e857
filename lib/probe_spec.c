// SPDX-License-Identifier: MIT
/* Probe specs `[BINARY:]PATTERN` and Go function name matching. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "error.h"
#include "probe_spec.h"

/* A bcc-style library short name: "c", "go", "pthread", "stdc++". */
static bool is_library_name(const char *s, size_t len)
{
	size_t i;

	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_+-", s[i]))
			return false;
	return true;
}

static bool is_existing_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/*
 * Is PREFIX (the text before the first ':') a binary rather than the start
 * of a Go name? See probe_spec.h for the rule.
 */
static bool prefix_is_binary(const char *prefix, size_t len,
			     const char *rest, bool have_target)
{
	/* The ':' of a struct tag in a shape type, main.F[go.shape.struct {
	 * A int "json:\"a\"" }], may follow a package path with '/'. */
	if (memchr(prefix, '/', len) && !memchr(prefix, '[', len))
		return true;
	if (!have_target)
		return true;
	/* type:eq.T stays a name even next to a file called "type". */
	if (len == 4 && memcmp(prefix, "type", 4) == 0)
		return false;
	return is_existing_file(prefix) ||
	       (is_library_name(prefix, len) && *rest);
}

int probe_spec__parse(const char *spec, bool have_target,
		      struct probe_spec *out)
{
	const char *colon, *pattern;
	char *prefix;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return gt_error(-EINVAL, "empty probe: use [BINARY:]PATTERN");
	colon = strchr(spec, ':');
	pattern = spec;
	if (colon) {
		prefix = strndup(spec, colon - spec);
		if (!prefix)
			return gt_error(-ENOMEM, "out of memory");
		if (prefix_is_binary(prefix, colon - spec, colon + 1,
				     have_target)) {
			out->binary = prefix;
			pattern = colon + 1;
		} else {
			free(prefix);
		}
	}
	if (!out->binary && !have_target)
		return gt_error(-EINVAL,
				"no binary in probe '%s': use BINARY:PATTERN, -p PID or -c CMD",
				spec);
	if (out->binary && !*out->binary) {
		probe_spec__free(out);
		return gt_error(-EINVAL, "empty binary in probe '%s'", spec);
	}
	if (!*pattern) {
		probe_spec__free(out);
		return gt_error(-EINVAL, "empty pattern in probe '%s'", spec);
	}
	out->pattern = strdup(pattern);
	if (!out->pattern) {
		probe_spec__free(out);
		return gt_error(-ENOMEM, "out of memory");
	}
	return 0;
}

void probe_spec__free(struct probe_spec *spec)
{
	free(spec->binary);
	free(spec->pattern);
	spec->binary = NULL;
	spec->pattern = NULL;
}

int name_matcher__init(struct name_matcher *m, const char *pattern,
		       bool regex)
{
	char why[256];
	int err;

	memset(m, 0, sizeof(*m));
	m->pattern = strdup(pattern);
	if (!m->pattern)
		return gt_error(-ENOMEM, "out of memory");
	m->regex = regex;
	if (!regex) {
		m->has_wildcard = strchr(pattern, '*') != NULL;
		return 0;
	}
	/* Not REG_NOSUB: the match offset tells whether it starts at 0. */
	err = regcomp(&m->re, pattern, REG_EXTENDED);
	if (err) {
		regerror(err, &m->re, why, sizeof(why));
		free(m->pattern);
		m->pattern = NULL;
		m->regex = false;
		return gt_error(-EINVAL, "bad regular expression '%s': %s",
				pattern, why);
	}
	return 0;
}

void name_matcher__free(struct name_matcher *m)
{
	if (m->regex)
		regfree(&m->re);
	free(m->pattern);
	memset(m, 0, sizeof(*m));
}

/*
 * '*' matches any run of characters, everything else itself. Iterative:
 * on a mismatch, let the last '*' swallow one more character and retry
 * from there. Earlier stars never need revisiting, so this is O(len(p) *
 * len(s)) at worst, even for patterns like *a*a*a*a*b.
 */
static bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/*
 * Like bcc's funccount -r, which keeps the symbols for which Python's
 * re.match() succeeds: the expression must match at the start of the name,
 * and may stop before its end. regexec() reports the leftmost match, so
 * one starting at 0 exists exactly when the leftmost one starts there.
 */
static bool regex_match(const struct name_matcher *m, const char *name)
{
	regmatch_t match;

	return regexec(&m->re, name, 1, &match, 0) == 0 && match.rm_so == 0;
}

bool name_matcher__match(const struct name_matcher *m, const char *name)
{
	return m->regex ? regex_match(m, name) : glob_match(m->pattern, name);
}

bool name_matcher__is_exact(const struct name_matcher *m, const char *name)
{
	return strcmp(m->pattern, name) == 0;
}
