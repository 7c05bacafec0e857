/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A trimmed vmlinux.h for x86_64: only the kernel types gotools' BPF
 * programs use, taken from the BTF of Linux 6.18. Fields are relocated by
 * CO-RE at load time, so the layouts here need not match other kernels.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include "vmlinux_base.h"

struct pt_regs {
	long unsigned int r15;
	long unsigned int r14;
	long unsigned int r13;
	long unsigned int r12;
	long unsigned int bp;
	long unsigned int bx;
	long unsigned int r11;
	long unsigned int r10;
	long unsigned int r9;
	long unsigned int r8;
	long unsigned int ax;
	long unsigned int cx;
	long unsigned int dx;
	long unsigned int si;
	long unsigned int di;
	long unsigned int orig_ax;
	long unsigned int ip;
	long unsigned int cs;
	long unsigned int flags;
	long unsigned int sp;
	long unsigned int ss;
} __attribute__((preserve_access_index));

/* a perf_event program's context (UAPI: not relocated) */
typedef struct pt_regs bpf_user_pt_regs_t;

struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

struct thread_struct {
	long unsigned int fsbase;
} __attribute__((preserve_access_index));

#include "vmlinux_task.h"

#endif /* __VMLINUX_H__ */
