// SPDX-License-Identifier: MIT
/*
 * gccgo's C calling conventions (go_abi.h's GO_ABI_C): System V on x86-64,
 * AAPCS64 on arm64. One path (go_abi_assign_c()) whose shared rules
 * (results as one struct, placed by eightbytes; a value receiver by
 * reference; stack slots of 8 from the CFA) each convention completes with
 * its own: System V's eightbyte classes; AAPCS64's HFAs in V registers,
 * larger values by reference, results in memory through X8.
 */
#include <errno.h>
#include <stdlib.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "goabi/go_abi_internal.h"

static int sysv_word(struct assign_state *st, enum word_class c,
		     uint64_t off, uint32_t size)
{
	/* only values of at most 16 bytes are classified */
	if (off >= 16)
		return gt_error(-EINVAL, "word beyond a small value");
	if (c == WORD_INT)
		st->eb[off / 8] = EB_INT;
	else if (st->eb[off / 8] == EB_NONE)
		st->eb[off / 8] = EB_SSE;
	return 0;
}

/* Classify the eightbytes of T into st->eb; NO_FIT for class MEMORY. */
static int sysv_classify(struct assign_state *st, const struct go_type *t)
{
	st->eb[0] = st->eb[1] = EB_NONE;
	if (t->size > 16)
		return NO_FIT;
	return go_abi_walk_words(st, t, 0, true, sysv_word);
}

/* The eightbytes of T, classified in st->eb, to the next free registers:
 * INT ones to st->iregs, SSE ones to the float registers. */
static void c_eightbytes(struct assign_state *st, struct go_abi_value *v,
			 const struct go_type *t)
{
	for (unsigned int eb = 0; eb < 2 && 8 * eb < t->size; eb++) {
		uint32_t size = t->size - 8 * eb < 8 ? t->size - 8 * eb : 8;

		if (st->eb[eb] == EB_INT)
			go_abi_new_piece(v, GO_PIECE_IREG, size, 8 * eb)->reg =
				st->iregs[st->i++];
		else if (st->eb[eb] == EB_SSE)
			go_abi_new_piece(v, GO_PIECE_FREG, size, 8 * eb)->reg =
				st->f++;
	}
	v->in_regs = true;
}

static int sysv_value(struct assign_state *st, struct go_abi_value *v,
		      const struct go_type *t)
{
	unsigned int nint = 0, nsse = 0;
	int err;

	go_abi_init_value(v, t);
	if (!t->size)
		return 0;	/* GCC passes nothing for a zero-size value */
	err = sysv_classify(st, t);
	if (err < 0)
		return err;
	for (int eb = 0; eb < 2; eb++) {
		nint += st->eb[eb] == EB_INT;
		nsse += st->eb[eb] == EB_SSE;
	}
	/* Not enough registers left for every eightbyte: the whole value goes
	 * to the stack, and later arguments may still take registers. */
	if (err || st->i + nint > st->ni || st->f + nsse > st->nf) {
		go_abi_to_stack(st, v, t, true);
		return 0;
	}
	c_eightbytes(st, v, t);
	return 0;
}

static int hfa_word(struct assign_state *st, enum word_class c, uint64_t off,
		    uint32_t size)
{
	if (c != WORD_FLOAT || st->hfa_n >= HFA_MAX ||
	    (st->hfa_n && size != st->hfa_size))
		return NO_FIT;
	st->hfa_size = size;
	st->hfa_off[st->hfa_n++] = off;
	return 0;
}

/* AAPCS64: is T a homogeneous floating-point aggregate, a float or 1 to 4
 * floats of one size (a complex number is two)? Its members into st->hfa_n
 * (0: it is not one), st->hfa_size and st->hfa_off. */
static int aapcs64_hfa(struct assign_state *st, const struct go_type *t)
{
	int err;

	st->hfa_n = 0;
	err = go_abi_walk_words(st, t, 0, true, hfa_word);
	if (err < 0)
		return err;
	if (err)
		st->hfa_n = 0;
	return 0;
}

/* AAPCS64: an HFA's members to V registers, else up to 16 bytes to X
 * registers by eightbytes (the float fields of a struct too), else a copy
 * passed by reference; a value that does not fit in the registers left
 * ends their sequence (NSRN or NGRN = 8) and goes to the stack. */
static int aapcs64_value(struct assign_state *st, struct go_abi_value *v,
			 const struct go_type *t)
{
	unsigned int n;
	int err;

	go_abi_init_value(v, t);
	if (!t->size)
		return 0;	/* GCC passes nothing for a zero-size value */
	err = aapcs64_hfa(st, t);
	if (err)
		return err;
	if (st->hfa_n) {
		if (st->f + st->hfa_n > st->nf) {
			st->f = st->nf;
			go_abi_to_stack(st, v, t, true);
			return 0;
		}
		for (n = 0; n < st->hfa_n; n++)
			go_abi_new_piece(v, GO_PIECE_FREG, st->hfa_size,
				  st->hfa_off[n])->reg = st->f++;
		v->in_regs = true;
		return 0;
	}
	if (t->size > 16) {
		if (st->i < st->ni) {
			go_abi_new_piece(v, GO_PIECE_MEM, t->size, 0)->reg =
				st->iregs[st->i++];
			return 0;
		}
		/* the copy's address on the stack: no register holds it */
		st->stack = align_up(st->stack, 8);
		go_abi_new_piece(v, GO_PIECE_NONE, t->size, 0);
		st->stack += 8;
		return 0;
	}
	n = (t->size + 7) / 8;
	if (st->i + n > st->ni) {
		st->i = st->ni;
		go_abi_to_stack(st, v, t, true);
		return 0;
	}
	st->eb[0] = EB_INT;
	st->eb[1] = n > 1 ? EB_INT : EB_NONE;
	c_eightbytes(st, v, t);
	return 0;
}

