// SPDX-License-Identifier: MIT
/*
 * Inlined copies (DW_TAG_inlined_subroutine): the one walk over them all
 * (go_dwarf__walk_inlines(), which probe/inline_sites.c shares), where one
 * starts (go_dwarf__inline_entry()), and the parameters of a copy with
 * where its location lists put them at that first instruction
 * (go_dwarf__inline_params()): DWARF location expressions turned into
 * registers and frame slots a probe can read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_dwarf_internal.h"

/* An inlined copy, by its first instruction. */
struct inline_entry {
	uint64_t pc;
	Dwarf_Off off;
};

/* A DIE whose children are still to visit, and the entry of the
 * subprogram they are in. */
struct walk_frame {
	Dwarf_Die die;
	uint64_t caller_entry;
};

struct walk {
	const struct go_binary *bin;
	go_dwarf_inline_fn fn;
	void *ctx;
	struct walk_frame *stack;
	size_t depth, cap;
};

static int walk_fail(const struct walk *w, const char *what)
{
	return gt_error(-EINVAL, "corrupt DWARF in %s: %s: %s",
			w->bin->elf->path, what, dwarf_errmsg(-1));
}

static int walk_push(struct walk *w, Dwarf_Die *die, uint64_t caller_entry)
{
	int err;

	err = gt_ensure_mem((void **)&w->stack, &w->cap, sizeof(*w->stack),
			    w->depth + 1);
	if (err)
		return err;
	w->stack[w->depth].die = *die;
	w->stack[w->depth].caller_entry = caller_entry;
	w->depth++;
	return 0;
}

/*
 * Every DIE under CU_DIE that has children is walked, not only the scopes
 * (subprograms, lexical blocks, copies) that hold copies in gc's and
 * gccgo's DWARF: C compilers nest functions in other DIEs too (C++
 * namespaces and classes). Without recursion: the depth of the tree
 * comes from the file.
 */
static int walk_unit(struct walk *w, Dwarf_Die *cu_die)
{
	Dwarf_Die child;
	int err, ret = 0;

	w->depth = 0;
	err = walk_push(w, cu_die, 0);
	while (!err && w->depth) {
		struct walk_frame f = w->stack[--w->depth];
		Dwarf_Addr low;

		ret = dwarf_child(&f.die, &child);
		if (ret < 0)
			return walk_fail(w, "bad child entry");
		for (; ret == 0 && !err; ret = dwarf_siblingof(&child, &child)) {
			uint64_t caller = f.caller_entry;
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_subprogram)
				caller = dwarf_lowpc(&child, &low) == 0 ? low : 0;
			if (tag == DW_TAG_inlined_subroutine)
				err = w->fn(w->ctx, &child, caller);
			if (!err && dwarf_haschildren(&child) > 0)
				err = walk_push(w, &child, caller);
		}
		if (!err && ret < 0)
			return walk_fail(w, "bad sibling entry");
	}
	return err;
}

int go_dwarf__walk_inlines(const struct go_binary *bin,
			   enum go_dwarf_units units, go_dwarf_inline_fn fn,
			   void *ctx)
{
	struct walk w = { .bin = bin, .fn = fn, .ctx = ctx };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die;
	Dwarf *dw;
	int err, ret = 0;

	err = go_binary__dwarf(bin, &dw);
	if (err)
		return err;
	while (!err && (ret = dwarf_get_units(dw, cu, &cu, NULL, NULL,
					      &cu_die, NULL)) == 0)
		if (units == GO_DWARF_ALL_UNITS ||
		    dwarf_srclang(&cu_die) == DW_LANG_Go)
			err = walk_unit(&w, &cu_die);
	if (!err && ret < 0)
		err = walk_fail(&w, "bad unit header");
	free(w.stack);
	return err;
}

int go_dwarf__inline_entry(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Addr base, start, end, lowest = (Dwarf_Addr)-1;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(die, &start) == 0) {
		*addr = start;
		return 0;
	}
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start < end && start < lowest)
			lowest = start;
	if (off < 0)
		return gt_error(-EINVAL, "corrupt DWARF: bad ranges of an inlined call: %s",
				dwarf_errmsg(-1));
	if (lowest == (Dwarf_Addr)-1)
		return -ENOENT;
	*addr = lowest;
	return 0;
}

