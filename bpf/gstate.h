/* SPDX-License-Identifier: MIT */
/*
 * The goroutine-state tracker's shared layout (bpf/gstate.bpf.h in BPF,
 * lib/probe/gstate_tracker.h in user space): what state a goroutine is in,
 * where the runtime's transition functions keep their arguments, and the
 * time a goroutine has spent in each state so far.
 */
#ifndef GOTOOLS_GSTATE_H
#define GOTOOLS_GSTATE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Where a goroutine's time goes: the parts a call's time is split into.
 * GSTATE_PARKED + r is parked with the runtime's wait reason r
 * (runtime.waitReason, an index into its waitReasonStrings).
 */
enum gstate_part {
	GSTATE_ON_CPU,		/* running, its thread on a CPU */
	GSTATE_RUNNABLE,	/* ready, waiting for a P */
	GSTATE_OFF_CPU,		/* running, its thread off the CPU (the
				 * kernel preempted or blocked it) */
	GSTATE_SYSCALL,		/* in a system call (or cgo call) */
	GSTATE_PARKED,		/* parked: + the wait reason */
};

/* Wait reasons the tracker tells apart (Go 1.27 has 47; a binary with
 * more is refused); a larger index read from a g counts as the last. */
#define GSTATE_MAX_REASONS	64
#define GSTATE_NSLOTS		(GSTATE_PARKED + GSTATE_MAX_REASONS)

/* The time a goroutine spent in each part, in nanoseconds, since it has
 * been tracked. */
struct gstate_times {
	__u64 ns[GSTATE_NSLOTS];
};

/* Which runtime function a tracker probe is at: its attach cookie. */
enum gstate_site {
	GSTATE_SITE_CASGSTATUS,		/* casgstatus(gp, old, new) */
	GSTATE_SITE_PREEMPT_PARK,	/* preemptPark(gp): parked for the GC */
	GSTATE_SITE_SYSCALL_ENTER,	/* Go 1.27+ reentersyscall: the */
	GSTATE_SITE_SYSCALL_EXIT,	/* exitsyscall: running goroutine */
	GSTATE_SITES,
};

/* Where an argument is at a function's entry: a register (DWARF number)
 * or the stack (SP + offset). */
struct gstate_arg {
	__u8 in_reg;
	__u8 reg;
	__u16 sp_offset;
};

/* The runtime's goroutine statuses (runtime2.go) the tracker acts on. */
#define G_RUNNABLE	1
#define G_RUNNING	2
#define G_SYSCALL	3
#define G_WAITING	4

/* What the tracker's probes need to know of the binary, set by
 * gstate_tracker__configure(). */
struct gstate_config {
	struct gstate_arg gp;		/* of casgstatus and preemptPark */
	struct gstate_arg newval;	/* casgstatus's new status */
	__u32 waitreason_offset;	/* runtime.g.waitreason */
	__u32 dead_statuses;		/* bit s: status s means it is gone */
	__u32 preempted_reason;		/* waitReasonPreempted */
	__u32 pad;
};

/* A tracked goroutine: by its g and its process. */
struct gstate_key {
	__u64 g;
	__u32 tgid;
	__u32 pad;
};

struct gstate {
	__u64 goid;		/* g is reused by later goroutines */
	__u64 since;		/* when it entered its part */
	__u32 part;		/* enum gstate_part, parked + reason */
	__u32 tid;		/* the thread it runs on (ON_CPU, OFF_CPU) */
	__u32 users;		/* calls (or roots) in flight that track it */
	__u32 pad;
	struct gstate_times times;
};

#endif
