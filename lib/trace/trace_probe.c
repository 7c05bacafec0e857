// SPDX-License-Identifier: MIT
/* gotrace's probe syntax, parsed, and the types it gives its values
 * (trace_probe.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/json.h"
#include "core/mem.h"
#include "trace/trace_probe.h"

/* The literal text being built while the format is read. */
struct lit {
	char *buf;
	size_t len, cap;
};

static int lit__add(struct lit *l, char c)
{
	int err;

	/* the character and a NUL */
	err = gt_ensure_mem((void **)&l->buf, &l->cap, sizeof(*l->buf),
			    l->len + 2);
	if (err)
		return err;
	l->buf[l->len++] = c;
	l->buf[l->len] = '\0';
	return 0;
}

/* Take the text built so far (an empty string when none). */
static char *lit__take(struct lit *l)
{
	char *s = l->buf ? l->buf : strdup("");

	l->buf = NULL;
	l->len = l->cap = 0;
	return s;
}

/* The escape at *S, after a backslash (\n \t \\ \"), into *C; *S past it.
 * IN names the string in an error ("format", "a filter string"). */
static int parse_escape(const char **s, char *c, const char *in)
{
	switch (**s) {
	case 'n': *c = '\n'; break;
	case 't': *c = '\t'; break;
	case '\\': *c = '\\'; break;
	case '"': *c = '"'; break;
	default:
		return gt_error(-EINVAL, "unknown escape '\\%c' in %s",
				**s ? **s : ' ', in);
	}
	(*s)++;
	return 0;
}

static const struct go_type *int_type(int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? &go_type_int8 : &go_type_uint8;
	case 2:
		return is_signed ? &go_type_int16 : &go_type_uint16;
	case 4:
		return is_signed ? &go_type_int32 : &go_type_uint32;
	default:
		return is_signed ? &go_type_int : &go_type_uint64;
	}
}

/*
 * One conversion after its '%' at *S: length modifiers (hh h l ll) and the
 * verb. Advances *S past it.
 */
static int parse_conv(const char **s, struct trace_conv *c)
{
	const char *p = *s;
	int size = 8, nh = 0, nl = 0, w = 0;

	/* Go's %v and %+v */
	if (p[0] == 'v' || (p[0] == '+' && p[1] == 'v')) {
		c->kind = TRACE_CONV_VALUE;
		c->plus = p[0] == '+';
		*s = p + 1 + c->plus;
		return 0;
	}
	/* C23's wN: an exact width in bits */
	if (*p == 'w') {
		while (isdigit((unsigned char)*++p) && w < 1000)
			w = w * 10 + (*p - '0');
		if (w != 8 && w != 16 && w != 32 && w != 64)
			return gt_error(-EINVAL, "bad width in '%%%.*s' (w8 w16 w32 w64)",
					(int)(p - *s + 1), *s);
		size = w / 8;
	}
	while (!w && (*p == 'h' || *p == 'l')) {
		if (*p == 'h')
			nh++;
		else
			nl++;
		p++;
	}
	if ((nh && nl) || nh > 2 || nl > 2)
		return gt_error(-EINVAL, "bad length modifier in '%%%.*s'",
				(int)(p - *s + 1), *s);
	if (nh)
		size = nh == 1 ? 2 : 1;
	switch (*p) {
	case 'd':
	case 'i':
		c->kind = TRACE_CONV_INT;
		c->type = int_type(size, true);
		break;
	case 'u':
		c->kind = TRACE_CONV_UINT;
		c->type = int_type(size, false);
		break;
	case 'x':
		c->kind = TRACE_CONV_HEX;
		c->type = int_type(size, false);
		break;
	case 'f':
	case 'g':
		if (nh || nl || w == 8 || w == 16)
			return gt_error(-EINVAL, "bad width on %%%c (%%f, %%w32f, %%w64f)", *p);
		c->kind = TRACE_CONV_FLOAT;
		c->type = w == 32 ? &go_type_float32 : &go_type_float64;
		break;
	default:
		if (nh || nl || w)
			return gt_error(-EINVAL, "length modifier on %%%c", *p ? *p : ' ');
		switch (*p) {
		case 'c':
			c->kind = TRACE_CONV_CHAR;
			c->type = &go_type_int32;
			break;
		case 'p':
			c->kind = TRACE_CONV_PTR;
			c->type = &go_type_unsafe_pointer;
			break;
		case 's':
			c->kind = TRACE_CONV_STR;
			c->type = &go_type_string;
			break;
		case 'T':
			c->kind = TRACE_CONV_TYPE;
			c->type = &go_type_eface;
			break;
		case 't':
		case 'b':
			c->kind = TRACE_CONV_BOOL;
			c->type = &go_type_bool;
			break;
		case '\0':
		case '"':
			return gt_error(-EINVAL, "format ends with '%%'");
		default:
			return gt_error(-EINVAL, "unknown conversion '%%%c' (use %%d %%u %%x %%c %%p %%s %%t %%f %%T %%v %%+v)",
					*p);
		}
	}
	*s = p + 1;
	return 0;
}

