/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The goroutine-state tracker: for each goroutine a tool tracks (one with
 * a traced call or root in flight), which state it is in and since when,
 * and the time it spent in each (bpf/gstate.h). Include after
 * gotools.bpf.h, with tls_g_offset declared; define gstate__closed(),
 * which is told of every interval that ends, before the includes' users.
 *
 * Its probes follow the runtime's own transitions of a goroutine's status
 * (lib/probe/gstate_tracker.h says which functions, per Go version):
 * casgstatus(gp, old, new) for running, runnable, in a system call,
 * waiting (with gp->waitreason, which the caller set before) and dead;
 * preemptPark(gp), which parks a goroutine for the GC's stack scan without
 * casgstatus; Go 1.27's syscall fast path, which sets _Gsyscall and back
 * without it. These run on the scheduler's g0, or on another goroutine
 * (the waker): the goroutine is the argument gp, not the running g.
 * Each probe's first step is a lookup of gp in the tracked goroutines: a
 * goroutine nobody tracks costs that lookup and nothing else.
 *
 * sched_switch adds what the runtime cannot see: the thread of a running
 * goroutine taken off the CPU by the kernel (GSTATE_OFF_CPU). The threads
 * running a tracked goroutine are in gstate_threads; a switch of any other
 * thread costs two lookups.
 */
#ifndef GOTOOLS_GSTATE_BPF_H
#define GOTOOLS_GSTATE_BPF_H

#include <bpf/bpf_tracing.h>
#include "gstate.h"

const volatile struct gstate_config gstate_config = { 0 };

/* Sized by user space; 1 when the tool does not track goroutines. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct gstate_key);
	__type(value, struct gstate);
} gstates SEC(".maps");

/* The thread a tracked goroutine runs on: tid -> goroutine. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct gstate_key);
} gstate_threads SEC(".maps");

/* Set by user space once the tracker's probes are detached (over
 * --max-overhead): no goroutine is tracked from then on. */
bool gstate_off = false;

/* The traced process's hits of each site (enum gstate_site), which
 * --max-overhead counts as what the target pays (a trap each). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GSTATE_SITES);
	__type(key, __u32);
	__type(value, __u64);
} gstate_site_hits SEC(".maps");

/* A zeroed state to start tracking a goroutine with: too large for the
 * BPF stack. Never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gstate);
} gstate_zero SEC(".maps");

/* Told of each interval that ends: GS->part since GS->since, until NOW.
 * Defined by the tool. */
static __always_inline void gstate__closed(const struct gstate_key *key,
					   const struct gstate *gs, __u64 now);

/* The argument at A at a function's entry, of SIZE bytes (8 or 4). */
static __always_inline __u64 gstate_arg(struct pt_regs *ctx,
					const volatile struct gstate_arg *a,
					__u32 size)
{
	__u64 v = 0;

	if (a->in_reg)
		v = reg_by_dwarf(ctx, a->reg);
	else
		bpf_probe_read_user(&v, size & 8 ? 8 : 4,
				    (void *)(BPF_CORE_READ(ctx, REG_SP) +
					     a->sp_offset));
	return size == 4 ? (__u32)v : v;
}

/* Is a goroutine in PART on a thread (running, its thread on or off the
 * CPU)? */
static __always_inline bool gstate__on_thread(__u32 part)
{
	return part == GSTATE_ON_CPU || part == GSTATE_OFF_CPU;
}

/* Bring GS's times up to NOW: the interval of its part so far is added
 * (and stays open). */
static __always_inline void gstate__flush(struct gstate *gs, __u64 now)
{
	__u32 slot = gs->part;

	if (slot < GSTATE_NSLOTS && now > gs->since)
		gs->times.ns[slot] += now - gs->since;
	gs->since = now;
}

/* Move the goroutine of KEY into PART at NOW, closing the interval of the
 * part it was in; TID is the thread it runs on when PART is on one. (A
 * sched_switch may run between another probe's clock read and its move:
 * NOW can be before GS->since by that much, and adds nothing.) */
static __always_inline void gstate__move(const struct gstate_key *key,
					 struct gstate *gs, __u32 part,
					 __u32 tid, __u64 now)
{
	if (part == gs->part)
		return;
	gstate__closed(key, gs, now);	/* before the flush: it reads since */
	gstate__flush(gs, now);
	if (gstate__on_thread(gs->part) && !gstate__on_thread(part))
		bpf_map_delete_elem(&gstate_threads, &gs->tid);
	if (part == GSTATE_ON_CPU && gs->part != GSTATE_OFF_CPU) {
		gs->tid = tid;
		bpf_map_update_elem(&gstate_threads, &tid, key, BPF_ANY);
	}
	gs->part = part;
}

/*
 * A tool's probe at a call's entry, on the running goroutine G (id GOID)
 * of the process TGID, on thread TID: track it (a goroutine seen for the
 * first time, or a g reused by a new goroutine, starts on the CPU), one
 * user more, its times flushed to NOW. NULL when the map is full and
 * nothing could be evicted.
 */
static __always_inline struct gstate *gstate__enter(const struct gstate_key *key,
						    __u64 goid, __u32 tid,
						    __u64 now)
{
	struct gstate *gs, *zero;
	__u32 zero_key = 0;

	if (gstate_off)
		return NULL;
	gs = bpf_map_lookup_elem(&gstates, key);
	if (!gs || gs->goid != goid) {
		zero = bpf_map_lookup_elem(&gstate_zero, &zero_key);
		if (!zero || bpf_map_update_elem(&gstates, key, zero, BPF_ANY))
			return NULL;
		gs = bpf_map_lookup_elem(&gstates, key);
		if (!gs)
			return NULL;
		gs->goid = goid;
		gs->since = now;
		gs->part = GSTATE_ON_CPU;
		gs->tid = tid;
		bpf_map_update_elem(&gstate_threads, &tid, key, BPF_ANY);
	}
	gstate__flush(gs, now);
	gs->users++;
	return gs;
}

