/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the BPF programs read of x86-64's registers at a uprobe, and of its
 * threads: the one place that names pt_regs' and thread_struct's fields
 * (gotools.bpf.h includes it from bpf/x86, by the Makefile's -Ibpf/$(ARCH)).
 */
#ifndef GOTOOLS_REGS_BPF_H
#define GOTOOLS_REGS_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/* pt_regs' fields: the stack pointer, the probed instruction's address
 * and the frame pointer (gc's frame pointer chain). */
#define REG_SP		sp
#define REG_PC		ip
#define REG_FP		bp
/* Register-ABI Go code keeps g in R14 (COOKIE_G_IN_REG). */
#define REG_G		r14

/* The thread's TLS base in its task_struct, where Go keeps g in every ABI
 * (at TLS_G_OFFSET from it) and gccgo its split stack's segment. */
#define TASK_TLS_BASE	thread.fsbase

/* The integer registers by DWARF number, 0 to 15 (what lib/ numbers
 * arguments by), as an initializer of a __u64[REGS_BY_DWARF_N]: field by
 * field, the verifier refusing a context access at a computed offset. */
#define REGS_BY_DWARF_N	16
#define REGS_BY_DWARF(ctx) {						\
	(ctx)->ax, (ctx)->dx, (ctx)->cx, (ctx)->bx, (ctx)->si, (ctx)->di, \
	(ctx)->bp, (ctx)->sp, (ctx)->r8, (ctx)->r9, (ctx)->r10, (ctx)->r11, \
	(ctx)->r12, (ctx)->r13, (ctx)->r14, (ctx)->r15,			\
}
/* Integer register REG by DWARF number, 0 to 15, from the registers of
 * REGS_BY_DWARF (RSP, 7, among them). */
#define REG_BY_DWARF(ctx, regs_by_dwarf, reg)	((regs_by_dwarf)[(reg) & 15])
/* REG_G's value, of the registers of REGS_BY_DWARF (R14 is among them). */
#define REG_G_VALUE(ctx, regs_by_dwarf)	((regs_by_dwarf)[14])

/* Is the prologue's conditional jump to morestack taken, its skip field
 * (COOKIE_SKIP_FLAGS) SKIP: the EFLAGS bits that take it? */
#define MORESTACK_TAKEN(ctx, skip)	((ctx)->flags & (skip))

/* An integer register that can carry an argument, by DWARF number (0
 * for another). */
static __always_inline __u64 reg_by_dwarf(struct pt_regs *ctx, __u8 reg)
{
	switch (reg) {
	case 0: return BPF_CORE_READ(ctx, ax);
	case 1: return BPF_CORE_READ(ctx, dx);
	case 2: return BPF_CORE_READ(ctx, cx);
	case 3: return BPF_CORE_READ(ctx, bx);
	case 4: return BPF_CORE_READ(ctx, si);
	case 5: return BPF_CORE_READ(ctx, di);
	case 8: return BPF_CORE_READ(ctx, r8);
	case 9: return BPF_CORE_READ(ctx, r9);
	case 10: return BPF_CORE_READ(ctx, r10);
	case 11: return BPF_CORE_READ(ctx, r11);
	}
	return 0;
}

/* At a function's entry or exit, before its frame is set up or after it
 * is torn down: into *RET, the return address, which CALL left on top of
 * the stack. False when it cannot be read, or is 0. */
static __always_inline bool return_address_unframed(struct pt_regs *ctx,
						    __u64 *ret)
{
	return !bpf_probe_read_user(ret, sizeof(*ret), (void *)ctx->sp) &&
	       *ret;
}

#endif