/* DIE's ranges, added to *CODE. */
static int add_ranges(Dwarf_Die *die, struct code_span **code, size_t *n,
		      size_t *cap)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int err;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		err = gt_ensure_mem((void **)code, cap, sizeof(**code), *n + 1);
		if (err)
			return err;
		(*code)[(*n)++] = (struct code_span){ start, end };
	}
	if (off < 0)
		return gt_error(-EINVAL, "corrupt DWARF: bad ranges of an inlined call: %s",
				dwarf_errmsg(-1));
	return 0;
}

int go_dwarf__inline_code(Dwarf_Die *die, struct code_span **code, size_t *n)
{
	Dwarf_Die *stack = NULL, child;
	size_t depth = 0, stack_cap = 0, cap = 0;
	int err, ret, tag;

	*code = NULL;
	*n = 0;
	err = add_ranges(die, code, n, &cap);
	if (!err && dwarf_haschildren(die) > 0)
		err = gt_ensure_mem((void **)&stack, &stack_cap,
				    sizeof(*stack), 1);
	if (!err && stack)
		stack[depth++] = *die;
	while (!err && depth) {
		Dwarf_Die parent = stack[--depth];

		for (ret = dwarf_child(&parent, &child); !err && ret == 0;
		     ret = dwarf_siblingof(&child, &child)) {
			tag = dwarf_tag(&child);
			if (tag != DW_TAG_inlined_subroutine &&
			    tag != DW_TAG_lexical_block)
				continue;
			err = add_ranges(&child, code, n, &cap);
			if (!err && dwarf_haschildren(&child) > 0)
				err = gt_ensure_mem((void **)&stack, &stack_cap,
						    sizeof(*stack), depth + 1);
			if (!err && dwarf_haschildren(&child) > 0)
				stack[depth++] = child;
		}
		if (!err && ret < 0)
			err = gt_error(-EINVAL, "corrupt DWARF: bad child of an inlined call: %s",
				       dwarf_errmsg(-1));
	}
	free(stack);
	if (err) {
		free(*code);
		*code = NULL;
		*n = 0;
		return err;
	}
	*n = code_spans__merge(*code, *n);
	return 0;
}

/* By PC; copies nested in each other may start at the same PC, the
 * outer one (whose DIE comes first) first. */
static int cmp_inlines(const void *a, const void *b)
{
	const struct inline_entry *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

struct inline_index {
	struct go_dwarf *d;
	size_t cap;
};

/* Index COPY by its first PC; a copy without code, or whose ranges
 * cannot be read, is left out. */
static int index_copy(void *ctx, Dwarf_Die *copy, uint64_t caller_entry)
{
	struct inline_index *x = ctx;
	struct go_dwarf *d = x->d;
	uint64_t pc;
	int err;

	if (go_dwarf__inline_entry(copy, &pc))
		return 0;
	err = gt_ensure_mem((void **)&d->inlines, &x->cap, sizeof(*d->inlines),
			    d->ninlines + 1);
	if (err)
		return err;
	d->inlines[d->ninlines].pc = pc;
	d->inlines[d->ninlines++].off = dwarf_dieoffset(copy);
	return 0;
}

/*
 * Every inlined copy of the Go units, by its first PC. The Go units only,
 * where inline_sites.c walks all: the locations are read by gc's rules
 * below (its frame base is the CFA), so a C function's copy in a cgo
 * binary is not looked up (-ENOENT), and its C units are not walked for
 * nothing.
 */
static int index_inlines(struct go_dwarf *d)
{
	struct inline_index x = { .d = d };
	int err;

	d->ninlines = 0;
	err = go_dwarf__walk_inlines(d->bin, GO_DWARF_GO_UNITS, index_copy,
				     &x);
	if (err)
		return err;
	if (d->ninlines)
		qsort(d->inlines, d->ninlines, sizeof(*d->inlines), cmp_inlines);
	d->inlines_indexed = true;
	return 0;
}

/* A location operation that puts a piece somewhere: 0 and *P, or -1. */
static int loc_op(const Dwarf_Op *op, struct go_dwarf_loc_piece *p)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		p->kind = GO_DWARF_LOC_REG;
		p->reg = op->atom - DW_OP_reg0;
		return 0;
	}
	if (op->atom == DW_OP_regx && op->number < 256) {
		p->kind = GO_DWARF_LOC_REG;
		p->reg = op->number;
		return 0;
	}
	/* gc's frame base is DW_OP_call_frame_cfa */
	if (op->atom == DW_OP_fbreg) {
		p->kind = GO_DWARF_LOC_CFA;
		p->offset = (int64_t)op->number;
		return 0;
	}
	return -1;
}

