/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What every BPF program of gotools does the same way: which process a hit
 * belongs to, which hits are not calls, where the running goroutine is.
 * Each .bpf.c includes this first and keeps only its own logic.
 */
#ifndef GOTOOLS_BPF_H
#define GOTOOLS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "cookie.h"
#include "overhead.h"
#include "regs.bpf.h"

/*
 * Add N to COUNTER, in this CPU's copy of a per-CPU value, atomically: a
 * uprobe's program runs with migration disabled, not preemption, so on a
 * kernel with full preemption another task's run of it on this CPU may come
 * between a plain increment's load and its store, and a count be lost.
 */
#define percpu_add(counter, n)	__sync_fetch_and_add(&(counter), (n))

/* -p, -c: the one process traced; 0 traces every process of the binary. */
const volatile pid_t target_tgid = 0;

/*
 * The type of an array map indexed by a cookie's index (COOKIE_INDEX): one
 * VALUE_TYPE per counter, function or plan. User space sets max_entries to
 * their number before loading; 1 stands in until then (BPF refuses 0).
 */
#define COOKIE_INDEXED_ARRAY(map_type, value_type)	\
	struct {					\
		__uint(type, map_type);			\
		__uint(max_entries, 1);			\
		__type(key, __u32);			\
		__type(value, value_type);		\
	}

/*
 * The type of an array of NKEYS values per CPU that user space maps into
 * its memory and reads without a system call (percpu_mmap,
 * lib/cli/percpu_map.h): CPU c's copy of key k at c * NKEYS + k. User space
 * sets max_entries to NKEYS times the possible CPUs before loading.
 */
#define PERCPU_MMAP_ARRAY(value_type)			\
	struct {					\
		__uint(type, BPF_MAP_TYPE_ARRAY);	\
		__uint(map_flags, BPF_F_MMAPABLE);	\
		__uint(max_entries, 1);			\
		__type(key, __u32);			\
		__type(value, value_type);		\
	}

/* CPU's copy of KEY in MAP, a PERCPU_MMAP_ARRAY of NKEYS per CPU; NULL
 * past its end. CPU: bpf_get_smp_processor_id(), the same from a
 * program's start to its end. */
static __always_inline void *percpu_mmap__lookup(void *map, __u32 cpu,
						 __u32 nkeys, __u32 key)
{
	__u32 k = cpu * nkeys + key;

	if (key >= nkeys)
		return NULL;
	return bpf_map_lookup_elem(map, &k);
}

/*
 * --max-overhead (lib/cli/overhead_limit.h): with watch_overhead set, every hit
 * is accounted by kind of site, per cookie index in probe_hits (of
 * probe_hits_indexes per CPU) and in all in probe_paid, as its link's
 * generation (COOKIE_GEN) says: the hits of a generation on trial are
 * accounted and not counted, those of a dead one (a link being closed) only
 * paid for, in probe_paid. Without it the verifier drops all of this:
 * nothing changes.
 */
const volatile bool watch_overhead = false;
const volatile __u32 probe_hits_indexes = 1;
__u8 probe_gen_state[COOKIE_GENS];	/* enum probe_gen_state, by user space */
PERCPU_MMAP_ARRAY(struct probe_hits) probe_hits SEC(".maps");
PERCPU_MMAP_ARRAY(struct probe_hits) probe_paid SEC(".maps");

static __always_inline void probe_hits__add(struct probe_hits *h, __u64 cookie,
					    bool call)
{
	percpu_add(h->calls, call);
	if (cookie & COOKIE_STEPPED)
		percpu_add(h->stepped, 1);
	else
		percpu_add(h->emulated, 1);
}

/* Account for this hit; false when it is not to be counted (its link is on
 * trial or being replaced). CALL: the hit is a call (an entry), not a
 * return. */
