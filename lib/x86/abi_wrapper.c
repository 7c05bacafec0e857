// SPDX-License-Identifier: MIT
#include <errno.h>
#include <elf.h>
#include <capstone/capstone.h>
#include "x86/abi_wrapper.h"
#include "x86/disasm.h"
#include "core/error.h"

/* Wrappers are a few instructions; do not disassemble whole bodies. */
#define WRAPPER_MAX_BYTES 512

/* Is ADDR the entry of a member of GROUP other than SELF? */
static bool member_entry(const struct go_func *const *group, size_t n,
			 size_t self, uint64_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (i != self && group[i]->addr == addr)
			return true;
	return false;
}

/* Does FN's code, within the window, call or jump to the entry of another
 * member of GROUP (FN is GROUP[SELF])? The window is decoded without
 * operands, a call or jump again with them, for its target. */
static int calls_member(const struct go_binary *bin, csh cs, csh dcs,
			cs_insn *insn, cs_insn *dinsn,
			const struct go_func *const *group, size_t n,
			size_t self, bool *found)
{
	const struct go_func *fn = group[self];
	size_t len = fn->size && fn->size < WRAPPER_MAX_BYTES ? fn->size :
							       WRAPPER_MAX_BYTES;
	const uint8_t *code, *p;
	uint64_t addr = fn->addr, a;
	const cs_x86 *x86;
	size_t left;
	int err;

	*found = false;
	/* The last function of a segment may be shorter than the window. */
	while ((err = elf_file__read_vaddr(bin->elf, fn->addr, len, &code)) &&
	       len > 16)
		len /= 2;
	if (err)
		return gt_error(err, "cannot read the code of %s", fn->name);
	while (!*found && cs_disasm_iter(cs, &code, &len, &addr, insn)) {
		if (insn->id != X86_INS_CALL && insn->id != X86_INS_JMP)
			continue;
		p = insn->bytes;
		left = insn->size;
		a = insn->address;
		if (!cs_disasm_iter(dcs, &p, &left, &a, dinsn))
			continue;
		x86 = &dinsn->detail->x86;
		*found = x86->op_count == 1 &&
			 x86->operands[0].type == X86_OP_IMM &&
			 member_entry(group, n, self,
				      (uint64_t)x86->operands[0].imm);
	}
	return 0;
}

int abi_wrapper__mark(const struct go_binary *bin,
		      const struct go_func *const *group, size_t n,
		      bool *wrapper)
{
	cs_insn *insn = NULL, *dinsn = NULL;
	csh cs, dcs;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		wrapper[i] = false;
	if (bin->elf->machine != EM_X86_64 || n < 2)
		return 0;
	err = x86_disasm__handle(false, &cs);
	if (!err)
		err = x86_disasm__handle(true, &dcs);
	if (err)
		return err;
	insn = cs_malloc(cs);
	dinsn = cs_malloc(dcs);
	if (!insn || !dinsn)
		err = gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n && !err; i++)
		err = calls_member(bin, cs, dcs, insn, dinsn, group, n, i,
				   &wrapper[i]);
	if (insn)
		cs_free(insn, 1);
	if (dinsn)
		cs_free(dinsn, 1);
	return err;
}
