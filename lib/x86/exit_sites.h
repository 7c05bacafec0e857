/* SPDX-License-Identifier: MIT */
/*
 * Where a function is left: every RET of its body, and every JMP to an
 * address outside the function (a tail call: the caller's frame is gone,
 * the callee returns straight to our caller). Found by disassembling the
 * whole body with capstone. uretprobes are never used on Go code: they
 * replace the return address on the stack, and Go copies stacks.
 */
#ifndef GOTOOLS_EXIT_SITES_H
#define GOTOOLS_EXIT_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "site/probe_site.h"

enum exit_kind {
	EXIT_RET,
	EXIT_TAIL_JMP,
	EXIT_INLINE_END,	/* where an inlined copy's code is left
				 * (x86/inline_ends.h) */
};

struct exit_site {
	uint64_t addr;		/* virtual address of the instruction */
	enum exit_kind kind;
	bool emulated;		/* a direct jmp: see x86/uprobe_insn.h */
};

/*
 * Find the exits of FN, sorted by address, into a malloc()ed array.
 * A function with no exit at all (it never returns: runtime.goexit, a
 * `for {}` loop, a function that always panics) yields n = 0 and returns 0;
 * the caller reports it. Returns a negative errno when the code cannot be
 * read or does not decode.
 */
int exit_sites__find(const struct go_binary *bin, const struct go_func *fn,
		     struct exit_site **sites, size_t *n);

/* The same, not decoding again the code SITE, the counting site of FN
 * (x86/probe_site.h), was chosen from and found no exit in. */
int exit_sites__find_known(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site,
			   struct exit_site **sites, size_t *n);

/* The same, sweeping the whole body even where the pcsp table says no
 * exit can be (exit_sites.c): what the tests check exit_sites__find()
 * against. */
int exit_sites__find_whole(const struct go_binary *bin,
			   const struct go_func *fn, struct exit_site **sites,
			   size_t *n);

/* "ret", "tail jmp" or "end of inlined copy", for -v. */
const char *exit_kind__str(enum exit_kind kind);

#endif
