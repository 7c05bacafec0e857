/* SPDX-License-Identifier: MIT */
/*
 * Where to put the uprobe that counts a call of a function.
 *
 * The entry byte of a Go function is usually `cmp` (the stack check), which
 * the kernel single-steps out of line (about 11 us a hit here), and which
 * runs again each time morestack restarts the function. The prologue's
 * conditional jump to the morestack tail is emulated (under 1 us) and
 * pt_regs->flags there tells whether the jump is taken: a call is counted
 * when it is not. Functions without a stack check get the first emulated
 * instruction of their entry block, or the entry byte.
 */
#ifndef GOTOOLS_PROBE_SITE_H
#define GOTOOLS_PROBE_SITE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/code_span.h"
#include "gobin/go_binary.h"

enum probe_site_kind {
	PROBE_SITE_ENTRY,	/* the first instruction */
	PROBE_SITE_STACK_CHECK,	/* the prologue's jump to morestack */
	PROBE_SITE_EMULATED,	/* an emulated instruction of the entry block */
	PROBE_SITE_INLINE,	/* the first instruction of an inlined call */
};

struct probe_site {
	uint64_t addr;		/* virtual address of the probed instruction */
	/* Count a hit only when (eflags & skip_flags) == 0; 0 counts all. */
	uint32_t skip_flags;
	enum probe_site_kind kind;
	/*
	 * SP and every register that can carry an argument hold what they
	 * held at entry: the entry byte; the stack check's jump (its
	 * prologue writes only flags and a scratch register: R12, or CX in
	 * Go <= 1.16, whose ABI0 passes nothing in registers); an emulated
	 * site that only flag-setting instructions precede.
	 */
	bool at_entry_state;
	/* The stack check compares against 0x10(%r14), g.stackguard0: this
	 * is register-ABI Go code, where R14 holds g at every instruction. */
	bool g_in_r14;
	/* The kernel emulates the probed instruction: a hit costs less than
	 * one whose instruction is single-stepped (x86/uprobe_insn.h). False
	 * where unknown (an inlined copy's first instruction). */
	bool emulated;
	/* Code the choice decoded and found no RET or JMP in: the prologue
	 * up to where its scan stopped, and the morestack tail the stack
	 * check jumps to (whose one JMP goes back to the entry); without a
	 * stack check, the body up to its first exit, when every branch was
	 * checked against the entry block (even if the entry byte is the
	 * site). A sweep for exits need not decode them again
	 * (exit_sites__find_known). */
	struct code_span no_exit[2];
	/* PROBE_SITE_STACK_CHECK: the morestack tail it jumps to, up to its
	 * jmp back (x86/arg_spills.h reads its spills) */
	struct code_span morestack_tail;
};

/* Choose the counting site of FN. Returns 0, or a negative errno when the
 * code cannot be read. */
int probe_site__for_entry(const struct go_binary *bin,
			  const struct go_func *fn, struct probe_site *site);

/* The entry byte at ENTRY: always right, single-stepped, and run again
 * each time morestack restarts the function. */
void probe_site__init_entry(struct probe_site *site, uint64_t entry);

const char *probe_site_kind__str(enum probe_site_kind kind);

/* The name of the function at ADDR, or NULL. */
typedef const char *(*probe_site_name_fn)(void *ctx, uint64_t addr);

/* The choice probe_site__for_entry makes, on LEN bytes of x86-64 code whose
 * first byte (the function's entry) is at virtual address ADDR; NAME_AT
 * recognises runtime.morestack. Returns 0, or a negative errno. */
int probe_site__choose_x86(const uint8_t *code, size_t len, uint64_t addr,
			   probe_site_name_fn name_at, void *ctx,
			   struct probe_site *site);

#endif
