/* SPDX-License-Identifier: MIT */
/*
 * What arm64 instructions are to site/inline_ends.h, where inlined copies
 * end: the twin of x86/inline_ends.h. Each word's flow and branch target
 * (arm64/disasm.h), a switch's jump table (`ADRP table, Rt; ADD $lo, Rt,
 * Rt; MOVD (Rt)(Ri<<3), Rn; JMP (Rn)`, the table in rodata), the NOPs gc
 * aligns code with and the reloads from the frame gc's register allocator
 * leaves (`MOVD 72(RSP), R0`: a load from SP plus an offset).
 */
#ifndef GOTOOLS_ARM64_INLINE_ENDS_H
#define GOTOOLS_ARM64_INLINE_ENDS_H

#include "site/inline_ends.h"

extern const struct inline_decoder arm64_inline_decoder;

#endif
