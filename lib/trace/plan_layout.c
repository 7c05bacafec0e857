// SPDX-License-Identifier: MIT
/*
 * Where a traced function's values are at its probe: its signature from
 * DWARF, else (a method) from its receiver type's method table, else from
 * the format's conversions, placed by goabi/go_abi.h for the binary's
 * calling convention; an inlined copy's arguments where DWARF's location
 * lists put them at its first instruction (plan_internal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/pclntab.h"
#include "goabi/go_abi.h"
#include "probe/machine_code.h"
#include "trace/plan_internal.h"

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
	sig.machine = pl->bin->elf->machine;
	err = go_abi__assign(pl->sig.abi, &sig, &pl->layout);
	free(types);
	return err;
}

/* _func.args of the function at ADDR (pclntab): the bytes of its
 * arguments and results in the caller's frame. 0, or -ENOENT. */
static int func_args_size(const struct planner *pl, uint64_t addr,
			  int32_t *args)
{
	const struct pclntab *tab = pl->bin->pclntab;
	size_t lo = 0, hi = tab ? tab->nfuncs : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tab->funcs[mid].entry < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!tab || lo == tab->nfuncs || tab->funcs[lo].entry != addr ||
	    pclntab__func_args(tab, lo, args) || *args < 0) {
		gt_error_clear();
		return -ENOENT;
	}
	return 0;
}

/*
 * Under the stack ABI the results follow the arguments, whose types an r:
 * probe's format does not give. _func.args (pclntab) is the size of both:
 * taking the printed results for all of them, they end there.
 */
static int move_stack_results(struct planner *pl, uint64_t addr)
{
	struct go_abi_layout *l = &pl->layout;
	size_t i, k;
	int32_t args;
	int64_t shift;

	if (func_args_size(pl, addr, &args))
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

/*
 * %T of an argument of a shape instantiation, in a stripped binary: its
 * type argument is named by the dictionary the call is passed, whose
 * symbol stripping removes, and the dictionary's words do not say it
 * (from Go 1.20 they are the descriptors its body uses, in its own order,
 * with no length): said rather than guessed.
 */
static int type_arg_unnamed(const struct trace_probe *probe)
{
	size_t i;

	for (i = 0; i < probe->nconvs; i++)
		if (probe->convs[i].kind == TRACE_CONV_TYPE &&
		    !probe->convs[i].expr.conv)
			return gt_error(-EINVAL, "%%T of '%s': a type argument is named by the dictionary the call is passed, whose symbol the stripped binary does not keep",
					probe->convs[i].expr.text);
	return 0;
}

/* Place the values the format types (no DWARF). A shape instantiation
 * takes a hidden dictionary; pclntab spells every instantiation F[...]
 * before Go 1.20: in a stripped binary an F[...] is taken for the shape
 * one. */
static int layout_from_format(struct planner *pl, uint64_t addr,
			      uint64_t c_result_size)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS], *mem_result;
	struct trace_type_finder finder = { planner__find_type, pl };
	const struct trace_probe *probe = pl->probe;
	struct go_abi_sig sig = { 0 };
	struct go_type big;
	bool shape;
	size_t n;
	int err;

	shape = (strstr(pl->func, "[go.shape.") || strstr(pl->func, "[...]")) &&
		!pl->bin->is_gccgo;
	err = shape ? type_arg_unnamed(probe) : 0;
	if (!err)
		err = trace_probe__types(probe, probe->ret, &finder, types, &n);
	if (err)
		return err;
	if (shape)
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
	/* gccgo: results over 16 bytes go to memory whose address takes RDI
	 * (x86-64; arm64 passes it in X8, no argument's register); any such
	 * result stands for the real ones */
	if (n && !probe->ret && c_result_size > 16) {
		err = go_type__init_array(&big, &go_type_uint8, 32);
		if (err)
			return err;
		mem_result = &big;
		sig.results = &mem_result;
		sig.nresults = 1;
	}
	sig.machine = pl->bin->elf->machine;
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

/* Room for N arguments in L, placed by the caller. */
static int layout_alloc_args(struct go_abi_layout *l, size_t n)
{
	l->args = calloc(n ? n : 1, sizeof(*l->args));
	if (!l->args)
		return gt_error(-ENOMEM, "out of memory");
	l->nargs = n;
	return 0;
}

/* The basic type of a raw word of SIZE bytes: unsigned, or a float. */
static const struct go_type *raw_type(unsigned int size, bool freg)
{
	if (freg)
		return size == 4 ? &go_type_float32 : &go_type_float64;
	switch (size) {
	case 1:
		return &go_type_uint8;
	case 2:
		return &go_type_uint16;
	case 4:
		return &go_type_uint32;
	default:
		return &go_type_uint64;
	}
}

