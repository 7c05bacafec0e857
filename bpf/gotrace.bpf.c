// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gotrace: one event per probe hit. User space turned each probe into a
 * plan (which register or stack slot holds each word of each value, which
 * words are a Go string's pointer and length); this program follows it,
 * reading user memory only with bpf_probe_read_user(), and sends the raw
 * words and string bytes through a ring buffer. A full ring buffer is
 * counted in `lost`, never hidden.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "gotrace.h"

const volatile pid_t target_tgid = 0;
const volatile bool have_goid = false;	/* gccgo: no goroutine ids */
const volatile __u32 goid_offset = 152;
const volatile __s64 tls_g_offset = -8;
const volatile __u32 str_max = 80;	/* -Z */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set to the number of plans */
	__type(key, __u32);
	__type(value, struct trace_plan);
} plans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The goroutine id, from g in the TLS slot (Go keeps it there in every
 * ABI); 0 when it cannot be read. */
static __always_inline __u64 current_goid(void)
{
	struct task_struct *task;
	__u64 fsbase, g = 0, goid = 0;

	if (!have_goid)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	fsbase = BPF_CORE_READ(task, thread.fsbase);
	if (!fsbase ||
	    bpf_probe_read_user(&g, sizeof(g), (void *)(fsbase + tls_g_offset)) ||
	    !g)
		return 0;
	bpf_probe_read_user(&goid, sizeof(goid), (void *)(g + goid_offset));
	return goid;
}

SEC("uprobe")
int trace_hit(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	/* By DWARF number; read field by field: the verifier refuses a
	 * context access at a computed offset. */
	__u64 regs[16] = {
		ctx->ax, ctx->dx, ctx->cx, ctx->bx, ctx->si, ctx->di,
		ctx->bp, ctx->sp, ctx->r8, ctx->r9, ctx->r10, ctx->r11,
		ctx->r12, ctx->r13, ctx->r14, ctx->r15,
	};
	__u32 idx = COOKIE_INDEX(cookie), zero = 0, i;
	struct trace_plan *plan;
	struct trace_event *e;
	__u64 *n;

	if (target_tgid && (id >> 32) != target_tgid)
		return 0;
	/* At the prologue's jump to morestack: the function will restart. */
	if (ctx->flags & COOKIE_SKIP_FLAGS(cookie))
		return 0;
	plan = bpf_map_lookup_elem(&plans, &idx);
	if (!plan)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->plan = idx;
	e->tail = !!(cookie & COOKIE_TAIL);
	e->goid = current_goid();
	e->word_faults = 0;
	e->str_faults = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	for (i = 0; i < TRACE_MAX_WORDS; i++) {
		struct trace_word *w = &plan->words[i];
		__u64 v = 0, base = regs[w->reg & 15];
		__u32 size = w->size;

		if (i >= plan->nwords || e->tail) {
			e->words[i] = 0;
			continue;
		}
		if (w->kind == WORD_REG) {
			v = base;
		} else {
			if (size > 8)
				size = 8;
			if (bpf_probe_read_user(&v, size, (void *)(base + w->offset)))
				e->word_faults |= 1U << i;
		}
		e->words[i] = v;
	}
	for (i = 0; i < TRACE_MAX_STRS; i++) {
		struct trace_str *s = &plan->strs[i];
		__u32 pw = s->ptr_word, lw = s->len_word;
		__u64 len, ptr;

		e->str_len[i] = 0;
		if (i >= plan->nstrs || e->tail || pw >= TRACE_MAX_WORDS ||
		    lw >= TRACE_MAX_WORDS)
			continue;
		ptr = e->words[pw];
		len = e->words[lw];
		if (len > str_max)
			len = str_max;
		if (len > TRACE_STR_MAX)
			len = TRACE_STR_MAX;
		if (!len)
			continue;
		if (bpf_probe_read_user(e->str[i], len, (void *)ptr))
			e->str_faults |= 1U << i;
		else
			e->str_len[i] = len;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
