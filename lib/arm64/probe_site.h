/* SPDX-License-Identifier: MIT */
/*
 * The counting site of a function of arm64 code (site/probe_site.h says
 * what a site is): the twin of x86/probe_site.h. Go's arm64 stack check
 * is
 *
 *	MOVD 16(R28), R16	ldr x16, [x28, #16]	g.stackguard0
 *	CMP R16, RSP		cmp sp, x16
 *	BLS tail		b.ls tail
 *
 * or, for a frame over the small-frame slack, `SUB $n, RSP, R17; CMP R16,
 * R17; BLS tail`; for a frame too large for an immediate, `MOVD $n, R27;
 * [MOVK ...;] SUBS R27, RSP, R17; BCC tail; CMP R16, R17; BLS tail` (the
 * BCC catches SP - n underflowing); 24(R28), g.stackguard1, in the
 * runtime's functions that run on the system stack. The tail is `MOVD
 * R30, R3; CALL runtime.morestack_noctxt.abi0 (or morestack.abi0); JMP
 * entry`, argument registers spilled before the call and reloaded after.
 *
 * The kernel simulates b.cond (arm64/uprobe_insn.h): a probe on the BLS
 * costs no single step, and sees the entry state: the prologue writes
 * only R16, R17, R27 and NZCV, none of which carries an argument (Go's
 * arm64 register ABI passes integers in R0-R15, floats in F0-F15; g is in
 * R28, the return address in R30). b.ls is taken on C clear or Z set, so
 * the site's skip_flags are PSTATE's C|Z and its skip_clear C; b.lo (BCC)
 * on C clear alone, when it is the last branch to the tail.
 */
#ifndef GOTOOLS_ARM64_PROBE_SITE_H
#define GOTOOLS_ARM64_PROBE_SITE_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "site/probe_site.h"

/* PSTATE's condition flags, as pt_regs->pstate holds them. */
#define ARM64_PSTATE_N		(1U << 31)
#define ARM64_PSTATE_Z		(1U << 30)
#define ARM64_PSTATE_C		(1U << 29)
#define ARM64_PSTATE_V		(1U << 28)

/* The counting site of the function whose LEN bytes of arm64 code start
 * (at its entry) at virtual address ADDR; NAME_AT recognises
 * runtime.morestack, RESTART_AT (or NULL) tells the restartable sequences.
 * Returns 0, or a negative errno (capstone without AArch64, out of
 * memory). */
int probe_site__choose_arm64(const uint8_t *code, size_t len, uint64_t addr,
			     probe_site_name_fn name_at,
			     probe_site_restart_fn restart_at, void *ctx,
			     struct probe_site *site);

/* The counting site of FN, a function of an arm64 binary. Returns 0, or a
 * negative errno when the code cannot be read or decoded. */
int probe_site__for_entry_arm64(const struct go_binary *bin,
				const struct go_func *fn,
				struct probe_site *site);

#endif
