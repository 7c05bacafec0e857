// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The floor of a uprobe's cost: a BPF program that does nothing. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int floor_probe(struct pt_regs *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
