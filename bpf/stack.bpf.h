/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * -U: the user stack at a probe, as gotrace and gofuncgraph read it.
 * Include after gotools.bpf.h.
 */
#ifndef GOTOOLS_STACK_BPF_H
#define GOTOOLS_STACK_BPF_H

#include "stack.h"

/*
 * Into FRAMES (STACK_MAX_FRAMES), the PC, the return address where the
 * frame is not set up or already torn down (an entry, an exit: COOKIE's
 * COOKIE_IN_FRAME not set: return_address_unframed()), then, with
 * FRAME_POINTERS (gc keeps frame pointer chains, gccgo does not), the
 * frame pointer chain. Returns how many.
 */
static __always_inline __u32 user_stack__read(struct pt_regs *ctx,
					      __u64 cookie, bool frame_pointers,
					      __u64 *frames)
{
	__u64 fp = ctx->REG_FP, ret = 0, frame[2];
	__u32 n = 1, i;

	frames[0] = ctx->REG_PC;
	if (!(cookie & COOKIE_IN_FRAME) && return_address_unframed(ctx, &ret))
		frames[n++] = ret;
	for (i = 0; i < STACK_MAX_FRAMES - 2 && frame_pointers; i++) {
		if (!fp || bpf_probe_read_user(frame, sizeof(frame), (void *)fp) ||
		    !frame[1])
			break;
		frames[n & (STACK_MAX_FRAMES - 1)] = frame[1];
		n++;
		/* callers' frames lie higher on the stack */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

#endif
