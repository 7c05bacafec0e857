/* SPDX-License-Identifier: MIT */
/*
 * Where a function is left, whatever the machine: every return of its
 * body, and every jump to an address outside the function (a tail call:
 * the caller's frame is gone, the callee returns straight to our
 * caller). uretprobes are never used on Go code: they replace the return
 * address, and Go copies stacks.
 *
 * The sweep for them (exit_sweep__run) is the same on every machine:
 * where to sweep (the runs of code where the pcsp table says SP is as at
 * entry, see exit_site.c), what the counting site's choice already
 * decoded (probe_site.h: no_exit), the list of what was found; the
 * machine's decoder sweeps each run (x86/exit_sites.c,
 * arm64/exit_sites.c).
 */
#ifndef GOTOOLS_SITE_EXIT_SITE_H
#define GOTOOLS_SITE_EXIT_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/code_span.h"
#include "gobin/go_binary.h"
#include "site/probe_site.h"

enum exit_kind {
	EXIT_RET,
	EXIT_TAIL_JMP,
	EXIT_INLINE_END,	/* where an inlined copy's code is left
				 * (site/inline_ends.h) */
};

struct exit_site {
	uint64_t addr;		/* virtual address of the instruction */
	enum exit_kind kind;
	bool emulated;		/* the kernel emulates it (uprobe_insn.h) */
};

/* "ret", "tail jmp" or "end of inlined copy", for -v. */
const char *exit_kind__str(enum exit_kind kind);

/*
 * Does a jump leave a body of LEN bytes at ENTRY? A direct one (DIRECT,
 * to TARGET) when its target is outside; an indirect one unless it goes
 * through a jump table (THROUGH_TABLE: a switch's, whose targets are in
 * the body). The one rule every machine's decoders share.
 */
static inline bool exit_jump__leaves(bool direct, uint64_t target,
				     bool through_table, uint64_t entry,
				     size_t len)
{
	if (direct)
		return target - entry >= len;
	return !through_table;
}

/* One sweep of a function's code for its exits. */
struct exit_sweep {
	const struct go_func *fn;
	const uint8_t *code;	/* the function's code, LEN bytes */
	size_t len;
	/* where the padding up to the next function starts: no exit past
	 * it (an offset from the entry) */
	size_t end;
	/* LEN is the function's size, not a guess that may cut the last
	 * instruction short */
	bool exact;
	/* code known to hold no exit (probe_site's no_exit spans) */
	const struct code_span *known;
	size_t nknown;
	void *decoder;		/* the machine's own */
	/* what was found, in address order */
	struct exit_site *v;
	size_t n, cap;
};

/* The machine's sweep of [FROM, TO) (offsets from the entry) of S's
 * code, which adds what it finds (exit_sweep__add) and steps over the
 * known spans (exit_sweep__skip_known). Returns 0 or a negative errno. */
typedef int (*exit_sweep_fn)(struct exit_sweep *s, size_t from, size_t to);

/*
 * Sweep S (its fn, code, len, end, exact, known and decoder set) with
 * SWEEP: only the runs where FN's pcsp table says SP is as at entry, or
 * the whole body with WHOLE or without a trusted table. The exits, in
 * address order, into *SITES (malloc()ed), *N of them. Returns 0 or a
 * negative errno (then *SITES is NULL).
 */
int exit_sweep__run(const struct go_binary *bin, struct exit_sweep *s,
		    bool whole, exit_sweep_fn sweep,
		    struct exit_site **sites, size_t *n);

int exit_sweep__add(struct exit_sweep *s, uint64_t addr, enum exit_kind kind,
		    bool emulated);

/* Step *P, *LEFT and *ADDR over the known span that begins at *ADDR, if
 * any. Only where a span begins: its decode and the sweep's agree on the
 * instruction boundaries from there on. */
void exit_sweep__skip_known(const struct exit_sweep *s, const uint8_t **p,
			    size_t *left, uint64_t *addr);

#endif
