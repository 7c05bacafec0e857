/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A trimmed vmlinux.h for arm64: only the kernel types gotools' BPF
 * programs use, as Linux 6.18 declares them for arm64 (its pt_regs and
 * user_pt_regs, arch/arm64/include/asm/ptrace.h and uapi/asm/ptrace.h; its
 * thread_struct's TLS pointer, asm/processor.h). Fields are relocated by
 * CO-RE at load time, so the layouts here need not match other kernels.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include "vmlinux_base.h"

/* what a perf_event program and user space see (UAPI: not relocated) */
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			u64 regs[31];
			u64 sp;
			u64 pc;
			u64 pstate;
		};
	};
} __attribute__((preserve_access_index));

typedef struct user_pt_regs bpf_user_pt_regs_t;

struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

struct thread_struct {
	struct {
		long unsigned int tp_value;
		long unsigned int tp2_value;
	} uw;
} __attribute__((preserve_access_index));

#include "vmlinux_task.h"

#endif /* __VMLINUX_H__ */
