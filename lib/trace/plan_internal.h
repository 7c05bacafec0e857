/* SPDX-License-Identifier: MIT */
/*
 * Private to the files that plan gotrace's probes (trace_plan.c,
 * plan_layout.c, plan_expr.c, plan_conv.c, plan_default.c): the state of planning one
 * function's probe and where a value is while an expression is followed.
 * Nothing outside lib/trace/ includes it; trace_plan.h is the interface.
 */
#ifndef GOTOOLS_PLAN_INTERNAL_H
#define GOTOOLS_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "trace/trace_plan.h"
#include "site/probe_site.h"

/* Where a value is while an expression is followed: bytes [OFF, OFF +
 * size) of an argument or result the ABI placed (ABI), or, past a pointer,
 * memory at the value of word BASE plus OFF. */
struct loc {
	const struct go_type *type;
	const struct go_abi_value *abi;
	int base;
	int64_t off;
	/* an element of a slice or string: read only below the length in
	 * word GUARD - 1, at INDEX; GUARD 0: no such check */
	unsigned int guard;
	uint32_t index;
};

/* What one function's probe is planned from. */
struct planner {
	const struct go_binary *bin;
	const char *func;
	struct trace_plan *plan;
	const struct trace_probe *probe;
	unsigned int str_max;		/* -Z */
	struct go_abi_layout layout;
	struct go_dwarf_sig sig;	/* when DWARF typed the function */
	bool dwarf;
	bool gccgo_method;		/* goarg1 is a gccgo receiver */
	struct value_types *vtypes;	/* %v */
	struct go_typedata *td;		/* conversions, or NULL */
	/* the morestack tail at the entry, where a bare probe reads the raw
	 * words of an untyped function (empty: none) */
	struct code_span morestack_tail;
	bool raw_words;			/* the layout holds them */
};

/* A type as errors name it. */
static inline const char *type_name(const struct go_type *t)
{
	return t->name ? t->name : "the value";
}

/* plan_layout.c: where the function's values are */

/*
 * Place the values of PL's function at ADDR: typed by DWARF (DW, or NULL)
 * when it types every one, else, for a method, by its receiver type's
 * method table in PL->td, as DWARF would, else by PL's format. VARS (room
 * for 2 * TRACE_PROBE_MAX_ARGS + 2) holds the signature's values: it must
 * outlive PL's planning.
 */
int planner__place(struct planner *pl, struct go_dwarf *dw, uint64_t addr,
		   struct go_dwarf_var *vars);

/*
 * The arguments of an inlined copy at its first instruction, SITE, where
 * DWARF's location lists put them: registers, and frame slots at the call
 * frame address (SP + the frame size there, by the pcsp table, + the
 * CFA's offset from SP at entry, go_abi__cfa_offset(): 8, 0 on arm64); what
 * is not recorded there is a NONE piece. PARAMS[N] into PL's signature
 * (VARS) and layout.
 */
int planner__place_inlined(struct planner *pl, uint64_t site,
			   const struct go_dwarf_inline_param *params, size_t n,
			   struct go_dwarf_var *vars);

/* plan_expr.c: an expression to words BPF reads */

/* Into *REG, DWARF's number of the stack pointer of PL's machine (RSP 7,
 * SP 31), which stack pieces are read off. Returns 0, or -EINVAL with a
 * reason for a machine go_abi does not know. */
int planner__sp_reg(const struct planner *pl, unsigned int *reg);

/* The index of word W in the plan, added unless the same read is there. */
int planner__add_word(struct planner *pl, struct trace_word w, int *idx);

/* Memory words for bytes [0, SIZE) at (register REG, or word BASE) + OFF,
 * put at VALUE_OFFSET on in the value; GUARD and INDEX as in struct loc. */
int planner__emit_memory(struct planner *pl, struct trace_src *src,
			 unsigned int reg, int base, int64_t off, uint64_t size,
			 uint64_t value_offset, unsigned int guard,
			 uint32_t index);

/* The words of bytes [OFF, OFF + SIZE) of the value at L into SRC, their
 * value offsets counted from OFF. */
int planner__emit(struct planner *pl, const struct loc *l, uint64_t off,
		  uint64_t size, struct trace_src *src);

/* The one word holding the 8 bytes at OFF of L (a pointer, a length). */
int planner__emit_word(struct planner *pl, const struct loc *l, uint64_t off,
		       const char *what, int *idx);

/* Where the value of X is, and its type. */
int planner__resolve(struct planner *pl, const struct trace_expr *x, bool ret,
		     struct loc *l);

/* Follow the pointer at L: L becomes what it points to. */
int planner__deref(struct planner *pl, struct loc *l, const char *text);

/* The type NAME from PL's type data (CTX is the planner), for a
 * conversion: a struct trace_type_finder's find (trace_probe.h). */
int planner__find_type(void *ctx, const char *name, const struct go_type **out);

/* plan_default.c: what a bare probe prints */

/*
 * ROW's own format, for its bare probe: "(NAME=%v, ...)" of every
 * parameter of SIG (receiver first, a shape function's dictionary left
 * out) or, RET, "=> (%v, ...)" of every result, NAME= where the source
 * names it; each conversion's expression goargN or goretN, its text the
 * name (else goargN, goretN). SIG NULL (nothing types the function):
 * "(<no types>)". The row frees it, made or not.
 */
int plan_default_format(struct trace_row *row, const struct go_dwarf_sig *sig,
			bool ret);

/*
 * ROW's own format when nothing types its function but the registers
 * its morestack tail spills do (LAYOUT: a word each): "(raw: 0x2a, 0xd)",
 * each word in hex (<xmm> for a float register), its expression goargN
 * into LAYOUT, its text rawN.
 */
int plan_raw_format(struct trace_row *row, const struct go_abi_layout *layout);

/* plan_conv.c: what a conversion prints and a filter compares */

/* The words BPF reads for conversion C, and how SRC rebuilds its value
 * from them. */
int planner__conv(struct planner *pl, const struct trace_conv *c,
		  struct trace_src *src);

/* The comparison of filter term T, into OUT. */
int planner__term(struct planner *pl, const struct trace_term *t,
		  struct trace_cmp *out);

#endif
