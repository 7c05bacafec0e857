/* SPDX-License-Identifier: MIT */
/* Shared between gofunclatency.bpf.c and gofunclatency.c. */
#ifndef GOFUNCLATENCY_H
#define GOFUNCLATENCY_H

#include "hist.h"

/*
 * The attach cookie of each probe, entry or exit:
 *   bits  0-31  the function's index (its pairing key and, with -F, its
 *               histogram);
 *   bits 32-47  EFLAGS bits under which the probed jump to morestack is
 *               taken (entry probes on the stack check only; 0: always);
 *   bit  48     the function compares SP against 0x10(%r14): it is
 *               register-ABI Go code and R14 holds g; else g is read from
 *               TLS.
 */
#define COOKIE_INDEX(c)		((__u32)(c))
#define COOKIE_SKIP_FLAGS(c)	((__u32)(((c) >> 32) & 0xffff))
#define COOKIE_G_IN_R14		(1ULL << 48)
#define COOKIE_MAKE(idx, skip, r14) \
	((((__u64)(skip) & 0xffff) << 32) | (__u32)(idx) | \
	 ((r14) ? COOKIE_G_IN_R14 : 0))

/* One call in flight: the process, the function, and the frame. For gc
 * binaries the frame is {goid, stack.hi - SP at entry} (the depth, which
 * stack copying preserves); for gccgo it is {0, SP at entry}: its stacks
 * never move (see gofunclatency.bpf.c). */
struct call_key {
	__u64 goid;
	__u64 frame;
	__u32 func;
	__u32 tgid;
};

/* When a call started, and (gccgo only, else 0) the return address on top
 * of the stack at its entry. */
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

#endif
