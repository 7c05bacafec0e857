// SPDX-License-Identifier: MIT
/*
 * Go argument placement: ABIInternal and ABI0 here, gccgo's C ABIs in
 * c_abi.c, one algorithm each, over a table of registers per machine
 * (go_regs.c); types in go_type.c.
 * See go_abi.h and cmd/compile/abi-internal.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "goabi/go_abi_internal.h"

#define MAX_VALUES 4096

int go_abi_walk_words(struct assign_state *st, const struct go_type *t,
		      uint64_t off, bool arrays, word_fn fn)
{
	int err = 0;

	if (--st->visits < 0)
		return gt_error(-E2BIG, "type too complex to place");
	if (go_type__is_int_word(t))
		return fn(st, WORD_INT, off, t->size);
	switch (t->kind) {
	case GO_KIND_FLOAT:
		return fn(st, WORD_FLOAT, off, t->size);
	case GO_KIND_COMPLEX:
		err = fn(st, WORD_FLOAT, off, t->size / 2);
		return err ?: fn(st, WORD_FLOAT, off + t->size / 2,
				 t->size / 2);
	case GO_KIND_STRING:
	case GO_KIND_IFACE:
	case GO_KIND_EFACE:
		err = fn(st, WORD_INT, off, 8);
		return err ?: fn(st, WORD_INT, off + 8, 8);
	case GO_KIND_SLICE:
		err = fn(st, WORD_INT, off, 8);
		err = err ?: fn(st, WORD_INT, off + 8, 8);
		return err ?: fn(st, WORD_INT, off + 16, 8);
	case GO_KIND_STRUCT:
		for (size_t i = 0; i < t->nfields && !err; i++)
			err = go_abi_walk_words(st, t->fields[i].type,
					 off + t->fields[i].offset, arrays, fn);
		return err;
	case GO_KIND_ARRAY:
		if (t->len == 0)
			return 0;
		if (t->len == 1)
			return go_abi_walk_words(st, t->elem, off, arrays, fn);
		if (!arrays)
			return NO_FIT;
		if (t->elem->size == 0)
			return 0;
		for (uint64_t i = 0; i < t->len && !err; i++)
			err = go_abi_walk_words(st, t->elem, off + i * t->elem->size,
					 arrays, fn);
		return err;
	default:
		break;
	}
	return gt_error(-EINVAL, "unknown type kind %d", (int)t->kind);
}

struct go_abi_piece *go_abi_new_piece(struct go_abi_value *v,
				      enum go_piece_kind kind, uint32_t size,
				      uint64_t value_offset)
{
	struct go_abi_piece *p = &v->pieces[v->npieces++];

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->size = size;
	p->value_offset = value_offset;
	return p;
}

void go_abi_init_value(struct go_abi_value *v, const struct go_type *t)
{
	memset(v, 0, sizeof(*v));
	v->type = t;
	v->spill_offset = -1;
}

void go_abi_to_stack(struct assign_state *st, struct go_abi_value *v,
		     const struct go_type *t, bool c_abi)
{
	st->stack = align_up(st->stack, c_abi ? 8 : t->align);
	/* Go: 0(SP) holds the return address (x86-64), the caller's saved
	 * LR (arm64); C: from the CFA (above the return address on x86-64,
	 * SP on arm64) */
	go_abi_new_piece(v, GO_PIECE_STACK, t->size, 0)->mem_offset =
		(c_abi ? st->c_stack_base : 8) + st->stack;
	st->stack += c_abi ? align_up(t->size, 8) : t->size;
}

static int go_word(struct assign_state *st, enum word_class c, uint64_t off,
		   uint32_t size)
{
	struct go_abi_value *v = st->cur;
	enum go_piece_kind kind = c == WORD_INT ? GO_PIECE_IREG :
						  GO_PIECE_FREG;

	if (c == WORD_INT ? st->i >= st->ni : st->f >= st->nf)
		return NO_FIT;
	/* cannot happen: a value gets at most ni + nf pieces */
	if (v->npieces >= GO_ABI_MAX_PIECES)
		return NO_FIT;
	go_abi_new_piece(v, kind, size, off)->reg =
		c == WORD_INT ? st->iregs[st->i++] : st->fregs[st->f++];
	return 0;
}

/* abi-internal.md: zero-size values to the stack sequence; else the whole
 * value to registers, or, rolling back, the whole value to the stack. */
static int go_value(struct assign_state *st, struct go_abi_value *v,
		    const struct go_type *t)
{
	unsigned int i = st->i, f = st->f;
	int err;

	go_abi_init_value(v, t);
	if (t->size) {
		st->cur = v;
		err = go_abi_walk_words(st, t, 0, false, go_word);
		if (err < 0)
			return err;
		if (!err) {
			v->in_regs = true;
			return 0;
		}
		st->i = i;
		st->f = f;
		v->npieces = 0;
	}
	go_abi_to_stack(st, v, t, false);
	return 0;
}

/* The K-th incoming value in call order (receiver, `.dict` and parameters
 * as the ABI sees them), and its type. */
