/* SPDX-License-Identifier: MIT */
/*
 * Where an inlined copy ends: it has no RET of its own, its code (its PC
 * ranges, with the copies inlined inside it) is part of its caller's
 * body, and control leaves it into code of the caller. Its ends are where
 * control lands on each way out: the target of a branch from inside the
 * copy to outside it, and the instruction after the copy's last one when
 * that falls through (a CALL as the copy's last instruction returns there:
 * a recursive call inlined into itself ends with the call it makes). A
 * RET or tail JMP inside the copy ends it too, probed there.
 *
 * A probe at a landing fires for the copy only if nothing else lands
 * there: every way into a landing must come from inside the copy, or
 * from instructions of the caller that go one way (plain ones, JMPs) and
 * that only the copy leads to (gc often ends a copy's `return` with such
 * code, loading a result and jumping to a join the copy's other ways out
 * also reach: the way passes through it, the join is the end). A run of
 * the caller's plain instructions that gc's scheduler put between two of
 * the copy's, which only the copy falls into and which falls back into
 * it, is taken as the copy's code; only what is reached from the copy's
 * first instruction within its code is the copy's (gc attributes stray
 * instructions of the caller to a copy too, such as a loop latch's reload
 * of an argument the copy was passed). A copy entered anywhere but its first
 * instruction, or whose code jumps back to that instruction (a loop whose
 * header is the copy: its entry probe would fire each round), whose end
 * is also where code that skips it joins (`if c { f() }` before a
 * return), and every copy in a caller with a jump table whose targets are
 * not read (a switch's table, whose address the machine's decoder finds
 * in the code before the jump, is read: its entries up to the first
 * outside the body, so that a table of the same body right after it may
 * add edges, never take one away), is refused: -ENOENT with the reason.
 * Calls to functions that never return (goabi/go_noreturn.h) do not fall
 * through.
 *
 * These rules are the same on every machine; what each instruction is
 * comes from the machine's decoder (struct inline_decoder: x86/inline_ends.h,
 * arm64/inline_ends.h), which probe/machine_code.h gives a binary
 * (machine_code__inline_ends_init()). The caller's body is decoded once
 * for all its copies: keep one struct inline_ends for all the copies to
 * look up.
 */
#ifndef GOTOOLS_SITE_INLINE_ENDS_H
#define GOTOOLS_SITE_INLINE_ENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/code_span.h"
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "site/exit_site.h"
#include "site/site_code.h"

/* A function's code as a machine's decoder reads it for inline_ends. */
struct inline_body {
	const struct go_binary *bin;
	const struct go_func *fn;
	const uint8_t *code;	/* FN's code, LEN bytes */
	size_t len;
	size_t end;		/* where the padding up to the next function
				 * starts (an offset): no instruction past it */
};

/* What a machine's decoder tells inline_ends of its instructions. */
struct inline_decoder {
	/* B's code (B->bin and B->fn set) into B->code, len and end.
	 * Returns 0, or a negative errno with a reason. */
	int (*open)(struct inline_body *b);
	/* The bytes of the machine's longest instruction: a body of no
	 * known size may end with one cut short. */
	size_t insn_max;
	/*
	 * The instruction at ADDR of B into IN: addr, next, flow, ret,
	 * emulated; for a branch or call, direct and its target; for a
	 * jump not direct, through_table. False when its bytes are no
	 * instruction.
	 */
	bool (*insn)(const struct inline_body *b, uint64_t addr,
		     struct site_insn *in);
	/*
	 * The address of the table JMP (through_table) jumps through, into
	 * *TABLE: a switch's, 8-byte addresses of cases in the body.
	 * BEFORE are the NBEFORE instructions before JMP, nearest first,
	 * where the machine may find the table's address loaded. False
	 * when the code is not of a shape it reads.
	 */
	bool (*jump_table)(const struct inline_body *b,
			   const struct site_insn *jmp,
			   const struct code_span *before, size_t nbefore,
			   uint64_t *table);
	/*
	 * Is the instruction at ADDR of B (which ends by TO) what gc's
	 * register allocator or aligner leaves anywhere: a NOP, a load
	 * from a slot of the frame (a spill reloaded), or a general
	 * register copied to another (an argument moved into place, at a
	 * loop's latch too)? 1 when it is, 0 when not, -1 when it does not
	 * decode; its end into *NEXT.
	 */
	int (*filler)(const struct inline_body *b, uint64_t addr, uint64_t to,
		      uint64_t *next);
	/* Does the kernel accept a uprobe on the instruction at ADDR? */
	bool (*probeable)(const struct elf_file *ef, uint64_t addr);
};

