/* SPDX-License-Identifier: MIT */
/*
 * The spills of an x86-64 morestack tail (site/arg_spills.h says what
 * they are): `mov REG, disp(%rsp)` of an integer argument register at its
 * width, `movsd`/`movss` of an XMM register, nops, then the call.
 */
#ifndef GOTOOLS_X86_ARG_SPILLS_H
#define GOTOOLS_X86_ARG_SPILLS_H

#include <stddef.h>
#include <stdint.h>
#include "site/arg_spills.h"

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
