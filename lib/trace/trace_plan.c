// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/call_sites.h"
#include "goabi/go_abi.h"
#include "gobin/pclntab.h"
#include "goabi/goroutine.h"
#include "trace/trace_plan.h"
#include "cookie.h"

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

/* gccgo's type descriptor (libgo's runtime._type): size, ptrdata, hash,
 * tflag, align, fieldAlign, kind, equal, gcdata, then *string. */
#define GCCGO_TYPE_STRING	40

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
};

/* A row for FUNC of PROBE in BIN at *IDX; its plan is interned once
 * planned (plan_set__add_plan). */
static int plan_set__add_row(struct trace_plan_set *s,
			     const struct go_binary *bin, const char *func,
			     const struct trace_probe *probe, size_t *idx)
{
	struct trace_row *row;
	int err;

	err = gt_ensure_mem((void **)&s->rows, &s->rows_cap, sizeof(*s->rows),
			    s->nrows + 1);
	if (err)
		return err;
	row = &s->rows[s->nrows];
	memset(row, 0, sizeof(*row));
	row->func = strdup(func);
	row->src = probe->nconvs ?
		calloc(probe->nconvs, sizeof(struct trace_src)) : NULL;
	if (!row->func || (probe->nconvs && !row->src)) {
		free(row->func);
		free(row->src);
		return gt_error(-ENOMEM, "out of memory");
	}
	row->bin = bin;
	row->probe = probe;
	*idx = s->nrows++;
	return 0;
}

/* Take back the last row, whose plan could not be made. */
static void plan_set__drop_row(struct trace_plan_set *s)
{
	struct trace_row *row = &s->rows[--s->nrows];

	free(row->func);
	free(row->src);
}

/* Where BIN keeps goroutines: goroutine.h's layout, looked up once a
 * binary; gccgo's ids are out of reach (zeros: the GOID column says -). */
static int plan_set__goroutines(struct trace_plan_set *s,
				const struct go_binary *bin,
				const struct goroutine_layout **out)
{
	struct trace_plan_goroutines *g;
	size_t i;
	int err;

	for (i = 0; i < s->ngoroutines; i++) {
		if (s->goroutines[i].bin == bin) {
			*out = &s->goroutines[i].layout;
			return 0;
		}
	}
	err = gt_ensure_mem((void **)&s->goroutines, &s->goroutines_cap,
			    sizeof(*s->goroutines), s->ngoroutines + 1);
	if (err)
		return err;
	g = &s->goroutines[s->ngoroutines];
	memset(g, 0, sizeof(*g));
	g->bin = bin;
	if (!bin->is_gccgo) {
		err = goroutine_layout__find(bin, &g->layout);
		if (err)
			return err;
	}
	s->ngoroutines++;
	*out = &g->layout;
	return 0;
}

/* PLAN, planned for row IDX, stored as that row's, or the equal plan
 * already stored (the binary's layout is known: plan_set__goroutines()
 * ran before planning, so that its errors are not taken for planning's). */
static int plan_set__add_plan(struct trace_plan_set *s, size_t idx,
			      struct trace_plan *plan)
{
	const struct goroutine_layout *layout;
	int err;

	err = plan_set__goroutines(s, s->rows[idx].bin, &layout);
	if (err)
		return err;
	plan->goid_offset = layout->goid_offset;
	plan->tls_g_offset = layout->tls_g_offset;
	return plan_table__intern(&s->plans, plan, &s->rows[idx].plan);
}

void trace_plan_set__free(struct trace_plan_set *s)
{
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		free(s->rows[i].func);
		free(s->rows[i].src);
	}
	free(s->rows);
	free(s->goroutines);
	s->rows = NULL;
	s->goroutines = NULL;
	s->nrows = s->rows_cap = s->ngoroutines = s->goroutines_cap = 0;
	plan_table__free(&s->plans);
	left_out__free(&s->left_out);
	value_types__free(&s->vtypes);
}

/* The index of word W in the plan, added unless the same read is there. */
static int add_word(struct planner *pl, struct trace_word w, int *idx)
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

/* Memory words for bytes [0, SIZE) at (register REG, or word BASE) + OFF,
 * put at VALUE_OFFSET on in the value; GUARD and INDEX as in struct loc. */
