// SPDX-License-Identifier: MIT
#include <errno.h>
#include <elf.h>
#include <capstone/capstone.h>
#include "x86/abi_wrapper.h"
#include "x86/disasm.h"
#include "core/error.h"

/* Wrappers are a few instructions; do not disassemble whole bodies. */
#define WRAPPER_MAX_BYTES 512

static bool insn_targets(const cs_insn *insn, uint64_t target)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (insn->id != X86_INS_CALL && insn->id != X86_INS_JMP)
		return false;
	return x86->op_count == 1 && x86->operands[0].type == X86_OP_IMM &&
	       (uint64_t)x86->operands[0].imm == target;
}

int abi_wrapper__calls(const struct go_binary *bin, const struct go_func *fn,
		       const struct go_func *body, bool *is_wrapper)
{
	size_t len = fn->size && fn->size < WRAPPER_MAX_BYTES ? fn->size :
							       WRAPPER_MAX_BYTES;
	const uint8_t *code;
	uint64_t addr = fn->addr;
	cs_insn *insn;
	csh cs;
	int err;

	*is_wrapper = false;
	if (bin->elf->machine != EM_X86_64)
		return 0;
	/* The last function of a segment may be shorter than the window. */
	while ((err = elf_file__read_vaddr(bin->elf, fn->addr, len, &code)) &&
	       len > 16)
		len /= 2;
	if (err)
		return gt_error(err, "cannot read the code of %s", fn->name);
	err = x86_disasm__handle(true, &cs);
	if (err)
		return err;
	insn = cs_malloc(cs);
	if (!insn)
		return gt_error(-ENOMEM, "out of memory");
	while (cs_disasm_iter(cs, &code, &len, &addr, insn)) {
		if (insn_targets(insn, body->addr)) {
			*is_wrapper = true;
			break;
		}
	}
	cs_free(insn, 1);
	return 0;
}
