// SPDX-License-Identifier: MIT
/* Probe specs `[BINARY:]PATTERN` and Go function name matching. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/error.h"
#include "gobin/go_name.h"
#include "probe/probe_spec.h"

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

/*
 * glibc's regcomp() copies a repeated subexpression once per repetition
 * ("a{5}" is five nodes, "a+" is "aa*"), so nested repetitions such as
 * "((a{99}){99}){99}" or "a++++++++++++++++++++++++" take memory and time
 * exponential in the nesting, and optional copies (".{0,1000}") make every
 * regexec() slow. Estimate the copies the same way and refuse expressions
 * that would expand to more than REGEX_MAX_COPIES nodes beyond one per
 * character: names are short, and so are the repetitions that select them,
 * while a list of names ("^(a|b|...)$") may be long but grows only
 * linearly. Back-references (not POSIX ERE, but glibc takes them) make
 * regexec() exponential: refuse them too.
 */
#define REGEX_MAX_COPIES 256
#define REGEX_MAX_DEPTH 64

static size_t mul_capped(size_t a, size_t b, size_t max)
{
	return b && a > max / b ? max + 1 : a * b;
}

/* Skip a bracket expression starting at P ('['); returns the next char. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *end = strchr(p + 2, p[1]);

			while (end && end[1] != ']')
				end = strchr(end + 1, p[1]);
			if (end) {
				p = end + 2;
				continue;
			}
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/* How many copies "{n}", "{n,}", "{n,m}" at P makes; P is advanced. */
static size_t bound_copies(const char **p, size_t max)
{
	unsigned long n, m;
	char *end;

	n = strtoul(*p + 1, &end, 10);
	m = n;
	if (*end == ',' && end[1] == '}') {
		m = n + 1;	/* {n,}: n copies and a star */
		end++;
	} else if (*end == ',') {
		m = strtoul(end + 1, &end, 10);
	}
	if (*end != '}')
		return 1;	/* not a bound: regcomp() judges it */
	*p = end;
	m = m > n ? m : n;
	return m > max ? max + 1 : (m ? m : 1);
}

/* Why glibc should not compile the expression P, or NULL. */
static const char *regex_problem(const char *p)
{
	/* Per open group: nodes so far, and size of its last atom. */
	size_t total[REGEX_MAX_DEPTH + 1] = { 0 }, last[REGEX_MAX_DEPTH + 1];
	size_t max = REGEX_MAX_COPIES + strlen(p);
	size_t depth = 0, copies, grown;
	bool repeated = false;

	last[0] = 0;
	for (; *p; p++) {
		/* POSIX leaves "a**", "a+*" undefined; glibc nests them. */
		if (repeated && strchr("*+?{", *p))
			return "repeated repetition operator";
		repeated = strchr("*+?", *p) != NULL;
		copies = 0;
		switch (*p) {
		case '(':
			if (++depth > REGEX_MAX_DEPTH)
				return "groups nested too deeply";
			total[depth] = 0;
			last[depth] = 0;
			continue;
		case ')':
			if (!depth)
				break;
			last[depth - 1] = total[depth];
			total[depth - 1] += total[depth];
			depth--;
			goto check;
		case '+':
			copies = 2;
			break;
		case '{':
			copies = bound_copies(&p, max);
			repeated = *p == '}';
			break;
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				return "back-references are not supported";
			if (p[1])
				p++;
			break;
		case '[':
			p = skip_bracket(p) - 1;
			break;
		}
		if (copies) {
			grown = mul_capped(last[depth], copies, max);
			total[depth] += grown - last[depth];
			last[depth] = grown;
		} else if (*p == '*' || *p == '?') {
			last[depth]++;
			total[depth]++;
		} else if (*p != '|') {
			last[depth] = 1;
			total[depth]++;
		}
check:
		if (total[depth] > max)
			return "too many repetitions";
	}
	return NULL;
}

int name_matcher__init(struct name_matcher *m, const char *pattern,
		       bool regex)
{
	const char *problem;
	char why[256];
	int err;

	memset(m, 0, sizeof(*m));
	m->pattern = strdup(pattern);
	if (!m->pattern)
		return gt_error(-ENOMEM, "out of memory");
	m->regex = regex;
	if (!regex) {
		m->has_wildcard = strchr(pattern, '*') != NULL;
		m->as_written = strchr(pattern, '[') == NULL;
		return 0;
	}
	problem = regex_problem(pattern);
	/* Not REG_NOSUB: the match offset tells whether it starts at 0. */
	err = problem ? 0 : regcomp(&m->re, pattern, REG_EXTENDED);
	if (problem || err) {
		if (!problem)
			regerror(err, &m->re, why, sizeof(why));
		free(m->pattern);
		m->pattern = NULL;
		m->regex = false;
		return gt_error(-EINVAL, "bad regular expression '%s': %s",
				pattern, problem ? problem : why);
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
 * Does glob P match S, or with ARGS S as its source writes it: without the
 * type arguments of its instantiation (go_name__skip_type_args())?
 *
 * '*' matches any run of characters, everything else itself. Iterative:
 * on a mismatch, let the last '*' swallow one more character and retry
 * from there. Earlier stars never need revisiting, so this is O(len(p) *
 * len(s)) at worst, even for patterns like *a*a*a*a*b.
 */
static bool glob_match(const char *p, const char *s, bool args)
{
	const char *name = s, *star = NULL, *resume = NULL;

	for (;;) {
		if (args)
			s = go_name__skip_type_args(name, s);
		if (!*s)
			break;
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
			if (args)
				s = resume = go_name__skip_type_args(name, resume);
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* Is PATTERN, taken literally, NAME without the type arguments of an
 * instantiation, which NAME has? */
static bool is_written_as(const char *pattern, const char *name)
{
	const char *s = name, *next;
	bool args = false;

	for (;;) {
		next = go_name__skip_type_args(name, s);
		args |= next != s;
		s = next;
		if (*pattern != *s)
			return false;
		if (!*s)
			return args;
		pattern++;
		s++;
	}
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
	if (m->regex)
		return regex_match(m, name);
	return glob_match(m->pattern, name, false) ||
	       (m->as_written && strchr(name, '[') &&
		glob_match(m->pattern, name, true));
}

bool name_matcher__is_exact(const struct name_matcher *m, const char *name)
{
	return strcmp(m->pattern, name) == 0;
}

bool name_matcher__is_written(const struct name_matcher *m, const char *name)
{
	return m->as_written && is_written_as(m->pattern, name);
}
