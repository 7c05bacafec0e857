/* SPDX-License-Identifier: MIT */
/*
 * What the BPF programs count for --max-overhead, shared with user space
 * (lib/cli/overhead_limit.h): per cookie index (a counter, a function, a row)
 * and CPU, the calls and the hits by kind of site. A hit costs the target a
 * trap whether or not the program counts it as a call.
 */
#ifndef GOTOOLS_OVERHEAD_H
#define GOTOOLS_OVERHEAD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * What the hits of a link generation (COOKIE_GEN, bpf/cookie.h) are for:
 * user space sets each generation's state before it attaches a link of it.
 */
enum probe_gen_state {
	PROBE_GEN_LIVE = 0,	/* counted and accounted: generation 0 too */
	PROBE_GEN_TRIAL = 1,	/* accounted only: the probes are on trial */
	PROBE_GEN_DEAD = 2,	/* only paid for: the link is being closed */
};

/* The slots of probe_paid: the hits of all probes (dead ones too: a trap
 * costs as much), those on trial and those dead; the live ones are the
 * rest (a live hit, the most common, adds to one slot only). */
enum probe_paid_slot {
	PROBE_PAID_ALL = 0,
	PROBE_PAID_TRIAL = 1,
	PROBE_PAID_DEAD = 2,
	PROBE_PAID_SLOTS = 3,
};

struct probe_hits {
	__u64 calls;		/* entries (gotrace: events), on trial too */
	__u64 emulated;		/* hits of emulated sites */
	__u64 stepped;		/* hits of single-stepped sites */
};

#endif
