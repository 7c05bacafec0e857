/* SPDX-License-Identifier: MIT */
/*
 * The spills of an arm64 morestack tail (site/arg_spills.h says what they
 * are), the twin of x86/arg_spills.h: stores of R0-R15 and F0-F15 to
 * their slots off RSP at each word's width (MOVD, MOVW, MOVH, MOVB,
 * FMOVD, FMOVS: STR, STRH, STRB with an unsigned offset) or in pairs
 * (STP), then `MOVD R30, R3` (the return address morestack is given) and
 * the call.
 */
#ifndef GOTOOLS_ARM64_ARG_SPILLS_H
#define GOTOOLS_ARM64_ARG_SPILLS_H

#include <stddef.h>
#include <stdint.h>
#include "site/arg_spills.h"

/* The spills of the morestack tail in the LEN bytes of CODE at ADDR (its
 * first instruction), up to its call, by slot, into OUT (room for
 * ARG_SPILLS_MAX), *N of them. Returns 0, or -EINVAL with a reason when
 * the tail holds something else before its call. */
int arm64_arg_spills__decode(const uint8_t *code, size_t len, uint64_t addr,
			     struct arg_spill *out, size_t *n);

#endif
