/* SPDX-License-Identifier: MIT */
/*
 * arm64 code as lib/arm64's decoders read it: the flow of an instruction
 * and its branch target, from its 32-bit word alone (every instruction is
 * one word, and its class is in fixed bits: no decode needed), and the
 * capstone handle that decodes operands where they are needed (the
 * prologue's registers and memory operands), opened once per process.
 */
#ifndef GOTOOLS_ARM64_DISASM_H
#define GOTOOLS_ARM64_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <capstone/capstone.h>
#include "gobin/go_binary.h"
#include "site/site_code.h"

/* The little-endian instruction word at P. */
uint32_t arm64_insn__word(const uint8_t *p);

/*
 * What the instruction WORD does to the flow of control: b.cond, cbz,
 * cbnz, tbz, tbnz are conditional; b and br jump; bl and blr call; ret,
 * eret, drps and the exception generating instructions (svc, brk, hlt,
 * udf's word 0...) stop. A return is *RET.
 */
enum site_flow arm64_insn__flow(uint32_t word, bool *ret);

/* The target of WORD at ADDR, a branch or call to a PC-relative address
 * (b, bl, b.cond, cbz, cbnz, tbz, tbnz), into *TARGET; false for any
 * other instruction (br, blr, ret through a register). */
bool arm64_insn__target(uint32_t word, uint64_t addr, uint64_t *target);

/* Is WORD at ADDR `ADRP page, Rd`? Rd into *RD, the page into *PAGE. */
bool arm64_insn__adrp(uint32_t word, uint64_t addr, unsigned int *rd,
		      uint64_t *page);

/* Is WORD `ADD $imm, Rd, Rd` (immediate, 64 bits), the low bits of an
 * address after ADRP? The immediate into *IMM. */
bool arm64_insn__add_imm(uint32_t word, unsigned int rd, uint64_t *imm);

/* Is WORD `MOVD (Rt)(Ri<<3), Rn` (LDR Xn, [Xt, Xi, LSL #3]), a load of
 * a switch's jump table entry? Rn into *RN and Rt into *RT. */
bool arm64_insn__ldr_indexed8(uint32_t word, unsigned int *rn,
			      unsigned int *rt);

/* The condition of the b.cond WORD (its bits 3:0: 0 eq, 1 ne, 2 hs/cs,
 * 3 lo/cc, 8 hi, 9 ls...), or -1 when WORD is not a b.cond. */
int arm64_insn__bcond(uint32_t word);

/*
 * An AArch64 capstone handle with operands (cs_insn.detail) into *OUT.
 * Returns 0, or -ENOTSUP when the capstone linked does not decode AArch64
 * (a cache built for x86 alone: make deps builds it again), or -ENOMEM,
 * with a reason. It stays open until the process exits; not thread-safe.
 */
int arm64_disasm__handle(csh *out);

/* The instruction at ADDR of the LEN bytes of CODE (at address ENTRY),
 * decoded with its operands into a cs_insn the process shares: valid
 * until the next call. NULL when it does not decode. */
const cs_insn *arm64_disasm__one(const uint8_t *code, size_t len,
				 uint64_t entry, uint64_t addr);

/* FN's code into *CODE, *LEN bytes (func_code__read), whole words. Returns
 * 0, -ENOTSUP for code not arm64, or a negative errno with a reason. */
int arm64_disasm__func_code(const struct go_binary *bin,
			    const struct go_func *fn, const uint8_t **code,
			    size_t *len);

/* Where the zero words that pad up to the next function start in the LEN
 * bytes of a function's CODE (an offset, a multiple of 4): Go pads arm64
 * text with 0x00000000, which no instruction it emits is. */
size_t arm64_disasm__padding(const uint8_t *code, size_t len);

/*
 * Is the br at ADDR (in the LEN bytes of CODE at ENTRY) a switch's jump
 * through a table: `MOVD (Rt)(Ri<<3), Rn; JMP (Rn)`, the load of Rn with
 * an index register just before it? Its targets are in the body.
 */
bool arm64_br__through_table(const uint8_t *code, size_t len, uint64_t entry,
			     uint64_t addr);

/* The targets of the direct calls and jumps (bl, b; not conditional ones)
 * in the first WINDOW bytes of FN's code (site/abi_wrapper.h's
 * branch_targets_fn). */
int arm64_disasm__branch_targets(const struct go_binary *bin,
				 const struct go_func *fn, size_t window,
				 uint64_t *targets, size_t max, size_t *n);

#endif
