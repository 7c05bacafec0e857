/* SPDX-License-Identifier: MIT */
/* Shared between gotrace.bpf.c and gotrace.c. */
#ifndef GOTRACE_H
#define GOTRACE_H

#define TRACE_MAX_WORDS	24	/* 12 values of up to two words */
#define TRACE_MAX_STRS	4	/* %s per probe */
#define TRACE_STR_MAX	512	/* bytes of one string, the bound of -Z */

/*
 * The attach cookie of each probe:
 *   bits  0-31  the plan's index in the plans map;
 *   bits 32-47  EFLAGS bits under which the probed jump to morestack is
 *               taken (the hit is ignored: the function restarts);
 *   bit  48     a tail JMP: the results are not set yet.
 */
#define COOKIE_INDEX(c)		((__u32)(c))
#define COOKIE_SKIP_FLAGS(c)	((__u32)(((c) >> 32) & 0xffff))
#define COOKIE_TAIL		(1ULL << 48)
#define COOKIE_MAKE(idx, skip, tail) \
	((((__u64)(skip) & 0xffff) << 32) | (__u32)(idx) | \
	 ((tail) ? COOKIE_TAIL : 0))

enum trace_word_kind {
	WORD_REG,	/* the whole register REG */
	WORD_MEM,	/* SIZE bytes at (register REG) + OFFSET; SP is reg 7 */
};

/* One word of a value. REG numbers registers as DWARF does (enum go_reg:
 * RAX 0, RDX 1, RCX 2, RBX 3, RSI 4, RDI 5, RBP 6, RSP 7, R8..R15). */
struct trace_word {
	__u8 kind;
	__u8 reg;
	__u8 size;	/* 1..8 */
	__u8 pad;
	__s32 offset;
};

/* A Go string: the words holding its pointer and its length. */
struct trace_str {
	__u8 ptr_word;
	__u8 len_word;
};

/* What one probe reads, keyed by the index in its cookie. */
struct trace_plan {
	__u32 nwords;
	__u32 nstrs;
	struct trace_word words[TRACE_MAX_WORDS];
	struct trace_str strs[TRACE_MAX_STRS];
};

struct trace_event {
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 goid;		/* 0 when unknown (gccgo) */
	__u32 pid;
	__u32 tid;
	__u32 plan;
	__u32 tail;		/* fired at a tail JMP */
	__u32 word_faults;	/* bit i: words[i] could not be read */
	__u32 str_faults;	/* bit i: strs[i] could not be read */
	char comm[16];
	__u64 words[TRACE_MAX_WORDS];
	__u32 str_len[TRACE_MAX_STRS];	/* bytes copied into str[i] */
	char str[TRACE_MAX_STRS][TRACE_STR_MAX];
};

#endif
