// SPDX-License-Identifier: MIT
/* ABI wrappers: the small other-ABI twin a Go function may have
 * (abi_wrapper.h). */
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
 * operands into INSN, a call or jump again with them, for its target. */
static int calls_member(const struct go_binary *bin, csh cs, cs_insn *insn,
			const struct go_func *const *group, size_t n,
			size_t self, bool *found)
{
	const struct go_func *fn = group[self];
	size_t len = fn->size && fn->size < WRAPPER_MAX_BYTES ? fn->size :
							       WRAPPER_MAX_BYTES;
	const uint8_t *code;
	uint64_t addr = fn->addr, target;
	const cs_insn *ci;
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
		ci = x86_disasm__operands(insn);
		*found = ci && x86_insn__direct_target(ci, &target) &&
			 member_entry(group, n, self, target);
	}
	return 0;
}

int abi_wrapper__mark(const struct go_binary *bin,
		      const struct go_func *const *group, size_t n,
		      bool *wrapper)
{
	cs_insn *insn;
	size_t i;
	csh cs;
	int err;

	for (i = 0; i < n; i++)
		wrapper[i] = false;
	if (bin->elf->machine != EM_X86_64 || n < 2)
		return 0;
	err = x86_disasm__handle(false, &cs);
	if (err)
		return err;
	insn = cs_malloc(cs);
	if (!insn)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n && !err; i++)
		err = calls_member(bin, cs, insn, group, n, i, &wrapper[i]);
	cs_free(insn, 1);
	return err;
}
