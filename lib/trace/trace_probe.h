/* SPDX-License-Identifier: MIT */
/*
 * gotrace's probes, as bcc's trace writes them, made Go-aware:
 *
 *	[r:][BINARY:]FUNCTION [(FILTER)] ["FORMAT"[, ARG ...]]
 *
 * A probe without FORMAT is bare: it prints every argument, or at a
 * return every result (trace_plan.h makes its format, per function).
 * ARG is goargN (the Nth Go parameter, receiver first, N from 1) or, in an
 * r: probe, goretN / retval (= goret1), or a parameter's NAME (DWARF), or
 * one of those converted to a type as %T spells it, (*main.T)(goarg1),
 * which types it from the binary's type data (stripped binaries too); each
 * optionally followed by .field selectors, which follow pointers as Go
 * does (r.URL.Path), and [N] indexes of arrays, slices and strings (the
 * latter checked against the length in BPF), or wrapped in len() /
 * cap(). FILTER is comparisons
 * `ARG OP CONST` (OP one of == != < <= > >=; CONST an integer, a "string",
 * true, false or nil), or ARG alone (non-zero), or !ARG, joined by && and
 * ||, && binding tighter. Without DWARF the conversions of FORMAT give the
 * types, which the ABI then places:
 *
 *	%d %i	signed int (Go int, 8 bytes); %hd int16, %hhd int8, and
 *		C23's exact widths %w8d %w16d %w32d %w64d
 *	%u	unsigned (uint64); %hu, %hhu, %w32u...; %x %lx %llx %w32x in hex
 *	%c	a rune (int32), printed as UTF-8
 *	%p	a pointer (0x..., <nil> for 0)
 *	%s	a Go string (pointer and length words)
 *	%t %b	a bool (true / false)
 *	%f %g	a float64 (%w32f a float32), printed as Go's %v prints it
 *	%T	(DWARF) the dynamic type of an interface, as Go's %T
 *	%v %+v	(DWARF) any value as Go's fmt prints it (value_print.h)
 *	%%	a percent sign
 *
 * With DWARF the values keep their declared types: %s also prints a []byte,
 * %d an int8 as an int8.
 *
 * A pure library: parsing and printing, no BPF, no ELF.
 */
#ifndef GOTOOLS_TRACE_PROBE_H
#define GOTOOLS_TRACE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "goabi/go_abi.h"

#define TRACE_PROBE_MAX_ARGS	12
#define TRACE_PROBE_MAX_FIELDS	8	/* selectors in one ARG */
#define TRACE_PROBE_MAX_TERMS	8	/* comparisons in one filter */

enum trace_conv_kind {
	TRACE_CONV_INT,
	TRACE_CONV_UINT,
	TRACE_CONV_HEX,
	TRACE_CONV_CHAR,
	TRACE_CONV_PTR,
	TRACE_CONV_STR,
	TRACE_CONV_BOOL,
	TRACE_CONV_FLOAT,
	TRACE_CONV_TYPE,	/* %T */
	TRACE_CONV_VALUE,	/* %v, %+v (DWARF): any value, as Go's fmt */
};

enum trace_arg_kind {
	TRACE_ARG_GOARG,	/* a parameter, at the entry */
	TRACE_ARG_GORET,	/* a result, at a return */
	TRACE_ARG_NAME,		/* a parameter or result by its DWARF name */
};

enum trace_fn {
	TRACE_FN_NONE,
	TRACE_FN_LEN,		/* len(X) */
	TRACE_FN_CAP,		/* cap(X) */
};

/* A value: goarg2, r.URL.Path, len(b). */
struct trace_expr {
	char *text;		/* as written, for messages */
	enum trace_arg_kind arg;
	unsigned int index;	/* GOARG, GORET: 0-based (goarg1 is 0) */
	char *name;		/* NAME */
	char *conv;		/* (TYPE)(BASE): TYPE as %T spells it, or NULL */
	char *fields[TRACE_PROBE_MAX_FIELDS];	/* "URL", or "[2]": an index */
	size_t nfields;
	enum trace_fn fn;
};

/* One conversion of the format and the argument it prints. */
struct trace_conv {
	char *prefix;		/* the literal text before it ("%%" undone) */
	enum trace_conv_kind kind;
	bool plus;		/* %+v */
	const struct go_type *type;	/* the type the format gives (none
					 * for %v) */
	struct trace_expr expr;
};

enum trace_op {
	TRACE_OP_EQ,
	TRACE_OP_NE,
	TRACE_OP_LT,
	TRACE_OP_LE,
	TRACE_OP_GT,
	TRACE_OP_GE,
};

