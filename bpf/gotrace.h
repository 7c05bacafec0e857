/* SPDX-License-Identifier: MIT */
/* Shared between gotrace.bpf.c and gotrace.c. */
#ifndef GOTRACE_H
#define GOTRACE_H

#include "stack.h"

#define TRACE_MAX_WORDS		32	/* words read per event */
#define TRACE_MAX_STRS		4	/* strings ([]byte too) per probe */
#define TRACE_STR_MAX		512	/* bytes of one string, the bound of -Z */
#define TRACE_MAX_TERMS		8	/* comparisons in a filter */
#define TRACE_TERM_STR_MAX	64	/* bytes of a string a filter compares */
#define TRACE_NO_BASE		0xff
#define TRACE_MAX_VROOTS	8	/* references %v values start from */
#define TRACE_VALUE_MAX		4096	/* bytes of %v memory per event, the
					 * bound of --value-size */
#define TRACE_MAX_CHUNKS	64	/* memory reads of %v per event */

enum trace_word_kind {
	WORD_REG,	/* the whole register REG */
	WORD_MEM,	/* SIZE bytes at BASE + OFFSET */
};

/*
 * One word of a value, read in order. REG numbers registers as DWARF does
 * (enum go_reg: RAX 0, RDX 1, RCX 2, RBX 3, RSI 4, RDI 5, RBP 6, RSP 7,
 * R8..R15). A WORD_MEM's BASE is register REG when BASE is TRACE_NO_BASE
 * (SP for stack arguments), else the value of the earlier word BASE: a
 * pointer being followed (req.URL.Path). When that pointer is nil the word
 * is not read and its bit is set in the event's word_nils. A word with a
 * GUARD is part of an element of a slice or a string (xs[2], s[0]): it is
 * read only when the earlier word GUARD - 1 (the length) is above INDEX,
 * else its bit is set in word_oob; never memory past the end.
 */
struct trace_word {
	__u8 kind;
	__u8 reg;
	__u8 size;	/* 1..8 */
	__u8 base;
	__s32 offset;
	__u8 guard;	/* 1 + the length word, or 0: none */
	__u8 pad[3];
	__u32 index;
};

/* A Go string or []byte: the words holding its pointer and its length;
 * MAX bytes are read at most (-Z, or more for a filter that compares it). */
struct trace_str {
	__u8 ptr_word;
	__u8 len_word;
	__u16 max;
};

enum trace_term_op {
	TERM_EQ,
	TERM_NE,
	TERM_LT,
	TERM_LE,
	TERM_GT,
	TERM_GE,
};

#define TERM_SIGNED	1	/* compare as signed integers */
#define TERM_STRING	2	/* compare string STR with BYTES[0..VALUE) */
#define TERM_OR		4	/* || follows (else &&, which binds tighter) */

/* One comparison of a filter: the low SIZE bytes of word WORD, shifted
 * right by SHIFT bytes first, against VALUE; or a string against BYTES. */
struct trace_cmp {
	__u8 word;
	__u8 op;
	__u8 flags;
	__u8 size;
	__u8 shift;
	__u8 str;
	__u16 pad;
	__u64 value;
	char bytes[TRACE_TERM_STR_MAX];
};

/*
 * %v: what a value refers to, read by BPF into the event's chunks. A
 * reference is a pair of words, of the plan (a root) or of memory already
 * read (a slot of a value type): the pointer and length of a string or a
 * slice, an interface's type (or itab) and data, or a pointer. What a
 * chunk holds is of value type VTYPE (vtypes map), whose slots are the
 * references BPF follows in turn, breadth first, within the byte budget
 * and the depth the options set.
 */
enum trace_ref_kind {
	REF_NONE,
	REF_MEM,	/* a value of VTYPE at WORD0 + OFFSET (WORD1: its
			 * first word, read only when readable) */
	REF_PTR,	/* a pointer (WORD0) to a VTYPE, followed */
	REF_STRING,	/* a string's bytes: pointer WORD0, length WORD1 */
	REF_SLICE,	/* a slice's elements of VTYPE: WORD0, length WORD1 */
	REF_EFACE,	/* interface{}: type WORD0, data WORD1 */
	REF_IFACE,	/* an interface with methods: itab WORD0, data WORD1 */
	REF_MAP,	/* a map (WORD0): its header, of VTYPE */
	/* the storage of maps (lib/goabi/go_map.h), as slots only; what
	 * they lead to is as deep as the map */
	REF_CHAIN,	/* a pointer to a VTYPE (an overflow bucket, a table) */
	REF_BUCKETS,	/* an hmap at the slot: its 1 << B buckets of VTYPE,
			 * and the old ones while it grows */
	REF_SWISS_GROUP,	/* a Swiss map's dirPtr, dirLen: its one group
				 * of VTYPE when dirLen is 0 */
	REF_SWISS_DIR,	/* the same: else its directory of dirLen VTYPE */
	REF_GROUPS,	/* a table's groups of VTYPE: data, lengthMask */
};

