/* SPDX-License-Identifier: MIT */
/*
 * Probe specs `[BINARY:]PATTERN` and matching Go function names.
 *
 * Go names contain '*', '(', ')', '[', ']', '/', and since Go 1.20 ':'
 * (type:eq.T). A pattern that equals a name matches exactly that name; else
 * '*' is a wildcard for any run of characters and every other character is
 * literal; with -r the pattern is a POSIX extended regular expression that
 * must match at the start of the name but may end before its end, like
 * Python's re.match() in bcc's funccount -r: `-r 'main\.'` matches main.*.
 *
 * Generic functions are named as their source writes them: a glob pattern
 * without '[' is matched against a name both as the binary spells it and
 * without the type arguments of an instantiation, so main.Sum names
 * main.Sum[go.shape.int] (and Go 1.18-1.19's main.Sum[go.shape.int_0],
 * main.Sum[...] in their pclntab), main.(*Box).Get names
 * main.(*Box[go.shape.int]).Get, main.(*Box).* every method of *Box. A
 * pattern with '[' names instantiations as the binary does (main.Sum[*]);
 * a regular expression too.
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
 *
 * In detail, the prefix before the first ':' is the binary when:
 *  - it contains '/' but no '[' (a ':' inside brackets belongs to a shape
 *    type's struct tag: net/http.F[go.shape.struct { A int "json:\"a\"" }]);
 *  - or HAVE_TARGET is false (-p/-c not given): a binary is required;
 *  - or it is not Go's reserved prefix "type" (type:eq.T, type:hash.T are
 *    functions; write ./type for a file of that name) and either names an
 *    existing file that is not a directory, or is a bcc-style library
 *    short name, [A-Za-z_][A-Za-z0-9_+-]*, followed by a non-empty rest:
 *    "go:fmt.*" means fmt.* in libgo, "c:malloc" malloc in libc, as in bcc.
 * Otherwise SPEC is one pattern: "type:eq.main.T", "main.F[go.shape.int]".
 * Go's own "go:" names (go:buildid) need a pattern whose prefix is not a
 * plain name: "go*:buildid", or "^go:buildid" with -r.
 */
int probe_spec__parse(const char *spec, bool have_target,
		      struct probe_spec *out);
void probe_spec__free(struct probe_spec *spec);

struct name_matcher {
	char *pattern;
	bool regex;
	bool has_wildcard;	/* glob pattern containing '*' */
	bool as_written;	/* glob pattern without '[': it may name a
				 * generic function as its source does */
	regex_t re;
};

/* Prepare PATTERN; -EINVAL with a reason for a bad regular expression. */
int name_matcher__init(struct name_matcher *m, const char *pattern,
		       bool regex);
void name_matcher__free(struct name_matcher *m);

/* Does NAME match as a glob (or regex)? Exactness is decided by the caller,
 * which sees all names: see name_matcher__is_exact() and
 * name_matcher__is_written(). */
bool name_matcher__match(const struct name_matcher *m, const char *name);

/* True when the pattern, taken literally, equals NAME. */
bool name_matcher__is_exact(const struct name_matcher *m, const char *name);

/*
 * True when NAME is an instantiation of a generic function, of a method of
 * a generic type, or of a closure in one, and the glob pattern, taken
 * literally, is its name as the source writes it: "main.(*Box).Get" of
 * main.(*Box[go.shape.int]).Get, not of main.(*Boxer).Get. Such a name
 * also matches (name_matcher__match()).
 */
bool name_matcher__is_written(const struct name_matcher *m, const char *name);

#endif
