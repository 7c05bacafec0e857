// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Count calls of Go functions: one counter per probe, indexed by cookie. */
#include "gotools.bpf.h"

/* one counter per function, and one for its inlined copies */
COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_PERCPU_ARRAY, u64) counts SEC(".maps");

SEC("uprobe")
int count_call(struct pt_regs *ctx)
{
	u64 cookie = bpf_get_attach_cookie(ctx);
	u32 idx = COOKIE_INDEX(cookie);
	u64 *count;

	if (!call_hit(ctx, cookie, bpf_get_current_pid_tgid()))
		return 0;
	count = bpf_map_lookup_elem(&counts, &idx);
	if (count)
		percpu_add(*count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
