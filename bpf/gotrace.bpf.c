// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gotrace: one event per probe hit. User space turned each probe into a
 * plan (which register or stack slot holds each word of each value, which
 * pointers to follow, which words are a string's pointer and length, what
 * the filter compares); this program follows it, reading user memory only
 * with bpf_probe_read_user(), tests the filter, and sends the raw words,
 * string bytes and (-U) return addresses through a ring buffer. A full ring
 * buffer is counted in `lost`, never hidden.
 */
#include "gotools.bpf.h"
#include "gotrace.h"

const volatile bool user_stack = false;	/* -U */
const volatile bool frame_pointers = true;	/* gc keeps RBP chains */

COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_ARRAY, struct trace_plan) plans SEC(".maps");

/* The event is built here, then copied to the ring buffer if the filter
 * lets it through: a dropped event never takes ring buffer space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_event);
} scratch SEC(".maps");

#define RINGBUF_SIZE	(8 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_SIZE);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Bit i: words[i] has no value (faulted, behind nil, out of range). */
static __always_inline __u32 unread(const struct trace_event *e)
{
	return e->word_faults | e->word_nils | e->word_oob;
}

static __always_inline void read_words(struct trace_event *e,
				       const struct trace_plan *plan,
				       const __u64 *regs)
{
	__u32 i;

	for (i = 0; i < TRACE_MAX_WORDS; i++) {
		const struct trace_word *w = &plan->words[i];
		__u64 v = 0, addr;
		__u32 size = w->size, b = w->base, g = w->guard;

		e->words[i] = 0;
		if (i >= plan->nwords)
			continue;
		if (w->kind == WORD_REG) {
			e->words[i] = regs[w->reg & 15];
			continue;
		}
		if (b == TRACE_NO_BASE) {
			addr = regs[w->reg & 15];
		} else {
			b &= TRACE_MAX_WORDS - 1;
			/* a pointer that could not be read, nil, or past
			 * a length */
			if (unread(e) >> b & 1) {
				e->word_faults |= (e->word_faults >> b & 1) << i;
				e->word_nils |= (e->word_nils >> b & 1) << i;
				e->word_oob |= (e->word_oob >> b & 1) << i;
				continue;
			}
			addr = e->words[b];
			if (!addr) {
				e->word_nils |= 1U << i;
				continue;
			}
		}
		/* an element: only below the length */
		if (g) {
			g = (g - 1) & (TRACE_MAX_WORDS - 1);
			if (unread(e) >> g & 1 || e->words[g] <= w->index) {
				e->word_oob |= 1U << i;
				continue;
			}
		}
		if (size > 8)
			size = 8;
		if (bpf_probe_read_user(&v, size, (void *)(addr + w->offset)))
			e->word_faults |= 1U << i;
		e->words[i] = v;
	}
}

static __always_inline void read_strs(struct trace_event *e,
				      const struct trace_plan *plan)
{
	__u32 i;

	for (i = 0; i < TRACE_MAX_STRS; i++) {
		const struct trace_str *s = &plan->strs[i];
		__u32 pw = s->ptr_word & (TRACE_MAX_WORDS - 1);
		__u32 lw = s->len_word & (TRACE_MAX_WORDS - 1);
		__u64 len, ptr;

		e->str_len[i] = 0;
		if (i >= plan->nstrs)
			continue;
		if (unread(e) >> pw & 1 || unread(e) >> lw & 1) {
			e->str_faults |= 1U << i;
			continue;
		}
		ptr = e->words[pw];
		len = e->words[lw];
		if (len > s->max)
			len = s->max;
		if (len > TRACE_STR_MAX)
			len = TRACE_STR_MAX;
		if (!len)
			continue;
		if (bpf_probe_read_user(e->str[i], len, (void *)ptr))
			e->str_faults |= 1U << i;
		else
			e->str_len[i] = len;
	}
}

/* string_equal() reads both strings a word at a time */
_Static_assert(__builtin_offsetof(struct trace_event, str) % 8 == 0 &&
	       TRACE_STR_MAX % 8 == 0, "event strings are 8-byte aligned");
_Static_assert(__builtin_offsetof(struct trace_cmp, bytes) % 8 == 0 &&
	       TRACE_TERM_STR_MAX % 8 == 0, "filter strings are 8-byte aligned");

static __always_inline bool string_equal(const struct trace_event *e,
					 const struct trace_plan *plan,
					 const struct trace_cmp *t)
{
	__u32 s = t->str & (TRACE_MAX_STRS - 1), k;
	__u32 lw = plan->strs[s].len_word & (TRACE_MAX_WORDS - 1);
	__u64 len = t->value, left, mask;

	if (e->str_faults >> s & 1 || e->words[lw] != len)
		return false;
	/* 8 bytes at a time (little-endian: the first byte is the lowest),
	 * the last word masked to the length: the verifier walks 8 steps a
	 * term, not 64 */
	for (k = 0; k < TRACE_TERM_STR_MAX / 8; k++) {
		if (k * 8 >= len)
			break;
		left = len - k * 8;
		mask = left >= 8 ? ~0ULL : (1ULL << (left * 8)) - 1;
		if ((*(const __u64 *)&e->str[s][k * 8] ^
		     *(const __u64 *)&t->bytes[k * 8]) & mask)
			return false;
	}
	return true;
}

