/* SPDX-License-Identifier: MIT */
/*
 * The slots of a log2 histogram: the rule BPF fills them by and
 * lib/cli/histogram.c prints them by.
 */
#ifndef GOTOOLS_HIST_H
#define GOTOOLS_HIST_H

/* BPF programs have these types from vmlinux.h, included first. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HIST_NSLOTS	64

/*
 * The slot of VALUE: 0 for 0 and 1, else floor(log2(VALUE)) + 1, bcc's
 * bpf_log2l() numbering (which puts 0 and 1 in slot 1: both print the
 * same); 2^63 and above go to the last slot, as bcc clamps to its last
 * slot. Shifts, not __builtin_clzll(), which BPF has no instruction for.
 */
static inline __attribute__((always_inline)) __u32 histogram__slot(__u64 value)
{
	__u32 r = 0, shift;

	if (value <= 1)
		return 0;
	shift = (value > 0xffffffffULL) << 5; value >>= shift; r |= shift;
	shift = (value > 0xffff) << 4; value >>= shift; r |= shift;
	shift = (value > 0xff) << 3; value >>= shift; r |= shift;
	shift = (value > 0xf) << 2; value >>= shift; r |= shift;
	shift = (value > 0x3) << 1; value >>= shift; r |= shift;
	r |= value >> 1;
	return r + 1 < HIST_NSLOTS ? r + 1 : HIST_NSLOTS - 1;
}

#endif
