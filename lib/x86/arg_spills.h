/* SPDX-License-Identifier: MIT */
/*
 * Where the register ABI passed a function's arguments, read off its
 * morestack tail (Go 1.17+ amd64; x86/probe_site.h finds the tail): before
 * it calls runtime.morestack the tail spills every argument register to
 * the argument's spill slot, in the order of the arguments, at the width
 * of each word (movb for an int8, movsd for a float64), then reloads them
 * and jumps back to the entry. Without types (a stripped binary), these
 * are the raw words a call passed in registers. Arguments passed on the
 * stack (past the nine integer registers, arrays) are not spilled.
 */
#ifndef GOTOOLS_ARG_SPILLS_H
#define GOTOOLS_ARG_SPILLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARG_SPILLS_MAX	24	/* 9 integer and 15 XMM registers */

struct arg_spill {
	int32_t sp_offset;	/* its slot, from SP at the entry */
	uint8_t reg;		/* enum go_reg, or XMM n when XMM */
	uint8_t size;		/* bytes: 1, 2, 4 or 8 */
	bool xmm;
};

/*
 * The spills of the morestack tail in the LEN bytes of CODE at address
 * ADDR (the tail's first instruction), up to its call, by slot: into OUT
 * (room for ARG_SPILLS_MAX), *N of them. Returns 0, or -EINVAL with a
 * reason when the tail holds something else before its call (then it is
 * not read: a guess is worse than nothing).
 */
int arg_spills__decode(const uint8_t *code, size_t len, uint64_t addr,
		       struct arg_spill *out, size_t *n);

#endif
