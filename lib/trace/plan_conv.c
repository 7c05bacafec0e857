// SPDX-License-Identifier: MIT
/*
 * What each conversion of a format and each comparison of a filter has
 * BPF read, from the words of its expression (plan_expr.c): which kinds a
 * conversion prints, a string's bytes, %T's dynamic type, %v's roots (the
 * references BPF follows, value_types.h), a filter's integer and string
 * comparisons (plan_internal.h).
 */
#include <errno.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "gobin/go_name.h"
#include "trace/plan_internal.h"

/* gccgo's type descriptor (libgo's runtime._type): size, ptrdata, hash,
 * tflag, align, fieldAlign, kind, equal, gcdata, then *string. */
#define GCCGO_TYPE_STRING	40

static bool is_bytes(const struct go_type *t)
{
	return t->kind == GO_KIND_STRING ||
	       (t->kind == GO_KIND_SLICE && t->elem && t->elem->size == 1 &&
		(t->elem->kind == GO_KIND_UINT || t->elem->kind == GO_KIND_INT));
}

static bool conv_fits(enum trace_conv_kind kind, const struct go_type *t)
{
	switch (kind) {
	case TRACE_CONV_STR:
		return is_bytes(t);
	case TRACE_CONV_TYPE:
		return t->kind == GO_KIND_IFACE || t->kind == GO_KIND_EFACE;
	case TRACE_CONV_FLOAT:
		return t->kind == GO_KIND_FLOAT;
	case TRACE_CONV_BOOL:
		return t->kind == GO_KIND_BOOL;
	case TRACE_CONV_VALUE:
		return true;
	default:
		return go_type__is_int_word(t);
	}
}

/* A string's bytes: BPF copies them from its pointer word for as many
 * bytes as its length word says, up to MAX. */
static int add_string(struct planner *pl, int ptr, int len, unsigned int max,
		      int *idx)
{
	struct trace_plan *plan = pl->plan;
	__u32 i;

	for (i = 0; i < plan->nstrs; i++) {
		if (plan->strs[i].ptr_word == ptr && plan->strs[i].len_word == len) {
			if (plan->strs[i].max < max)
				plan->strs[i].max = max;
			*idx = i;
			return 0;
		}
	}
	if (plan->nstrs == TRACE_MAX_STRS)
		return gt_error(-E2BIG, "%s: more than %d strings in one probe",
				pl->func, TRACE_MAX_STRS);
	plan->strs[plan->nstrs].ptr_word = ptr;
	plan->strs[plan->nstrs].len_word = len;
	plan->strs[plan->nstrs].max = max;
	*idx = plan->nstrs++;
	return 0;
}

static int plan_bytes(struct planner *pl, const struct loc *l, unsigned int max,
		      int *str)
{
	int ptr, len, err;

	err = planner__emit_word(pl, l, 0, "a string's pointer", &ptr);
	if (!err)
		err = planner__emit_word(pl, l, 8, "a string's length", &len);
	return err ? err : add_string(pl, ptr, len, max, str);
}

/* gccgo passes a value receiver by reference: printed as anything but a
 * pointer, it is read through that reference (a pointer receiver is the
 * pointer itself). */
static bool gccgo_by_reference(const struct planner *pl,
			       const struct trace_conv *c, const struct loc *l)
{
	const struct trace_expr *x = &c->expr;

	return pl->dwarf && pl->gccgo_method &&
	       go_dwarf_sig__gccgo_value_receiver(&pl->sig) &&
	       l->abi == &pl->layout.args[0] &&
	       !x->nfields && x->fn == TRACE_FN_NONE &&
	       l->type->kind == GO_KIND_PTR && l->type->elem &&
	       c->kind != TRACE_CONV_PTR && c->kind != TRACE_CONV_HEX;
}

/*
 * %T: the word holding the dynamic type's descriptor. gc: an eface's first
 * word is the type, an iface's is an itab whose second word is; the name
 * comes from the binary's type data (lib/gobin/go_rtype.h). gccgo: an iface's
 * first word is a method table whose first entry is the type; its
 * descriptor points at 40 to a string with the name, which BPF reads.
 */
static int plan_dynamic_type(struct planner *pl, const struct loc *l,
			     struct trace_src *src)
{
	struct trace_src tmp = { 0 };
	int idx, name, ptr, len, err;

