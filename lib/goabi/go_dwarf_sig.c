// SPDX-License-Identifier: MIT
/*
 * The signatures of functions (go_dwarf__func_sig()): the subprograms
 * indexed by entry, their parameters and results, and every rule by which
 * gc's DWARF departs from the ABI, per Go version (go_dwarf.h lists them):
 * a shape instantiation's `.dict`, a compiler-written wrapper's receiver,
 * parameters listed twice; gccgo's and C's results from the C return
 * type; and whether the values fill the frame the pclntab records.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_dwarf_internal.h"
#include "gobin/pclntab.h"

struct func_entry {
	uint64_t entry;
	Dwarf_Off die;
	bool c_style;		/* gccgo or C: results are the DW_AT_type */
	struct go_dwarf_sig *sig;
};

static int cmp_funcs(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static int add_func(struct go_dwarf *d, size_t *cap, uint64_t entry,
		    Dwarf_Off die, bool c_style)
{
	int err;

	err = gt_ensure_mem((void **)&d->funcs, cap, sizeof(*d->funcs),
			    d->nfuncs + 1);
	if (err)
		return err;
	d->funcs[d->nfuncs++] = (struct func_entry){
		.entry = entry, .die = die, .c_style = c_style,
	};
	return 0;
}

/* Every subprogram with code, a child of its unit in gc, gccgo and C,
 * sorted by entry; one per entry. */
static int index_funcs(struct go_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, die;
	Dwarf_Addr low;
	size_t cap = 0, i, n;
	bool c_style;
	int ret, err;

	d->nfuncs = 0;
	while ((ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cu_die,
				      NULL)) == 0) {
		c_style = d->bin->is_gccgo ||
			  dwarf_srclang(&cu_die) != DW_LANG_Go;
		if (dwarf_child(&cu_die, &die))
			continue;
		do {
			if (dwarf_tag(&die) != DW_TAG_subprogram ||
			    dwarf_lowpc(&die, &low))
				continue;
			err = add_func(d, &cap, low, dwarf_dieoffset(&die),
				       c_style);
			if (err)
				return err;
		} while ((ret = dwarf_siblingof(&die, &die)) == 0);
		if (ret < 0)
			return go_dwarf_corrupt(d);
	}
	if (ret < 0)
		return go_dwarf_corrupt(d);
	if (d->nfuncs) {
		qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), cmp_funcs);
		for (i = 1, n = 1; i < d->nfuncs; i++)
			if (d->funcs[i].entry != d->funcs[n - 1].entry)
				d->funcs[n++] = d->funcs[i];
		d->nfuncs = n;
	}
	d->indexed = true;
	return 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Is NAME a shape instantiation of gc, which takes `.dict`? A generic
 * function (main.maxOf[go.shape.int]) or a method of a generic type
 * (main.(*List[go.shape.int]).Push, main.List[go.shape.int].Len); not a
 * closure in one (...].func1, ...).Push.func1, -range1, .gowrap1,
 * .deferwrap1) nor a method value wrapper (-fm). *IS_METHOD: its first
 * parameter is a receiver.
 */
static bool shape_instance(const char *name, bool *is_method)
{
	const char *suffix = strrchr(name, ']'), *p;

	if (!strstr(name, "go.shape.") || !suffix)
		return false;
	suffix++;
	for (p = suffix; *p; p++)
		if (*p == '-' || (*p == '.' && (has_prefix(p, ".func") ||
						has_prefix(p, ".gowrap") ||
						has_prefix(p, ".deferwrap"))))
			return false;
	*is_method = *suffix != '\0';
	return true;
}

/*
 * Is TYPE (the DW_AT_type of FN) gccgo's struct of several results? It is
 * anonymous (a Go struct result is named, through a typedef) and every
 * member is declared where FN is: on its own line of its own file.
 */
static bool gccgo_results_struct(Dwarf_Die *fn, Dwarf_Die *type)
{
	const char *file = dwarf_decl_file(fn), *mfile;
	int line, mline;
	Dwarf_Die m;
	size_t n = 0;

	if (dwarf_tag(type) != DW_TAG_structure_type || dwarf_diename(type) ||
	    !file || dwarf_decl_line(fn, &line) || dwarf_child(type, &m))
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mfile = dwarf_decl_file(&m);
		if (!mfile || strcmp(mfile, file) ||
		    dwarf_decl_line(&m, &mline) || mline != line)
			return false;
		n++;
	} while (dwarf_siblingof(&m, &m) == 0);
	return n > 0;
}

