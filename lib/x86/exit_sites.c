// SPDX-License-Identifier: MIT
/*
 * The exits of a function (exit_sites.h): a linear sweep of its x86-64
 * body with capstone. Go puts no data in function bodies on amd64
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
 *
 * Where to sweep: only where the pcsp table says SP is as at entry
 * (site/exit_site.c, which every machine shares).
 */
#include <errno.h>
#include <stdbool.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "x86/disasm.h"
#include "x86/exit_sites.h"
#include "x86/jmp_leaves.h"
#include "x86/uprobe_insn.h"

static int add_exit(struct exit_sweep *s, const cs_insn *ci,
		    enum exit_kind kind)
{
	return exit_sweep__add(s, ci->address, kind,
			       uprobe_insn__emulated(ci->bytes, ci->size));
}

/* Sweep [FROM, TO) of S's code, but for its known spans, with the
 * handle without operands S->decoder points to. */
static int sweep(struct exit_sweep *s, size_t from, size_t to)
{
	const uint8_t *p = s->code + from;
	uint64_t entry = s->fn->addr;
	uint64_t addr = entry + from;
	size_t left = to - from;
	csh cs = *(csh *)s->decoder;
	cs_insn *ci;
	int err = 0;

	ci = cs_malloc(cs);
	if (!ci)
		return gt_error(-ENOMEM, "out of memory");
	while (!err && left) {
		exit_sweep__skip_known(s, &p, &left, &addr);
		if (!left || (size_t)(p - s->code) >= s->end)
			break;
		if (!cs_disasm_iter(cs, &p, &left, &addr, ci)) {
			if (!s->exact && left < 16)	/* cut short */
				break;
			err = gt_error(-EINVAL,
				       "%s: cannot decode the instruction at 0x%llx",
				       s->fn->name, (unsigned long long)addr);
			break;
		}
		if (ci->id == X86_INS_RET)
			err = add_exit(s, ci, EXIT_RET);
		else if (ci->id == X86_INS_JMP &&
			 x86_jmp__leaves(ci, entry, s->len))
			err = add_exit(s, ci, EXIT_TAIL_JMP);
	}
	cs_free(ci, 1);
	return err;
}

static int find_exits(const struct go_binary *bin, const struct go_func *fn,
		      bool whole, const struct code_span *known, size_t nknown,
		      struct exit_site **sites, size_t *n)
{
	struct exit_sweep s = {
		.fn = fn, .exact = fn->size != 0,
		.known = known, .nknown = nknown,
	};
	csh cs;
	int err;

	*sites = NULL;
	*n = 0;
	err = x86_disasm__func_code(bin, fn, &s.code, &s.len);
	if (!err)
		err = x86_disasm__handle(false, &cs);
	if (err)
		return err;
	s.end = (size_t)(x86_disasm__padding(s.code, s.len) - s.code);
	s.decoder = &cs;
	return exit_sweep__run(bin, &s, whole, sweep, sites, n);
}

int exit_sites__find(const struct go_binary *bin, const struct go_func *fn,
		     struct exit_site **sites, size_t *n)
{
	return find_exits(bin, fn, false, NULL, 0, sites, n);
}

int exit_sites__find_known(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site,
			   struct exit_site **sites, size_t *n)
{
	return find_exits(bin, fn, false, site->no_exit,
			  sizeof(site->no_exit) / sizeof(site->no_exit[0]),
			  sites, n);
}

int exit_sites__find_whole(const struct go_binary *bin,
			   const struct go_func *fn, struct exit_site **sites,
			   size_t *n)
{
	return find_exits(bin, fn, true, NULL, 0, sites, n);
}
