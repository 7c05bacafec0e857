/* SPDX-License-Identifier: MIT */
/* Shared between gofuncgraph.bpf.c and gofuncgraph.c. */
#ifndef GOFUNCGRAPH_H
#define GOFUNCGRAPH_H

#include "gstate.h"
#include "stack.h"

enum graph_event_kind {
	GRAPH_ENTRY,
	GRAPH_EXIT,
	GRAPH_WAIT,	/* the goroutine was not running, until ts */
	GRAPH_STACK,	/* -U: a struct graph_stack, the user stack at a
			 * root's entry */
};

#define GRAPH_ROOT	1	/* the entry or the exit of the root call */
#define GRAPH_CUT	2	/* (root exit) events were dropped: over the
				 * root's budget, or the ring buffer full */
#define GRAPH_INLINED	4	/* (entry) of an inlined copy (COOKIE_INLINED) */

/* One call, return or wait on a goroutine inside a root call. A call's
 * entry or exit (GRAPH_ENTRY, GRAPH_EXIT) names its function and frame; a
 * wait (GRAPH_WAIT), in the same places, its duration and state. */
struct graph_event {
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 goid;		/* gccgo: the first stack segment */
	union {
		__u64 frame;	/* a call: stack.hi - SP, the frame's depth
				 * (gccgo: split_stack_frame()'s) */
		__u64 wait_ns;	/* a wait: how long it was; ts is its end */
	};
	union {
		__u32 func;	/* a call: the cookie's index, a row of the
				 * tool */
		__u32 slot;	/* a wait: the state, enum gstate_part
				 * (parked + the wait reason) */
	};
	__u32 pid;
	__u32 tid;
	__u8 kind;
	__u8 flags;
	__u16 copy;		/* a call of an inlined copy: its number
				 * (COOKIE_COPY), else 0 */
};

/* -U: the stack at a root's entry, sent right after the root's entry. */
struct graph_stack {
	struct graph_event head;	/* kind GRAPH_STACK */
	__u64 start_code;		/* mm->start_code: where a PIE is */
	__u32 nframes;
	__u32 pad;
	__u64 frames[STACK_MAX_FRAMES];	/* the PC, then return addresses */
};

/* A goroutine inside a root call: where the root's frame is, how many
 * events it sent. */
struct graph_key {
	__u64 goid;		/* as in struct graph_event */
	__u32 tgid;
	__u32 pad;
};

struct graph_state {
	__u64 root_frame;
	__u32 root_func;
	__u32 nevents;
	__u32 cut;
	__u32 root_copy;	/* the root's copy (COOKIE_COPY), or 0 */
};

#endif
