// SPDX-License-Identifier: MIT
/*
 * The exits of a function of arm64 code (exit_sites.h): each word of the
 * runs site/exit_site.c sweeps, told from its fixed bits (arm64/disasm.h).
 *
 * What leaves the function:
 *   - ret (Go returns through R30 alone);
 *   - b to an address outside the body: the compiler's tail calls in
 *     wrappers, and the assembly functions' (`JMP runtime.morestack...`);
 *     a b inside the body is not an exit: loops, and the morestack tail's
 *     jump back to the entry;
 *   - br, but a switch's through its jump table (`MOVD (R1)(R3<<3), R27;
 *     JMP (R27)`, Go 1.19+), whose targets are in the body.
 * Words that are data in the body (literal pools) are swept like
 * instructions, as Go's objdump does.
 */
#include <stdbool.h>
#include "arm64/disasm.h"
#include "arm64/exit_sites.h"
#include "arm64/uprobe_insn.h"

/* Does the b or br WORD at ADDR leave S's function? */
static bool jump_leaves(const struct exit_sweep *s, uint32_t word,
			uint64_t addr)
{
	uint64_t entry = s->fn->addr, target = 0;
	bool direct = arm64_insn__target(word, addr, &target);

	return exit_jump__leaves(direct, target,
				 !direct && arm64_br__through_table(s->code,
								    s->len,
								    entry,
								    addr),
				 entry, s->len);
}

/* Sweep [FROM, TO) of S's code, but for its known spans. */
static int sweep(struct exit_sweep *s, size_t from, size_t to)
{
	const uint8_t *p = s->code + from;
	uint64_t addr = s->fn->addr + from;
	size_t left = to - from;
	uint32_t word;
	bool ret;
	int err = 0;

	while (!err && left >= 4) {
		exit_sweep__skip_known(s, &p, &left, &addr);
		if (left < 4 || (size_t)(p - s->code) >= s->end)
			break;
		word = arm64_insn__word(p);
		if (arm64_insn__flow(word, &ret) == SITE_FLOW_JMP &&
		    jump_leaves(s, word, addr))
			err = exit_sweep__add(s, addr, EXIT_TAIL_JMP,
					      arm64_uprobe_insn__simulated(word));
		else if (ret)
			err = exit_sweep__add(s, addr, EXIT_RET,
					      arm64_uprobe_insn__simulated(word));
		p += 4;
		left -= 4;
		addr += 4;
	}
	return err;
}

int arm64_exit_sites__find(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site, bool whole,
			   struct exit_site **sites, size_t *n)
{
	struct exit_sweep s = {
		.fn = fn, .exact = fn->size != 0,
		.known = site ? site->no_exit : NULL,
		.nknown = site ? sizeof(site->no_exit) /
				 sizeof(site->no_exit[0]) : 0,
	};
	int err;

	*sites = NULL;
	*n = 0;
	err = arm64_disasm__func_code(bin, fn, &s.code, &s.len);
	if (err)
		return err;
	s.end = arm64_disasm__padding(s.code, s.len);
	return exit_sweep__run(bin, &s, whole, sweep, sites, n);
}
