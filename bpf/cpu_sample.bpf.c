// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Where a process spends its CPU time in user space: a perf_event program
 * on a CPU clock counting its samples by user IP (lib/probe/cpu_samples.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cpu_sample.h"
#include "regs.bpf.h"

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CPU_SAMPLE_IPS);
	__type(key, __u64);
	__type(value, __u64);
} ip_samples SEC(".maps");

__u64 samples_lost;

SEC("perf_event")
int sample_ip(struct bpf_perf_event_data *ctx)
{
	__u64 ip = ctx->regs.REG_PC, one = 1, *n;

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	n = bpf_map_lookup_elem(&ip_samples, &ip);
	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(&ip_samples, &ip, &one, BPF_NOEXIST) &&
		 !(n = bpf_map_lookup_elem(&ip_samples, &ip)))
		__sync_fetch_and_add(&samples_lost, 1);
	else if (n)	/* another CPU added it first */
		__sync_fetch_and_add(n, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
