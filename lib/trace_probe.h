/* SPDX-License-Identifier: MIT */
/*
 * gotrace's probes, as bcc's trace writes them, made Go-aware:
 *
 *	[r:][BINARY:]FUNCTION ["FORMAT"[, ARG ...]]
 *
 * ARG is goargN (the Nth Go parameter, receiver first, N from 1) or, in an
 * r: probe, goretN / retval (= goret1). Without DWARF the conversions of
 * FORMAT give the types, which the ABI then places:
 *
 *	%d %i	signed int (Go int, 8 bytes); %hd int16, %hhd int8, and
 *		C23's exact widths %w8d %w16d %w32d %w64d
 *	%u	unsigned (uint64); %hu, %hhu, %w32u...; %x %lx %llx %w32x in hex
 *	%c	a rune (int32), printed as UTF-8
 *	%p	a pointer (0x..., <nil> for 0)
 *	%s	a Go string (pointer and length words)
 *	%t %b	a bool (true / false)
 *	%f %g	a float64 (%w32f a float32), printed as Go's %v prints it
 *	%%	a percent sign
 *
 * A pure library: parsing and printing, no BPF, no ELF.
 */
#ifndef GOTOOLS_TRACE_PROBE_H
#define GOTOOLS_TRACE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "go_abi.h"

#define TRACE_PROBE_MAX_ARGS	12

enum trace_conv_kind {
	TRACE_CONV_INT,
	TRACE_CONV_UINT,
	TRACE_CONV_HEX,
	TRACE_CONV_CHAR,
	TRACE_CONV_PTR,
	TRACE_CONV_STR,
	TRACE_CONV_BOOL,
	TRACE_CONV_FLOAT,
};

enum trace_arg_kind {
	TRACE_ARG_GOARG,	/* a parameter, at the entry */
	TRACE_ARG_GORET,	/* a result, at a return */
};

/* One conversion of the format and the argument it prints. */
struct trace_conv {
	char *prefix;		/* the literal text before it ("%%" undone) */
	enum trace_conv_kind kind;
	const struct go_type *type;	/* what the ABI places */
	enum trace_arg_kind arg;
	unsigned int index;	/* 0-based: goarg1 and goret1 are 0 */
};

struct trace_probe {
	bool ret;		/* r: fires at every return */
	char *target;		/* "[BINARY:]FUNCTION", for probe_spec */
	struct trace_conv convs[TRACE_PROBE_MAX_ARGS];
	size_t nconvs;
	char *suffix;		/* literal text after the last conversion */
};

/*
 * Parse TEXT into P. Returns 0, or -EINVAL with a one-line reason (a bad
 * conversion, a missing quote, more conversions than arguments, goretN in
 * an entry probe, a filter, which this version does not have...). Call
 * trace_probe__free() in both cases.
 */
int trace_probe__parse(const char *text, struct trace_probe *p);
void trace_probe__free(struct trace_probe *p);

/*
 * The types of the parameters (RESULTS false) or results of P, by index,
 * into TYPES[TRACE_PROBE_MAX_ARGS]; *N is one past the highest index used.
 * Without DWARF a value can only be placed when every value before it has
 * a known type, so a gap (goarg2 without goarg1) or one index printed with
 * two types fails with -EINVAL and a reason.
 */
int trace_probe__types(const struct trace_probe *p, bool results,
		       const struct go_type **types, size_t *n);

/* A value as the tool read it. */
struct trace_value {
	uint64_t word;		/* scalars; the low `type->size` bytes */
	const char *str;	/* TRACE_CONV_STR: the bytes read */
	size_t str_len;
	bool truncated;		/* the string is longer than what was read */
	const char *unreadable;	/* a marker ("<xmm>", "<fault>") or NULL */
};

/* Print V as C prints it. */
void trace_conv__print(FILE *f, const struct trace_conv *c,
		       const struct trace_value *v);

/* Print a float64 (BITS 64) or float32 (BITS 32) as Go's fmt %v does:
 * the shortest digits that read back the same at that size, in exponent
 * form below 1e-4 and from 1e6 (strconv's 'g', precision -1); +Inf, -Inf, NaN. */
void trace_print_float(FILE *f, double d, int bits);

#endif
