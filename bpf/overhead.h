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

struct probe_hits {
	__u64 calls;		/* entries counted (gotrace: events) */
	__u64 emulated;		/* hits of emulated sites */
	__u64 stepped;		/* hits of single-stepped sites */
};

#endif
