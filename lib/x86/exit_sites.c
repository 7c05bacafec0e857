// SPDX-License-Identifier: MIT
/*
 * The exits of a function (exit_sites.h): a linear sweep of its whole
 * x86-64 body with capstone. Go puts no data in function bodies on amd64
 * (jump tables live in .rodata), so a sweep from the entry decodes every
 * instruction.
 *
 * What leaves the function:
 *   - ret and ret imm16;
 *   - jmp rel to an address outside the body (the compiler's tail calls in
 *     wrappers, badmcall in runtime.mcall...). A jmp inside the body is not
 *     an exit: loops, and the morestack tail's jmp back to the entry;
 *   - jmp through a register (`jmp *%rax`). In the objdump of every
 *     fixture these are only in assembly functions, and all leave:
 *     runtime.reflectcall to callNN, runtime.systemstack when already on
 *     the system stack, gogo, cgoSigtramp, runtime.mcall's badmcall (1.15);
 *   - jmp through memory without an index register (`jmp *0x10(%rip)`, a
 *     PLT-style call through a pointer).
 * A jmp through memory with an index register (`jmp *(%rcx,%rsi,8)`) is
 * a switch's jump table (Go 1.19+), whose targets are in the body.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "core/mem.h"
#include "x86/disasm.h"
#include "x86/exit_sites.h"
#include "x86/uprobe_insn.h"

#define INT3			0xcc

struct site_list {
	struct exit_site *v;
	size_t n, cap;
};

static int site_list__add(struct site_list *l, const cs_insn *ci,
			  enum exit_kind kind)
{
	int err;

	err = gt_ensure_mem((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1);
	if (err)
		return err;
	l->v[l->n].addr = ci->address;
	l->v[l->n].kind = kind;
	l->v[l->n].emulated = uprobe_insn__emulated(ci->bytes, ci->size);
	l->n++;
	return 0;
}

/* Where the int3 padding up to the next function starts: after the last
 * byte of CODE that is not int3. */
static const uint8_t *padding_start(const uint8_t *code, size_t len)
{
	while (len && code[len - 1] == INT3)
		len--;
	return code + len;
}

/* Does the jmp JI leave a body of LEN bytes at ENTRY (see the top)? Its
 * operand is decoded here, with the detail handle DCS: the sweep itself
 * decodes without operands, which is faster. */
static bool jmp_leaves(csh dcs, const cs_insn *ji, uint64_t entry, size_t len)
{
	const cs_x86_op *op;
	const cs_x86 *x86;
	cs_insn *ci = NULL;
	bool leaves = true;

	if (cs_disasm(dcs, ji->bytes, ji->size, ji->address, 1, &ci) != 1)
		return true;
	x86 = &ci->detail->x86;
	op = &x86->operands[0];
	if (x86->op_count == 1 && op->type == X86_OP_IMM)
		leaves = (uint64_t)op->imm - entry >= len;
	else if (x86->op_count == 1 && op->type == X86_OP_MEM)
		leaves = op->mem.index == X86_REG_INVALID;
	cs_free(ci, 1);
	return leaves;
}

/* EXACT: LEN is the function's size, not a guess that may cut the last
 * instruction short. */
static int sweep(csh cs, csh dcs, const struct go_func *fn,
		 const uint8_t *code, size_t len, bool exact,
		 struct site_list *out)
{
	const uint8_t *p = code, *pad = padding_start(code, len);
	uint64_t entry = fn->addr;
	uint64_t addr = entry;
	size_t left = len;
	cs_insn *ci;
	int err = 0;

	ci = cs_malloc(cs);
	if (!ci)
		return gt_error(-ENOMEM, "out of memory");
	while (!err && left) {
		if (p >= pad)
			break;
		if (!cs_disasm_iter(cs, &p, &left, &addr, ci)) {
			if (!exact && left < 16)	/* cut short */
				break;
			err = gt_error(-EINVAL,
				       "%s: cannot decode the instruction at 0x%llx",
				       fn->name, (unsigned long long)addr);
			break;
		}
		if (ci->id == X86_INS_RET)
			err = site_list__add(out, ci, EXIT_RET);
		else if (ci->id == X86_INS_JMP &&
			 jmp_leaves(dcs, ci, entry, len))
			err = site_list__add(out, ci, EXIT_TAIL_JMP);
	}
	cs_free(ci, 1);
	return err;
}

/* With no known size: as much as the segment holds from ADDR, below *LEN
 * (found by bisection). */
static int read_to_segment_end(const struct elf_file *ef, uint64_t addr,
			       size_t *len, const uint8_t **code)
{
	size_t lo = 0, hi = *len, mid;	/* lo readable, hi not */

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (elf_file__read_vaddr(ef, addr, mid, code))
			hi = mid;
		else
			lo = mid;
	}
	gt_error_clear();
	*len = lo;
	return lo ? elf_file__read_vaddr(ef, addr, lo, code) : -ERANGE;
}

int exit_sites__find(const struct go_binary *bin, const struct go_func *fn,
		     struct exit_site **sites, size_t *n)
{
	struct site_list l = { 0 };
	const uint8_t *code;
	size_t len;
	csh cs, dcs;
	int err;

	*sites = NULL;
	*n = 0;
	if (bin->elf->machine == EM_AARCH64)
		return gt_error(-ENOTSUP,
				"%s: exits of arm64 code are not supported yet",
				fn->name);
	if (bin->elf->machine != EM_X86_64)
		return gt_error(-ENOTSUP, "%s: unsupported machine %u",
				fn->name, bin->elf->machine);
	len = go_binary__func_span(bin, fn);
	if (len > UINT64_MAX - fn->addr)
		return gt_error(-EINVAL, "%s: code at 0x%llx wraps around",
				fn->name, (unsigned long long)fn->addr);
	err = elf_file__read_vaddr(bin->elf, fn->addr, len, &code);
	if (err && !fn->size)
		err = read_to_segment_end(bin->elf, fn->addr, &len, &code);
	if (err)
		return gt_error(err, "cannot read the code of %s at 0x%llx",
				fn->name, (unsigned long long)fn->addr);
	err = x86_disasm__handle(false, &cs);
	if (!err)
		err = x86_disasm__handle(true, &dcs);
	if (!err)
		err = sweep(cs, dcs, fn, code, len, fn->size != 0, &l);
	if (err) {
		free(l.v);
		return err;
	}
	/* The sweep found them in address order. */
	*sites = l.v;
	*n = l.n;
	return 0;
}

const char *exit_kind__str(enum exit_kind kind)
{
	return kind == EXIT_RET ? "ret" : "tail jmp";
}