	err = planner__emit_word(pl, l, 0, "an interface", &idx);
	if (!err && l->type->kind == GO_KIND_IFACE)
		err = planner__emit_memory(pl, &tmp, 0, idx,
					   pl->bin->is_gccgo ? 0 : 8, 8, 0, 0, 0);
	if (err)
		return err;
	if (tmp.nwords)
		idx = tmp.w[0].word;
	src->type_word = idx;
	if (!pl->bin->is_gccgo)
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	err = planner__emit_memory(pl, &tmp, 0, idx, GCCGO_TYPE_STRING, 8, 0,
				   0, 0);
	if (err)
		return err;
	name = tmp.w[0].word;
	err = planner__emit_memory(pl, &tmp, 0, name, 0, 16, 0, 0, 0);
	if (err)
		return err;
	ptr = tmp.w[1].word;
	len = tmp.w[2].word;
	return add_string(pl, ptr, len, TRACE_STR_MAX, &src->str);
}

/* Is T the shape of a type parameter (go.shape.int64), in a shape
 * instantiation? */
static bool is_shape(const struct go_type *t)
{
	return t->name && !strncmp(t->name, "go.shape.", 9);
}

/*
 * %T of a value whose type is a type parameter's shape: the type argument
 * of this call (main.ID, not go.shape.int64), which the name of the
 * dictionary the call was passed gives (gobin/go_dict.h): BPF reads the
 * dictionary's address. An inlined copy is passed none: <no dictionary>.
 */
static int plan_dict_type(struct planner *pl, const struct trace_expr *x,
			  const struct loc *l, struct trace_src *src)
{
	struct loc dict = { 0 };
	size_t param, i;
	int err;

	/* the dictionary is an argument: gone by a return */
	if (pl->probe->ret)
		return gt_error(-EINVAL, "%s: '%s' is %s: its type argument is known at the entry only (the dictionary is an argument)",
				pl->func, x->text, l->type->name);
	err = go_name__type_param(pl->func, l->type->name, &param);
	if (err == -EEXIST)
		return gt_error(-EINVAL, "%s: '%s' is %s, the shape of more than one type parameter: its type argument is not known",
				pl->func, x->text, l->type->name);
	if (err || param >= UINT8_MAX)
		return gt_error(-EINVAL, "%s: '%s' is %s, which is no type parameter of the function",
				pl->func, x->text, l->type->name);
	for (i = 0; i < pl->sig.nparams; i++)
		if (go_dwarf_var__is_dict(&pl->sig.params[i]))
			break;
	if (i == pl->sig.nparams) {
		src->unreadable = "<no dictionary>";
		return 0;
	}
	dict.type = pl->sig.params[i].type;
	dict.abi = &pl->layout.args[i];
	src->dict_arg = param + 1;
	return planner__emit_word(pl, &dict, 0, "the dictionary",
				  &src->type_word);
}

/*
 * %v of a value whose type is a type parameter's shape prints by the
 * shape; the dictionary's word, read too where it can be, tells its type
 * argument, which is said first (<main.ID>) when fmt would call its
 * String or Error method, as for any other value. Where it cannot (no
 * dictionary, a shape of two type parameters, no room), nothing is said.
 */
static void plan_dict_mark(struct planner *pl, const struct loc *l,
			   struct trace_src *src)
{
	struct trace_src mark = { .type_word = -1 };

	if (plan_dict_type(pl, &(struct trace_expr){ .text = "" }, l, &mark) ||
	    !mark.dict_arg) {
		gt_error_clear();
		return;
	}
	src->dict_arg = mark.dict_arg;
	src->type_word = mark.type_word;
}

static int add_vroot(struct planner *pl, struct trace_vroot r)
{
	struct trace_plan *plan = pl->plan;
	__u32 i;

	/* the same value printed twice (%v and %+v) is read once */
	for (i = 0; i < plan->nvroots; i++)
		if (!memcmp(&plan->vroots[i], &r, sizeof(r)))
			return 0;
	if (plan->nvroots == TRACE_MAX_VROOTS)
		return gt_error(-E2BIG, "%s: %%v of more than %d references in one probe",
				pl->func, TRACE_MAX_VROOTS);
	plan->vroots[plan->nvroots++] = r;
	return 0;
}

/* The references in the value at L that BPF follows (value_types.h), as
 * roots on the value's own words. */