/* A comparison whose value cannot be read is false. */
static __always_inline bool term_true(const struct trace_event *e,
				      const struct trace_plan *plan,
				      const struct trace_cmp *t)
{
	__u32 w = t->word & (TRACE_MAX_WORDS - 1), bits = t->size * 8;
	__u64 v, c = t->value;
	bool lt, eq;

	if (t->flags & TERM_STRING) {
		eq = string_equal(e, plan, t);
		return t->op == TERM_NE ? !eq : eq;
	}
	if (unread(e) >> w & 1)
		return false;
	v = e->words[w] >> ((t->shift & 7) * 8);
	if (bits && bits < 64) {
		v &= (1ULL << bits) - 1;
		if (t->flags & TERM_SIGNED && v >> (bits - 1) & 1)
			v |= ~0ULL << bits;
	}
	eq = v == c;
	lt = t->flags & TERM_SIGNED ? (__s64)v < (__s64)c : v < c;
	switch (t->op) {
	case TERM_EQ: return eq;
	case TERM_NE: return !eq;
	case TERM_LT: return lt;
	case TERM_LE: return lt || eq;
	case TERM_GT: return !lt && !eq;
	default: return !lt;
	}
}

/* Terms joined by && and ||, && binding tighter; no terms: true. */
static __always_inline bool filter_passes(const struct trace_event *e,
					  const struct trace_plan *plan)
{
	bool clause = true, any = false;
	__u32 i;

	if (!plan->nterms)
		return true;
	for (i = 0; i < TRACE_MAX_TERMS; i++) {
		const struct trace_cmp *t = &plan->terms[i];

		if (i >= plan->nterms)
			break;
		clause = clause && term_true(e, plan, t);
		if (t->flags & TERM_OR || i + 1 == plan->nterms) {
			any = any || clause;
			clause = true;
		}
	}
	return any;
}

/* The PC, the return address at SP where the frame is not set up or
 * already torn down (an entry, an exit), then the frame pointer chain. */
static __always_inline void read_stack(struct trace_event *e,
				       struct pt_regs *ctx, __u64 cookie)
{
	__u64 fp = ctx->bp, ret = 0, frame[2];
	__u32 n = 1, i;

	e->frames[0] = ctx->ip;
	if (!(cookie & COOKIE_IN_FRAME) &&
	    !bpf_probe_read_user(&ret, sizeof(ret), (void *)ctx->sp) && ret)
		e->frames[n++] = ret;
	for (i = 0; i < TRACE_MAX_FRAMES - 2 && frame_pointers; i++) {
		if (!fp || bpf_probe_read_user(frame, sizeof(frame), (void *)fp) ||
		    !frame[1])
			break;
		e->frames[n & (TRACE_MAX_FRAMES - 1)] = frame[1];
		n++;
		/* callers' frames lie higher on the stack */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	e->nframes = n;
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
	__u32 idx = COOKIE_INDEX(cookie), zero = 0;
	__u64 size, flags;
	struct task_struct *task;
	struct trace_plan *plan;
	struct trace_event *e;
	bool restart;
	__u64 *n;

	if (other_process(id))
		return 0;
	restart = restarting(ctx, cookie);
	if (!overhead__hit(cookie, !restart) || restart)
		return 0;
	plan = bpf_map_lookup_elem(&plans, &idx);
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!plan || !e)
		return 0;
	e->plan = idx;
	e->tail = !!(cookie & COOKIE_TAIL);
	e->word_faults = 0;
	e->word_nils = 0;
	e->word_oob = 0;
	e->str_faults = 0;
	e->nframes = 0;
	/* at a tail JMP the results are not set: nothing to read or test */
	if (!e->tail) {
		read_words(e, plan, regs);
		read_strs(e, plan);
		if (!filter_passes(e, plan))
			return 0;
	} else if (plan->nterms) {
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	task = (struct task_struct *)bpf_get_current_task();
	e->goid = current_goid(task, regs[14], cookie, plan->tls_g_offset,
				plan->goid_offset);
	e->start_code = BPF_CORE_READ(task, mm, start_code);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (user_stack)
		read_stack(e, ctx, cookie);
	/* only the strings the plan reads; the reader is woken when a
	 * quarter of the ring buffer waits (it polls every 100 ms anyway):
	 * a wake-up per event would cost more than the probe itself */
	size = sizeof(*e) - sizeof(e->str) +
	       (__u64)(plan->nstrs & 7) * sizeof(e->str[0]);
	if (size > sizeof(*e))
		size = sizeof(*e);
	flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= RINGBUF_SIZE / 4 ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, e, size, flags)) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