/*
 * A bare entry probe of a function nothing types, under the register ABI:
 * the words its morestack tail spills, each in its register
 * (site/arg_spills.h), as PL's layout; one that spills none and has no
 * arguments or results (_func.args 0) is typed as having none. Returns
 * 0, or a negative errno when there is no tail to read or it is not what
 * Go writes.
 */
static int layout_from_spills(struct planner *pl, uint64_t addr)
{
	struct arg_spill spills[ARG_SPILLS_MAX];
	const struct code_span *t = &pl->morestack_tail;
	struct go_abi_layout *l = &pl->layout;
	const uint8_t *code;
	int32_t args;
	size_t n, i;
	int err;

	if (t->to <= t->from)
		return -ENOENT;
	err = elf_file__read_vaddr(pl->bin->elf, t->from, t->to - t->from, &code);
	if (!err)
		err = machine_code__arg_spills(pl->bin, code, t->to - t->from,
					       t->from, spills, &n);
	if (err) {
		gt_error_clear();
		return err;
	}
	/* no argument or result at all: "()", as DWARF would say */
	if (!n && !func_args_size(pl, addr, &args) && !args) {
		memset(&pl->sig, 0, sizeof(pl->sig));
		pl->dwarf = true;
		return 0;
	}
	err = layout_alloc_args(l, n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		struct go_abi_value *v = &l->args[i];

		v->type = raw_type(spills[i].size, spills[i].freg);
		v->spill_offset = -1;
		v->npieces = 1;
		v->pieces[0] = (struct go_abi_piece){
			.kind = spills[i].freg ? GO_PIECE_FREG : GO_PIECE_IREG,
			.reg = spills[i].reg, .size = spills[i].size,
		};
	}
	pl->raw_words = true;
	return 0;
}

/* Does PL's probe print raw words where nothing types its function: a bare
 * entry probe without a filter, on register-ABI gc code? */
static bool wants_raw_words(const struct planner *pl)
{
	return pl->probe->bare && !pl->probe->ret && !pl->probe->nterms &&
	       pl->bin->abi == GO_ABI_REGISTER && !pl->bin->is_gccgo;
}

int planner__place(struct planner *pl, struct go_dwarf *dw, uint64_t addr,
		   struct go_dwarf_var *vars)
{
	pl->gccgo_method = pl->bin->is_gccgo && gccgo_method(pl->func);
	/* DWARF that misses a parameter would misplace the rest: then the
	 * format types the values, as without DWARF */
	if (dw && !go_dwarf__func_sig(dw, addr, &pl->sig) &&
	    sig_typed(&pl->sig) && pl->sig.abi != GO_ABI_UNKNOWN)
		pl->dwarf = true;
	else if (!pl->bin->is_gccgo && pl->td && !method_sig(pl, addr, vars))
		pl->dwarf = true;	/* typed as DWARF would */
	if (pl->dwarf)
		return layout_from_dwarf(pl);
	if (wants_raw_words(pl) && !layout_from_spills(pl, addr))
		return 0;
	return layout_from_format(pl, addr, dw ? pl->sig.c_result_size : 0);
}

/* DWARF's register REG of MACHINE as P's: an integer register BPF holds
 * (REGS_BY_DWARF: 0 to 15), or a float one. False for another. */
static bool piece_reg(uint16_t machine, unsigned int reg,
		      struct go_abi_piece *p)
{
	enum go_piece_kind kind;
	uint8_t r;

	if (go_abi__dwarf_reg(machine, reg, &kind, &r) ||
	    (kind == GO_PIECE_IREG && r >= 16))
		return false;
	p->kind = kind;
	p->reg = r;
	return true;
}

int planner__place_inlined(struct planner *pl, uint64_t site,
			   const struct go_dwarf_inline_param *params, size_t n,
			   struct go_dwarf_var *vars)
{
	struct go_abi_layout *l = &pl->layout;
	uint16_t machine = pl->bin->elf->machine;
	int cfa = go_abi__cfa_offset(machine);
	int32_t frame = -1;
	size_t i, k;

	if (!pl->bin->pclntab || pclntab__frame_size_at(pl->bin->pclntab, site, &frame) ||
	    cfa < 0)
		frame = -1;
	gt_error_clear();
	if (layout_alloc_args(l, n))
		return -ENOMEM;
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
			if (d->kind == GO_DWARF_LOC_REG &&
			    piece_reg(machine, d->reg, p))
				continue;
			/* the CFA is SP at the site + its frame + the
			 * CFA's offset from SP at entry */
			if (d->kind == GO_DWARF_LOC_CFA && frame >= 0) {
				p->kind = GO_PIECE_STACK;
				p->mem_offset = frame + cfa + d->offset;
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