static int plan_value_refs(struct planner *pl, const struct loc *l)
{
	struct trace_vslot slots[VALUE_TYPE_MAX_SLOTS];
	size_t n, i;
	int w0, w1, err;

	err = value_types__refs(pl->vtypes, l->type, slots, &n);
	for (i = 0; i < n && !err; i++) {
		struct trace_vroot r = {
			.kind = slots[i].kind, .vtype = slots[i].vtype,
			/* the value itself is an interface */
			.flags = l->type->kind == GO_KIND_EFACE ||
				 l->type->kind == GO_KIND_IFACE ? REF_ROOT : 0,
		};

		err = planner__emit_word(pl, l, slots[i].offset, "a reference", &w0);
		w1 = w0;
		if (!err && r.kind != REF_PTR && r.kind != REF_MAP)
			err = planner__emit_word(pl, l, slots[i].offset + 8,
						 "a reference", &w1);
		r.word0 = w0;
		r.word1 = w1;
		if (!err)
			err = add_vroot(pl, r);
	}
	return err;
}

/* Is the value at L in memory: behind a pointer, or on the stack? */
static bool in_memory(const struct loc *l, int64_t *stack_offset)
{
	size_t i;

	if (!l->abi)
		return true;
	for (i = 0; i < l->abi->npieces; i++)
		if (l->abi->pieces[i].kind != GO_PIECE_STACK)
			return false;
	if (!l->abi->npieces)
		return false;
	*stack_offset = l->abi->pieces[0].mem_offset -
			(int64_t)l->abi->pieces[0].value_offset + l->off;
	return true;
}

/*
 * %v: a struct or array in memory is read whole by BPF, from its address
 * (a chunk, whose value type says what to follow in it); any other value
 * from its words, with a root for each reference in it.
 */
static int plan_value(struct planner *pl, const struct loc *l,
		      struct trace_src *src)
{
	struct trace_vroot r = { .kind = REF_MEM };
	struct trace_src gate = { 0 };
	struct trace_word sp = { .kind = WORD_REG, .size = 8,
				 .base = TRACE_NO_BASE };
	int64_t stack_offset = 0;
	unsigned int sp_reg;
	int word, err = 0;

	if (!pl->vtypes->ntypes)
		err = value_types__init(pl->vtypes,
				       go_version__minor(pl->bin->version));
	if (err)
		return err;
	if ((l->type->kind != GO_KIND_STRUCT && l->type->kind != GO_KIND_ARRAY) ||
	    !in_memory(l, &stack_offset)) {
		err = planner__emit(pl, l, 0, l->type->size, src);
		if (!err && !src->unreadable)
			err = plan_value_refs(pl, l);
		return err;
	}
	if (!l->type->size)
		return 0;
	/* its first bytes: read only when the value can be (not behind
	 * nil, past a length or unreadable memory) */
	err = planner__emit(pl, l, 0, l->type->size < 8 ? l->type->size : 8,
			    &gate);
	if (!err && !l->abi) {
		word = l->base;
		r.offset = l->off;
	} else if (!err) {
		err = planner__sp_reg(pl, &sp_reg);
		sp.reg = sp_reg;
		if (!err)
			err = planner__add_word(pl, sp, &word);
		r.offset = stack_offset;
	}
	if (!err)
		err = value_types__id(pl->vtypes, l->type, &r.vtype);
	if (err)
		return err;
	if (r.offset != (int32_t)r.offset)
		return gt_error(-E2BIG, "%s: a value too far from its base", pl->func);
	r.word0 = word;
	r.word1 = gate.w[0].word;
	src->root_word = word;
	src->root_gate = gate.w[0].word;
	src->root_offset = r.offset;
	return add_vroot(pl, r);
}

int planner__conv(struct planner *pl, const struct trace_conv *c,
		  struct trace_src *src)
{
	const struct trace_expr *x = &c->expr;
	struct loc l;
	int err;

	src->str = -1;
	src->type_word = -1;
	src->root_word = -1;
	err = planner__resolve(pl, x, pl->probe->ret, &l);
	if (!err && gccgo_by_reference(pl, c, &l))
		err = planner__deref(pl, &l, x->text);
	if (err)
		return err;
	/* an interface's shape is still an interface: its dynamic type */
	if (c->kind == TRACE_CONV_TYPE && is_shape(l.type) && pl->dwarf &&
	    l.type->kind != GO_KIND_EFACE && l.type->kind != GO_KIND_IFACE) {
		src->type = l.type;
		return plan_dict_type(pl, x, &l, src);
	}
	if (!conv_fits(c->kind, l.type))
		return gt_error(-EINVAL, "%s: '%s' is %s, which %%%s cannot print",
				pl->func, x->text, type_name(l.type),
				c->kind == TRACE_CONV_TYPE ? "T (interfaces only)" :
				c->kind == TRACE_CONV_STR ? "s (strings, []byte)" :
				c->kind == TRACE_CONV_FLOAT ? "f" :
				c->kind == TRACE_CONV_BOOL ? "t" : "d/u/x/c/p");
	src->type = l.type;
	switch (c->kind) {
	case TRACE_CONV_STR:
		err = planner__emit(pl, &l, 0, 16, src);
		if (!err && !src->unreadable)
			err = plan_bytes(pl, &l, pl->str_max, &src->str);
		return err;
	case TRACE_CONV_TYPE:
		return plan_dynamic_type(pl, &l, src);
	case TRACE_CONV_VALUE:
		err = plan_value(pl, &l, src);
		if (!err && is_shape(l.type) && pl->dwarf && !pl->probe->ret &&
		    l.type->kind != GO_KIND_EFACE && l.type->kind != GO_KIND_IFACE)
			plan_dict_mark(pl, &l, src);
		return err;
	default:
		return planner__emit(pl, &l, 0, l.type->size, src);
	}
}