/* Stop tracking the goroutine of KEY. */
static __always_inline void gstate__forget(const struct gstate_key *key,
					   struct gstate *gs)
{
	if (gstate__on_thread(gs->part))
		bpf_map_delete_elem(&gstate_threads, &gs->tid);
	bpf_map_delete_elem(&gstates, key);
}

/* A call that tracked the goroutine of KEY ended: one user less; the last
 * one stops the tracking. */
static __always_inline void gstate__leave(const struct gstate_key *key,
					  struct gstate *gs)
{
	if (gs->users > 1)
		gs->users--;
	else
		gstate__forget(key, gs);
}

/* The parked slot of GP's wait reason (runtime.g.waitreason, a uint8);
 * 0: none set. */
static __always_inline __u32 gstate__reason_slot(__u64 gp)
{
	__u32 reason = 0;

	bpf_probe_read_user(&reason, 1,
			    (void *)(gp + gstate_config.waitreason_offset));
	if (reason >= GSTATE_MAX_REASONS)
		reason = GSTATE_MAX_REASONS - 1;
	return reason ? GSTATE_PARKED + reason : 0;
}

/* The part a runtime transition at SITE moves the goroutine GP to; -1 for
 * none (a status the tracker ignores), -2 for gone. */
static __always_inline int gstate__site_part(struct pt_regs *ctx, __u64 site,
					     __u64 gp)
{
	__u32 status;

	switch (site) {
	case GSTATE_SITE_CASGSTATUS:
		status = gstate_arg(ctx, &gstate_config.newval, 4);
		if (status < 32 && (gstate_config.dead_statuses >> status) & 1)
			return -2;
		switch (status) {
		case G_RUNNING: return GSTATE_ON_CPU;
		case G_RUNNABLE: return GSTATE_RUNNABLE;
		case G_SYSCALL: return GSTATE_SYSCALL;
		case G_WAITING: return gstate__reason_slot(gp) ?: GSTATE_PARKED;
		}
		return -1;
	case GSTATE_SITE_PREEMPT_PARK:
		return GSTATE_PARKED + (gstate_config.preempted_reason &
					(GSTATE_MAX_REASONS - 1));
	case GSTATE_SITE_SYSCALL_ENTER: return GSTATE_SYSCALL;
	case GSTATE_SITE_SYSCALL_EXIT: return GSTATE_ON_CPU;
	}
	return -1;
}

SEC("uprobe")
int gstate_site(struct pt_regs *ctx)
{
	__u64 site = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	struct gstate_key key = { .tgid = id >> 32 };
	__u32 slot = site;
	struct gstate *gs;
	__u64 *hits;
	int part;

	if (other_process(id))
		return 0;
	hits = bpf_map_lookup_elem(&gstate_site_hits, &slot);
	if (hits)
		percpu_add(*hits, 1);	/* this CPU's copy */
	if (site == GSTATE_SITE_SYSCALL_ENTER || site == GSTATE_SITE_SYSCALL_EXIT)
		key.g = current_g(NULL, 0, 0, tls_g_offset);	/* from TLS */
	else
		key.g = gstate_arg(ctx, &gstate_config.gp, 8);
	gs = bpf_map_lookup_elem(&gstates, &key);
	if (!gs)
		return 0;	/* not tracked: all it costs */
	/* Up to Go 1.20 the GC's assists and stack scans set the reason
	 * after parking: the one there when the wait ends is the one that
	 * was true (nothing clears it before the next park). */
	if (site == GSTATE_SITE_CASGSTATUS && gs->part >= GSTATE_PARKED) {
		__u32 slot = gstate__reason_slot(key.g);

		if (slot)
			gs->part = slot;
	}
	part = gstate__site_part(ctx, site, key.g);
	if (part == -2) {
		gstate__forget(&key, gs);	/* its calls never return */
		return 0;
	}
	if (part >= 0)
		gstate__move(&key, gs, part, (__u32)id, bpf_ktime_get_ns());
	return 0;
}

/* The thread TID leaves the CPU (OFF) or comes back on it: its goroutine,
 * if it runs a tracked one, moves between GSTATE_ON_CPU and
 * GSTATE_OFF_CPU. */
static __always_inline void gstate__thread_switch(__u32 tid, bool off,
						  __u64 now)
{
	struct gstate_key *key;
	struct gstate *gs;

	key = bpf_map_lookup_elem(&gstate_threads, &tid);
	if (!key)
		return;
	gs = bpf_map_lookup_elem(&gstates, key);
	if (!gs || gs->tid != tid || !gstate__on_thread(gs->part)) {
		bpf_map_delete_elem(&gstate_threads, &tid);
		return;
	}
	gstate__move(key, gs, off ? GSTATE_OFF_CPU : GSTATE_ON_CPU, tid, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(gstate_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u64 now = 0;

	if (!target_tgid || prev->tgid == target_tgid) {
		now = bpf_ktime_get_ns();
		gstate__thread_switch(prev->pid, true, now);
	}
	if (!target_tgid || next->tgid == target_tgid) {
		if (!now)
			now = bpf_ktime_get_ns();
		gstate__thread_switch(next->pid, false, now);
	}
	return 0;
}

#endif
