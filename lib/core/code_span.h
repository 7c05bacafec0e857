/* SPDX-License-Identifier: MIT */
/*
 * Code at [from, to): the spans a decoder skipped, or the code of an
 * inlined copy (its PC ranges).
 */
#ifndef GOTOOLS_CODE_SPAN_H
#define GOTOOLS_CODE_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Code at [from, to); empty when from == to. */
struct code_span {
	uint64_t from, to;
};

/*
 * Sort the N spans of V by address and merge those that overlap or
 * touch, leaving no empty one; returns how many are left.
 */
size_t code_spans__merge(struct code_span *v, size_t n);

/* Is ADDR in one of the N spans of V, sorted and merged? */
bool code_spans__contain(const struct code_span *v, size_t n, uint64_t addr);

#endif
