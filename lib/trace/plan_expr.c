// SPDX-License-Identifier: MIT
/*
 * Expressions to words: where the value of goarg2, r.URL.Path, xs[3] or
 * len(b) is (a register, a stack slot, memory off an earlier word: a
 * pointer followed) and the words BPF reads for its bytes, each read once
 * per plan however many values use it (plan_internal.h). What is done
 * with those words is plan_conv.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "trace/plan_internal.h"

int planner__add_word(struct planner *pl, struct trace_word w, int *idx)
{
	struct trace_plan *plan = pl->plan;
	__u32 i;

	for (i = 0; i < plan->nwords; i++) {
		const struct trace_word *o = &plan->words[i];

		if (o->kind == w.kind && o->reg == w.reg && o->size == w.size &&
		    o->base == w.base && o->offset == w.offset &&
		    o->guard == w.guard && o->index == w.index) {
			*idx = i;
			return 0;
		}
	}
	if (plan->nwords == TRACE_MAX_WORDS)
		return gt_error(-E2BIG, "%s: more than %d words to read in one probe",
				pl->func, TRACE_MAX_WORDS);
	plan->words[plan->nwords] = w;
	*idx = plan->nwords++;
	return 0;
}

static int src_add(struct planner *pl, struct trace_src *src, int word,
		   uint64_t value_offset, unsigned int reg_shift, uint64_t size)
{
	if (src->nwords == TRACE_SRC_MAX_WORDS)
		return gt_error(-E2BIG, "%s: a value in too many pieces", pl->func);
	src->w[src->nwords].word = word;
	src->w[src->nwords].value_offset = value_offset;
	src->w[src->nwords].reg_shift = reg_shift;
	src->w[src->nwords].size = size;
	src->nwords++;
	return 0;
}

int planner__sp_reg(const struct planner *pl, unsigned int *reg)
{
	int sp = go_abi__sp_reg(pl->bin->elf->machine);

	if (sp < 0)
		return gt_error(sp, "%s: no stack pointer known on machine %u",
				pl->func, (unsigned int)pl->bin->elf->machine);
	*reg = sp;
	return 0;
}

int planner__emit_memory(struct planner *pl, struct trace_src *src,
			 unsigned int reg, int base, int64_t off, uint64_t size,
			 uint64_t value_offset, unsigned int guard,
			 uint32_t index)
{
	uint64_t k;
	int idx, err = 0;

	for (k = 0; k < size && !err; k += 8) {
		struct trace_word w = {
			.kind = WORD_MEM, .reg = reg, .base = base,
			.size = size - k < 8 ? size - k : 8, .offset = off + k,
			.guard = guard, .index = index,
		};

		err = planner__add_word(pl, w, &idx);
		if (!err)
			err = src_add(pl, src, idx, value_offset + k, 0, w.size);
	}
	return err;
}

int planner__emit(struct planner *pl, const struct loc *l, uint64_t off,
		  uint64_t size, struct trace_src *src)
{
	uint64_t start = l->off + off, end = start + size;
	unsigned int sp;
	size_t i;
	int idx, err = 0;

	if (!l->abi)
		return planner__emit_memory(pl, src, 0, l->base, start, size, 0,
					    l->guard, l->index);
	for (i = 0; i < l->abi->npieces && !err; i++) {
		const struct go_abi_piece *p = &l->abi->pieces[i];
		uint64_t ps = p->value_offset, pe = ps + p->size;
		uint64_t lo = start > ps ? start : ps, hi = end < pe ? end : pe;
		struct trace_word w = { .kind = WORD_REG, .reg = p->reg, .size = 8,
					.base = TRACE_NO_BASE };

		if (lo >= hi)
			continue;
		switch (p->kind) {
		case GO_PIECE_FREG:
			src->unreadable = "<xmm>";
			return 0;
		case GO_PIECE_NONE:
			src->unreadable = "<optimized out>";
			return 0;
		case GO_PIECE_IREG:
			err = planner__add_word(pl, w, &idx);
			if (!err)
				err = src_add(pl, src, idx, lo - start,
					      p->reg_offset + (lo - ps), hi - lo);
			break;
		case GO_PIECE_STACK:
		case GO_PIECE_MEM:
			sp = p->reg;
			if (p->kind == GO_PIECE_STACK)
				err = planner__sp_reg(pl, &sp);
			if (!err)
				err = planner__emit_memory(pl, src, sp,
					TRACE_NO_BASE, p->mem_offset + (lo - ps),
					hi - lo, lo - start, 0, 0);
			break;
		}
	}
	return err;
}

int planner__emit_word(struct planner *pl, const struct loc *l, uint64_t off,
		       const char *what, int *idx)
{
	struct trace_src src = { 0 };
	int err = planner__emit(pl, l, off, 8, &src);

	if (err)
		return err;
	if (src.unreadable || src.nwords != 1 || src.w[0].reg_shift ||
	    src.w[0].size != 8)
		return gt_error(-EINVAL, "%s: cannot read %s as one word",
				pl->func, what);
	*idx = src.w[0].word;
	return 0;
}

/* The argument or result an expression starts from. */
static int resolve_base(struct planner *pl, const struct trace_expr *x,
			bool ret, struct loc *l)
{
	size_t i, n;

	memset(l, 0, sizeof(*l));
	if (!pl->dwarf) {
		/* the format's types were placed by index */
		if (x->arg == TRACE_ARG_GORET)
			l->abi = &pl->layout.results[x->index];
		else
			l->abi = &pl->layout.args[x->index];
		l->type = l->abi->type;
		return 0;
	}
	if (x->arg == TRACE_ARG_GORET) {
		if (x->index >= pl->sig.nresults)
			return gt_error(-EINVAL, "%s: '%s': the function has %zu results",
					pl->func, x->text, pl->sig.nresults);
		l->abi = &pl->layout.results[x->index];
	} else if (x->arg == TRACE_ARG_GOARG) {
		for (i = 0, n = 0; i < pl->sig.nparams; i++) {
			if (go_dwarf_var__is_dict(&pl->sig.params[i]))
				continue;
			if (n++ == x->index)
				break;
		}
		if (i == pl->sig.nparams)
			return gt_error(-EINVAL, "%s: '%s': the function has %zu parameters",
					pl->func, x->text, n);
		l->abi = &pl->layout.args[i];
	} else if (ret) {
		for (i = 0; i < pl->sig.nresults; i++)
			if (!strcmp(pl->sig.results[i].name, x->name))
				break;
		if (i == pl->sig.nresults) {
			for (n = 0; n < pl->sig.nparams; n++)
				if (!strcmp(pl->sig.params[n].name, x->name))
					return gt_error(-EINVAL, "%s: '%s' is a parameter, not known at a return (use an entry probe)",
							pl->func, x->name);
			return gt_error(-EINVAL, "%s has no result named '%s'",
					pl->func, x->name);
		}
		l->abi = &pl->layout.results[i];
	} else {
		for (i = 0; i < pl->sig.nparams; i++)
			if (!strcmp(pl->sig.params[i].name, x->name))
				break;
		if (i == pl->sig.nparams)
			return gt_error(-EINVAL, "%s has no parameter named '%s'",
					pl->func, x->name);
		l->abi = &pl->layout.args[i];
	}
	l->type = l->abi->type;
	if (!l->type)
		return gt_error(-EINVAL, "%s: '%s': its type is not in DWARF",
				pl->func, x->text);
	return 0;
}