/* The pieces of the location expression OPS[N] of a value of SIZE bytes;
 * what a probe cannot read is NONE. */
static void loc_pieces(const Dwarf_Op *ops, size_t n, uint64_t size,
		       struct go_dwarf_inline_param *v)
{
	struct go_dwarf_loc_piece p = { GO_DWARF_LOC_NONE, 0, 0, 0 };
	size_t i;
	bool have = false, bad = false;

	v->npieces = 0;
	for (i = 0; i < n && v->npieces < GO_DWARF_MAX_PIECES; i++) {
		if (ops[i].atom == DW_OP_piece) {
			p.size = ops[i].number;
			if (!have || bad)
				p.kind = GO_DWARF_LOC_NONE;
			v->pieces[v->npieces++] = p;
			memset(&p, 0, sizeof(p));
			have = bad = false;
			continue;
		}
		if (have || loc_op(&ops[i], &p))
			bad = true;	/* an expression, not a place */
		have = true;
	}
	if (have && v->npieces < GO_DWARF_MAX_PIECES) {
		/* one location for the whole value */
		if (bad)
			p.kind = GO_DWARF_LOC_NONE;
		p.size = size;
		v->pieces[v->npieces++] = p;
	}
}

/* Parameter ORIGIN (the abstract one) of COPY, where COPY's own says it
 * is at PC, into V. */
static void locate_param(Dwarf_Die *copy, Dwarf_Die *origin, uint64_t pc,
			 struct go_dwarf_inline_param *v)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, o;
	Dwarf_Op *ops;
	size_t nops;

	v->npieces = 0;
	if (dwarf_child(copy, &child))
		return;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
		    !ref_die(&child, DW_AT_abstract_origin, &o) ||
		    dwarf_dieoffset(&o) != dwarf_dieoffset(origin))
			continue;
		if (!dwarf_attr(&child, DW_AT_location, &attr) ||
		    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1)
			return;
		loc_pieces(ops, nops, v->type ? v->type->size : 0, v);
		return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The params of COPY of the abstract subprogram FN at PC into OUT. */
static int copy_params(struct go_dwarf *d, Dwarf_Die *copy, Dwarf_Die *fn,
		       uint64_t pc, struct go_dwarf_inline_param **out,
		       size_t *n)
{
	struct go_dwarf_inline_param *v = NULL;
	size_t cap = 0;
	Dwarf_Die p;
	int err;

	*n = 0;
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
			    flag(&p, DW_AT_variable_parameter))
				continue;
			err = gt_ensure_mem((void **)&v, &cap, sizeof(*v), *n + 1);
			if (err) {
				free(v);
				return err;
			}
			struct go_dwarf_var var;

			memset(&v[*n], 0, sizeof(v[*n]));
			err = go_dwarf_make_var(d, &p, dwarf_diename(&p), &var);
			if (!err)
				err = go_dwarf_resolve_pending(d);
			v[*n].name = var.name;
			v[*n].type = var.type;
			if (err) {
				free(v);
				return err;
			}
			locate_param(copy, &p, pc, &v[*n]);
			(*n)++;
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	*out = v;
	return 0;
}

int go_dwarf__inline_params(struct go_dwarf *d, uint64_t pc, const char *func,
			    struct go_dwarf_inline_param **out, size_t *n)
{
	Dwarf_Die copy, fn;
	const char *name;
	size_t i, lo, hi;
	int err;

	*out = NULL;
	*n = 0;
	if (!d->inlines_indexed && (err = index_inlines(d)))
		return err;
	/* the first copy at PC: others nested in it may start there too */
	for (lo = 0, hi = d->ninlines; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->inlines[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < d->ninlines && d->inlines[i].pc == pc; i++) {
		if (!dwarf_offdie(d->dw, d->inlines[i].off, &copy) ||
		    !ref_die(&copy, DW_AT_abstract_origin, &fn) ||
		    !(name = dwarf_diename(&fn)) || strcmp(name, func))
			continue;
		return copy_params(d, &copy, &fn, pc, out, n);
	}
	return -ENOENT;
}