enum trace_const_kind {
	TRACE_CONST_INT,	/* also true (1), false (0) and nil (0) */
	TRACE_CONST_STR,
};

/* One comparison of a filter: EXPR OP VALUE. ARG alone is ARG != 0 and
 * !ARG is ARG == 0. */
struct trace_term {
	struct trace_expr expr;
	enum trace_op op;
	enum trace_const_kind kind;
	int64_t value;		/* INT */
	bool negative;		/* INT: written with a minus sign */
	char *str;		/* STR */
	size_t str_len;
	bool or_next;		/* || follows (else &&) */
};

struct trace_probe {
	bool ret;		/* r: fires at every return */
	char *target;		/* "[BINARY:]FUNCTION", for probe_spec */
	struct trace_term terms[TRACE_PROBE_MAX_TERMS];
	size_t nterms;
	struct trace_conv convs[TRACE_PROBE_MAX_ARGS];
	size_t nconvs;
	char *suffix;		/* literal text after the last conversion */
	/* no format was written: the planner makes one per function that
	 * prints every argument (r: every result) by %v (trace_plan.h);
	 * gotrace --no-values clears it, for bcc's bare probe */
	bool bare;
};

/*
 * Parse TEXT into P. Returns 0, or -EINVAL with a one-line reason (a bad
 * conversion, a missing quote, more conversions than arguments, goretN in
 * an entry probe, a malformed filter...). Call trace_probe__free() in both
 * cases.
 */
int trace_probe__parse(const char *text, struct trace_probe *p);
void trace_probe__free(struct trace_probe *p);
/* The strings of C (its prefix and expression). */
void trace_conv__free(struct trace_conv *c);

/* Types by name, as %T spells them, for conversions: FIND returns 0 and
 * *OUT, or a negative errno with a reason. */
struct trace_type_finder {
	int (*find)(void *ctx, const char *name, const struct go_type **out);
	void *ctx;
};

/*
 * Without DWARF: the types of the parameters (RESULTS false) or results of
 * P, by index, into TYPES[TRACE_PROBE_MAX_ARGS]; *N is one past the highest
 * index used. They come from the conversions that print goargN / goretN
 * whole; a value only a filter or len()/cap() uses is an int, a string or
 * a slice by what is done with it. A value can only be placed when every
 * value before it has a known type, so a gap (goarg2 without goarg1), one
 * index used with two types, a NAME or a selector (which need DWARF) fail
 * with -EINVAL and a reason. A conversion, (*main.T)(goarg1), types its
 * value through FIND (NULL: none), selectors and %v and %T included.
 */
int trace_probe__types(const struct trace_probe *p, bool results,
		       const struct trace_type_finder *find,
		       const struct go_type **types, size_t *n);

/* Does P convert a value to a type, (TYPE)(ARG), in its format or its
 * filter? Then its binary's type data is needed. */
bool trace_probe__converts(const struct trace_probe *p);

/* A value as the tool read it. */
struct trace_value {
	const struct go_type *type;	/* its type (DWARF's, or the format's) */
	uint64_t word;		/* scalars; the low `type->size` bytes */
	const char *str;	/* TRACE_CONV_STR: the bytes read;
				 * TRACE_CONV_VALUE: the value printed */
	size_t str_len;
	bool truncated;		/* the string is longer than what was read */
	const char *type_name;	/* TRACE_CONV_TYPE: the dynamic type */
	const char *unreadable;	/* a marker ("<xmm>", "<fault>") or NULL */
};

/* Print V as C prints it (and %T as Go does). */
void trace_conv__print(FILE *f, const struct trace_conv *c,
		       const struct trace_value *v);

/*
 * Print V as a JSON value (gotrace -j's "values"): a number for %d %u %x
 * %f (a float that is not finite as the string "NaN", "+Inf" or "-Inf"),
 * true or false for %t, a string for %s (with "..." when cut) %c %T and
 * %p ("0x..."), null for a nil pointer or interface and for a value that
 * could not be read (the message says why).
 */
void trace_conv__print_json(FILE *f, const struct trace_conv *c,
			    const struct trace_value *v);

/* Print a float64 (BITS 64) or float32 (BITS 32) as Go's fmt %v does:
 * the shortest digits that read back the same at that size, in exponent
 * form below 1e-4 and from 1e6 (strconv's 'g', precision -1); +Inf, -Inf, NaN. */
void trace_print_float(FILE *f, double d, int bits);

#endif
