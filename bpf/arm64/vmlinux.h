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

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __s8 s8;
typedef __u8 u8;
typedef __s16 s16;
typedef __u16 u16;
typedef __s32 s32;
typedef __u32 u32;
typedef __s64 s64;
typedef __u64 u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
typedef int pid_t;

enum {
	false = 0,
	true = 1,
};

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_F_MMAPABLE = 1024,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};

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

struct mm_struct {
	long unsigned int start_code;
} __attribute__((preserve_access_index));

struct task_struct {
	struct mm_struct *mm;
	pid_t pid;
	pid_t tgid;
	struct thread_struct thread;
} __attribute__((preserve_access_index));

#endif /* __VMLINUX_H__ */