static const enum trace_term_op term_ops[] = {
	[TRACE_OP_EQ] = TERM_EQ, [TRACE_OP_NE] = TERM_NE,
	[TRACE_OP_LT] = TERM_LT, [TRACE_OP_LE] = TERM_LE,
	[TRACE_OP_GT] = TERM_GT, [TRACE_OP_GE] = TERM_GE,
};

/* A string comparison: BPF reads at least the constant's bytes. */
static int plan_string_term(struct planner *pl, const struct trace_term *t,
			    const struct loc *l, struct trace_cmp *out)
{
	int str, err;

	if (!is_bytes(l->type))
		return gt_error(-EINVAL, "%s: '%s' is %s, not a string", pl->func,
				t->expr.text, type_name(l->type));
	if (t->str_len > TRACE_TERM_STR_MAX)
		return gt_error(-EINVAL, "a filter string longer than %d bytes",
				TRACE_TERM_STR_MAX);
	err = plan_bytes(pl, l, t->str_len, &str);
	if (err)
		return err;
	out->flags |= TERM_STRING;
	out->str = str;
	out->value = t->str_len;
	memcpy(out->bytes, t->str, t->str_len);
	return 0;
}

/* An integer comparison: one word, shifted and masked to the value. */
static int plan_int_term(struct planner *pl, const struct trace_term *t,
			 const struct loc *l, struct trace_cmp *out)
{
	struct trace_src src = { 0 };
	const struct go_type *type = l->type;
	uint64_t off = 0, size = type->size;
	int err;

	/* nil interfaces and slices have a zero first word, an empty string a
	 * zero length */
	if (!go_type__is_int_word(type)) {
		if (type->kind == GO_KIND_STRING)
			off = 8;
		else if (type->kind != GO_KIND_IFACE && type->kind != GO_KIND_EFACE &&
			 type->kind != GO_KIND_SLICE)
			return gt_error(-EINVAL, "%s: '%s' is %s, which a filter cannot compare",
					pl->func, t->expr.text, type_name(type));
		if (t->value || (t->op != TRACE_OP_EQ && t->op != TRACE_OP_NE))
			return gt_error(-EINVAL, "%s: '%s' is %s: only == nil and != nil compare it",
					pl->func, t->expr.text, type_name(type));
		size = 8;
	}
	if (t->negative && type->kind != GO_KIND_INT)
		return gt_error(-EINVAL, "%s: '%s' is unsigned, compared with a negative number",
				pl->func, t->expr.text);
	err = planner__emit(pl, l, off, size, &src);
	if (err)
		return err;
	if (src.unreadable)
		return gt_error(-EINVAL, "%s: '%s' is %s", pl->func, t->expr.text,
				!strcmp(src.unreadable, "<xmm>") ?
				"in an XMM register, which BPF cannot read" :
				"not recorded there (<optimized out>)");
	if (src.nwords != 1)
		return gt_error(-EINVAL, "%s: '%s' is split in pieces a filter cannot compare",
				pl->func, t->expr.text);
	out->word = src.w[0].word;
	out->shift = src.w[0].reg_shift;
	out->size = size;
	out->value = t->value;
	if (type->kind == GO_KIND_INT)
		out->flags |= TERM_SIGNED;
	return 0;
}

int planner__term(struct planner *pl, const struct trace_term *t,
		  struct trace_cmp *out)
{
	struct loc l;
	int err;

	memset(out, 0, sizeof(*out));
	out->op = term_ops[t->op];
	if (t->or_next)
		out->flags |= TERM_OR;
	err = planner__resolve(pl, &t->expr, pl->probe->ret, &l);
	if (err)
		return err;
	if (t->kind == TRACE_CONST_STR)
		return plan_string_term(pl, t, &l, out);
	return plan_int_term(pl, t, &l, out);
}
