/* SPDX-License-Identifier: MIT */
/* Shared between gofunclatency.bpf.c and gofunclatency.c. */
#ifndef GOFUNCLATENCY_H
#define GOFUNCLATENCY_H

#include "hist.h"
#include "gstate.h"

/* One call in flight: the process, the function, and the frame. For gc
 * binaries the frame is {goid, stack.hi - SP at entry} (the depth, which
 * stack copying preserves); for gccgo it is {0, SP at entry}: its stacks
 * never move (see gofunclatency.bpf.c). An inlined copy's call is its
 * copy's too (COOKIE_COPY; 0 for a function's). */
struct call_key {
	__u64 goid;
	__u64 frame;
	__u32 func;
	__u32 tgid;
	__u32 copy;
	__u32 pad;	/* 0: keys are hashed whole */
};

/* When a call started, and (gccgo only, else 0) the return address at its
 * entry (on top of the stack, in LR on arm64). */
struct call_start {
	__u64 ts;
	__u64 ret;
};

/* One log2 histogram of latencies in the chosen unit, with the total (in
 * nanoseconds) and the number of calls. */
struct hist {
	__u64 slots[HIST_NSLOTS];
	__u64 total_ns;
	__u64 count;
};

/* --split-hists: a histogram per function and part (enum gstate_part,
 * all parked time at GSTATE_PARKED) of the calls that spent time there, at
 * index function * SPLIT_NPARTS + part. */
#define SPLIT_NPARTS	(GSTATE_PARKED + 1)

/* -S: a function's calls, and their time by part (enum gstate_part; all
 * parked time at GSTATE_PARKED), summed in nanoseconds. */
struct split {
	__u64 ns[SPLIT_NPARTS];
	__u64 total_ns;
	__u64 count;
};

/* -S: a function's parked time by wait reason. */
struct parked_key {
	__u32 func;
	__u32 reason;
};

#endif