static struct go_abi_value *incoming(const struct go_abi_sig *sig,
				     struct go_abi_layout *out, size_t k,
				     const struct go_type **t)
{
	size_t dict_at = sig->dict == GO_DICT_FIRST ? 0 : sig->recv ? 1 : 0;

	if (out->has_dict) {
		if (k == dict_at) {
			*t = &go_type_unsafe_pointer;
			return &out->dict;
		}
		if (k > dict_at)
			k--;
	}
	if (sig->recv && k == 0)
		*t = sig->recv;
	else
		*t = sig->params[k - (sig->recv ? 1 : 0)];
	return &out->args[k];
}

static int assign_go(struct assign_state *st, const struct go_abi_sig *sig,
		     struct go_abi_layout *out)
{
	size_t nin = out->nargs + out->has_dict;
	const struct go_type *t;
	struct go_abi_value *v;
	uint64_t spill;
	int err;

	for (size_t k = 0; k < nin; k++) {
		v = incoming(sig, out, k, &t);
		err = go_value(st, v, t);
		if (err)
			return err;
	}
	st->stack = align_up(st->stack, 8);
	st->i = st->f = 0;
	for (size_t k = 0; k < out->nresults; k++) {
		err = go_value(st, &out->results[k], sig->results[k]);
		if (err)
			return err;
	}
	/* The spill area: a slot for every register-assigned argument. */
	spill = align_up(st->stack, 8);
	for (size_t k = 0; k < nin; k++) {
		v = incoming(sig, out, k, &t);
		if (!v->in_regs)
			continue;
		spill = align_up(spill, t->align);
		v->spill_offset = 8 + spill;
		spill += t->size;
	}
	out->frame_size = align_up(spill, 8);
	return 0;
}

static int check_sig(const struct go_abi_sig *sig)
{
	int err;

	if (!sig || (sig->nparams && !sig->params) ||
	    (sig->nresults && !sig->results))
		return gt_error(-EINVAL, "signature missing");
	if (sig->nparams > MAX_VALUES || sig->nresults > MAX_VALUES)
		return gt_error(-E2BIG, "signature of %zu parameters and %zu "
				"results", sig->nparams, sig->nresults);
	if (sig->dict != GO_DICT_NONE && sig->dict != GO_DICT_FIRST &&
	    sig->dict != GO_DICT_AFTER_RECV)
		return gt_error(-EINVAL, "unknown .dict position %d",
				(int)sig->dict);
	if (sig->recv && (err = go_type__check(sig->recv)))
		return err;
	for (size_t i = 0; i < sig->nparams; i++)
		if ((err = go_type__check(sig->params[i])))
			return err;
	for (size_t i = 0; i < sig->nresults; i++)
		if ((err = go_type__check(sig->results[i])))
			return err;
	return 0;
}

int go_abi__assign(enum go_abi abi, const struct go_abi_sig *sig,
		   struct go_abi_layout *out)
{
	struct assign_state st = { .visits = MAX_VISITS };
	const struct go_abi_machine *m;
	int err;

	memset(out, 0, sizeof(*out));
	err = check_sig(sig);
	if (err)
		return err;
	m = go_abi_machine_of(sig->machine);
	if (!m)
		return gt_error(-EINVAL, "no calling convention for machine %u",
				(unsigned int)sig->machine);
	switch (abi) {
	case GO_ABI_REGISTER:
		st.iregs = m->go_iregs;
		st.ni = m->go_ni;
		st.fregs = m->go_fregs;
		st.nf = m->go_nf;
		break;
	case GO_ABI_STACK:
		break;
	case GO_ABI_C:
		st.conv = m->c_conv;
		st.iregs = m->c_iregs;
		st.ni = m->c_ni;
		st.nf = m->c_nf;
		st.ret_iregs = m->c_ret_iregs;
		st.c_stack_base = m->cfa_offset;
		break;
	default:
		return gt_error(-EINVAL, "no calling convention for ABI %d",
				(int)abi);
	}
	out->nargs = sig->nparams + !!sig->recv;
	out->nresults = sig->nresults;
	out->has_dict = sig->dict != GO_DICT_NONE;
	out->args = calloc(out->nargs + 1, sizeof(*out->args));
	out->results = calloc(out->nresults + 1, sizeof(*out->results));
	if (!out->args || !out->results) {
		go_abi_layout__free(out);
		return gt_error(-ENOMEM, "out of memory");
	}
	err = abi == GO_ABI_C ? go_abi_assign_c(&st, sig, out) :
				assign_go(&st, sig, out);
	if (err)
		go_abi_layout__free(out);
	return err;
}

void go_abi_layout__free(struct go_abi_layout *layout)
{
	if (!layout)
		return;
	free(layout->args);
	free(layout->results);
	memset(layout, 0, sizeof(*layout));
}

bool go_abi_value__bpf_readable(const struct go_abi_value *v)
{
	for (size_t i = 0; i < v->npieces; i++)
		if (v->pieces[i].kind == GO_PIECE_FREG ||
		    v->pieces[i].kind == GO_PIECE_NONE)
			return false;
	return true;
}

enum go_abi_dict go_abi__dict_position(int go_minor)
{
	if (go_minor < 18)
		return GO_DICT_NONE;
	/* 1.18 and 1.19 stencil with the dictionary as the first parameter;
	 * unified IR (1.20+) keeps the receiver first. */
	return go_minor < 20 ? GO_DICT_FIRST : GO_DICT_AFTER_RECV;
}
