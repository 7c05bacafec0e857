// SPDX-License-Identifier: MIT
/*
 * What the arm64 kernel does with the instruction at a probe
 * (uprobe_insn.h), as arm_probe_decode_insn() of arch/arm64/kernel/probes/
 * decode-insn.c decides, by the masks of arch/arm64/include/asm/insn.h:
 * it simulates branches, ADR/ADRP and literal loads (a simulated hit costs
 * no single step: the stack check's b.ls is one, site/probe_site.h),
 * single-steps what aarch64_insn_is_steppable() accepts, and refuses the
 * rest.
 */
#include <stddef.h>
#include "arm64/uprobe_insn.h"
#include "core/byteorder.h"

struct insn_class {
	uint32_t mask, val;
};

static const struct insn_class simulated[] = {
	{ 0xff000010, 0x54000000 },	/* b.cond */
	{ 0x7c000000, 0x14000000 },	/* b, bl */
	{ 0x7e000000, 0x34000000 },	/* cbz, cbnz */
	{ 0x7e000000, 0x36000000 },	/* tbz, tbnz */
	{ 0xfffffc1f, 0xd61f0000 },	/* br */
	{ 0xfffffc1f, 0xd63f0000 },	/* blr */
	{ 0xfffffc1f, 0xd65f0000 },	/* ret */
	{ 0x1f000000, 0x10000000 },	/* adr, adrp */
	{ 0xbf000000, 0x18000000 },	/* ldr (literal) */
	{ 0xff000000, 0x98000000 },	/* ldrsw (literal) */
};

static bool in_classes(uint32_t word, const struct insn_class *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((word & c[i].mask) == c[i].val)
			return true;
	return false;
}

#define IN_CLASSES(word, c) in_classes(word, c, sizeof(c) / sizeof(c[0]))

bool arm64_uprobe_insn__simulated(uint32_t word)
{
	return IN_CLASSES(word, simulated);
}

/* Branches, exception generation and system instructions: op0 (bits 28-25)
 * 101x, aarch64_get_insn_class()'s AARCH64_INSN_CLS_BR_SYS. */
#define BR_SYS(word)	(((word) >> 25 & 0xe) == 0xa)

/* Of that class, what cannot run out of line: every branch (the simulated
 * ones are told first; the pointer-authenticating ones are refused), MSR,
 * exceptions (SVC: Go's syscalls), ERET. */
static const struct insn_class not_steppable_sys[] = {
	{ 0x7c000000, 0x14000000 },	/* b, bl */
	{ 0x7e000000, 0x34000000 },	/* cbz, cbnz */
	{ 0x7e000000, 0x36000000 },	/* tbz, tbnz */
	{ 0xfe000000, 0x54000000 },	/* b.cond, bc.cond */
	{ 0xfe000000, 0xd6000000 },	/* br, blr, ret, eret and their
					 * authenticating forms */
	{ 0xfff8f01f, 0xd500401f },	/* msr (immediate) */
	{ 0xfff00000, 0xd5100000 },	/* msr (register) */
	{ 0xff000000, 0xd4000000 },	/* exception generation */
};

#define HINT_MASK		0xfffff01f
#define HINT_VAL		0xd503201f
/* aarch64_insn_is_steppable_hint(): NOP, the PAC hints and BTI (CRm:op2,
 * bits 11-5); YIELD, WFE, WFI, SEV... are refused. */
static bool steppable_hint(uint32_t word)
{
	switch (word >> 5 & 0x7f) {
	case 0x00:				/* nop */
	case 0x07:				/* xpaclri */
	case 0x08: case 0x0a:			/* pacia1716, pacib1716 */
	case 0x18: case 0x19:			/* paciaz, paciasp */
	case 0x1a: case 0x1b:			/* pacibz, pacibsp */
	case 0x20: case 0x22:			/* bti, bti c */
	case 0x24: case 0x26:			/* bti j, bti jc */
		return true;
	}
	return false;
}

#define MRS_MASK		0xfff00000
#define MRS_VAL			0xd5300000
/* MRS of DAIF (op0 3, op1 3, CRn 4, CRm 2, op2 1), the one system register
 * a step out of line reads right. */
#define MRS_DAIF(word)		(((word) >> 5 & 0x7fff) == 0x5a11)

/* Out of line, a literal load reads the wrong address (aarch64_insn_
 * uses_literal(): those the kernel simulates are told first, which leaves
 * PRFM and the FP/SIMD literal loads), and an exclusive pair would never
 * succeed (load_ex, store_ex: LDXR, STXR and the acquire/release forms
 * LDAR, STLR, LDAXR, STLXR...). */
static const struct insn_class not_steppable[] = {
	{ 0xff000000, 0xd8000000 },	/* prfm (literal) */
	{ 0x3f000000, 0x1c000000 },	/* ldr (literal, SIMD&FP) */
	{ 0x3f400000, 0x08400000 },	/* load exclusive, acquire */
	{ 0x3f400000, 0x08000000 },	/* store exclusive, release */
};

bool arm64_uprobe_insn__probeable(uint32_t word)
{
	if (arm64_uprobe_insn__simulated(word))
		return true;
	if (BR_SYS(word)) {
		if (IN_CLASSES(word, not_steppable_sys))
			return false;
		if ((word & MRS_MASK) == MRS_VAL)
			return MRS_DAIF(word);
		if ((word & HINT_MASK) == HINT_VAL)
			return steppable_hint(word);
		return true;
	}
	return !IN_CLASSES(word, not_steppable);
}

/* The word at ADDR of EF, which must be aligned as every arm64
 * instruction is. */
static bool word_at(const struct elf_file *ef, uint64_t addr, uint32_t *word)
{
	const uint8_t *code;

	if ((addr & 3) || elf_file__read_vaddr(ef, addr, 4, &code))
		return false;
	*word = get_u32(code);
	return true;
}

bool arm64_uprobe_insn__probeable_at(const struct elf_file *ef, uint64_t addr)
{
	uint32_t word;

	return word_at(ef, addr, &word) && arm64_uprobe_insn__probeable(word);
}

bool arm64_uprobe_insn__simulated_at(const struct elf_file *ef, uint64_t addr)
{
	uint32_t word;

	return word_at(ef, addr, &word) && arm64_uprobe_insn__simulated(word);
}
