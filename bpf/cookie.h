/* SPDX-License-Identifier: MIT */
/*
 * The attach cookie of every probe, one layout for every tool: user space
 * (lib/, tools/) builds it, the BPF programs read it.
 *
 *   bits  0-31  the index: the counter (gofunccount), the function
 *               (gofunclatency), the plan (gotrace);
 *   bits 32-47  the flags under which the probed conditional jump to
 *               morestack is taken: the hit is ignored, the function will
 *               restart (lib/site/probe_site.h): EFLAGS bits on x86-64,
 *               COOKIE_SKIP_NZCV() on arm64; 0 counts every hit. An
 *               inlined copy's probes (COOKIE_INLINED), never on such a
 *               jump, hold there the copy's number instead (COOKIE_COPY:
 *               gofunclatency and gofuncgraph pair a copy's entry with its
 *               own ends);
 *   bit  48     COOKIE_G_IN_REG: the machine's g register holds g
 *               (regs.bpf.h's REG_G: R14 in x86-64's register-ABI Go
 *               code, R28 in all arm64 Go code); else g is read from TLS;
 *   bit  49     COOKIE_TAIL: an r: probe at a tail JMP, the results are not
 *               set yet;
 *   bit  50     COOKIE_STEPPED: the kernel single-steps the probed
 *               instruction (a hit costs more than an emulated one), for
 *               --max-overhead's accounting (bpf/overhead.h);
 *   bit  51     COOKIE_INLINED: the probe is an inlined copy's (its
 *               first instruction or an end), in its caller's code;
 *   bit  52     COOKIE_IN_FRAME: the probe sits in a function's body with
 *               its frame set up (an inlined copy): the return address is
 *               above the frame pointer, not on top of the stack;
 *   bits 53-63  the generation of the link that holds the probe
 *               (COOKIE_GEN): --max-overhead tries probes before it keeps
 *               them and replaces links to detach some, and the BPF
 *               programs look up what each generation's hits are for
 *               (bpf/overhead.h); 0 for a link attached once for good.
 *
 * Indexes are below 2^32: they index BPF maps, whose sizes are __u32.
 */
#ifndef GOTOOLS_COOKIE_H
#define GOTOOLS_COOKIE_H

/* BPF programs have these types from vmlinux.h, included first. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define COOKIE_SKIP_SHIFT	32
#define COOKIE_SKIP_MASK	0xffffULL	/* the field, shifted down */
#define COOKIE_G_IN_REG		(1ULL << 48)
#define COOKIE_TAIL		(1ULL << 49)
#define COOKIE_STEPPED		(1ULL << 50)
#define COOKIE_INLINED		(1ULL << 51)
#define COOKIE_IN_FRAME		(1ULL << 52)
#define COOKIE_GEN_SHIFT	53
#define COOKIE_GENS		2048ULL		/* generations, 11 bits */
/* The flag of a site whose instruction the kernel does or does not
 * emulate. */
#define COOKIE_COST_FLAG(emulated)	((emulated) ? 0 : COOKIE_STEPPED)

/* The EFLAGS bits a skip field holds: jb is taken on CF, jbe on CF or ZF. */
#define EFLAGS_CF		0x01
#define EFLAGS_ZF		0x40
/* arm64: the skip field of a branch taken when PSTATE's flags SKIP_FLAGS
 * (at their places, bits 31 to 28: N Z C V) differ from SKIP_CLEAR's: the
 * four flags in its low bits, those that take it when clear above them
 * (bpf/arm64/regs.bpf.h's MORESTACK_TAKEN tests it). */
#define PSTATE_NZCV_SHIFT	28
#define COOKIE_SKIP_NZCV(skip_flags, skip_clear)			\
	((((skip_flags) >> PSTATE_NZCV_SHIFT) & 0xf) |			\
	 ((((skip_clear) >> PSTATE_NZCV_SHIFT) & 0xf) << 4))

#define COOKIE_INDEX(c)		((__u32)(c))
#define COOKIE_GEN(c)		((__u32)((c) >> COOKIE_GEN_SHIFT) & \
				 (COOKIE_GENS - 1))
/* C with its generation set to GEN. */
#define COOKIE_WITH_GEN(c, gen) \
	(((c) & ~((COOKIE_GENS - 1) << COOKIE_GEN_SHIFT)) | \
	 ((__u64)(gen) << COOKIE_GEN_SHIFT))
#define COOKIE_SKIP_FLAGS(c)	((__u32)(((c) >> COOKIE_SKIP_SHIFT) & \
					 COOKIE_SKIP_MASK))
/* An inlined copy's number, in the same bits (0: not numbered). */
#define COOKIE_COPY(c)		((c) & COOKIE_INLINED ? \
				 COOKIE_SKIP_FLAGS(c) : 0)
/* FLAGS: COOKIE_G_IN_REG, COOKIE_TAIL, COOKIE_STEPPED, COOKIE_INLINED,
 * COOKIE_IN_FRAME, or 0. SKIP_FLAGS, probe_site__cookie_skip()'s, is not
 * masked: it holds EFLAGS_CF and EFLAGS_ZF at most, or COOKIE_SKIP_NZCV's
 * eight bits, which fit (asserted below). */
#define COOKIE_MAKE(idx, skip_flags, flags) \
	((__u64)(__u32)(idx) | \
	 ((__u64)(skip_flags) << COOKIE_SKIP_SHIFT) | (__u64)(flags))

_Static_assert(COOKIE_SKIP_SHIFT >= 32,
	       "the skip field is above the 32-bit index");
_Static_assert((COOKIE_SKIP_MASK << COOKIE_SKIP_SHIFT) < COOKIE_G_IN_REG,
	       "the skip field is below the flag bits");
_Static_assert(((EFLAGS_CF | EFLAGS_ZF) & ~COOKIE_SKIP_MASK) == 0,
	       "the EFLAGS bits used fit in the skip field");
_Static_assert((COOKIE_SKIP_NZCV(0xf0000000ULL, 0xf0000000ULL) &
		~COOKIE_SKIP_MASK) == 0,
	       "the NZCV bits and those taken clear fit in the skip field");
_Static_assert(((COOKIE_G_IN_REG | COOKIE_TAIL | COOKIE_STEPPED |
		 COOKIE_INLINED | COOKIE_IN_FRAME) &
		(0xffffffffULL | COOKIE_SKIP_MASK << COOKIE_SKIP_SHIFT)) == 0,
	       "the flag bits are apart from the index and the skip field");
_Static_assert(__builtin_popcountll(COOKIE_G_IN_REG | COOKIE_TAIL |
				    COOKIE_STEPPED | COOKIE_INLINED |
				    COOKIE_IN_FRAME) == 5,
	       "the flag bits are apart from each other");
_Static_assert(COOKIE_GEN_SHIFT > 52 && COOKIE_GEN_SHIFT + 11 == 64 &&
	       COOKIE_GENS == 1ULL << 11,
	       "the generation is above the flag bits, in the top 11 bits");

#endif
