/* SPDX-License-Identifier: MIT */
/*
 * The table a small function indexes, read off its arm64 code: the twin
 * of x86/indexed_table.h, which says what Go source this is. Go compiles
 * runtime.waitReason.String into
 *
 *	CMPW $47, R2; BCC 1f; (ADRP, ADD "unknown wait reason"); ...; RET
 *	1: ...; ADRP table, R3; ADD $lo12, R3, R3; ... (R3)(R2) ...
 *
 * a compare of the index with the table's length, an unsigned branch, and
 * in the block the index is in range in, the table's address built by an
 * ADRP and an ADD, which a stripped binary still holds.
 */
#ifndef GOTOOLS_ARM64_INDEXED_TABLE_H
#define GOTOOLS_ARM64_INDEXED_TABLE_H

#include <stdint.h>
#include "gobin/go_binary.h"

/*
 * The length (from the compare of the index with an immediate that an
 * unsigned b.cond follows: b.lo or b.hs, the immediate; b.ls or b.hi, one
 * more) and the address (the first ADRP and ADD of one register in the
 * in-range block) of the table of the function FN of BIN. Returns 0, or
 * -ENOENT with a reason when the code has no such shape.
 */
int arm64_indexed_table__find(const struct go_binary *bin,
			      const struct go_func *fn, uint64_t *table,
			      uint64_t *len);

#endif