/* The quoted format at *S (after the opening quote), up to its closing
 * quote; fills P's conversions and suffix. */
static int parse_format(const char **s, struct trace_probe *p)
{
	const char *f = *s;
	struct lit lit = { 0 };
	int err = 0;
	char c;

	while (!err && *f && *f != '"') {
		c = *f++;
		if (c == '\\') {
			err = parse_escape(&f, &c, "format");
			if (!err)
				err = lit__add(&lit, c);
		} else if (c == '%' && *f == '%') {
			f++;
			err = lit__add(&lit, '%');
		} else if (c == '%') {
			struct trace_conv *cv;

			if (p->nconvs == TRACE_PROBE_MAX_ARGS) {
				err = gt_error(-EINVAL, "more than %d conversions in format",
					       TRACE_PROBE_MAX_ARGS);
				continue;
			}
			cv = &p->convs[p->nconvs];
			err = parse_conv(&f, cv);
			if (err)
				continue;
			cv->prefix = lit__take(&lit);
			if (!cv->prefix)
				err = gt_error(-ENOMEM, "out of memory");
			p->nconvs++;
		} else {
			err = lit__add(&lit, c);
		}
	}
	if (!err && *f != '"')
		err = gt_error(-EINVAL, "format has no closing quote");
	if (!err) {
		p->suffix = lit__take(&lit);
		if (!p->suffix)
			err = gt_error(-ENOMEM, "out of memory");
		*s = f + 1;
	}
	free(lit.buf);
	return err;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Go identifiers are letters, digits and _ (any non-ASCII byte is taken
 * for a letter); DWARF names unnamed results ~r0. */
static size_t ident_len(const char *p)
{
	size_t len = 0;

	if (*p == '~')
		len++;
	if (!isalpha((unsigned char)p[len]) && p[len] != '_' &&
	    !((unsigned char)p[len] & 0x80))
		return 0;
	while (isalnum((unsigned char)p[len]) || p[len] == '_' ||
	       ((unsigned char)p[len] & 0x80))
		len++;
	return len;
}

/* The base of a value at *P: goargN, goretN, retval or a NAME. */
static int parse_base(const char **s, bool ret, struct trace_expr *x)
{
	const char *p = *s;
	size_t len = ident_len(p);
	unsigned long n;
	char *end;

	if (!len)
		return gt_error(-EINVAL, "expected an argument at '%s' (goargN, goretN, retval or a name)",
				*p ? p : "the end");
	if (len == 6 && !strncmp(p, "retval", 6)) {
		x->arg = TRACE_ARG_GORET;
		x->index = 0;
	} else if (len > 5 && (!strncmp(p, "goarg", 5) || !strncmp(p, "goret", 5)) &&
		   isdigit((unsigned char)p[5])) {
		errno = 0;
		n = strtoul(p + 5, &end, 10);
		if (errno || end != p + len || n < 1 || n > 64)
			return gt_error(-EINVAL, "bad argument '%.*s' (goargN and goretN count from 1)",
					(int)len, p);
		x->arg = p[4] == 'g' ? TRACE_ARG_GOARG : TRACE_ARG_GORET;
		x->index = n - 1;
	} else {
		x->arg = TRACE_ARG_NAME;
		x->name = strndup(p, len);
		if (!x->name)
			return gt_error(-ENOMEM, "out of memory");
	}
	if (x->arg == TRACE_ARG_GORET && !ret)
		return gt_error(-EINVAL, "'%.*s' is only known in a return probe (r:)",
				(int)len, p);
	if (x->arg == TRACE_ARG_GOARG && ret)
		return gt_error(-EINVAL, "'%.*s' is not known at a return: registers are reused (use an entry probe)",
				(int)len, p);
	*s = p + len;
	return 0;
}

/* A conversion (TYPE)(BASE) at *S: the type as %T spells it ("*main.T",
 * "[]int", "map[string]int", "error", "interface {}"), then BASE. */
static int parse_conversion(const char **s, bool ret, struct trace_expr *x)
{
	const char *p = *s + 1, *type = p;
	int depth = 1, err;

	for (; *p && depth; p++)
		depth += (*p == '(') - (*p == ')');
	if (depth || p - 1 == type)
		return gt_error(-EINVAL, "expected (TYPE)(ARG) at '%s'", *s);
	x->conv = strndup(type, p - 1 - type);
	if (!x->conv)
		return gt_error(-ENOMEM, "out of memory");
	p = skip_space(p);
	if (*p != '(')
		return gt_error(-EINVAL, "expected (ARG) after the type in '%s'", *s);
	p = skip_space(p + 1);
	err = parse_base(&p, ret, x);
	if (err)
		return err;
	p = skip_space(p);
	if (*p != ')')
		return gt_error(-EINVAL, "expected ')' after the argument in '%s'", *s);
	*s = p + 1;
	return 0;
}

/* BASE{.field} or (TYPE)(BASE){.field} at *S. */
static int parse_path(const char **s, bool ret, struct trace_expr *x)
{
	const char *p;
	size_t len;
	int err;

	if (**s == '(')
		err = parse_conversion(s, ret, x);
	else
		err = parse_base(s, ret, x);
	p = *s;
	while (!err && (*p == '.' || *p == '[')) {
		/* .field, or [N]: kept with its brackets */
		if (*p == '.') {
			len = ident_len(p + 1);
			if (!len || p[1] == '~')
				return gt_error(-EINVAL, "expected a field name after '.' in '%s'",
						p);
			p++;
		} else {
			len = 1 + strspn(p + 1, "0123456789");
			if (len == 1 || len > 10 || p[len] != ']')
				return gt_error(-EINVAL, "expected [N] with a constant N at '%s'",
						p);
			len++;
		}
		if (x->nfields == TRACE_PROBE_MAX_FIELDS)
			return gt_error(-EINVAL, "more than %d selectors in one argument",
					TRACE_PROBE_MAX_FIELDS);
		x->fields[x->nfields] = strndup(p, len);
		if (!x->fields[x->nfields])
			return gt_error(-ENOMEM, "out of memory");
		x->nfields++;
		p += len;
	}
	*s = p;
	return err;
}

/* An argument at *S: PATH, len(PATH) or cap(PATH). */
static int parse_expr(const char **s, bool ret, struct trace_expr *x)
{
	const char *start = *s, *p = *s;
	int err;

	memset(x, 0, sizeof(*x));
	if ((!strncmp(p, "len", 3) || !strncmp(p, "cap", 3)) &&
	    *skip_space(p + 3) == '(') {
		x->fn = p[0] == 'l' ? TRACE_FN_LEN : TRACE_FN_CAP;
		p = skip_space(skip_space(p + 3) + 1);
	}
	err = parse_path(&p, ret, x);
	if (err)
		return err;
	if (x->fn != TRACE_FN_NONE) {
		p = skip_space(p);
		if (*p != ')')
			return gt_error(-EINVAL, "expected ')' after '%.*s'",
					(int)(p - start), start);
		p++;
	}
	x->text = strndup(start, p - start);
	if (!x->text)
		return gt_error(-ENOMEM, "out of memory");
	*s = p;
	return 0;
}

static void expr__free(struct trace_expr *x)
{
	size_t i;

	free(x->text);
	free(x->name);
	free(x->conv);
	for (i = 0; i < x->nfields; i++)
		free(x->fields[i]);
	memset(x, 0, sizeof(*x));
}

/* A quoted string constant at *S (at its opening quote). */
static int parse_string(const char **s, struct trace_term *t)
{
	const char *p = *s + 1;
	struct lit lit = { 0 };
	int err = 0;
	char c;

	while (!err && *p && *p != '"') {
		c = *p++;
		if (c == '\\')
			err = parse_escape(&p, &c, "a filter string");
		if (!err)
			err = lit__add(&lit, c);
	}
	if (!err && *p != '"')
		err = gt_error(-EINVAL, "a filter string has no closing quote");
	if (err) {
		free(lit.buf);
		return err;
	}
	t->kind = TRACE_CONST_STR;
	t->str_len = lit.len;
	t->str = lit__take(&lit);
	if (!t->str)
		return gt_error(-ENOMEM, "out of memory");
	*s = p + 1;
	return 0;
}

/* The constant of a comparison at *S. */
static int parse_const(const char **s, struct trace_term *t)
{
	const char *p = *s;
	unsigned long long v;
	size_t len = ident_len(p);
	char *end;

	if (*p == '"')
		return parse_string(s, t);
	t->kind = TRACE_CONST_INT;
	if ((len == 4 && !strncmp(p, "true", 4)) || (len == 5 && !strncmp(p, "false", 5)) ||
	    (len == 3 && !strncmp(p, "nil", 3))) {
		t->value = *p == 't';
		*s = p + len;
		return 0;
	}
	if (*p == '-') {
		t->negative = true;
		p++;
	}
	if (!isdigit((unsigned char)*p))
		return gt_error(-EINVAL, "expected a number, a \"string\", true, false or nil at '%s'",
				*s);
	errno = 0;
	v = strtoull(p, &end, 0);
	if (errno || (t->negative && v > (1ULL << 63)) ||
	    isalnum((unsigned char)*end) || *end == '_')
		return gt_error(-EINVAL, "bad number '%.*s' in filter",
				(int)(end - *s + (isalnum((unsigned char)*end) != 0)), *s);
	t->value = t->negative ? (int64_t)(0 - v) : (int64_t)v;
	*s = end;
	return 0;
}

static int parse_op(const char **s, enum trace_op *op)
{
	static const struct {
		const char *text;
		enum trace_op op;
	} ops[] = {
		{ "==", TRACE_OP_EQ }, { "!=", TRACE_OP_NE },
		{ "<=", TRACE_OP_LE }, { ">=", TRACE_OP_GE },
		{ "<", TRACE_OP_LT }, { ">", TRACE_OP_GT },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (!strncmp(*s, ops[i].text, n) && (!(*s)[n] || !strchr("<>=!", (*s)[n]))) {
			*op = ops[i].op;
			*s += n;
			return 0;
		}
	}
	return gt_error(-EINVAL, "bad operator at '%s' (use == != < <= > >=)",
			*s);
}

/* One term: !ARG, ARG, or ARG OP CONST. */
static int parse_term(const char **s, bool ret, struct trace_term *t)
{
	const char *p = skip_space(*s);
	bool not = false;
	int err;

	if (*p == '!' && p[1] != '=') {
		not = true;
		p = skip_space(p + 1);
	}
	err = parse_expr(&p, ret, &t->expr);
	if (err)
		return err;
	p = skip_space(p);
	if (not || *p == '&' || *p == '|' || *p == ')') {
		t->op = not ? TRACE_OP_EQ : TRACE_OP_NE;
		t->kind = TRACE_CONST_INT;
		t->value = 0;
	} else {
		err = parse_op(&p, &t->op);
		if (!err) {
			p = skip_space(p);
			err = parse_const(&p, t);
		}
		if (err)
			return err;
		if (t->kind == TRACE_CONST_STR && t->op != TRACE_OP_EQ &&
		    t->op != TRACE_OP_NE)
			return gt_error(-EINVAL, "strings compare with == and != only: '%s'",
					t->expr.text);
	}
	*s = p;
	return 0;
}

/* The filter at *S, after its opening parenthesis, up to the closing one. */
static int parse_filter(const char **s, struct trace_probe *p)
{
	const char *f = *s;
	int err;

	for (;;) {
		struct trace_term *t;

		if (p->nterms == TRACE_PROBE_MAX_TERMS)
			return gt_error(-EINVAL, "more than %d comparisons in a filter",
					TRACE_PROBE_MAX_TERMS);
		t = &p->terms[p->nterms++];
		err = parse_term(&f, p->ret, t);
		if (err)
			return err;
		f = skip_space(f);
		if (*f == ')')
			break;
		if (!strncmp(f, "&&", 2) || !strncmp(f, "||", 2)) {
			t->or_next = *f == '|';
			f += 2;
			continue;
		}
		return gt_error(-EINVAL, "expected &&, || or ')' in the filter at '%s'",
				*f ? f : "the end");
	}
	*s = f + 1;
	return 0;
}

int trace_probe__parse(const char *text, struct trace_probe *p)
{
	const char *s = skip_space(text), *end;
	size_t i, len;
	int err;

	memset(p, 0, sizeof(*p));
	if (!strncmp(s, "r:", 2)) {
		p->ret = true;
		s += 2;
	} else if (!strncmp(s, "p:", 2)) {
		s += 2;
	}
	/* The function ends at a space, which Go names (but for shape types'
	 * struct tags) do not contain: a space separates the filter, whose
	 * parenthesis could otherwise be a method's (main.(*T).M). */
	len = strcspn(s, " \t\n\"");
	if (!len)
		return gt_error(-EINVAL, "probe '%s' names no function", text);
	p->target = strndup(s, len);
	if (!p->target)
		return gt_error(-ENOMEM, "out of memory");
	s = skip_space(s + len);
	if (*s == '(') {
		s++;
		err = parse_filter(&s, p);
		if (err)
			return err;
		s = skip_space(s);
	}
	if (!*s) {
		/* no format: every argument, or result, as %v prints it */
		p->bare = true;
		p->suffix = strdup("");
		return p->suffix ? 0 : gt_error(-ENOMEM, "out of memory");
	}
	if (*s != '"')
		return gt_error(-EINVAL, "expected a quoted format after '%s', found '%s'",
				p->target, s);
	s++;
	err = parse_format(&s, p);
	if (err)
		return err;
	/* bcc writes a comma after the format; the examples do not:
	 * both are accepted, and commas between the arguments are required. */
	for (i = 0; i < p->nconvs; i++) {
		bool comma = false;

		s = skip_space(s);
		if (*s == ',') {
			comma = true;
			s = skip_space(s + 1);
		}
		if (!*s)
			return gt_error(-EINVAL, "%zu conversions in the format but %zu arguments",
					p->nconvs, i);
		if (i && !comma)
			return gt_error(-EINVAL, "expected ',' before '%s'", s);
		err = parse_expr(&s, p->ret, &p->convs[i].expr);
		if (err)
			return err;
	}
	end = skip_space(s);
	if (*end == ',')
		return gt_error(-EINVAL, "more arguments than the %zu conversions in the format",
				p->nconvs);
	if (*end)
		return gt_error(-EINVAL, "unexpected text after the arguments: '%s'", end);
	return 0;
}

void trace_conv__free(struct trace_conv *c)
{
	free(c->prefix);
	expr__free(&c->expr);
}

void trace_probe__free(struct trace_probe *p)
{
	size_t i;

	for (i = 0; i < TRACE_PROBE_MAX_ARGS; i++)
		trace_conv__free(&p->convs[i]);
	for (i = 0; i < TRACE_PROBE_MAX_TERMS; i++) {
		expr__free(&p->terms[i].expr);
		free(p->terms[i].str);
	}
	free(p->target);
	free(p->suffix);
	memset(p, 0, sizeof(*p));
}

/* Without DWARF, what a use of a value says of its type: a conversion
 * printing it whole gives its type; len()/cap() make it a slice (unless
 * something else says string) and a filter's constant an int or a string:
 * those are only guesses, which a conversion overrides. */
static int use_type(const struct trace_expr *x, const struct go_type *direct,
		    const struct trace_type_finder *find, bool *guess,
		    const struct go_type **type)
{
	int err;

	if (x->conv && x->arg != TRACE_ARG_NAME) {
		/* a conversion says what the value is */
		if (!find)
			return gt_error(-EINVAL, "'%s': no type data to convert with",
					x->text);
		err = find->find(find->ctx, x->conv, type);
		*guess = false;
		return err;
	}
	if (x->arg == TRACE_ARG_NAME)
		return gt_error(-EINVAL, "'%s' needs DWARF, which the binary does not have: use goargN / goretN",
				x->text);
	if (x->nfields)
		return gt_error(-EINVAL, "'%s': fields need DWARF, which the binary does not have",
				x->text);
	*guess = x->fn != TRACE_FN_NONE;
	*type = x->fn != TRACE_FN_NONE ? &go_type_byte_slice : direct;
	return 0;
}

int trace_probe__types(const struct trace_probe *p, bool results,
		       const struct trace_type_finder *find,
		       const struct go_type **types, size_t *n)
{
	enum trace_arg_kind want = results ? TRACE_ARG_GORET : TRACE_ARG_GOARG;
	const char *what = results ? "goret" : "goarg";
	bool guessed[TRACE_PROBE_MAX_ARGS] = { 0 };
	size_t i, max = 0;
	int err;

	*n = 0;
	for (i = 0; i < TRACE_PROBE_MAX_ARGS; i++)
		types[i] = NULL;
	for (i = 0; i < p->nconvs + p->nterms; i++) {
		bool is_conv = i < p->nconvs;
		const struct trace_conv *c = is_conv ? &p->convs[i] : NULL;
		const struct trace_term *t = is_conv ? NULL : &p->terms[i - p->nconvs];
		const struct trace_expr *x = is_conv ? &c->expr : &t->expr;
		const struct go_type *type = NULL;
		bool guess = true;

		if (c && c->kind == TRACE_CONV_TYPE && !x->conv)
			return gt_error(-EINVAL, "%%T needs DWARF, which the binary does not have, or a conversion: (error)(goarg1)");
		if (c && c->kind == TRACE_CONV_VALUE && !x->conv)
			return gt_error(-EINVAL, "%%v needs DWARF, which the binary does not have, or a conversion: (*main.T)(goarg1)");
		err = use_type(x, c ? c->type : t->kind == TRACE_CONST_STR ?
			       &go_type_string : &go_type_int, find, &guess,
			       &type);
		if (err)
			return err;
		guess = guess || !c;
		if (x->arg != want)
			continue;
		if (x->index >= TRACE_PROBE_MAX_ARGS)
			return gt_error(-EINVAL, "%s%u: at most %d values can be placed",
					what, x->index + 1, TRACE_PROBE_MAX_ARGS);
		if (x->index + 1 > max)
			max = x->index + 1;
		if (!types[x->index]) {
			types[x->index] = type;
			guessed[x->index] = guess;
		} else if (!guess && guessed[x->index]) {
			types[x->index] = type;
			guessed[x->index] = false;
		} else if (!guess && types[x->index] != type) {
			return gt_error(-EINVAL, "%s%u is printed with two different types",
					what, x->index + 1);
		}
	}
	for (i = 0; i < max; i++)
		if (!types[i])
			return gt_error(-EINVAL, "%s%zu needs the type of %s%zu: without DWARF, print every %s before it",
					what, max, what, i + 1, what);
	*n = max;
	return 0;
}

/* A rune as UTF-8; U+FFFD for what is not a valid code point, as Go. */
static void print_rune(FILE *f, int32_t r)
{
	uint32_t c = (uint32_t)r;

	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	if (c < 0x80) {
		fputc(c, f);
	} else if (c < 0x800) {
		fputc(0xc0 | c >> 6, f);
		fputc(0x80 | (c & 0x3f), f);
	} else if (c < 0x10000) {
		fputc(0xe0 | c >> 12, f);
		fputc(0x80 | ((c >> 6) & 0x3f), f);
		fputc(0x80 | (c & 0x3f), f);
	} else {
		fputc(0xf0 | c >> 18, f);
		fputc(0x80 | ((c >> 12) & 0x3f), f);
		fputc(0x80 | ((c >> 6) & 0x3f), f);
		fputc(0x80 | (c & 0x3f), f);
	}
}

void trace_print_float(FILE *f, double d, int bits)
{
	char buf[64];
	int prec, exp, nd, i;
	char *e;

	if (isnan(d)) {
		fputs("NaN", f);
		return;
	}
	if (isinf(d)) {
		fputs(d > 0 ? "+Inf" : "-Inf", f);
		return;
	}
	/* The shortest %e that reads back as D: its digits and exponent. */
	for (prec = 0; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec, d);
		if (bits == 32 ? strtof(buf, NULL) == (float)d :
				 strtod(buf, NULL) == d)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", prec, d);
	e = strchr(buf, 'e');
	exp = e ? atoi(e + 1) : 0;
	if (d == 0)
		exp = 0;
	if (exp < -4 || exp >= 6) {
		fputs(buf, f);
		return;
	}
	/* Plain form with the digits of the shortest %e: nd - 1 - exp
	 * decimals. */
	nd = 0;
	for (i = 0; buf[i] && &buf[i] != e; i++)
		if (isdigit((unsigned char)buf[i]))
			nd++;
	prec = nd - 1 - exp;
	fprintf(f, "%.*f", prec > 0 ? prec : 0, d);
}

/* The low SIZE bytes of W, sign-extended when SIGNED. */
static uint64_t word_bits(uint64_t w, uint64_t size, bool is_signed)
{
	unsigned int bits = size * 8;

	if (bits == 0 || bits >= 64)
		return w;
	w &= (1ULL << bits) - 1;
	if (is_signed && (w >> (bits - 1)) & 1)
		w |= ~0ULL << bits;
	return w;
}

/* The bits of V that C prints, sign-extended where it prints a signed
 * number. */
static uint64_t conv_word(const struct trace_conv *c,
			  const struct trace_value *v)
{
	const struct go_type *type = v->type ? v->type : c->type;
	/* %d of a Go unsigned type prints it unsigned, as Go's %d does */
	bool is_signed;

	if (!type)
		return v->word;
	is_signed = (c->kind == TRACE_CONV_INT && type->kind != GO_KIND_UINT) ||
		    c->kind == TRACE_CONV_CHAR;
	return word_bits(v->word, type->size, is_signed);
}

void trace_conv__print(FILE *f, const struct trace_conv *c,
		       const struct trace_value *v)
{
	const struct go_type *type = v->type ? v->type : c->type;
	uint64_t w = conv_word(c, v);
	double d;

	if (v->unreadable) {
		fputs(v->unreadable, f);
		return;
	}
	switch (c->kind) {
	case TRACE_CONV_INT:
		fprintf(f, "%lld", (long long)w);
		break;
	case TRACE_CONV_UINT:
		fprintf(f, "%llu", (unsigned long long)w);
		break;
	case TRACE_CONV_HEX:
		fprintf(f, "%llx", (unsigned long long)w);
		break;
	case TRACE_CONV_CHAR:
		print_rune(f, (int32_t)w);
		break;
	case TRACE_CONV_PTR:
		if (w)
			fprintf(f, "0x%llx", (unsigned long long)w);
		else
			fputs("<nil>", f);
		break;
	case TRACE_CONV_BOOL:
		fputs(w & 0xff ? "true" : "false", f);
		break;
	case TRACE_CONV_FLOAT:
		if (type->size == 4) {
			float x;
			uint32_t b = w;

			memcpy(&x, &b, sizeof(x));
			trace_print_float(f, x, 32);
		} else {
			memcpy(&d, &w, sizeof(d));
			trace_print_float(f, d, 64);
		}
		break;
	case TRACE_CONV_STR:
	case TRACE_CONV_VALUE:
		if (v->str && v->str_len)
			fwrite(v->str, 1, v->str_len, f);
		if (v->truncated)
			fputs("...", f);
		break;
	case TRACE_CONV_TYPE:
		fputs(v->type_name ? v->type_name : "<nil>", f);
		break;
	}
}

void trace_conv__print_json(FILE *f, const struct trace_conv *c,
			    const struct trace_value *v)
{
	uint64_t w = conv_word(c, v);
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (v->unreadable) {
		fputs("null", f);
		return;
	}
	switch (c->kind) {
	case TRACE_CONV_HEX:
		/* the number, not its digits */
		fprintf(f, "%llu", (unsigned long long)w);
		return;
	case TRACE_CONV_PTR:
		if (!w) {
			fputs("null", f);
			return;
		}
		break;
	case TRACE_CONV_TYPE:
		if (!v->type_name) {
			fputs("null", f);
			return;
		}
		break;
	default:
		break;
	}
	/* everything else as the text prints it */
	m = open_memstream(&text, &len);
	if (!m) {
		fputs("null", f);
		return;
	}
	trace_conv__print(m, c, v);
	if (fclose(m)) {
		free(text);
		fputs("null", f);
		return;
	}
	switch (c->kind) {
	case TRACE_CONV_INT:
	case TRACE_CONV_UINT:
	case TRACE_CONV_BOOL:
		fputs(text, f);
		break;
	case TRACE_CONV_FLOAT:
		if (isfinite(strtod(text, NULL)))
			fputs(text, f);
		else
			json_print_string(f, text);
		break;
	default:
		json_print_bytes(f, text, len);
		break;
	}
	free(text);
}

bool trace_probe__converts(const struct trace_probe *p)
{
	size_t i;

	for (i = 0; i < p->nconvs; i++)
		if (p->convs[i].expr.conv)
			return true;
	for (i = 0; i < p->nterms; i++)
		if (p->terms[i].expr.conv)
			return true;
	return false;
}
