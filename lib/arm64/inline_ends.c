// SPDX-License-Identifier: MIT
/* arm64 code for site/inline_ends.c (arm64/inline_ends.h), read off its
 * instruction words. */
#include "arm64/disasm.h"
#include "arm64/inline_ends.h"
#include "arm64/uprobe_insn.h"

#define ARM64_NOP	0xd503201f
#define ARM64_SP	31

static int arm64_body__open(struct inline_body *b)
{
	int err;

	err = arm64_disasm__func_code(b->bin, b->fn, &b->code, &b->len);
	if (err)
		return err;
	b->end = arm64_disasm__padding(b->code, b->len);
	return 0;
}

/* The word at ADDR of B into *WORD; false outside its code. */
static bool body_word(const struct inline_body *b, uint64_t addr,
		      uint32_t *word)
{
	if (addr < b->fn->addr || addr - b->fn->addr > b->len ||
	    b->len - (addr - b->fn->addr) < 4)
		return false;
	*word = arm64_insn__word(b->code + (addr - b->fn->addr));
	return true;
}

/* Every word is an instruction (data words in a body too, as Go's objdump
 * reads them). */
static bool arm64_body__insn(const struct inline_body *b, uint64_t addr,
			     struct site_insn *in)
{
	uint32_t word;
	bool ret;

	if (!body_word(b, addr, &word))
		return false;
	*in = (struct site_insn){
		.addr = addr, .next = addr + 4,
		.flow = arm64_insn__flow(word, &ret),
		.emulated = arm64_uprobe_insn__simulated(word),
	};
	in->ret = ret;
	if (in->flow == SITE_FLOW_PLAIN || in->flow == SITE_FLOW_STOP)
		return true;
	in->direct = arm64_insn__target(word, addr, &in->target);
	in->through_table = in->flow == SITE_FLOW_JMP && !in->direct &&
			    arm64_br__through_table(b->code, b->len,
						    b->fn->addr, addr);
	return true;
}

/*
 * gc jumps through a switch's table with `MOVD (Rt)(Ri<<3), Rn; JMP (Rn)`
 * and builds its address in Rt by the two words before the load, `ADRP
 * table, Rt; ADD $lo, Rt, Rt` (one MOVD $table, Rt to the assembler).
 */
static bool arm64_body__jump_table(const struct inline_body *b,
				   const struct site_insn *jmp,
				   const struct code_span *before,
				   size_t nbefore, uint64_t *table)
{
	unsigned int rn, rt, rd;
	uint32_t br, ldr, add, adrp;
	uint64_t page, lo;

	/* fixed-width words: the two before the load, whatever BEFORE says */
	(void)before;
	(void)nbefore;
	if (!body_word(b, jmp->addr, &br) ||
	    !body_word(b, jmp->addr - 4, &ldr) ||
	    !body_word(b, jmp->addr - 8, &add) ||
	    !body_word(b, jmp->addr - 12, &adrp) ||
	    !arm64_insn__ldr_indexed8(ldr, &rn, &rt) ||
	    rn != (br >> 5 & 0x1f) ||
	    !arm64_insn__adrp(adrp, jmp->addr - 12, &rd, &page) || rd != rt ||
	    !arm64_insn__add_imm(add, rt, &lo))
		return false;
	*table = page + lo;
	return true;
}

/* A load from a slot of the frame: LDR (immediate, unsigned offset) or
 * LDUR into a register as wide as the slot, general or FP, from SP. */
static bool loads_from_frame(uint32_t word)
{
	return ((word & 0x3bc00000) == 0x39400000 ||	/* ldr uimm */
		(word & 0x3be00c00) == 0x38400000) &&	/* ldur */
	       (word >> 5 & 0x1f) == ARM64_SP;
}

/* A general register copied to another: MOV (register), which is ORR
 * (shifted register, no shift) from the zero register, 64 or 32 bits. */
static bool copies_register(uint32_t word)
{
	return (word & 0x7fe0ffe0) == 0x2a0003e0;
}

static int arm64_body__filler(const struct inline_body *b, uint64_t addr,
			      uint64_t to, uint64_t *next)
{
	uint32_t word;

	if (to < addr + 4 || !body_word(b, addr, &word))
		return -1;
	*next = addr + 4;
	return word == ARM64_NOP || loads_from_frame(word) ||
	       copies_register(word);
}

const struct inline_decoder arm64_inline_decoder = {
	.open = arm64_body__open,
	.insn_max = 4,
	.insn = arm64_body__insn,
	.jump_table = arm64_body__jump_table,
	.filler = arm64_body__filler,
	.probeable = arm64_uprobe_insn__probeable_at,
};
