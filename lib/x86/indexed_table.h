/* SPDX-License-Identifier: MIT */
/*
 * The table a small function indexes, read off its machine code. Go
 * compiles
 *	func (w waitReason) String() string {
 *		if w < 0 || w >= waitReason(len(waitReasonStrings)) {
 *			return "unknown wait reason"
 *		}
 *		return waitReasonStrings[w]
 *	}
 * into a compare of the index with the table's length, and a RIP-relative
 * LEA of the table whose register then is the base of the element's load:
 *	cmp $0x2f,%al; jb 1f; lea "unknown"(%rip),%rax; ...; ret
 *	1: movzbl %al,%ecx; shl $4,%rcx; lea table(%rip),%rdx
 *	mov (%rdx,%rcx,1),%rax; ...
 * which is how a stripped binary still says where the table is.
 */
#ifndef GOTOOLS_INDEXED_TABLE_H
#define GOTOOLS_INDEXED_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"

/*
 * The length (from the compare of the index with an immediate that the
 * bounds check's unsigned branch follows) and the address of the table
 * of the function FN of BIN. Returns 0, or -ENOENT
 * with a reason when the code has no such shape.
 */
int indexed_table__find(const struct go_binary *bin, const struct go_func *fn,
			uint64_t *table, uint64_t *len);

#endif
