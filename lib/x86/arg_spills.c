// SPDX-License-Identifier: MIT
/* The argument registers a morestack tail spills (arg_spills.h). */
#include <errno.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "x86/arg_spills.h"
#include "x86/disasm.h"

/* The register ABI's integer argument registers, at each width. */
static const struct {
	unsigned int r64, r32, r16, r8;
	enum go_reg reg;
} int_regs[] = {
	{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, GO_REG_RAX },
	{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, GO_REG_RBX },
	{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, GO_REG_RCX },
	{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, GO_REG_RDI },
	{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, GO_REG_RSI },
	{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, GO_REG_R8 },
	{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, GO_REG_R9 },
	{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, GO_REG_R10 },
	{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, GO_REG_R11 },
};

/* The spill CI is, `mov REG, disp(%rsp)` or `movs[sd] XMM, disp(%rsp)`,
 * into S; false for any other instruction. */
static bool spill_of(const cs_insn *ci, struct arg_spill *s)
{
	const cs_x86 *x86 = &ci->detail->x86;
	const cs_x86_op *dst = &x86->operands[0], *src = &x86->operands[1];
	size_t i;

	if (x86->op_count != 2 || dst->type != X86_OP_MEM ||
	    dst->mem.base != X86_REG_RSP || dst->mem.index != X86_REG_INVALID ||
	    dst->mem.segment != X86_REG_INVALID || src->type != X86_OP_REG ||
	    dst->mem.disp < 8 || dst->mem.disp > INT32_MAX)
		return false;
	s->sp_offset = dst->mem.disp;
	s->size = dst->size;
	if (ci->id == X86_INS_MOVSD || ci->id == X86_INS_MOVSS) {
		if (src->reg < X86_REG_XMM0 || src->reg > X86_REG_XMM14)
			return false;
		s->freg = true;
		s->reg = src->reg - X86_REG_XMM0;
		return true;
	}
	if (ci->id != X86_INS_MOV)
		return false;
	for (i = 0; i < sizeof(int_regs) / sizeof(int_regs[0]); i++) {
		if (src->reg == int_regs[i].r64 || src->reg == int_regs[i].r32 ||
		    src->reg == int_regs[i].r16 || src->reg == int_regs[i].r8) {
			s->freg = false;
			s->reg = int_regs[i].reg;
			return true;
		}
	}
	return false;
}

int arg_spills__decode(const uint8_t *code, size_t len, uint64_t addr,
		       struct arg_spill *out, size_t *n)
{
	const cs_insn *ci;
	size_t at = 0;

	*n = 0;
	while (at < len) {
		ci = x86_disasm__one(code + at, len - at, addr + at);
		if (!ci)
			return gt_error(-EINVAL, "undecodable code at 0x%llx",
					(unsigned long long)(addr + at));
		if (ci->id == X86_INS_CALL) {
			arg_spills__sort(out, *n);
			return 0;
		}
		/* the assembler aligns the call with nops */
		if (ci->id == X86_INS_NOP) {
			at += ci->size;
			continue;
		}
		if (*n == ARG_SPILLS_MAX || !spill_of(ci, &out[*n]))
			return gt_error(-EINVAL, "0x%llx: not an argument spill",
					(unsigned long long)(addr + at));
		(*n)++;
		at += ci->size;
	}
	return gt_error(-EINVAL, "no call to runtime.morestack");
}
