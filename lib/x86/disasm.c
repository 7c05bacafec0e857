// SPDX-License-Identifier: MIT
/* The capstone decoders of lib/x86, opened once per process (disasm.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "core/error.h"
#include "site/exit_site.h"
#include "site/func_code.h"
#include "x86/disasm.h"
#include "x86/jmp_leaves.h"

int x86_disasm__handle(bool detail, csh *out)
{
	static csh handles[2];
	static bool opened[2];
	cs_err err;
	csh cs;

	if (opened[detail]) {
		*out = handles[detail];
		return 0;
	}
	err = cs_open(CS_ARCH_X86, CS_MODE_64, &cs);
	if (err != CS_ERR_OK)
		return gt_error(-ENOMEM, "capstone: %s", cs_strerror(err));
	if (detail) {
		err = cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		if (err != CS_ERR_OK) {
			cs_close(&cs);
			return gt_error(-ENOMEM, "capstone: %s",
					cs_strerror(err));
		}
	}
	handles[detail] = cs;
	opened[detail] = true;
	*out = cs;
	return 0;
}

const cs_insn *x86_disasm__one(const uint8_t *code, size_t len,
			       uint64_t addr)
{
	/* allocated once: cs_disasm() would allocate per instruction */
	static cs_insn *insn;
	csh cs;

	if (x86_disasm__handle(true, &cs))
		return NULL;
	if (!insn)
		insn = cs_malloc(cs);
	if (!insn || !cs_disasm_iter(cs, &code, &len, &addr, insn))
		return NULL;
	return insn;
}

const cs_insn *x86_disasm__operands(const cs_insn *plain)
{
	return x86_disasm__one(plain->bytes, plain->size, plain->address);
}

