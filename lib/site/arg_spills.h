/* SPDX-License-Identifier: MIT */
/*
 * Where the register ABI passed a function's arguments, read off its
 * morestack tail (site/probe_site.h finds the tail): before it calls
 * runtime.morestack the tail spills every argument register to the
 * argument's spill slot, in the order of the arguments, at the width of
 * each word (x86-64's movb for an int8, movsd for a float64; arm64's
 * MOVB, STP of a pair, FMOVD), then reloads them and jumps back to the
 * entry. Without types (a stripped binary), these are the raw words a
 * call passed in registers. Arguments passed on the stack (past the
 * integer registers, arrays) are not spilled. Each machine reads its
 * tails (x86/arg_spills.h, arm64/arg_spills.h); what a spill is, and its
 * order, are the same.
 */
#ifndef GOTOOLS_SITE_ARG_SPILLS_H
#define GOTOOLS_SITE_ARG_SPILLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86-64: 9 integer and 15 XMM registers; arm64: 16 and 16 */
#define ARG_SPILLS_MAX	32

struct arg_spill {
	int32_t sp_offset;	/* its slot, from SP at the entry */
	/* the integer register by DWARF number (enum go_reg on x86-64, Rn
	 * on arm64), or the float register's n (XMMn, Vn) when FREG */
	uint8_t reg;
	uint8_t size;		/* bytes: 1, 2, 4 or 8 */
	bool freg;
};

/* OUT[N] in the order of their slots: the order of the arguments. */
void arg_spills__sort(struct arg_spill *out, size_t n);

#endif
