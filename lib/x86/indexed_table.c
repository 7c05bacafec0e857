// SPDX-License-Identifier: MIT
/* The table a small function indexes, read off its machine code
 * (indexed_table.h). */
#include <errno.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "x86/disasm.h"
#include "x86/indexed_table.h"

/* Such a function is a few instructions: do not decode past this. */
#define TABLE_FUNC_MAX_BYTES 256

/* Is CI a compare of a register or memory with an immediate? Its value. */
static bool compare_immediate(const cs_insn *ci, uint64_t *imm)
{
	const cs_x86 *x = &ci->detail->x86;

	if (ci->id != X86_INS_CMP || x->op_count != 2 ||
	    x->operands[1].type != X86_OP_IMM || x->operands[1].imm < 0)
		return false;
	*imm = (uint64_t)x->operands[1].imm;
	return true;
}

/* Is the instruction at CODE (LEN bytes, at ADDR), after a compare with
 * IMM, the unsigned branch of a bounds check? The table's length: IMM for
 * jb/jae (index < IMM), IMM + 1 for ja/jbe (index <= IMM). */
static bool bounds_check(const uint8_t *code, size_t len, uint64_t addr,
			 uint64_t imm, uint64_t *n)
{
	const cs_insn *ci = x86_disasm__one(code, len, addr);

	if (!ci)
		return false;
	switch (ci->id) {
	case X86_INS_JB:
	case X86_INS_JAE:
		*n = imm;
		return true;
	case X86_INS_JA:
	case X86_INS_JBE:
		*n = imm + 1;
		return true;
	}
	return false;
}

/* Does CI read memory based at REG with an index register? */
static bool indexed_load(const cs_insn *ci, x86_reg reg)
{
	const cs_x86 *x = &ci->detail->x86;
	uint8_t i;

	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM &&
		    x->operands[i].mem.base == reg &&
		    x->operands[i].mem.index != X86_REG_INVALID)
			return true;
	return false;
}

int indexed_table__find(const struct go_binary *bin, const struct go_func *fn,
			uint64_t *table, uint64_t *len)
{
	size_t span = go_binary__func_span(bin, fn), off = 0;
	uint64_t lea_addr = 0, n = 0, imm;
	x86_reg lea_reg = X86_REG_INVALID;
	bool have_len = false;
	const uint8_t *code;
	const cs_insn *ci;

	if (span > TABLE_FUNC_MAX_BYTES)
		span = TABLE_FUNC_MAX_BYTES;
	if (elf_file__read_vaddr(bin->elf, fn->addr, span, &code))
		return gt_error(-ENOENT, "cannot read the code of %s", fn->name);
	while (off < span) {
		ci = x86_disasm__one(code + off, span - off, fn->addr + off);
		if (!ci)
			break;
		off += ci->size;
		if (!have_len && compare_immediate(ci, &imm)) {
			have_len = bounds_check(code + off, span - off,
						fn->addr + off, imm, &n);
		} else if (x86_insn__rip_lea(ci, &lea_reg, &lea_addr)) {
			continue;
		} else if (have_len && lea_reg != X86_REG_INVALID &&
			   indexed_load(ci, lea_reg)) {
			*table = lea_addr;
			*len = n;
			return 0;
		}
	}
	return gt_error(-ENOENT, "%s does not index a table as expected",
			fn->name);
}
