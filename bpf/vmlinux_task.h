/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What every architecture's trimmed vmlinux.h (bpf/x86, bpf/arm64) has
 * alike after its own types: the task and its memory map, whose
 * thread_struct each architecture declares before including this.
 */
#ifndef GOTOOLS_VMLINUX_TASK_H
#define GOTOOLS_VMLINUX_TASK_H

struct mm_struct {
	long unsigned int start_code;
} __attribute__((preserve_access_index));

struct task_struct {
	struct mm_struct *mm;
	pid_t pid;
	pid_t tgid;
	struct thread_struct thread;
} __attribute__((preserve_access_index));

#endif
