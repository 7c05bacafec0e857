/* SPDX-License-Identifier: MIT */
/* Shared between gofunccount.bpf.c and gofunccount.c. */
#ifndef GOFUNCCOUNT_H
#define GOFUNCCOUNT_H

/*
 * The attach cookie of each probe: the low 32 bits index the counter, the
 * high 32 bits are the EFLAGS bits under which the probed conditional jump
 * to morestack is taken (the call will restart, so it is not counted yet);
 * 0 counts every hit. See lib/x86/probe_site.h.
 */
#define COOKIE_INDEX(c)		((__u32)(c))
#define COOKIE_SKIP_FLAGS(c)	((__u32)((c) >> 32))
#define COOKIE_MAKE(idx, skip)	((((__u64)(skip)) << 32) | (__u32)(idx))

#endif
