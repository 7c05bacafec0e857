/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the BPF programs read of arm64's registers at a uprobe, and of its
 * threads: the twin of bpf/x86/regs.bpf.h (which says what each is for),
 * the one place that names pt_regs' and thread_struct's fields on arm64.
 */
#ifndef GOTOOLS_REGS_BPF_H
#define GOTOOLS_REGS_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#define REG_SP		sp
#define REG_PC		pc
/* R29, which Go's frame pointer chain links through as x86-64's RBP:
 * the caller's FP at [FP], the return address at [FP + 8] */
#define REG_FP		regs[29]
/* Go keeps g in R28 in every ABI of arm64 */
#define REG_G		regs[28]

/* TPIDR_EL0, as the kernel saves it for the thread */
#define TASK_TLS_BASE	thread.uw.tp_value

/* R0 to R15 by DWARF number, 0 to 15: where Go's register ABI puts
 * integer arguments and results; then SP (DWARF 31, which lib/ reads
 * stack arguments off). Field by field: the verifier refuses a context
 * access at a computed offset. */
#define REGS_BY_DWARF_N	17
#define REGS_BY_DWARF(ctx) {						\
	(ctx)->regs[0], (ctx)->regs[1], (ctx)->regs[2], (ctx)->regs[3],	\
	(ctx)->regs[4], (ctx)->regs[5], (ctx)->regs[6], (ctx)->regs[7],	\
	(ctx)->regs[8], (ctx)->regs[9], (ctx)->regs[10], (ctx)->regs[11], \
	(ctx)->regs[12], (ctx)->regs[13], (ctx)->regs[14], (ctx)->regs[15], \
	(ctx)->sp,							\
}
/* Integer register REG by DWARF number, R0 to R15 or SP, from the
 * registers of REGS_BY_DWARF. */
#define REG_BY_DWARF(ctx, regs_by_dwarf, reg)				\
	((regs_by_dwarf)[(reg) == 31 ? 16 : (reg) & 15])
/* REG_G's value, beside the registers of REGS_BY_DWARF (R28 is not among
 * them). */
#define REG_G_VALUE(ctx, regs_by_dwarf)	((ctx)->regs[28])

/* The skip field holds NZCV bits (COOKIE_SKIP_NZCV): the branch is taken
 * when one of its low four differs from what the call needs, clear where
 * the high four have it set (b.ls: C clear or Z set). */
#define MORESTACK_TAKEN(ctx, skip)					\
	((((ctx)->pstate >> 28) ^ ((skip) >> 4)) & (skip) & 0xf)

static __always_inline __u64 reg_by_dwarf(struct pt_regs *ctx, __u8 reg)
{
	switch (reg) {
	case 0: return BPF_CORE_READ(ctx, regs[0]);
	case 1: return BPF_CORE_READ(ctx, regs[1]);
	case 2: return BPF_CORE_READ(ctx, regs[2]);
	case 3: return BPF_CORE_READ(ctx, regs[3]);
	case 4: return BPF_CORE_READ(ctx, regs[4]);
	case 5: return BPF_CORE_READ(ctx, regs[5]);
	case 6: return BPF_CORE_READ(ctx, regs[6]);
	case 7: return BPF_CORE_READ(ctx, regs[7]);
	case 8: return BPF_CORE_READ(ctx, regs[8]);
	case 9: return BPF_CORE_READ(ctx, regs[9]);
	case 10: return BPF_CORE_READ(ctx, regs[10]);
	case 11: return BPF_CORE_READ(ctx, regs[11]);
	case 12: return BPF_CORE_READ(ctx, regs[12]);
	case 13: return BPF_CORE_READ(ctx, regs[13]);
	case 14: return BPF_CORE_READ(ctx, regs[14]);
	case 15: return BPF_CORE_READ(ctx, regs[15]);
	}
	return 0;
}

/* At a function's entry or exit, before its frame is set up or after it
 * is torn down: the return address is in the link register, R30. */
static __always_inline bool return_address_unframed(struct pt_regs *ctx,
						    __u64 *ret)
{
	*ret = ctx->regs[30];
	return *ret;
}

#endif