int planner__deref(struct planner *pl, struct loc *l, const char *text)
{
	int idx, err;

	if (!l->type->elem)
		return gt_error(-EINVAL, "%s: '%s': cannot follow an unsafe.Pointer",
				pl->func, text);
	err = planner__emit_word(pl, l, 0, "a pointer", &idx);
	if (err)
		return err;
	l->type = l->type->elem;
	l->abi = NULL;
	l->base = idx;
	l->off = 0;
	/* past a guarded pointer, its word says for what it points to */
	l->guard = 0;
	return 0;
}

/* [N] of the slice or string at L: the element, read in BPF only when N
 * is below the length, which is known at run time only. */
static int index_slice(struct planner *pl, struct loc *l,
		       const struct trace_expr *x, unsigned long n)
{
	const struct go_type *elem = l->type->kind == GO_KIND_STRING ?
				     &go_type_uint8 : l->type->elem;
	int len, ptr, err;

	if (!elem || !elem->size)
		return gt_error(-EINVAL, "%s: '%s': elements of %s have no size",
				pl->func, x->text, type_name(l->type));
	if (n > UINT32_MAX || n > INT32_MAX / elem->size)
		return gt_error(-EINVAL, "%s: '%s': index %lu too large",
				pl->func, x->text, n);
	err = planner__emit_word(pl, l, 8, "a length", &len);
	if (!err)
		err = planner__emit_word(pl, l, 0, "a pointer", &ptr);
	if (err)
		return err;
	l->type = elem;
	l->abi = NULL;
	l->base = ptr;
	l->off = (int64_t)(n * elem->size);
	l->guard = len + 1;
	l->index = n;
	return 0;
}

