/* SPDX-License-Identifier: MIT */
/*
 * %v and %+v: a Go value printed as Go's fmt prints it, from the memory
 * gotrace's BPF program read when the probe fired (an event's chunks).
 *
 * As fmt: bools, numbers (floats as strconv's shortest 'g'), strings, a
 * pointer at the top to a struct, array, slice or map as &{...}, other
 * pointers as 0x..., nil ones as <nil>; structs as {a b} ({A:a B:b} with
 * %+v), arrays and slices as [a b], interfaces as their dynamic value,
 * nil as <nil>. The errors fmt would call Error() on (reachable through
 * exported fields only, as fmt's reflection) print their message, for the
 * common concrete types: *errors.errorString, *fmt.wrapError,
 * *fmt.wrapErrors. Other Error and String methods are not called: a value
 * fmt would call one on prints as <TYPE> and then its value as fmt prints
 * a value without methods. Maps print as map[k:v ...], sorted by key as
 * fmt sorts them (internal/fmtsort), from their buckets or Swiss tables
 * (go_map.h); at most VALUE_MAP_MAX entries.
 *
 * Where BPF read less than the value (the byte budget, the depth, -Z):
 * "..." in its place; where it could not read: <fault>; an interface
 * whose dynamic type has no known layout: <TYPE>.
 *
 * As JSON (gotrace -j's "values"): structs as objects of their fields,
 * arrays and slices as arrays, strings as strings (ending in "..." when
 * cut), numbers as numbers (complex ones, NaN and infinities as strings),
 * a pointer at the top as what it points to, other pointers as "0x...",
 * nil as null, an interface as its dynamic value, an error as its
 * message, a map as an object whose names are its keys as %v prints
 * them; the markers ("...", "<fault>") as strings, and a cut map's
 * "...": null.
 *
 * A pure library: no BPF, no ELF.
 */
#ifndef GOTOOLS_VALUE_PRINT_H
#define GOTOOLS_VALUE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "goabi/go_abi.h"
#include "gotrace.h"

#define VALUE_MAP_MAX	256

/* One read of an event: LEN bytes at ADDR, or a FAULT. */
struct value_chunk {
	uint64_t addr;
	const uint8_t *data;
	uint32_t len;
	bool fault;
};

/* The memory an event holds. */
struct value_memory {
	struct value_chunk chunks[TRACE_MAX_CHUNKS];
	size_t n;
};

/*
 * The NCHUNKS chunks of an event's VALUE[0..LEN) into M. Returns 0, or
 * -EINVAL when they do not fit in LEN.
 */
int value_memory__parse(struct value_memory *m, const uint8_t *value,
			size_t len, unsigned int nchunks);

struct value_printer {
	FILE *f;
	bool plus;			/* %+v: field names */
	bool json;			/* as a JSON value (below) */
	int go_minor;			/* of the binary: how maps are stored */
	const struct value_memory *mem;
	/* the type whose descriptor is at run-time address ADDR, or NULL;
	 * and its name, or NULL */
	const struct go_type *(*dyn_type)(void *ctx, uint64_t addr);
	const char *(*type_name)(void *ctx, uint64_t addr);
	/* does T have an Error or a String method (NULL: no type has)? */
	bool (*has_fmt_method)(void *ctx, const struct go_type *t);
	void *ctx;
};

/* Print the value of type T whose bytes are BYTES (T->size of them), or
 * that is in P's memory at ADDR (print_at). */
void value_print(const struct value_printer *p, const struct go_type *t,
		 const uint8_t *bytes);
void value_print_at(const struct value_printer *p, const struct go_type *t,
		    uint64_t addr);

/* "<type 0xADDR>": how a type descriptor at ADDR that has no name is
 * printed (%v and %T alike), into BUF of LEN bytes; returns BUF. */
char *value_print__unnamed_type(char *buf, size_t len, uint64_t addr);

#endif
