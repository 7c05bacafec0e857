/* SPDX-License-Identifier: MIT */
/*
 * What x86-64 instructions are to site/inline_ends.h, where inlined
 * copies end: each instruction's flow and branch target (decoded without
 * operands, but for branches not in the encodings gc emits), a switch's
 * jump table (`lea table(%rip),%r`, up to 4 NOPs that align the jmp, then
 * `jmp *(%r,%x,8)`), the NOPs gc aligns code with and the reloads from
 * the frame gc's register allocator leaves (`mov N(%rsp),%r`).
 */
#ifndef GOTOOLS_X86_INLINE_ENDS_H
#define GOTOOLS_X86_INLINE_ENDS_H

#include "site/inline_ends.h"

extern const struct inline_decoder x86_inline_decoder;

#endif