bool x86_insn__direct_target(const cs_insn *ci, uint64_t *target)
{
	const cs_x86 *x86 = &ci->detail->x86;

	if (x86->op_count != 1 || x86->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x86->operands[0].imm;
	return true;
}

int x86_disasm__branch_targets(const struct go_binary *bin,
			       const struct go_func *fn, size_t window,
			       uint64_t *targets, size_t max, size_t *n)
{
	const uint8_t *code;
	uint64_t addr = fn->addr;
	const cs_insn *ci;
	cs_insn *insn;
	size_t len;
	csh cs;
	int err;

	*n = 0;
	err = x86_disasm__func_code(bin, fn, &code, &len);
	if (!err)
		err = x86_disasm__handle(false, &cs);
	if (err)
		return err;
	if (len > window)
		len = window;
	insn = cs_malloc(cs);
	if (!insn)
		return gt_error(-ENOMEM, "out of memory");
	/* decoded without operands, a call or jump again with them */
	while (*n < max && cs_disasm_iter(cs, &code, &len, &addr, insn)) {
		if (insn->id != X86_INS_CALL && insn->id != X86_INS_JMP)
			continue;
		ci = x86_disasm__operands(insn);
		if (ci && x86_insn__direct_target(ci, &targets[*n]))
			(*n)++;
	}
	cs_free(insn, 1);
	return 0;
}

enum x86_flow x86_insn__flow(unsigned int id)
{
	switch (id) {
	case X86_INS_JMP:
	case X86_INS_LJMP:
		return X86_FLOW_JMP;
	case X86_INS_JA: case X86_INS_JAE: case X86_INS_JB: case X86_INS_JBE:
	case X86_INS_JE: case X86_INS_JNE: case X86_INS_JG: case X86_INS_JGE:
	case X86_INS_JL: case X86_INS_JLE: case X86_INS_JO: case X86_INS_JNO:
	case X86_INS_JP: case X86_INS_JNP: case X86_INS_JS: case X86_INS_JNS:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_XBEGIN:	/* goes to its abort handler on an abort */
	/* branches too, although capstone 5 leaves them out of its jump
	 * group */
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return X86_FLOW_JCC;
	case X86_INS_CALL:
	case X86_INS_LCALL:
		return X86_FLOW_CALL;
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_INT: case X86_INS_INT1: case X86_INS_INT3:
	case X86_INS_INTO: case X86_INS_UD2: case X86_INS_HLT:
	case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_SYSEXIT: case X86_INS_SYSEXITQ:
	case X86_INS_SYSRET: case X86_INS_SYSRETQ:
		return X86_FLOW_STOP;
	default:
		return X86_FLOW_PLAIN;
	}
}

enum site_flow x86_insn__site_flow(unsigned int id)
{
	switch (x86_insn__flow(id)) {
	case X86_FLOW_JCC:
		return SITE_FLOW_JCC;
	case X86_FLOW_JMP:
		return SITE_FLOW_JMP;
	case X86_FLOW_CALL:
		return SITE_FLOW_CALL;
	case X86_FLOW_STOP:
		return SITE_FLOW_STOP;
	default:
		return SITE_FLOW_PLAIN;
	}
}

/* Is CI's first operand memory, and its second (if any) a register or an
 * immediate: a store, which writes no register? (A string instruction's
 * second operand is memory too, and it moves RSI and RDI.) */
static bool stores_to_memory(const cs_insn *ci)
{
	const cs_x86 *x86 = &ci->detail->x86;

	if (x86->op_count < 1 || x86->op_count > 2 ||
	    x86->operands[0].type != X86_OP_MEM)
		return false;
	return x86->op_count == 1 || x86->operands[1].type == X86_OP_REG ||
	       x86->operands[1].type == X86_OP_IMM;
}

bool x86_insn__writes_only_flags(const cs_insn *ci)
{
	switch (ci->id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_UCOMISD: case X86_INS_UCOMISS:
	case X86_INS_COMISD: case X86_INS_COMISS:
	case X86_INS_PTEST: case X86_INS_VPTEST:
	case X86_INS_NOP: case X86_INS_PAUSE: case X86_INS_ENDBR64:
		return true;
	case X86_INS_MOV: case X86_INS_MOVD: case X86_INS_MOVQ:
	case X86_INS_MOVSD: case X86_INS_MOVSS:
	case X86_INS_MOVUPS: case X86_INS_MOVAPS:
	case X86_INS_MOVDQU: case X86_INS_MOVDQA:
	case X86_INS_VMOVDQU: case X86_INS_VMOVUPS:
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NOT: case X86_INS_NEG:
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND:
	case X86_INS_OR: case X86_INS_XOR: case X86_INS_ADC: case X86_INS_SBB:
	case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC:
	case X86_INS_SETA: case X86_INS_SETAE: case X86_INS_SETB:
	case X86_INS_SETBE: case X86_INS_SETE: case X86_INS_SETNE:
	case X86_INS_SETG: case X86_INS_SETGE: case X86_INS_SETL:
	case X86_INS_SETLE: case X86_INS_SETO: case X86_INS_SETNO:
	case X86_INS_SETP: case X86_INS_SETNP: case X86_INS_SETS:
	case X86_INS_SETNS:
		return stores_to_memory(ci);
	default:
		return false;
	}
}

int x86_disasm__func_code(const struct go_binary *bin, const struct go_func *fn,
			  const uint8_t **code, size_t *len)
{
	if (bin->elf->machine == EM_AARCH64)
		return gt_error(-ENOTSUP,
				"%s: arm64 code is not supported yet",
				fn->name);
	if (bin->elf->machine != EM_X86_64)
		return gt_error(-ENOTSUP, "%s: unsupported machine %u",
				fn->name, bin->elf->machine);
	return func_code__read(bin, fn, code, len);
}

bool x86_insn__rip_lea(const cs_insn *ci, x86_reg *reg, uint64_t *addr)
{
	const cs_x86 *x = &ci->detail->x86;

	if (ci->id != X86_INS_LEA || x->op_count != 2 ||
	    x->operands[0].type != X86_OP_REG ||
	    x->operands[1].type != X86_OP_MEM ||
	    x->operands[1].mem.base != X86_REG_RIP ||
	    x->operands[1].mem.index != X86_REG_INVALID)
		return false;
	*reg = x->operands[0].reg;
	*addr = ci->address + ci->size + (uint64_t)x->operands[1].mem.disp;
	return true;
}

bool x86_jmp__through_table(const cs_insn *ci)
{
	const cs_x86_op *op = &ci->detail->x86.operands[0];

	return ci->detail->x86.op_count == 1 && op->type == X86_OP_MEM &&
	       op->mem.index != X86_REG_INVALID;
}

bool x86_jmp__leaves(const cs_insn *ji, uint64_t entry, size_t len)
{
	const cs_insn *ci = x86_disasm__operands(ji);
	uint64_t target = 0;
	bool direct;

	if (!ci)
		return true;
	direct = x86_insn__direct_target(ci, &target);
	return exit_jump__leaves(direct, target,
				 !direct && x86_jmp__through_table(ci),
				 entry, len);
}

bool x86_insn__rel_target(const cs_insn *plain, uint64_t *target)
{
	const uint8_t *b = plain->bytes;
	uint64_t next = plain->address + plain->size;
	int32_t rel;

	if (plain->size == 5 && (b[0] == 0xe8 || b[0] == 0xe9)) {
		memcpy(&rel, b + 1, sizeof(rel));
	} else if (plain->size == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80) {
		memcpy(&rel, b + 2, sizeof(rel));
	} else if (plain->size == 2 &&
		   (b[0] == 0xeb || (b[0] & 0xf0) == 0x70)) {
		rel = (int8_t)b[1];
	} else {
		return false;
	}
	*target = next + (uint64_t)(int64_t)rel;
	return true;
}

const uint8_t *x86_disasm__padding(const uint8_t *code, size_t len)
{
	while (len && code[len - 1] == 0xcc)	/* int3 */
		len--;
	return code + len;
}