#define REF_ROOT	1	/* a top-level value: an interface's dynamic
				 * pointer to a struct, array, slice or map is
				 * followed, as fmt prints &{...} */

/* A root reference: its words are the plan's. */
struct trace_vroot {
	__u8 kind;
	__u8 word0;
	__u8 word1;
	__u8 flags;
	__s32 offset;	/* REF_MEM */
	__u32 vtype;
};

/* A value type: SIZE bytes, and the references at slots [FIRST_SLOT,
 * FIRST_SLOT + NSLOTS) of the vslots map. Type 0 is a byte. */
struct trace_vtype {
	__u32 size;
	__u32 first_slot;
	__u32 nslots;
	__u32 pad;
};

/* A reference inside a value type: the words at OFFSET and OFFSET + 8. */
struct trace_vslot {
	__u32 offset;
	__u8 kind;
	__u8 pad[3];
	__u32 vtype;
};

#define DYN_DIRECT	1	/* the data word is the value (pointer-shaped) */
#define DYN_FOLLOW	2	/* DIRECT: a pointer followed anywhere (the
				 * errors whose message fmt prints) */
#define DYN_FOLLOW_ROOT	4	/* DIRECT: a pointer followed at the top */

/* A dynamic type, keyed by its descriptor's address minus the loaded
 * executable's start_code: VTYPE is its own, or for a followed pointer
 * that of what it points to. */
struct trace_vdyn {
	__u32 vtype;
	__u32 flags;
};

/* The header of a chunk of %v memory in an event: LEN bytes read at ADDR
 * follow it, padded to 8; FAULT: none could be read. */
struct trace_chunk {
	__u64 addr;
	__u32 len;
	__u32 fault;
};

/* Calls in flight whose entry keeps a register for their return (struct
 * trace_plan's entry_keep): the entry_regs map's room when any does. */
#define ENTRY_REGS_MAX	16384

/* What a probe reads: plans[row_plans[the index in its cookie]], one
 * plan for the functions that read alike. */
struct trace_plan {
	__u32 nwords;
	__u32 nstrs;
	__u32 nterms;
	__u32 nvroots;
	__u32 goid_offset;	/* of goid in g; 0: no goroutine ids (gccgo) */
	/*
	 * A register a call's return reads as it was at the call's entry
	 * (gccgo's AAPCS64: X8, the address of results in memory, which the
	 * callee need not keep): 1 + its DWARF number, else 0. ENTRY_KEEP:
	 * this probe is at the entry, keeps the register by process and SP
	 * (which gccgo never moves and the RET sees again) and sends
	 * nothing; ENTRY_REG: this probe, a RET, takes the value kept (once)
	 * for the register's.
	 */
	__u8 entry_keep;
	__u8 entry_reg;
	__u16 pad;
	__s64 tls_g_offset;	/* of g from the thread pointer */
	struct trace_word words[TRACE_MAX_WORDS];
	struct trace_str strs[TRACE_MAX_STRS];
	struct trace_cmp terms[TRACE_MAX_TERMS];
	struct trace_vroot vroots[TRACE_MAX_VROOTS];
};

/* An event is sent as far as it is used: its strings, else its frames (-U),
 * else the words its plan reads; with %v, its memory after all. */
struct trace_event {
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 goid;		/* 0 when unknown (gccgo) */
	__u64 start_code;	/* mm->start_code: where the executable's
				 * code was loaded (its PIE load bias) */
	__u32 pid;
	__u32 tid;
	__u32 row;		/* the index in the probe's cookie */
	__u32 tail;		/* fired at a tail JMP */
	__u32 word_faults;	/* bit i: words[i] could not be read */
	__u32 word_nils;	/* bit i: words[i] is behind a nil pointer */
	__u32 word_oob;		/* bit i: words[i] is past a length */
	__u32 str_faults;	/* bit i: strs[i] could not be read */
	__u32 nframes;		/* -U: frames[0..nframes) */
	/* %v: chunks (a struct trace_chunk, then its bytes) in
	 * value[0..value_len), sent only as far as used; when the plan
	 * reads no strings and they fit, moved to where the strings go
	 * (VALUE_MOVED: an event 2 KiB smaller) */
	__u32 value_len;
	__u32 nchunks;
	__u32 value_moved;
	char comm[16];
	__u64 words[TRACE_MAX_WORDS];
	__u64 frames[STACK_MAX_FRAMES];	/* the PC, then return addresses */
	__u32 str_len[TRACE_MAX_STRS];	/* bytes copied into str[i] */
	char str[TRACE_MAX_STRS][TRACE_STR_MAX];
	__u8 value[2 * TRACE_VALUE_MAX + 64];
};

#endif