static __always_inline bool overhead__hit(__u64 cookie, bool call)
{
	struct probe_hits *h;
	__u32 idx = COOKIE_INDEX(cookie), gen = COOKIE_GEN(cookie), slot, cpu;
	__u8 state;

	if (!watch_overhead)
		return true;
	cpu = bpf_get_smp_processor_id();
	/* a dead link's trap costs as much: in the ledger until it is closed */
	h = percpu_mmap__lookup(&probe_paid, cpu, PROBE_PAID_SLOTS,
				PROBE_PAID_ALL);
	if (h)
		probe_hits__add(h, cookie, call);
	state = probe_gen_state[gen & (COOKIE_GENS - 1)];
	if (state != PROBE_GEN_DEAD) {
		h = percpu_mmap__lookup(&probe_hits, cpu, probe_hits_indexes,
					idx);
		if (h)
			probe_hits__add(h, cookie, call);
	}
	if (state == PROBE_GEN_LIVE)
		return true;
	slot = state == PROBE_GEN_DEAD ? PROBE_PAID_DEAD : PROBE_PAID_TRIAL;
	h = percpu_mmap__lookup(&probe_paid, cpu, PROBE_PAID_SLOTS, slot);
	if (h)
		probe_hits__add(h, cookie, call);
	return false;
}

/* Is the hit of another process than -p's or -c's? PID_TGID is the
 * caller's bpf_get_current_pid_tgid(), read once per hit. */
static __always_inline bool other_process(__u64 pid_tgid)
{
	return target_tgid && (pid_tgid >> 32) != target_tgid;
}

/*
 * Is this hit a call that is about to restart? At the prologue's
 * conditional jump to morestack (a probe on the stack check), the jump is
 * taken under the flags of the cookie (regs.bpf.h's MORESTACK_TAKEN: on
 * x86-64 when its EFLAGS bits are set): the stack is too small,
 * morestack grows it and runs the function again from its entry, which
 * hits this probe once more. Only that second hit is the call.
 */
static __always_inline bool restarting(struct pt_regs *ctx, __u64 cookie)
{
	/* an inlined copy's bits there are its number */
	return !(cookie & COOKIE_INLINED) &&
	       MORESTACK_TAKEN(ctx, COOKIE_SKIP_FLAGS(cookie));
}

/*
 * The running goroutine's g: REG_G where the cookie says g is there
 * (COOKIE_G_IN_REG), else the TLS slot at the thread's TLS base +
 * TLS_G_OFFSET, where Go keeps g in every ABI; 0 when it cannot be read.
 * The caller reads REG_G (G_REG) out of the context itself,
 * unconditionally: the verifier refuses a context access at a computed
 * offset, which clang may make of a conditional field read. TASK is the
 * current task when the caller has it already, else NULL.
 */
static __always_inline __u64 current_g(struct task_struct *task, __u64 g_reg,
				       __u64 cookie, __s64 tls_g_offset)
{
	__u64 tls, g = 0;

	if (cookie & COOKIE_G_IN_REG)
		return g_reg;
	if (!task)
		task = (struct task_struct *)bpf_get_current_task();
	tls = BPF_CORE_READ(task, TASK_TLS_BASE);
	if (!tls)
		return 0;
	if (bpf_probe_read_user(&g, sizeof(g), (void *)(tls + tls_g_offset)))
		return 0;
	return g;
}

/*
 * Does this hit of a probe that starts a call count? Not when it is of
 * another process, or the restart of a call morestack began again (it was
 * counted the first time), or of a link on trial or being replaced; a
 * restart is still accounted for --max-overhead. The check every program
 * of a call's entry makes first.
 */
static __always_inline bool call_hit(struct pt_regs *ctx, __u64 cookie,
				     __u64 pid_tgid)
{
	bool restart;

	if (other_process(pid_tgid))
		return false;
	restart = restarting(ctx, cookie);
	return overhead__hit(cookie, !restart) && !restart;
}

