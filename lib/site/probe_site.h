/* SPDX-License-Identifier: MIT */
/*
 * Where to put the uprobe that counts a call of a function, whatever the
 * machine: what x86/probe_site.h and arm64/probe_site.h choose, and what
 * every tool reads of the choice.
 *
 * The entry instruction of a Go function is usually the stack check's
 * first, which the kernel single-steps out of line, and which runs again
 * each time morestack restarts the function. The prologue's conditional
 * branch to the morestack tail is emulated (x86) or simulated (arm64),
 * which costs a fraction of a step, and the flags register there tells
 * whether the branch is taken: a call is counted when it is not.
 * Functions without a stack check get the first emulated instruction of
 * their entry block, or the entry.
 */
#ifndef GOTOOLS_SITE_PROBE_SITE_H
#define GOTOOLS_SITE_PROBE_SITE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/code_span.h"

enum probe_site_kind {
	PROBE_SITE_ENTRY,	/* the first instruction */
	PROBE_SITE_STACK_CHECK,	/* the prologue's jump to morestack */
	PROBE_SITE_EMULATED,	/* an emulated instruction of the entry block */
	PROBE_SITE_INLINE,	/* the first instruction of an inlined call */
};

struct probe_site {
	uint64_t addr;		/* virtual address of the probed instruction */
	/*
	 * The bits of the flags register (EFLAGS on x86-64, PSTATE's NZCV on
	 * arm64, each at its place in the register pt_regs holds) under
	 * which the probed branch to morestack is taken, and the hit is not
	 * a call yet: the function restarts. Of those, skip_clear are the
	 * ones that take it when clear rather than set. A hit counts when
	 *
	 *	((flags ^ skip_clear) & skip_flags) == 0
	 *
	 * x86's jbe is taken on CF or ZF set (skip_flags CF|ZF, skip_clear
	 * 0); arm64's b.ls on C clear or Z set (skip_flags C|Z, skip_clear
	 * C), which a test of set bits alone cannot say. 0 counts every hit.
	 */
	uint32_t skip_flags;
	uint32_t skip_clear;
	enum probe_site_kind kind;
	/*
	 * SP, the return address (on the stack on x86-64, in LR on arm64)
	 * and every register that can carry an argument hold what they held
	 * at entry: the entry instruction; the stack check's branch (its
	 * prologue writes only flags and scratch registers: x86-64's R12, or
	 * CX in Go <= 1.16, whose ABI0 passes nothing in registers; arm64's
	 * R16, R17 and R27, which carry no argument); an emulated site that
	 * only flag-setting instructions precede.
	 */
	bool at_entry_state;
	/* The stack check loads g.stackguard through the register Go keeps
	 * g in (x86-64: 0x10(%r14), register-ABI code, where R14 holds g at
	 * every instruction; arm64: 16(R28) or 24(R28), g in R28 in every
	 * ABI). */
	bool g_in_reg;
	/* The kernel emulates the probed instruction: a hit costs less than
	 * one whose instruction is single-stepped (x86/uprobe_insn.h,
	 * arm64/uprobe_insn.h). False where unknown (an inlined copy's
	 * first instruction). */
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
	 * jump back (site/arg_spills.h: its spills) */
	struct code_span morestack_tail;
	/* Where a probe sees SP, the return address and the arguments as at
	 * entry once per call, for when the site does not (!at_entry_state):
	 * the entry, or the last instruction of the restartable sequence it
	 * begins (site_code.h), and whether the kernel emulates it. */
	uint64_t entry_addr;
	bool entry_emulated;
};

/* The entry instruction at ENTRY: always right, single-stepped, and run
 * again each time morestack restarts the function. */
void probe_site__init_entry(struct probe_site *site, uint64_t entry);

const char *probe_site_kind__str(enum probe_site_kind kind);

/* SITE's skip flags as an attach cookie holds them (bpf/cookie.h): x86's
 * EFLAGS bits as they are; arm64's NZCV bits, and those of them that take
 * the branch when clear, packed by COOKIE_SKIP_NZCV(). */
uint16_t probe_site__cookie_skip(const struct probe_site *site);

/* The name of the function at ADDR, or NULL. */
typedef const char *(*probe_site_name_fn)(void *ctx, uint64_t addr);

/* The probe_site_name_fn of a binary: CTX is its struct go_binary. */
const char *probe_site__func_name_at(void *ctx, uint64_t addr);

/* The restartable sequence ADDR is in, [*START, *END): true when it is in
 * one. */
typedef bool (*probe_site_restart_fn)(void *ctx, uint64_t addr,
				      uint64_t *start, uint64_t *end);

/* The probe_site_restart_fn of a binary (CTX is its struct go_binary),
 * from its pclntab's PCDATA_UnsafePoint (abi.UnsafePointRestart1 and 2):
 * the instructions one Go instruction became that use the assembler's
 * temporary register (arm64's R27: ADRP then LDR of a global), at whose
 * first async preemption resumes when it stopped the thread at another. */
bool probe_site__restart_run_at(void *ctx, uint64_t addr, uint64_t *start,
				uint64_t *end);

#endif