struct flow_insn;
struct flow_edge;

struct inline_ends {
	const struct go_binary *bin;
	const struct inline_decoder *dec;	/* BIN's machine's */
	struct inline_body body;	/* of caller, once decoded */
	const struct go_func *caller;	/* the body decoded below, or NULL */
	struct flow_insn *insns;	/* by address */
	size_t ninsns, insns_cap;
	struct flow_edge *edges;	/* by source: each instruction's */
	size_t nedges, edges_cap;
	struct flow_edge *preds;	/* the same, by target */
	size_t preds_cap;
	uint32_t *marks;		/* by instruction: reached in the
					 * look-up of this epoch */
	size_t marks_cap;
	uint8_t *fillers;		/* by instruction, once decoded with
					 * its operands: 1 a filler, 2 not */
	size_t fillers_cap;
	uint32_t epoch;
	bool jump_table;		/* the body jumps through a table
					 * whose targets are not known */
	bool shared_ends;		/* set by the owner: an end where
					 * code that skips the copy joins
					 * is an end, not a refusal */
};

/* E for the copies of BIN, whose code DEC decodes (probe/machine_code.h:
 * machine_code__inline_ends_init() picks BIN's machine's). */
void inline_ends__init(struct inline_ends *e, const struct go_binary *bin,
		       const struct inline_decoder *dec);

/*
 * The ends of the inlined copy that starts at ENTRY and whose code is the
 * NCODE spans of CODE (sorted and merged: code_spans__merge()), in the
 * body of the function at CALLER, into a malloc()ed *ENDS of *N, by
 * address: EXIT_RET and EXIT_TAIL_JMP at a RET or tail JMP of the copy,
 * EXIT_INLINE_END at a landing. Returns 0 (*N = 0: the copy never ends,
 * it panics), -ENOENT with a reason when its ends cannot be told (see
 * above), or another negative errno with a reason (the caller's code
 * cannot be read or decoded, out of memory).
 */
int inline_ends__find(struct inline_ends *e, uint64_t caller, uint64_t entry,
		      const struct code_span *code, size_t ncode,
		      struct exit_site **ends, size_t *n);

/*
 * The first instruction of the inlined copy whose code is the NCODE spans
 * of CODE (sorted and merged) in the body of the function at CALLER, into
 * *ENTRY: its first span, unless that one holds nothing but NOPs and
 * loads from the frame and does not reach all of the copy's code; then
 * the start of the span from which most of it is reached, counting
 * neither NOPs nor loads from the frame (the lowest of those that reach
 * as much; the first span when no other does anything). gc puts stray
 * instructions of the caller in a copy's ranges (a loop latch's reload of
 * an argument the copy was passed, hoisted out of the loop, and the NOPs
 * that align the loop), and they may come first: a probe there fires on
 * every pass of the loop, a call or not. Returns 0, or a negative errno
 * with a reason (the caller's code cannot be read or decoded).
 */
int inline_ends__entry(struct inline_ends *e, uint64_t caller,
		       const struct code_span *code, size_t ncode,
		       uint64_t *entry);

void inline_ends__free(struct inline_ends *e);

#endif