/* [N] of the array at L: a constant index, checked against its length;
 * of a slice or string, checked in BPF (index_slice). */
static int index_array(struct planner *pl, struct loc *l,
		       const struct trace_expr *x, const char *index)
{
	unsigned long n = strtoul(index + 1, NULL, 10);

	if (l->type->kind == GO_KIND_SLICE || l->type->kind == GO_KIND_STRING)
		return index_slice(pl, l, x, n);
	if (l->type->kind != GO_KIND_ARRAY)
		return gt_error(-EINVAL, "%s: '%s': %s is not an array, a slice or a string",
				pl->func, x->text, type_name(l->type));
	if (n >= l->type->len)
		return gt_error(-EINVAL, "%s: '%s': index %lu out of range [0, %llu)",
				pl->func, x->text, n,
				(unsigned long long)l->type->len);
	l->off += n * l->type->elem->size;
	l->type = l->type->elem;
	return 0;
}

int planner__find_type(void *ctx, const char *name, const struct go_type **out)
{
	struct planner *pl = ctx;

	if (!pl->td)
		return gt_error(-ENOTSUP, "%s: no type data to convert to %s",
				pl->func, name);
	return go_typedata__find(pl->td, name, out);
}

/* (TYPE)(BASE) with DWARF: BASE, placed as DWARF says, taken for a TYPE,
 * which must be as large. */
static int convert(struct planner *pl, const struct trace_expr *x,
		   struct loc *l)
{
	const struct go_type *t;
	int err = planner__find_type(pl, x->conv, &t);

	if (err)
		return err;
	if (t->size != l->type->size)
		return gt_error(-EINVAL, "%s: '%s': %s takes %llu bytes, the value %llu",
				pl->func, x->text, x->conv,
				(unsigned long long)t->size,
				(unsigned long long)l->type->size);
	l->type = t;
	return 0;
}

int planner__resolve(struct planner *pl, const struct trace_expr *x, bool ret,
		     struct loc *l)
{
	size_t i, k;
	int err = resolve_base(pl, x, ret, l);

	if (!err && x->conv && pl->dwarf)
		err = convert(pl, x, l);
	for (i = 0; i < x->nfields && !err; i++) {
		const struct go_type *t;

		if (l->type->kind == GO_KIND_PTR) {
			err = planner__deref(pl, l, x->text);
			if (err)
				return err;
		}
		t = l->type;
		if (x->fields[i][0] == '[') {
			err = index_array(pl, l, x, x->fields[i]);
			continue;
		}
		if (t->kind != GO_KIND_STRUCT)
			return gt_error(-EINVAL, "%s: '%s': %s has no field %s",
					pl->func, x->text, type_name(t), x->fields[i]);
		for (k = 0; k < t->nfields; k++)
			if (t->fields[k].name && !strcmp(t->fields[k].name, x->fields[i]))
				break;
		if (k == t->nfields)
			return gt_error(-EINVAL, "%s: '%s': %s has no field %s",
					pl->func, x->text, type_name(t), x->fields[i]);
		l->type = t->fields[k].type;
		l->off += t->fields[k].offset;
	}
	if (err || x->fn == TRACE_FN_NONE)
		return err;
	if (l->type->kind == GO_KIND_SLICE)
		l->off += x->fn == TRACE_FN_LEN ? 8 : 16;
	else if (l->type->kind == GO_KIND_STRING && x->fn == TRACE_FN_LEN)
		l->off += 8;
	else
		return gt_error(-EINVAL, "%s: '%s': %s is not a %s", pl->func,
				x->text, type_name(l->type),
				x->fn == TRACE_FN_LEN ? "string or slice" : "slice");
	l->type = &go_type_int;
	return 0;
}