/* gccgo: the results from FN's C return type. */
static int c_results(struct go_dwarf *d, Dwarf_Die *fn,
		     struct go_dwarf_sig *sig, struct go_dwarf_var *results)
{
	Dwarf_Word size;
	Dwarf_Die type, m;
	const char *name;
	int err;

	if (!ref_die(fn, DW_AT_type, &type))
		return 0;	/* void */
	if (dwarf_aggregate_size(&type, &size) == 0)
		sig->c_result_size = size;
	if (!gccgo_results_struct(fn, &type)) {
		sig->nresults = 1;
		results[0].name = go_dwarf_printf(d, "~r0");
		if (!results[0].name)
			return gt_error(-ENOMEM, "out of memory");
		return go_dwarf_type_of(d, &type, 0, &results[0].type);
	}
	dwarf_child(&type, &m);
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		name = dwarf_diename(&m);
		if (!name || !strcmp(name, "UNNAMED"))
			name = go_dwarf_printf(d, "~r%zu", sig->nresults);
		if (!name)
			return gt_error(-ENOMEM, "out of memory");
		err = go_dwarf_make_var(d, &m, name, &results[sig->nresults++]);
		if (err)
			return err;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* The children of DIE tagged TAG. */
static size_t count_children(Dwarf_Die *die, int tag)
{
	Dwarf_Die c;
	size_t n = 0;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == tag;
		while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* Insert gc's `.dict` where the ABI passes it, when DWARF leaves it out. */
static void insert_dict(struct go_dwarf *d, const char *name,
			struct go_dwarf_sig *sig, struct go_dwarf_var *params)
{
	enum go_abi_dict pos = go_abi__dict_position(d->go_minor);
	bool is_method;
	size_t i, at;

	if (!name || !shape_instance(name, &is_method))
		return;
	for (i = 0; i < sig->nparams; i++)
		if (!strcmp(params[i].name, ".dict"))
			return;
	/* A version too old for generics yet with shapes is a devel build:
	 * take the newest rule. */
	at = pos == GO_DICT_FIRST || !is_method || !sig->nparams ? 0 : 1;
	memmove(&params[at + 1], &params[at],
		(sig->nparams - at) * sizeof(*params));
	params[at].name = ".dict";
	params[at].type = &go_type_unsafe_pointer;
	sig->nparams++;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Did the compiler write FN (pointer wrappers, promoted methods, ABI
 * wrappers)? Go 1.21+ marks methods DW_AT_trampoline; all come from
 * "<autogenerated>". */
static bool generated(Dwarf_Die *fn)
{
	return flag(fn, DW_AT_trampoline) ||
	       has_suffix(dwarf_decl_file(fn), "<autogenerated>");
}

/*
 * Go 1.15-1.22 list no receiver for the methods the compiler generates:
 * pkg.(*T).M calling the value method, pkg.T.M promoted from an embedded
 * field (1.15 makes the receiver a DW_TAG_variable). Put it back, unnamed,
 * typed from the name: *pkg.T or pkg.T, unless the first parameter has
 * that type already (Go 1.23+) or DWARF knows no such type (a closure
 * pkg.F.func1 is no method).
 */
static int insert_wrapper_recv(struct go_dwarf *d, const char *name,
			       struct go_dwarf_sig *sig,
			       struct go_dwarf_var *params)
{
	const char *base, *dot, *end, *recv, *tname;
	const struct go_type *t;
	struct go_type *ptr;
	char want[512];
	bool by_ptr;
	int n, err;

	if (!name || strchr(name, '[') || strchr(name, '-'))
		return 0;
	base = strrchr(name, '/');
	dot = strchr(base ? base : name, '.');
	if (!dot)
		return 0;
	by_ptr = !strncmp(dot, ".(*", 3);
	if (by_ptr) {
		end = strstr(dot, ").");
		if (!end || strchr(end + 2, '.'))
			return 0;
		n = snprintf(want, sizeof(want), "*%.*s%.*s",
			     (int)(dot + 1 - name), name,
			     (int)(end - dot - 3), dot + 3);
	} else {
		end = strchr(dot + 1, '.');
		if (!end || strchr(end + 1, '.'))
			return 0;
		n = snprintf(want, sizeof(want), "%.*s", (int)(end - name),
			     name);
	}
	if (n < 0 || (size_t)n >= sizeof(want))
		return 0;
	recv = sig->nparams && params[0].type ? params[0].type->name : NULL;
	if (recv && !strcmp(recv, want))
		return 0;
	tname = want + by_ptr;
	err = go_dwarf_type_by_name(d, tname, &t);
	if (err || !t)
		return err;
	if (by_ptr) {
		ptr = go_dwarf_alloc(d, sizeof(*ptr));
		if (!ptr)
			return gt_error(-ENOMEM, "out of memory");
		set_fixed(ptr, GO_KIND_PTR, 8);
		ptr->elem = t;
		ptr->name = go_dwarf_printf(d, "%s", want);
		t = ptr;
	}
	memmove(&params[1], &params[0], sig->nparams * sizeof(*params));
	params[0].name = "";
	params[0].type = t;
	sig->nparams++;
	return 0;
}

/* Is NAME among the N VARS already? Go 1.18-1.25 list some results twice
 * (golang/go#61357); Go names are unique, "" excepted. */
static bool listed(const struct go_dwarf_var *vars, size_t n,
		   const char *name)
{
	for (size_t i = 0; *name && i < n; i++)
		if (!strcmp(vars[i].name, name))
			return true;
	return false;
}

/* Does SIG make a frame of ARGS bytes under ABI on MACHINE? */
static bool frame_fits(enum go_abi abi, uint16_t machine,
		       const struct go_dwarf_sig *sig,
		       const struct go_type **types, int32_t args)
{
	struct go_abi_sig as = {
		.params = types, .nparams = sig->nparams,
		.results = types + sig->nparams, .nresults = sig->nresults,
		.machine = machine,
	};
	struct go_abi_layout layout;
	bool fits;

	if (go_abi__assign(abi, &as, &layout))
		return false;
	fits = layout.frame_size == (uint64_t)args;
	go_abi_layout__free(&layout);
	return fits;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Collect the entries of the symbols Go's linker names NAME.abi0: the
 * stack-ABI twins of register-ABI functions, and functions that exist in
 * ABI0 only (assembly, cgo's _Cfunc_ stubs). */
static int index_abi0(struct go_dwarf *d)
{
	const struct elf_file *ef = d->bin->elf;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file__section(ef, ".symtab", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i, n, cap = 0;
	const char *name;
	GElf_Sym sym;
	int err;

	d->nabi0 = 0;
	n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
	for (i = 0; i < n && gelf_getsym(data, i, &sym); i++) {
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(ef->elf, sh.sh_link, sym.st_name);
		if (!has_suffix(name, ".abi0"))
			continue;
		err = gt_ensure_mem((void **)&d->abi0, &cap, sizeof(*d->abi0),
				    d->nabi0 + 1);
		if (err)
			return err;
		d->abi0[d->nabi0++] = sym.st_value;
	}
	if (d->nabi0)
		qsort(d->abi0, d->nabi0, sizeof(*d->abi0), cmp_u64);
	d->abi0_indexed = true;
	return 0;
}

/* gc: the ABI of the function at ENTRY, if SIG fills the argument frame
 * that the pclntab records for it (see go_dwarf.h). */
static int frame_abi(struct go_dwarf *d, uint64_t entry,
		     struct go_dwarf_sig *sig)
{
	const struct pclntab *tab = d->bin->pclntab;
	size_t lo = 0, hi = tab ? tab->nfuncs : 0, i, n;
	const struct go_type **types;
	int32_t args;
	int err;

	sig->abi = d->bin->abi;
	if (sig->abi == GO_ABI_REGISTER) {
		if (!d->abi0_indexed && (err = index_abi0(d)))
			return err;
		if (d->nabi0 && bsearch(&entry, d->abi0, d->nabi0,
					sizeof(*d->abi0), cmp_u64))
			sig->abi = GO_ABI_STACK;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->funcs[mid].entry < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!tab || lo == tab->nfuncs || tab->funcs[lo].entry != entry ||
	    pclntab__func_args(tab, lo, &args) || args < 0)
		return 0;
	n = sig->nparams + sig->nresults;
	types = malloc((n ?: 1) * sizeof(*types));
	if (!types)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		types[i] = i < sig->nparams ? sig->params[i].type :
			   sig->results[i - sig->nparams].type;
		if (!types[i])
			break;
	}
	if (i == n && !frame_fits(sig->abi, d->bin->elf->machine, sig, types, args))
		sig->abi = GO_ABI_UNKNOWN;
	free(types);
	gt_error_clear();
	return 0;
}

static int build_sig(struct go_dwarf *d, struct func_entry *e,
		     struct go_dwarf_sig **out)
{
	struct go_dwarf_var *params, *results, *v;
	struct go_dwarf_sig *sig;
	Dwarf_Die fn, c, type;
	const char *name;
	size_t n, nres;
	bool is_result, gen;
	int err = 0;

	if (!dwarf_offdie(d->dw, e->die, &fn))
		return go_dwarf_corrupt(d);
	n = count_children(&fn, DW_TAG_formal_parameter);
	nres = n;
	if (e->c_style)
		nres = ref_die(&fn, DW_AT_type, &type) ?
			count_children(&type, DW_TAG_member) + 1 : 0;
	sig = go_dwarf_alloc(d, sizeof(*sig));
	/* Room for a `.dict` or a wrapper's receiver. */
	params = go_dwarf_alloc(d, (n + 1) * sizeof(*params));
	results = go_dwarf_alloc(d, (nres + 1) * sizeof(*results));
	if (!sig || !params || !results)
		return gt_error(-ENOMEM, "out of memory");
	if (n)
		dwarf_child(&fn, &c);
	for (size_t i = 0; i < n; i++) {
		while (dwarf_tag(&c) != DW_TAG_formal_parameter)
			dwarf_siblingof(&c, &c);
		name = dwarf_diename(&c) ?: "";
		is_result = !e->c_style && flag(&c, DW_AT_variable_parameter);
		if (!listed(is_result ? results : params,
			    is_result ? sig->nresults : sig->nparams, name)) {
			v = is_result ? &results[sig->nresults++] :
					&params[sig->nparams++];
			err = go_dwarf_make_var(d, &c, name, v);
			if (err)
				return err;
		}
		if (i + 1 < n)
			dwarf_siblingof(&c, &c);
	}
	gen = !e->c_style && generated(&fn);
	if (e->c_style)
		err = c_results(d, &fn, sig, results);
	else if (gen)
		err = insert_wrapper_recv(d, dwarf_diename(&fn), sig, params);
	else
		insert_dict(d, dwarf_diename(&fn), sig, params);
	if (!err)
		err = go_dwarf_resolve_pending(d);
	if (err)
		return err;
	sig->params = params;
	sig->results = results;
	if (e->c_style)
		sig->abi = GO_ABI_C;
	else if (has_suffix(dwarf_decl_file(&fn), ".s"))
		sig->abi = GO_ABI_UNKNOWN;	/* assembly: no parameters */
	else if ((err = frame_abi(d, e->entry, sig)))
		return err;
	*out = sig;
	return 0;
}

int go_dwarf__func_sig(struct go_dwarf *d, uint64_t entry,
		       struct go_dwarf_sig *out)
{
	size_t lo = 0, hi;
	int err;

	memset(out, 0, sizeof(*out));
	if (!d->indexed) {
		err = index_funcs(d);
		if (err)
			return err;
	}
	hi = d->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].entry < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nfuncs || d->funcs[lo].entry != entry)
		return gt_error(-ENOENT, "no DWARF subprogram at 0x%llx",
				(unsigned long long)entry);
	if (!d->funcs[lo].sig) {
		err = build_sig(d, &d->funcs[lo], &d->funcs[lo].sig);
		if (err)
			return err;
	}
	*out = *d->funcs[lo].sig;
	return 0;
}