static int emit_memory(struct planner *pl, struct trace_src *src,
		       unsigned int reg, int base, int64_t off, uint64_t size,
		       uint64_t value_offset, unsigned int guard, uint32_t index)
{
	uint64_t k;
	int idx, err = 0;

	for (k = 0; k < size && !err; k += 8) {
		struct trace_word w = {
			.kind = WORD_MEM, .reg = reg, .base = base,
			.size = size - k < 8 ? size - k : 8, .offset = off + k,
			.guard = guard, .index = index,
		};

		err = add_word(pl, w, &idx);
		if (!err)
			err = src_add(pl, src, idx, value_offset + k, 0, w.size);
	}
	return err;
}

/* The words of bytes [OFF, OFF + SIZE) of the value at L into SRC, their
 * value offsets counted from OFF. */
static int emit(struct planner *pl, const struct loc *l, uint64_t off,
		uint64_t size, struct trace_src *src)
{
	uint64_t start = l->off + off, end = start + size;
	size_t i;
	int idx, err = 0;

	if (!l->abi)
		return emit_memory(pl, src, 0, l->base, start, size, 0,
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
			err = add_word(pl, w, &idx);
			if (!err)
				err = src_add(pl, src, idx, lo - start,
					      p->reg_offset + (lo - ps), hi - lo);
			break;
		case GO_PIECE_STACK:
		case GO_PIECE_MEM:
			err = emit_memory(pl, src,
					  p->kind == GO_PIECE_STACK ? GO_REG_RSP : p->reg,
					  TRACE_NO_BASE, p->mem_offset + (lo - ps),
					  hi - lo, lo - start, 0, 0);
			break;
		}
	}
	return err;
}

/* The one word holding the 8 bytes at OFF of L (a pointer, a length). */
static int emit_word(struct planner *pl, const struct loc *l, uint64_t off,
		     const char *what, int *idx)
{
	struct trace_src src = { 0 };
	int err = emit(pl, l, off, 8, &src);

	if (err)
		return err;
	if (src.unreadable || src.nwords != 1 || src.w[0].reg_shift ||
	    src.w[0].size != 8)
		return gt_error(-EINVAL, "%s: cannot read %s as one word",
				pl->func, what);
	*idx = src.w[0].word;
	return 0;
}

