// SPDX-License-Identifier: MIT
/* The type arguments in gc's names of instantiations (go_name.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "gobin/go_name.h"

/* Go identifiers may hold any Unicode letter: a byte >= 0x80 is taken for
 * part of one. */
static bool is_ident_byte(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* The closing quote of the string that opens at S, or the end of S. */
static const char *skip_quoted(const char *s)
{
	while (s[1] && s[1] != '"')
		s += s[1] == '\\' && s[2] ? 2 : 1;
	return s + 1;
}

const char *go_name__skip_type_args(const char *name, const char *s)
{
	int depth = 0;

	if (*s != '[' || s == name || !is_ident_byte(s[-1]))
		return s;
	for (; *s; s++) {
		if (*s == '"') {
			s = skip_quoted(s);
			if (!*s)
				break;
		} else if (*s == '[') {
			depth++;
		} else if (*s == ']' && --depth == 0) {
			return s + 1;
		}
	}
	return s;
}

/* Go 1.18-1.19: SHAPE is BASE_N, N its type parameter's index. */
static int numbered_shape(const char *shape, size_t *index)
{
	const char *u = strrchr(shape, '_');
	char *end;
	unsigned long n;

	if (!u || !isdigit((unsigned char)u[1]))
		return -ENOENT;
	n = strtoul(u + 1, &end, 10);
	if (*end)
		return -ENOENT;
	*index = n;
	return 0;
}

/* The first list of type arguments in NAME: *END past its ']'; NULL when
 * NAME has none. */
static const char *type_args(const char *name, const char **end)
{
	const char *s;

	for (s = name; *s; s++) {
		*end = go_name__skip_type_args(name, s);
		if (*end != s)
			return s + 1;
	}
	return NULL;
}

/* The end of the type argument that starts at S: the ',' or ']' after it,
 * outside brackets, parentheses, braces and quotes; or END. */
static const char *arg_end(const char *s, const char *end)
{
	int depth = 0;

	for (; s < end; s++) {
		if (*s == '"')
			s = skip_quoted(s);
		else if (*s == '[' || *s == '(' || *s == '{')
			depth++;
		else if ((*s == ']' || *s == ')' || *s == '}') && depth)
			depth--;
		else if ((*s == ',' || *s == ']') && !depth)
			return s;
	}
	return end;
}

int go_name__type_param(const char *name, const char *shape, size_t *index)
{
	size_t len = strlen(shape), i;
	const char *arg, *end, *next;
	int found = -ENOENT;

	if (strncmp(shape, "go.shape.", 9))
		return -ENOENT;
	arg = type_args(name, &end);
	for (i = 0; arg && arg < end; i++, arg = next + 1) {
		next = arg_end(arg, end);
		if ((size_t)(next - arg) != len || strncmp(arg, shape, len))
			continue;
		if (!found)
			return -EEXIST;
		found = 0;
		*index = i;
	}
	/* F[...]: Go 1.18-1.19's shapes say their index */
	return found ? numbered_shape(shape, index) : 0;
}

/* Can C be part of an import path or a qualified name? */
static bool is_path_byte(unsigned char c)
{
	return is_ident_byte(c) || c == '.' || c == '/' || c == '-' || c == '~' ||
	       c == '%';
}

int go_name__type_arg(const char *name, size_t index, bool full, char *buf,
		      size_t size)
{
	const char *arg, *end, *next, *s, *word, *slash;
	size_t i, n = 0;

	arg = type_args(name, &end);
	for (i = 0; arg && arg < end; i++, arg = next + 1) {
		next = arg_end(arg, end);
		if (i == index)
			break;
	}
	if (!arg || arg >= end || !size)
		return -ENOENT;
	/* each qualified name's package path cut to its last element, as
	 * %T spells it, unless FULL */
	for (s = arg; s < next && n + 1 < size;) {
		if (!is_path_byte(*s)) {
			buf[n++] = *s++;
			continue;
		}
		for (word = s, slash = NULL; s < next && is_path_byte(*s); s++)
			if (*s == '/')
				slash = s;
		if (slash && !full)
			word = slash + 1;
		while (word < s && n + 1 < size)
			buf[n++] = *word++;
	}
	buf[n] = '\0';
	return 0;
}
