// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The floor of a uprobe's cost: a BPF program that does nothing. bench/
 * measures the tools against it at the same sites, and --max-overhead
 * times a hit with it (lib/probe/hit_cost.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int floor_probe(struct pt_regs *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