/* Classify the results' aggregate T (or the one result) as returned: into
 * st->eb, or, AAPCS64, st->hfa_n; NO_FIT for memory. AAPCS64 returns an
 * HFA in V0..V3, else up to 16 bytes in X0 X1, else in memory at X8. */
static int c_classify_results(struct assign_state *st,
			      const struct go_type *t)
{
	int err;

	st->hfa_n = 0;
	if (st->conv == C_SYSV)
		return sysv_classify(st, t);
	err = aapcs64_hfa(st, t);
	if (err || st->hfa_n)
		return err;
	if (t->size > 16)
		return NO_FIT;
	st->eb[0] = EB_INT;
	st->eb[1] = t->size > 8 ? EB_INT : EB_NONE;
	return 0;
}

/* Result V at offset OFF of the returned aggregate, classified by
 * c_classify_results(): an HFA's members in V0, V1...; else eightbytes
 * in st->ret_iregs for INTEGER ones (RAX RDX, X0 X1), the float registers
 * 0 then 1 for SSE ones; several small results may share a register. */
static void c_result(struct assign_state *st, struct go_abi_value *v,
		     uint64_t off)
{
	unsigned int ni = 0, nf = 0;
	uint64_t end = off + v->type->size;

	for (unsigned int k = 0; k < st->hfa_n; k++) {
		if (st->hfa_off[k] < off || st->hfa_off[k] >= end)
			continue;
		go_abi_new_piece(v, GO_PIECE_FREG, st->hfa_size,
			  st->hfa_off[k] - off)->reg = k;
	}
	for (unsigned int eb = 0; eb < 2 && !st->hfa_n; eb++) {
		uint64_t lo = off > 8 * eb ? off : 8 * eb;
		uint64_t hi = end < 8 * eb + 8 ? end : 8 * eb + 8;
		struct go_abi_piece *p;
		bool is_int = st->eb[eb] == EB_INT;
		uint8_t reg;

		if (st->eb[eb] == EB_NONE)
			continue;
		reg = is_int ? st->ret_iregs[ni++] : nf++;
		if (lo >= hi)
			continue;
		p = go_abi_new_piece(v, is_int ? GO_PIECE_IREG : GO_PIECE_FREG,
			      hi - lo, lo - off);
		p->reg = reg;
		p->reg_offset = lo - 8 * eb;
	}
	v->in_regs = v->npieces > 0;
}

/* gccgo returns several results as one struct of them. In memory, System
 * V returns its address in RAX; AAPCS64 passes it in X8, which the callee
 * need not keep to its RET: X8's value at the entry. */
static int assign_c_results(struct assign_state *st,
			    const struct go_abi_sig *sig,
			    struct go_abi_layout *out)
{
	struct go_field *fields;
	struct go_type agg;
	int err;

	if (!out->nresults)
		return 0;
	fields = calloc(out->nresults, sizeof(*fields));
	if (!fields)
		return gt_error(-ENOMEM, "out of memory");
	for (size_t k = 0; k < out->nresults; k++)
		fields[k].type = sig->results[k];
	err = go_type__init_struct(&agg, "results", fields, out->nresults);
	if (!err)
		err = c_classify_results(st, out->nresults == 1 ?
					 sig->results[0] : &agg);
	if (err < 0)
		goto out;
	out->results_in_memory = err == NO_FIT;
	out->results_addr_at_entry = out->results_in_memory &&
				     st->conv == C_AAPCS64;
	for (size_t k = 0; k < out->nresults; k++) {
		struct go_abi_value *v = &out->results[k];
		struct go_abi_piece *p;

		go_abi_init_value(v, sig->results[k]);
		if (!v->type->size)
			continue;
		if (!out->results_in_memory) {
			c_result(st, v, fields[k].offset);
			continue;
		}
		p = go_abi_new_piece(v, GO_PIECE_MEM, v->type->size, 0);
		p->reg = st->conv == C_SYSV ? GO_REG_RAX : AAPCS64_RESULT_REG;
		p->mem_offset = fields[k].offset;
	}
	err = 0;
out:
	free(fields);
	return err;
}

int go_abi_assign_c(struct assign_state *st, const struct go_abi_sig *sig,
		    struct go_abi_layout *out)
{
	size_t k = 0;
	int err;

	if (sig->dict != GO_DICT_NONE)
		return gt_error(-EINVAL, "gccgo has no generic instantiations");
	err = assign_c_results(st, sig, out);
	if (err)
		return err;
	/* System V: the address of the results' memory takes RDI */
	if (out->results_in_memory && st->conv == C_SYSV)
		st->i++;
	/* gccgo passes a value receiver by reference */
	if (sig->recv && sig->recv->kind != GO_KIND_PTR) {
		struct go_abi_value *v = &out->args[k++];
		uint8_t reg = st->iregs[st->i++];

		go_abi_init_value(v, sig->recv);
		if (sig->recv->size) {
			struct go_abi_piece *p =
				go_abi_new_piece(v, GO_PIECE_MEM, sig->recv->size, 0);

			p->reg = reg;
		}
	}
	for (; k < out->nargs; k++) {
		const struct go_type *t = sig->recv && k == 0 ? sig->recv :
					  sig->params[k - !!sig->recv];

		err = st->conv == C_SYSV ? sysv_value(st, &out->args[k], t) :
					   aapcs64_value(st, &out->args[k], t);
		if (err)
			return err;
	}
	out->frame_size = st->stack;
	return 0;
}