static bool is_dict(const struct go_dwarf_var *v)
{
	return v->name && v->name[0] == '.';
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
			if (is_dict(&pl->sig.params[i]))
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

/* Follow the pointer at L: L becomes what it points to. */
static int deref(struct planner *pl, struct loc *l, const char *text)
{
	int idx, err;

	if (!l->type->elem)
		return gt_error(-EINVAL, "%s: '%s': cannot follow an unsafe.Pointer",
				pl->func, text);
	err = emit_word(pl, l, 0, "a pointer", &idx);
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

static const char *type_name(const struct go_type *t)
{
	return t->name ? t->name : "the value";
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
	err = emit_word(pl, l, 8, "a length", &len);
	if (!err)
		err = emit_word(pl, l, 0, "a pointer", &ptr);
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

static int find_type(void *ctx, const char *name, const struct go_type **out)
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
	int err = find_type(pl, x->conv, &t);

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

/* Where the value of X is, and its type. */
static int resolve(struct planner *pl, const struct trace_expr *x, bool ret,
		   struct loc *l)
{
	size_t i, k;
	int err = resolve_base(pl, x, ret, l);

	if (!err && x->conv && pl->dwarf)
		err = convert(pl, x, l);
	for (i = 0; i < x->nfields && !err; i++) {
		const struct go_type *t;

		if (l->type->kind == GO_KIND_PTR) {
			err = deref(pl, l, x->text);
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

/* Integers, and what is an integer word to BPF: pointers, maps, chans. */
static bool is_word(const struct go_type *t)
{
	switch (t->kind) {
	case GO_KIND_BOOL:
	case GO_KIND_INT:
	case GO_KIND_UINT:
	case GO_KIND_PTR:
	case GO_KIND_MAP:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		return true;
	default:
		return false;
	}
}

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
		return is_word(t);
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

	err = emit_word(pl, l, 0, "a string's pointer", &ptr);
	if (!err)
		err = emit_word(pl, l, 8, "a string's length", &len);
	return err ? err : add_string(pl, ptr, len, max, str);
}

/* gccgo passes a value receiver by reference: printed as anything but a
 * pointer, it is read through that reference. */
static bool gccgo_by_reference(const struct planner *pl,
			       const struct trace_conv *c, const struct loc *l)
{
	const struct trace_expr *x = &c->expr;

	return pl->dwarf && pl->gccgo_method && l->abi == &pl->layout.args[0] &&
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

	err = emit_word(pl, l, 0, "an interface", &idx);
	if (!err && l->type->kind == GO_KIND_IFACE)
		err = emit_memory(pl, &tmp, 0, idx, pl->bin->is_gccgo ? 0 : 8, 8, 0,
				  0, 0);
	if (err)
		return err;
	if (tmp.nwords)
		idx = tmp.w[0].word;
	src->type_word = idx;
	if (!pl->bin->is_gccgo)
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	err = emit_memory(pl, &tmp, 0, idx, GCCGO_TYPE_STRING, 8, 0, 0, 0);
	if (err)
		return err;
	name = tmp.w[0].word;
	err = emit_memory(pl, &tmp, 0, name, 0, 16, 0, 0, 0);
	if (err)
		return err;
	ptr = tmp.w[1].word;
	len = tmp.w[2].word;
	return add_string(pl, ptr, len, TRACE_STR_MAX, &src->str);
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

		err = emit_word(pl, l, slots[i].offset, "a reference", &w0);
		w1 = w0;
		if (!err && r.kind != REF_PTR && r.kind != REF_MAP)
			err = emit_word(pl, l, slots[i].offset + 8,
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
	struct trace_word sp = { .kind = WORD_REG, .reg = GO_REG_RSP, .size = 8,
				 .base = TRACE_NO_BASE };
	int64_t stack_offset = 0;
	int word, err = 0;

	if (!pl->vtypes->ntypes)
		err = value_types__init(pl->vtypes,
				       go_version__minor(pl->bin->version));
	if (err)
		return err;
	if ((l->type->kind != GO_KIND_STRUCT && l->type->kind != GO_KIND_ARRAY) ||
	    !in_memory(l, &stack_offset)) {
		err = emit(pl, l, 0, l->type->size, src);
		if (!err && !src->unreadable)
			err = plan_value_refs(pl, l);
		return err;
	}
	if (!l->type->size)
		return 0;
	/* its first bytes: read only when the value can be (not behind
	 * nil, past a length or unreadable memory) */
	err = emit(pl, l, 0, l->type->size < 8 ? l->type->size : 8, &gate);
	if (!err && !l->abi) {
		word = l->base;
		r.offset = l->off;
	} else if (!err) {
		err = add_word(pl, sp, &word);
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

static int plan_conv(struct planner *pl, const struct trace_conv *c,
		     struct trace_src *src)
{
	const struct trace_expr *x = &c->expr;
	struct loc l;
	int err;

	src->str = -1;
	src->type_word = -1;
	src->root_word = -1;
	err = resolve(pl, x, pl->probe->ret, &l);
	if (!err && gccgo_by_reference(pl, c, &l))
		err = deref(pl, &l, x->text);
	if (err)
		return err;
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
		err = emit(pl, &l, 0, 16, src);
		if (!err && !src->unreadable)
			err = plan_bytes(pl, &l, pl->str_max, &src->str);
		return err;
	case TRACE_CONV_TYPE:
		return plan_dynamic_type(pl, &l, src);
	case TRACE_CONV_VALUE:
		return plan_value(pl, &l, src);
	default:
		return emit(pl, &l, 0, l.type->size, src);
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
	if (!is_word(type)) {
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
	err = emit(pl, l, off, size, &src);
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

static int plan_term(struct planner *pl, const struct trace_term *t,
		     struct trace_cmp *out)
{
	struct loc l;
	int err;

	memset(out, 0, sizeof(*out));
	out->op = term_ops[t->op];
	if (t->or_next)
		out->flags |= TERM_OR;
	err = resolve(pl, &t->expr, pl->probe->ret, &l);
	if (err)
		return err;
	if (t->kind == TRACE_CONST_STR)
		return plan_string_term(pl, t, &l, out);
	return plan_int_term(pl, t, &l, out);
}

/*
 * Is NAME a method in gccgo's spelling, PKG.T.M (for value and pointer
 * receivers alike)? Its receiver then goes first, and gccgo passes a value
 * receiver by reference.
 */
static bool gccgo_method(const char *name)
{
	const char *base = strrchr(name, '/'), *dot;

	base = base ? base + 1 : name;
	if (strstr(base, ".."))
		return false;
	dot = strchr(base, '.');
	return dot && (dot = strchr(dot + 1, '.')) && !strchr(dot + 1, '.');
}

/* Does DWARF type every parameter and result of SIG? */
static bool sig_typed(const struct go_dwarf_sig *sig)
{
	size_t i;

	for (i = 0; i < sig->nparams; i++)
		if (!sig->params[i].type)
			return false;
	for (i = 0; i < sig->nresults; i++)
		if (!sig->results[i].type)
			return false;
	return true;
}

/* Place the function's parameters and results as DWARF declares them
 * (a shape function's .dict among them, where the ABI passes it). */
static int layout_from_dwarf(struct planner *pl)
{
	const struct go_type **types;
	struct go_abi_sig sig = { 0 };
	size_t i, n = pl->sig.nparams + pl->sig.nresults;
	int err;

	types = calloc(n ? n : 1, sizeof(*types));
	if (!types)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < pl->sig.nparams; i++)
		types[i] = pl->sig.params[i].type;
	for (i = 0; i < pl->sig.nresults; i++)
		types[pl->sig.nparams + i] = pl->sig.results[i].type;
	sig.params = types;
	sig.nparams = pl->sig.nparams;
	sig.results = types + pl->sig.nparams;
	sig.nresults = pl->sig.nresults;
	err = go_abi__assign(pl->sig.abi, &sig, &pl->layout);
	free(types);
	return err;
}

/*
 * Under the stack ABI the results follow the arguments, whose types an r:
 * probe's format does not give. _func.args (pclntab) is the size of both:
 * taking the printed results for all of them, they end there.
 */
static int move_stack_results(struct planner *pl, uint64_t addr)
{
	const struct pclntab *tab = pl->bin->pclntab;
	struct go_abi_layout *l = &pl->layout;
	size_t lo = 0, hi = tab ? tab->nfuncs : 0, mid, i, k;
	int32_t args;
	int64_t shift;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tab->funcs[mid].entry < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!tab || lo == tab->nfuncs || tab->funcs[lo].entry != addr ||
	    pclntab__func_args(tab, lo, &args) || args < 0)
		return gt_error(-ENOTSUP, "the size of its arguments is not in pclntab: results of a stack-ABI function need DWARF");
	shift = (int64_t)args - (int64_t)l->frame_size;
	if (shift < 0)
		return gt_error(-EINVAL, "the results printed take %llu bytes, more than its %d bytes of arguments and results",
				(unsigned long long)l->frame_size, args);
	for (i = 0; i < l->nresults; i++)
		for (k = 0; k < l->results[i].npieces; k++)
			l->results[i].pieces[k].mem_offset += shift;
	return 0;
}

/* Is NAME, a shape instantiation, a method (main.(*box[...]).put,
 * main.box[...].get), whose receiver comes before the dictionary, rather
 * than a function (main.maxOf[...])? Its name goes on after the type
 * arguments. */
static bool generic_method(const char *name)
{
	const char *end = strrchr(name, ']');

	return end && end[1];
}

/* Place the values the format types (no DWARF). A shape instantiation
 * takes a hidden dictionary; pclntab spells every instantiation F[...]
 * before Go 1.20: in a stripped binary an F[...] is taken for the shape
 * one. */
static int layout_from_format(struct planner *pl, uint64_t addr,
			      uint64_t c_result_size)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS], *mem_result;
	struct trace_type_finder finder = { find_type, pl };
	const struct trace_probe *probe = pl->probe;
	struct go_abi_sig sig = { 0 };
	struct go_type big;
	size_t n;
	int err;

	err = trace_probe__types(probe, probe->ret, &finder, types, &n);
	if (err)
		return err;
	if ((strstr(pl->func, "[go.shape.") || strstr(pl->func, "[...]")) &&
	    !pl->bin->is_gccgo)
		sig.dict = go_abi__dict_position(go_version__minor(pl->bin->version));
	if (probe->ret) {
		sig.results = types;
		sig.nresults = n;
	} else if (n && (pl->gccgo_method ||
			 (sig.dict != GO_DICT_NONE && generic_method(pl->func)))) {
		sig.recv = types[0];
		sig.params = types + 1;
		sig.nparams = n - 1;
	} else {
		sig.params = types;
		sig.nparams = n;
	}
	/* gccgo: results over 16 bytes go to memory whose address takes RDI;
	 * any such result stands for the real ones */
	if (n && !probe->ret && c_result_size > 16) {
		err = go_type__init_array(&big, &go_type_uint8, 32);
		if (err)
			return err;
		mem_result = &big;
		sig.results = &mem_result;
		sig.nresults = 1;
	}
	err = go_abi__assign(pl->bin->abi, &sig, &pl->layout);
	if (!err && probe->ret && n && pl->bin->abi == GO_ABI_STACK)
		err = move_stack_results(pl, addr);
	return err;
}

/*
 * Without DWARF: the signature of the method at ADDR from its receiver
 * type's method table, as DWARF would give it (unnamed) into PL->sig, its
 * values in VARS (room for 2 * TRACE_PROBE_MAX_ARGS + 2). Returns 0, or
 * -ENOENT when ADDR is no method the type data types.
 */
static int method_sig(struct planner *pl, uint64_t addr,
		      struct go_dwarf_var *vars)
{
	struct go_method_sig m;
	size_t i;

	if (go_typedata__method(pl->td, pl->bin, addr, &m) ||
	    m.nparams + 1 > TRACE_PROBE_MAX_ARGS ||
	    m.nresults > TRACE_PROBE_MAX_ARGS + 1) {
		gt_error_clear();
		return -ENOENT;
	}
	vars[0] = (struct go_dwarf_var){ "", m.recv };
	for (i = 0; i < m.nparams; i++)
		vars[1 + i] = (struct go_dwarf_var){ "", m.params[i] };
	for (i = 0; i < m.nresults; i++)
		vars[1 + m.nparams + i] = (struct go_dwarf_var){ "", m.results[i] };
	memset(&pl->sig, 0, sizeof(pl->sig));
	pl->sig.params = vars;
	pl->sig.nparams = 1 + m.nparams;
	pl->sig.results = vars + 1 + m.nparams;
	pl->sig.nresults = m.nresults;
	pl->sig.abi = pl->bin->abi;
	return 0;
}

/*
 * A row for PL's function: its values and filter planned from PL's
 * layout (freed here), its plan stored. Nothing is added when any of it
 * fails.
 */
static int plan_set__add_planned(struct trace_plan_set *s,
				 struct planner *pl, size_t *idx)
{
	const struct trace_probe *probe = pl->probe;
	struct trace_plan plan;
	size_t i;
	int err;

	err = plan_set__add_row(s, pl->bin, pl->func, probe, idx);
	if (err)
		goto out;
	memset(&plan, 0, sizeof(plan));	/* plans are compared as bytes */
	pl->plan = &plan;
	pl->str_max = s->str_max;
	for (i = 0; i < probe->nconvs && !err; i++)
		err = plan_conv(pl, &probe->convs[i], &s->rows[*idx].src[i]);
	for (i = 0; i < probe->nterms && !err; i++)
		err = plan_term(pl, &probe->terms[i], &plan.terms[i]);
	plan.nterms = probe->nterms;
	pl->plan = NULL;
	if (!err)
		err = plan_set__add_plan(s, *idx, &plan);
	if (err)
		plan_set__drop_row(s);
out:
	go_abi_layout__free(&pl->layout);
	return err;
}

/* The plan of PROBE for the function NAME at ADDR. */
static int plan_row(struct trace_plan_set *s, const struct go_binary *bin,
		    struct go_dwarf *dw, struct go_typedata *td,
		    const struct trace_probe *probe, const char *name,
		    uint64_t addr, size_t *idx)
{
	struct planner pl = {
		.bin = bin, .func = name, .probe = probe,
		.gccgo_method = bin->is_gccgo && gccgo_method(name),
		.vtypes = &s->vtypes, .td = td,
	};
	struct go_dwarf_var vars[TRACE_PROBE_MAX_ARGS * 2 + 2];
	int err;

	/* DWARF that misses a parameter would misplace the rest: then the
	 * format types the values, as without DWARF */
	if (dw && !go_dwarf__func_sig(dw, addr, &pl.sig) && sig_typed(&pl.sig) &&
	    pl.sig.abi != GO_ABI_UNKNOWN)
		pl.dwarf = true;
	else if (!bin->is_gccgo && td && !method_sig(&pl, addr, vars))
		pl.dwarf = true;	/* typed as DWARF would */
	if (pl.dwarf)
		err = layout_from_dwarf(&pl);
	else
		err = layout_from_format(&pl, addr, dw ? pl.sig.c_result_size : 0);
	if (err)
		return gt_error(err, "%s: %s", name, gt_last_error());
	return plan_set__add_planned(s, &pl, idx);
}

/* The probes of one plan at the sites CS of its function: the entry, or
 * for r: every exit. */
static int add_sites(struct trace_plan_set *s, const struct trace_probe *probe,
		     const struct func_probe *p, size_t idx,
		     const struct call_sites *cs, struct uprobe_list *sites)
{
	uint64_t g = call_sites__g_flag(cs);
	size_t i;
	int err = 0;

	if (!probe->ret) {
		if (s->verbose)
			fprintf(stderr, "probe %s at 0x%llx (%s)\n", p->name,
				(unsigned long long)cs->entry.addr,
				probe_site_kind__str(cs->entry.kind));
		return uprobe_list__add(sites, cs->entry_offset,
					COOKIE_MAKE(idx, cs->entry.skip_flags, g |
					COOKIE_COST_FLAG(cs->entry.emulated)));
	}
	for (i = 0; i < cs->nexits && !err; i++) {
		if (s->verbose)
			fprintf(stderr, "probe r:%s at 0x%llx (%s)\n", p->name,
				(unsigned long long)cs->exits[i].addr,
				exit_kind__str(cs->exits[i].kind));
		err = uprobe_list__add(sites, cs->exits[i].offset,
				       COOKIE_MAKE(idx, 0, g |
					COOKIE_COST_FLAG(cs->exits[i].emulated) |
					(cs->exits[i].kind == EXIT_TAIL_JMP ?
					 COOKIE_TAIL : 0)));
	}
	return err;
}

int trace_plan_set__add(struct trace_plan_set *s, const struct go_binary *bin,
			struct go_dwarf *dw, struct go_typedata *td,
			const struct trace_probe *probe,
			const struct func_probe *p, struct uprobe_list *sites)
{
	const struct goroutine_layout *layout;
	struct call_sites cs;
	size_t idx = 0;
	int err;

	err = plan_set__goroutines(s, bin, &layout);
	if (err)
		return err;
	err = call_sites__find(bin, p, probe->ret ? CALL_SITES_EXITS :
					CALL_SITES_ENTRY, &s->left_out, &cs);
	if (err) {
		err = err < 0 ? err : 0;	/* 1: left out */
		goto out;
	}
	err = plan_row(s, bin, dw, td, probe, p->name, p->func_addr, &idx);
	if (err)
		goto out;
	err = add_sites(s, probe, p, idx, &cs, sites);
out:
	call_sites__free(&cs);
	return err;
}

/*
 * The arguments of an inlined copy at its first instruction, SITE, where
 * DWARF's location lists put them: registers, and frame slots at the call
 * frame address (SP + the frame size there, by the pcsp table, + 8); what
 * is not recorded there is a NONE piece. PARAMS[N] into PL's signature
 * (VARS) and layout.
 */
static int inline_layout(struct planner *pl, uint64_t site,
			 const struct go_dwarf_inline_param *params, size_t n,
			 struct go_dwarf_var *vars)
{
	struct go_abi_layout *l = &pl->layout;
	int32_t frame = -1;
	size_t i, k;

	if (!pl->bin->pclntab || pclntab__frame_size_at(pl->bin->pclntab, site, &frame))
		frame = -1;
	gt_error_clear();
	l->args = calloc(n ? n : 1, sizeof(*l->args));
	if (!l->args)
		return gt_error(-ENOMEM, "out of memory");
	l->nargs = n;
	for (i = 0; i < n; i++) {
		struct go_abi_value *v = &l->args[i];
		uint64_t at = 0;

		vars[i] = (struct go_dwarf_var){ params[i].name ? params[i].name : "",
						 params[i].type };
		v->type = params[i].type;
		v->spill_offset = -1;
		for (k = 0; k < params[i].npieces && k < GO_ABI_MAX_PIECES; k++) {
			const struct go_dwarf_loc_piece *d = &params[i].pieces[k];
			struct go_abi_piece *p = &v->pieces[v->npieces++];

			p->size = d->size;
			p->value_offset = at;
			at += d->size;
			if (d->kind == GO_DWARF_LOC_REG && d->reg < 16) {
				p->kind = GO_PIECE_IREG;
				p->reg = d->reg;
			} else if (d->kind == GO_DWARF_LOC_REG && d->reg >= 17 &&
				   d->reg <= 32) {
				p->kind = GO_PIECE_FREG;
				p->reg = d->reg - 17;
			} else if (d->kind == GO_DWARF_LOC_CFA && frame >= 0) {
				p->kind = GO_PIECE_STACK;
				p->mem_offset = frame + 8 + d->offset;
			} else {
				p->kind = GO_PIECE_NONE;
			}
		}
		/* not recorded at all, or not as large as its type */
		if (v->type && at < v->type->size && v->npieces < GO_ABI_MAX_PIECES) {
			struct go_abi_piece *p = &v->pieces[v->npieces++];

			*p = (struct go_abi_piece){ .kind = GO_PIECE_NONE,
						    .size = v->type->size - at,
						    .value_offset = at };
		}
	}
	memset(&pl->sig, 0, sizeof(pl->sig));
	pl->sig.params = vars;
	pl->sig.nparams = n;
	pl->sig.abi = pl->bin->abi;
	pl->dwarf = true;
	return 0;
}

/* An inlined copy's plan from the arguments DWARF places at its start. */
static int plan_inlined_row(struct trace_plan_set *s, const struct go_binary *bin,
			    struct go_dwarf *dw, const struct trace_probe *probe,
			    const struct func_probe *p, size_t *idx)
{
	struct go_dwarf_var vars[TRACE_PROBE_MAX_ARGS * 2];
	struct go_dwarf_inline_param *params = NULL;
	struct planner pl = {
		.bin = bin, .func = p->name, .probe = probe,
		.vtypes = &s->vtypes,
	};
	size_t n, i;
	int err;

	err = go_dwarf__inline_params(dw, p->site.addr, p->name, &params, &n);
	if (!err && n > TRACE_PROBE_MAX_ARGS * 2)
		err = -E2BIG;
	for (i = 0; !err && i < n; i++)
		if (!params[i].type)
			err = -ENOENT;	/* DWARF does not type it */
	if (!err)
		err = inline_layout(&pl, p->site.addr, params, n, vars);
	free(params);
	if (err)
		return err;
	return plan_set__add_planned(s, &pl, idx);
}

/* Without DWARF's places: every value <optimized out>, no filter. */
static int plan_inlined_blind(struct trace_plan_set *s,
			      const struct go_binary *bin,
			      const struct trace_probe *probe,
			      const struct func_probe *p, size_t *idx)
{
	struct trace_plan plan;
	struct trace_src *src;
	size_t i;
	int err;

	if (probe->nterms)
		return left_out__add(&s->left_out, LEFT_OUT_INLINED_FILTER,
				     "%s [inlined] at 0x%llx: a filter on arguments Go did not record there",
				     p->name, (unsigned long long)p->site.addr) ?: 1;
	err = plan_set__add_row(s, bin, p->name, probe, idx);
	if (err)
		return err;
	for (i = 0; i < probe->nconvs; i++) {
		src = &s->rows[*idx].src[i];
		src->unreadable = "<optimized out>";
		src->str = -1;
		src->type_word = -1;
		src->root_word = -1;
	}
	memset(&plan, 0, sizeof(plan));	/* reads nothing */
	err = plan_set__add_plan(s, *idx, &plan);
	if (err)
		plan_set__drop_row(s);
	return err;
}

int trace_plan_set__add_inlined(struct trace_plan_set *s,
				const struct go_binary *bin,
				struct go_dwarf *dw,
				const struct trace_probe *probe,
				const struct func_probe *p,
				struct uprobe_list *sites)
{
	uint64_t flags = COOKIE_COST_FLAG(p->site.emulated);
	const struct goroutine_layout *layout;
	int32_t frame;
	size_t idx;
	int err;

	err = plan_set__goroutines(s, bin, &layout);
	if (err)
		return err;
	err = dw ? plan_inlined_row(s, bin, dw, probe, p, &idx) : -ENOENT;
	/* a value a filter tests is not recorded there: left out */
	if (err == -EINVAL && probe->nterms) {
		return left_out__add(&s->left_out, LEFT_OUT_INLINED_FILTER,
				     "%s [inlined] at 0x%llx: %s", p->name,
				     (unsigned long long)p->site.addr,
				     gt_last_error());
	}
	if (err == -ENOENT || err == -E2BIG) {
		gt_error_clear();
		err = plan_inlined_blind(s, bin, probe, p, &idx);
		if (err == 1)
			return 0;	/* left out */
	}
	if (err)
		return err;
	s->rows[idx].inlined = true;
	if (s->verbose)
		fprintf(stderr, "probe %s [inlined] at 0x%llx (%s)\n", p->name,
			(unsigned long long)p->site.addr,
			probe_site_kind__str(p->site.kind));
	/* the frame of the code the copy is in is set up, unless pcsp says
	 * it has none there (where nothing says, no return address is read
	 * off the stack: a frame missing from -U, never a wrong one) */
	if (!bin->pclntab ||
	    pclntab__frame_size_at(bin->pclntab, p->site.addr, &frame) ||
	    frame)
		flags |= COOKIE_IN_FRAME;
	gt_error_clear();
	/* g from TLS: the copy's code is its caller's, whatever its ABI */
	return uprobe_list__add(sites, p->offset,
				COOKIE_MAKE(idx, p->site.skip_flags, flags));
}

/* The marker of word W of E that could not be read, or NULL. */
static const char *word_marker(const struct trace_event *e, unsigned int w)
{
	if (w >= TRACE_MAX_WORDS || (e->word_faults >> w) & 1)
		return "<fault>";
	if ((e->word_oob >> w) & 1)
		return "<out of range>";
	if ((e->word_nils >> w) & 1)
		return "<nil>";
	return NULL;
}

/* The bytes of SRC's value from E's words into BYTES (SIZE of them), or
 * the marker of a word that could not be read. */
static const char *src_bytes(const struct trace_src *src,
			     const struct trace_event *e, uint8_t *bytes,
			     size_t size)
{
	const char *marker;
	size_t k;

	memset(bytes, 0, size);
	for (k = 0; k < src->nwords; k++) {
		unsigned int w = src->w[k].word;
		uint64_t word;

		marker = word_marker(e, w);
		if (marker)
			return marker;
		word = e->words[w] >> (8 * src->w[k].reg_shift);
		if (src->w[k].value_offset + src->w[k].size <= size)
			memcpy(bytes + src->w[k].value_offset, &word,
			       src->w[k].size > 8 ? 8 : src->w[k].size);
	}
	return NULL;
}

void trace_row__value(const struct trace_row *row, size_t i,
		      const struct trace_event *e, unsigned int str_max,
		      struct trace_value *v)
{
	const struct trace_src *src = &row->src[i];
	uint8_t bytes[16];
	uint64_t len;

	memset(v, 0, sizeof(*v));
	v->type = src->type;
	if (e->tail) {
		v->unreadable = "<tail call>";
		return;
	}
	v->unreadable = src->unreadable;
	if (src->type_word >= 0) {
		unsigned int w = src->type_word;

		/* behind a nil itab: a nil interface, word 0 */
		if (w >= TRACE_MAX_WORDS || (e->word_faults >> w) & 1)
			v->unreadable = "<fault>";
		else if ((e->word_oob >> w) & 1)
			v->unreadable = "<out of range>";
		else if (!((e->word_nils >> w) & 1))
			v->word = e->words[w];
		/* gccgo: the name BPF read */
		if (v->word && src->str >= 0 && src->str < TRACE_MAX_STRS &&
		    !((e->str_faults >> src->str) & 1)) {
			v->str = e->str[src->str];
			v->str_len = e->str_len[src->str];
		}
		return;
	}
	if (!v->unreadable)
		v->unreadable = src_bytes(src, e, bytes, sizeof(bytes));
	memcpy(&v->word, bytes, sizeof(v->word));
	if (src->str < 0 || src->str >= TRACE_MAX_STRS || v->unreadable)
		return;
	if ((e->str_faults >> src->str) & 1) {
		v->unreadable = "<fault>";
		return;
	}
	memcpy(&len, bytes + 8, sizeof(len));
	v->str = e->str[src->str];
	v->str_len = e->str_len[src->str];
	if (v->str_len > str_max)
		v->str_len = str_max;
	v->truncated = len > v->str_len;
}

void trace_row__print_value(const struct trace_row *row, size_t i,
			    const struct trace_event *e,
			    const struct value_printer *p)
{
	const struct trace_src *src = &row->src[i];
	uint8_t bytes[TRACE_SRC_MAX_WORDS * 8];
	const char *marker = src->unreadable;

	if (e->tail)
		marker = "<tail call>";
	if (!marker && src->root_word >= 0)
		marker = word_marker(e, src->root_gate);
	if (!marker && src->root_word >= 0) {
		value_print_at(p, src->type, e->words[src->root_word] +
			       src->root_offset);
		return;
	}
	if (!marker && src->type->size > sizeof(bytes))
		marker = "<too large>";
	if (!marker)
		marker = src_bytes(src, e, bytes, sizeof(bytes));
	if (marker)
		fputs(p->json ? "null" : marker, p->f);
	else
		value_print(p, src->type, bytes);
}