/*
 * The running goroutine's g and id, and the depth of the frame at this probe:
 * stack.hi - SP, which stack copying preserves, and which is the same at a
 * function's entry probe and at its RETs and tail JMPs (what gofunclatency
 * and gofuncgraph pair calls by: bpf/gofunclatency.bpf.c says why). False
 * when g cannot be read. CTX's registers are read first, unconditionally
 * (see current_g()).
 */
static __always_inline bool goroutine_frame(struct pt_regs *ctx, __u64 cookie,
					    __s64 tls_g_offset,
					    __u32 goid_offset,
					    __u32 stack_hi_offset, __u64 *g,
					    __u64 *goid, __u64 *frame)
{
	__u64 sp = BPF_CORE_READ(ctx, REG_SP), g_reg = BPF_CORE_READ(ctx, REG_G);
	__u64 hi = 0;

	*g = current_g(NULL, g_reg, cookie, tls_g_offset);
	if (!*g)
		return false;
	if (bpf_probe_read_user(goid, sizeof(*goid), (void *)(*g + goid_offset)) ||
	    bpf_probe_read_user(&hi, sizeof(hi), (void *)(*g + stack_hi_offset)))
		return false;
	*frame = hi - sp;
	return true;
}

/*
 * gccgo's goroutines run on split stacks (libgcc's generic-morestack.c): a
 * chain of segments, each a struct stack_segment (prev, next, size and four
 * more words) followed by SIZE bytes of stack, which grows down from their
 * end. The running goroutine's current segment is at the TLS base +
 * TLS_SEGMENT_OFFSET (lib/goabi/goroutine.h). Into *STACK, the goroutine's
 * first segment, which names it; into *FRAME, the depth of the frame at
 * this probe: the sizes of the segments before the current one, and the
 * current one's end - SP. Stacks never move: a function's entry and its
 * return see the same depth; when it ran on a new segment, that return is
 * the morestack trampoline's RET on the old one, and its body's RET into
 * __morestack, deeper, pairs with no entry. False when a segment cannot be
 * read, or the goroutine has more than SPLIT_STACK_MAX_SEGMENTS (past its
 * first segment of 4 MB, libgo's, each new one is a frame's size or a
 * few pages).
 */
#define STACK_SEGMENT_HEADER		56
#define SPLIT_STACK_MAX_SEGMENTS	256

static __always_inline bool split_stack_frame(struct pt_regs *ctx,
					      __s64 tls_segment_offset,
					      __u64 *stack, __u64 *frame)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 sp = BPF_CORE_READ(ctx, REG_SP), tls, seg = 0;
	struct { __u64 prev, next, size; } s;
	int i;

	tls = BPF_CORE_READ(task, TASK_TLS_BASE);
	if (!tls || bpf_probe_read_user(&seg, sizeof(seg),
					(void *)(tls + tls_segment_offset)))
		return false;
	*frame = 0 - sp;
	for (i = 0; i < SPLIT_STACK_MAX_SEGMENTS && seg; i++) {
		if (bpf_probe_read_user(&s, sizeof(s), (void *)seg))
			return false;
		*frame += s.size + (i ? 0 : seg + STACK_SEGMENT_HEADER);
		if (!s.prev) {
			*stack = seg;
			return true;
		}
		seg = s.prev;
	}
	return false;
}

/* The running goroutine's id, at GOID_OFFSET in g (where depends on the Go
 * version); 0 when it cannot be read, or when GOID_OFFSET is 0: gccgo has
 * no goroutine ids. The arguments are current_g()'s. */
static __always_inline __u64 current_goid(struct task_struct *task,
					  __u64 g_reg, __u64 cookie,
					  __s64 tls_g_offset, __u32 goid_offset)
{
	__u64 g, goid = 0;

	if (!goid_offset)
		return 0;
	g = current_g(task, g_reg, cookie, tls_g_offset);
	if (!g)
		return 0;
	bpf_probe_read_user(&goid, sizeof(goid), (void *)(g + goid_offset));
	return goid;
}

#endif
