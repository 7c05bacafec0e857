// SPDX-License-Identifier: MIT
/* x86-64 code for site/inline_ends.c (x86/inline_ends.h). */
#include <errno.h>
#include <string.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "x86/disasm.h"
#include "x86/inline_ends.h"
#include "x86/jmp_leaves.h"
#include "x86/uprobe_insn.h"

static int x86_body__open(struct inline_body *b)
{
	int err;

	err = x86_disasm__func_code(b->bin, b->fn, &b->code, &b->len);
	if (err)
		return err;
	b->end = (size_t)(x86_disasm__padding(b->code, b->len) - b->code);
	return 0;
}

/*
 * The instruction at ADDR of B, decoded without operands, which sweeps a
 * body faster; a branch or call is decoded again with them only when its
 * target is not in an encoding read off its bytes (x86_insn__rel_target),
 * and so is a jump through memory, for whether it is a table's.
 */
static bool x86_body__insn(const struct inline_body *b, uint64_t addr,
			   struct site_insn *in)
{
	/* allocated once: the handles are the process's too */
	static cs_insn *ci;
	const cs_insn *oi;
	const uint8_t *p;
	uint64_t a = addr;
	size_t left;
	csh cs;

	if (addr < b->fn->addr || addr - b->fn->addr >= b->len ||
	    x86_disasm__handle(false, &cs))
		return false;
	if (!ci)
		ci = cs_malloc(cs);
	p = b->code + (addr - b->fn->addr);
	left = b->len - (addr - b->fn->addr);
	if (!ci || !cs_disasm_iter(cs, &p, &left, &a, ci))
		return false;
	*in = (struct site_insn){
		.addr = addr, .next = addr + ci->size,
		.flow = x86_insn__site_flow(ci->id),
		.ret = ci->id == X86_INS_RET,
		.emulated = uprobe_insn__emulated(ci->bytes, ci->size),
	};
	if (in->flow == SITE_FLOW_PLAIN || in->flow == SITE_FLOW_STOP)
		return true;
	in->direct = x86_insn__rel_target(ci, &in->target);
	if (in->direct)
		return true;
	oi = x86_disasm__operands(ci);
	in->direct = oi && x86_insn__direct_target(oi, &in->target);
	in->through_table = in->flow == SITE_FLOW_JMP && oi && !in->direct &&
			    x86_jmp__through_table(oi);
	return true;
}

/* The instruction of B in SPAN, decoded with its operands
 * (x86_disasm__one()), or NULL. */
static const cs_insn *x86_body__one(const struct inline_body *b,
				    uint64_t addr, uint64_t to)
{
	if (addr < b->fn->addr || addr - b->fn->addr >= b->len || to <= addr)
		return NULL;
	return x86_disasm__one(b->code + (addr - b->fn->addr), to - addr, addr);
}

/* Is CI one of the NOPs gc aligns code with (`xchg %ax,%ax` among them)? */
static bool is_nop(const cs_insn *ci)
{
	return ci->id == X86_INS_NOP ||
	       (ci->id == X86_INS_XCHG && ci->size == 2 &&
		ci->bytes[0] == 0x66 && ci->bytes[1] == 0x90);
}

/*
 * gc jumps through a switch's table with `jmp *(%base,%index,8)`, and
 * loads the table by the instruction before (or before the NOPs that
 * align the jmp): `lea table(%rip),%base`.
 */
static bool x86_body__jump_table(const struct inline_body *b,
				 const struct site_insn *jmp,
				 const struct code_span *before,
				 size_t nbefore, uint64_t *table)
{
	const cs_insn *ci = x86_body__one(b, jmp->addr, jmp->next);
	x86_reg base, lea_reg = X86_REG_INVALID;
	size_t k;

	if (!ci || !x86_jmp__through_table(ci) ||
	    ci->detail->x86.operands[0].mem.scale != 8 ||
	    ci->detail->x86.operands[0].mem.disp)
		return false;
	base = ci->detail->x86.operands[0].mem.base;
	/* the lea, before the jmp or the NOPs that align it */
	for (k = 0; k < nbefore; k++) {
		ci = x86_body__one(b, before[k].from, before[k].to);
		if (!ci)
			return false;
		if (!is_nop(ci))
			break;
	}
	return k < nbefore && x86_insn__rip_lea(ci, &lea_reg, table) &&
	       lea_reg == base;
}

static int x86_body__filler(const struct inline_body *b, uint64_t addr,
			    uint64_t to, uint64_t *next)
{
	const cs_insn *ci = x86_body__one(b, addr, to);
	const cs_x86 *x;

	if (!ci)
		return -1;
	*next = addr + ci->size;
	if (is_nop(ci))
		return 1;
	x = &ci->detail->x86;
	if (ci->id != X86_INS_MOV || x->op_count != 2 ||
	    x->operands[0].type != X86_OP_REG)
		return 0;
	/* a register copied to another, or a slot of the frame reloaded */
	return x->operands[1].type == X86_OP_REG ||
	       (x->operands[1].type == X86_OP_MEM &&
		x->operands[1].mem.base == X86_REG_RSP &&
		x->operands[1].mem.index == X86_REG_INVALID);
}

const struct inline_decoder x86_inline_decoder = {
	.open = x86_body__open,
	.insn_max = 15,
	.insn = x86_body__insn,
	.jump_table = x86_body__jump_table,
	.filler = x86_body__filler,
	.probeable = uprobe_insn__probeable,
};
